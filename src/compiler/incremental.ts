import { readFileSync } from "node:fs";
import { compileProgram } from "./compile.js";
import type { Diagnostic } from "./diagnostics/diagnostic.js";
import type { ModuleOutput } from "./emit/module.js";

// The compiler as a host (the Node loader, a bundler) meets it: one file at a time, in the
// order the host loads them. Derivatives are emitted in the module that defines the function,
// so a file is never compiled alone: the first file asked for becomes the root of a program,
// and every file that program reaches is served from the same compile. A file outside every
// program so far becomes one more root, and all roots are compiled together, so a module
// shared by two entries carries the derivatives both need.

/** What a host gets for one file. */
export interface FileResult {
  /** The compiled module; undefined when the program has errors. */
  output?: ModuleOutput;
  /** Diagnostics of the compile the output comes from. */
  diagnostics: Diagnostic[];
  /** False when the compile was done for an earlier file, whose host already saw its diagnostics. */
  fresh: boolean;
  /** The text the compile read for `file` (what diagnostics point into), if it read it. */
  sourceText(file: string): string | undefined;
  /** Every file the compile read, with its text: what decides whether an output is stale. */
  inputs: Map<string, string>;
}

interface Compiled {
  outputs: Map<string, ModuleOutput>;
  diagnostics: Diagnostic[];
  sourceText(file: string): string | undefined;
  inputs: Map<string, string>;
}

/**
 * The compiler for a host that loads one file at a time (the Node loader, a bundler plugin).
 * The first file asked for becomes the root of a program compiled whole; the files it reaches
 * are served from that compile until one changes. A file no compile reached becomes one more
 * root, and all roots are compiled together.
 *
 * @example
 * ```ts
 * import { IncrementalCompiler, formatDiagnostics } from "nabla/compiler";
 *
 * const compiler = new IncrementalCompiler();
 * const result = compiler.compile("/abs/path/main.ts");
 * if (result.fresh && result.diagnostics.length > 0)
 *   console.error(formatDiagnostics(result.diagnostics, result.sourceText));
 * const code = result.output?.code; // undefined when the program has errors
 * ```
 */
export class IncrementalCompiler {
  private readonly roots = new Set<string>();
  /** Source text given by the host (a bundler passes the text it loaded), by file. */
  private readonly overrides = new Map<string, string>();
  private last: Compiled | undefined;

  /**
   * The output for `file`. `text` is its current source when the host has it; otherwise the
   * file is read from disk. A file whose text changed since the last compile, or that the
   * last compile did not reach, causes a new compile of every root.
   */
  compile(file: string, text?: string): FileResult {
    const current = text ?? readFileSync(file, "utf8");
    if (text !== undefined) this.overrides.set(file, text);
    const last = this.last;
    if (last && last.inputs.get(file) === current) {
      const failed = last.diagnostics.some((d) => d.severity === "error");
      if (failed || last.outputs.has(file))
        return { ...last, output: last.outputs.get(file), fresh: false };
    }
    this.roots.add(file);
    const result = compileProgram([...this.roots], { sources: this.overrides });
    const failed = result.diagnostics.some((d) => d.severity === "error");
    this.last = {
      outputs: failed ? new Map() : result.outputs,
      diagnostics: result.diagnostics,
      sourceText: result.sourceText,
      inputs: result.inputs(),
    };
    return { ...this.last, output: this.last.outputs.get(file), fresh: true };
  }

  /** Forgets what is known of `file`: the host saw it change, or disappear (`removed`). */
  invalidate(file: string, removed = false): void {
    this.overrides.delete(file);
    if (removed) this.roots.delete(file);
    if (this.last?.inputs.has(file)) this.last = undefined;
  }
}
