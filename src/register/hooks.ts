import { writeSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { InitializeHook, LoadHook, ResolveHook } from "node:module";
import { compileWithLargeStack } from "../compiler/large-stack.js";
import type { ModuleOutput } from "../compiler/emit/js/module.js";
import { formatDiagnostics, stderrOptions } from "../compiler/diagnostics/report.js";
import { resolveImport } from "../compiler/parse/program.js";
import { openDiskCache } from "./cache.js";
import type { Backend } from "../api/wasm-entry.js";

// Node module hooks: TypeScript files of the user's program are served compiled by nabla,
// with their derivatives; `nabla` resolves to the running nabla, wherever the program lives.

const RUNTIME_URL = new URL("../runtime/index.js", import.meta.url).href;
const TS_FILE = /\.(c|m)?tsx?$/;

/**
 * Outputs by file. A whole program is compiled when its first file loads; a file outside
 * it (a dynamic import, another program in the same process) starts a program of its own.
 * Files already loaded keep the code they run; where the new program's code for one differs
 * (derivatives it needs are emitted there), its modules import a copy of that file of their
 * own, under the URL `…?nabla=<program>` (see `variants`).
 */
const compiled = new Map<string, ModuleOutput>();
/** Program-specific copies of files, by `file?nabla=<program>`. */
const variants = new Map<string, ModuleOutput>();
/** The program whose code a file loaded under its plain URL runs. */
const programOfFile = new Map<string, number>();
let programs = 0;
let useDiskCache = false;
let backend: Backend | undefined;

export interface HooksData {
  /** Outputs compiled ahead of time (by `nabla run`), by file. */
  outputs?: [string, ModuleOutput][];
  /** Reuse compiled programs across starts (see cache.ts), unless NABLA_CACHE=0. */
  diskCache?: boolean;
  /** The program-wide backend of operator calls (`nabla run --backend`). */
  backend?: Backend;
}

export const initialize: InitializeHook<HooksData | undefined> = (data) => {
  if (data?.outputs) adopt(data.outputs);
  useDiskCache = (data?.diskCache ?? false) && process.env.NABLA_CACHE !== "0";
  backend = data?.backend;
};

export const resolve: ResolveHook = (specifier, context, next) => {
  if (specifier === "nabla" || specifier === "nabla/runtime")
    return { url: RUNTIME_URL, shortCircuit: true };
  if (context.parentURL?.startsWith("file:")) {
    // A relative import, or an alias of the project's tsconfig `paths` (Node knows neither).
    const parent = new URL(context.parentURL);
    const file = resolveImport(fileURLToPath(parent), specifier);
    if (file && TS_FILE.test(file)) {
      // A module of a later program imports that program's copy of a file, if it has one.
      const program =
        parent.searchParams.get("nabla") ?? programOfFile.get(fileURLToPath(parent))?.toString();
      const variant = program !== undefined ? `${file}?nabla=${program}` : undefined;
      const url =
        pathToFileURL(file).href + (variant && variants.has(variant) ? `?nabla=${program}` : "");
      return { url, format: "module", shortCircuit: true };
    }
  }
  return next(specifier, context);
};

export const load: LoadHook = (url, context, next) => {
  if (!url.startsWith("file:")) return next(url, context);
  const parsed = new URL(url);
  const file = fileURLToPath(parsed);
  if (!TS_FILE.test(file)) return next(url, context);
  const program = parsed.searchParams.get("nabla");
  if (program === null && !compiled.has(file)) compileWith(file);
  const output =
    program === null
      ? compiled.get(file)!
      : (variants.get(`${file}?nabla=${program}`) ?? compiled.get(file)!);
  const map = Buffer.from(JSON.stringify(output.map)).toString("base64");
  return {
    format: "module",
    source: `${output.code}//# sourceMappingURL=data:application/json;base64,${map}\n`,
    shortCircuit: true,
  };
};

/** Compiles the program whose entry is `file`, or takes it from the disk cache. */
function compileWith(file: string): void {
  // The options the outputs depend on: stored warnings name files relative to the folder.
  const cache = useDiskCache
    ? openDiskCache(file, { cwd: process.cwd(), ...(backend ? { backend } : {}) })
    : undefined;
  const cached = cache?.lookup(file);
  if (cached) {
    if (cached.warnings) process.stderr.write(cached.warnings + "\n");
    adopt(cached.outputs);
    return;
  }
  // On a thread with a large stack, as `nabla check` compiles: the same verdict on any input.
  const result = compileWithLargeStack({
    entries: [file],
    inputs: useDiskCache,
    ...(backend ? { backend } : {}),
  });
  const format = (color: boolean) =>
    result.diagnostics.length > 0
      ? formatDiagnostics(result.diagnostics, result.sourceText, { ...stderrOptions(), color })
      : "";
  const text = format(stderrOptions().color ?? false);
  if (result.diagnostics.some((d) => d.severity === "error")) {
    if (compiled.size === 0) {
      // The program's own files: a build error, reported as `nabla check` would.
      writeSync(2, text + "\n");
      process.exit(1);
    }
    // A file imported later, perhaps by a dynamic import the program can catch.
    const error = new Error(`nabla could not compile ${file}:\n${text}`);
    // The diagnostics say where the problem is; the loader's own frames would only hide them.
    error.stack = error.message;
    throw error;
  }
  if (text) process.stderr.write(text + "\n");
  adopt(result.outputs);
  // Stored without colors: the start that prints them may not write to a terminal.
  cache?.store(
    file,
    { inputs: result.inputs(), probes: result.probes() },
    result.outputs,
    format(false),
  );
}

/**
 * Takes a compiled program's outputs: files not loaded yet are served as compiled; a file
 * already loaded with other code gets a copy of its own for this program (see `variants`).
 */
function adopt(outputs: Iterable<[string, ModuleOutput]>): void {
  const program = programs++;
  for (const [file, output] of outputs) {
    const loaded = compiled.get(file);
    if (!loaded) {
      compiled.set(file, output);
      programOfFile.set(file, program);
    } else if (loaded.code !== output.code) {
      variants.set(`${file}?nabla=${program}`, output);
    }
  }
}
