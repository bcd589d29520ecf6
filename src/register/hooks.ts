import { writeSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { InitializeHook, LoadHook, ResolveHook } from "node:module";
import { compileProgram } from "../compiler/compile.js";
import type { ModuleOutput } from "../compiler/emit/module.js";
import { formatDiagnostics, stderrOptions } from "../compiler/diagnostics/report.js";
import { isRelativeSpecifier, resolveRelative } from "../compiler/parse/program.js";
import { DiskCache, cacheDirectory } from "./cache.js";

// Node module hooks: TypeScript files of the user's program are served compiled by nabla,
// with their derivatives; `nabla` resolves to the running nabla, wherever the program lives.

const RUNTIME_URL = new URL("../runtime/index.js", import.meta.url).href;
const TS_FILE = /\.(c|m)?tsx?$/;

/**
 * Outputs by file. A whole program is compiled when its first file loads; a file outside
 * it (a dynamic import, another program in the same process) starts a program of its own,
 * whose files already loaded keep the code they run.
 */
const compiled = new Map<string, ModuleOutput>();
let useDiskCache = false;

export interface HooksData {
  /** Outputs compiled ahead of time (by `nabla run`), by file. */
  outputs?: [string, ModuleOutput][];
  /** Reuse compiled programs across starts (see cache.ts), unless NABLA_CACHE=0. */
  diskCache?: boolean;
}

export const initialize: InitializeHook<HooksData | undefined> = (data) => {
  for (const [file, output] of data?.outputs ?? []) compiled.set(file, output);
  useDiskCache = (data?.diskCache ?? false) && process.env.NABLA_CACHE !== "0";
};

export const resolve: ResolveHook = (specifier, context, next) => {
  if (specifier === "nabla" || specifier === "nabla/runtime")
    return { url: RUNTIME_URL, shortCircuit: true };
  if (isRelativeSpecifier(specifier) && context.parentURL?.startsWith("file:")) {
    const file = resolveRelative(fileURLToPath(context.parentURL), specifier);
    if (file && TS_FILE.test(file))
      return { url: pathToFileURL(file).href, format: "module", shortCircuit: true };
  }
  return next(specifier, context);
};

export const load: LoadHook = (url, context, next) => {
  if (!url.startsWith("file:") || !TS_FILE.test(url)) return next(url, context);
  const file = fileURLToPath(url);
  if (!compiled.has(file)) compileWith(file);
  const output = compiled.get(file)!;
  const map = Buffer.from(JSON.stringify(output.map)).toString("base64");
  return {
    format: "module",
    source: `${output.code}//# sourceMappingURL=data:application/json;base64,${map}\n`,
    shortCircuit: true,
  };
};

/** Compiles the program whose entry is `file`, or takes it from the disk cache. */
function compileWith(file: string): void {
  const cache = useDiskCache ? new DiskCache(cacheDirectory(file)) : undefined;
  const cached = cache?.lookup(file);
  if (cached) {
    if (cached.warnings) process.stderr.write(cached.warnings + "\n");
    for (const [f, o] of cached.outputs) if (!compiled.has(f)) compiled.set(f, o);
    return;
  }
  const result = compileProgram([file]);
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
  // Files already running keep the code they run; the others take the new compile's.
  for (const [f, o] of result.outputs) if (!compiled.has(f)) compiled.set(f, o);
  // Stored without colors: the start that prints them may not write to a terminal.
  cache?.store(file, result.inputs(), result.outputs, format(false));
}
