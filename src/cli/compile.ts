import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { formatDiagnostics, stderrOptions } from "../compiler/diagnostics/report.js";
import { compileWithLargeStack, type LargeStackResult } from "../compiler/large-stack.js";
import { JAVASCRIPT_FILE, typeScriptRoots } from "./javascript-entry.js";
import { jsonReport } from "./json-report.js";
import type { Backend } from "../api/wasm-entry.js";

// Compiling for `nabla emit`, `check` and `build`, with the diagnostics reported.

/** How diagnostics are reported: as text on stderr, or as JSON on stdout (`check`). */
export type Format = "text" | "json";

export interface CompileRequest {
  /** The entry files, as the user named them. */
  files: string[];
  ir?: boolean;
  /** Print each function after this pass instead (`emit --ir --print-after=<pass>`). */
  printAfter?: string;
  /** Print the activity of each function differentiated instead (`emit --activity`). */
  activity?: boolean;
  format?: Format;
  /** The program-wide backend of operator calls (`--backend`). */
  backend?: Backend;
}

/** Whether `file` is a file; if not, says so. */
export function existsFile(file: string): boolean {
  const path = resolve(file);
  if (!existsSync(path)) {
    process.stderr.write(`nabla: cannot find '${file}'\n`);
    return false;
  }
  if (!statSync(path).isFile()) {
    process.stderr.write(`nabla: '${file}' is a directory; give the TypeScript file to compile\n`);
    return false;
  }
  return true;
}

/** Compiles the files together and reports the diagnostics; no result if there were errors. */
export function compileFiles(request: CompileRequest): LargeStackResult | undefined {
  const { files, ir = false, printAfter, activity = false, format = "text", backend } = request;
  if (!files.every(existsFile)) return undefined;
  const entry = resolve(files[0]!);
  let roots = files.map((f) => resolve(f));
  if (files.length === 1 && JAVASCRIPT_FILE.test(entry)) {
    // As `run` does: the JavaScript runs as written, the TypeScript it imports is compiled.
    roots = typeScriptRoots(entry);
    process.stderr.write(
      `nabla: ${files[0]} is JavaScript, which runs as written (its operator calls are compiled at run time); ` +
        (roots.length > 0
          ? "compiling the TypeScript files it imports\n"
          : "it imports no TypeScript files to compile\n"),
    );
  }
  // On a thread with a large stack, as the loader compiles for `nabla run`.
  const result = compileWithLargeStack({
    entries: roots,
    ir,
    ...(printAfter ? { printAfter } : {}),
    ...(activity ? { activity } : {}),
    ...(backend ? { backend } : {}),
  });
  if (format === "json")
    process.stdout.write(jsonReport(result.diagnostics, result.sourceText, roots) + "\n");
  else if (result.diagnostics.length > 0)
    process.stderr.write(
      formatDiagnostics(result.diagnostics, result.sourceText, stderrOptions()) + "\n",
    );
  return result.diagnostics.some((d) => d.severity === "error") ? undefined : result;
}
