import { fileURLToPath, pathToFileURL } from "node:url";
import type { InitializeHook, LoadHook, ResolveHook } from "node:module";
import { compileProgram } from "../compiler/compile.js";
import type { ModuleOutput } from "../compiler/emit/module.js";
import { formatDiagnostics } from "../compiler/diagnostics/report.js";
import { isRelativeSpecifier, resolveRelative } from "../compiler/parse/program.js";

// Node module hooks: TypeScript files of the user's program are served compiled by nabla,
// with their derivatives; `nabla` resolves to the running nabla, wherever the program lives.

const RUNTIME_URL = new URL("../runtime/index.js", import.meta.url).href;
const TS_FILE = /\.(c|m)?tsx?$/;

/** Outputs by file. A whole program is compiled when its first file loads. */
const compiled = new Map<string, ModuleOutput>();

export interface HooksData {
  /** Outputs compiled ahead of time (by `nabla run`), by file. */
  outputs?: [string, ModuleOutput][];
}

export const initialize: InitializeHook<HooksData | undefined> = (data) => {
  for (const [file, output] of data?.outputs ?? []) compiled.set(file, output);
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
  let output = compiled.get(file);
  if (!output) {
    const result = compileProgram([file]);
    if (result.diagnostics.some((d) => d.severity === "error")) {
      throw new Error(
        `nabla could not compile ${file}:\n${formatDiagnostics(result.diagnostics, result.sourceText)}`,
      );
    }
    for (const [f, o] of result.outputs) if (!compiled.has(f)) compiled.set(f, o);
    output = compiled.get(file)!;
  }
  const map = Buffer.from(JSON.stringify(output.map)).toString("base64");
  return {
    format: "module",
    source: `${output.code}//# sourceMappingURL=data:application/json;base64,${map}\n`,
    shortCircuit: true,
  };
};
