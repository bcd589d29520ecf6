import { readFileSync } from "node:fs";
import { compileProgram, type CompileOptions, type CompileResult } from "./compile.js";
import type { Diagnostic } from "./diagnostics/diagnostic.js";
import type { ModuleOutput } from "./emit/js/module.js";

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
  /** The last compile, with every file it read and that file's text then. */
  private last:
    { result: CompileResult; inputs: Map<string, string>; probes: ReadonlySet<string> } | undefined;

  /** `options.backend`: the program-wide backend of every compile (CompileOptions.backend). */
  constructor(private readonly options: Pick<CompileOptions, "backend"> = {}) {}

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
      const failed = last.result.diagnostics.some((d) => d.severity === "error");
      if (failed || last.result.outputs.has(file)) return resultFor(file, last.result, false);
    }
    this.roots.add(file);
    const result = compileProgram([...this.roots], {
      sources: this.overrides,
      ...(this.options.backend ? { backend: this.options.backend } : {}),
    });
    this.last = { result, inputs: result.inputs(), probes: new Set(result.probes().keys()) };
    return resultFor(file, result, true);
  }

  /**
   * The output the last compile made for `file`, without compiling: a host compares it with
   * what it served to find the modules a later compile changed (new derivatives a newly
   * compiled caller asks for).
   */
  currentOutput(file: string): ModuleOutput | undefined {
    const result = this.last?.result;
    if (!result || result.diagnostics.some((d) => d.severity === "error")) return undefined;
    return result.outputs.get(file);
  }

  /**
   * Forgets what is known of `file`: the host saw it change, appear, or disappear (`removed`).
   * A file appearing where module resolution looked (`lib.ts` next to `lib/index.ts`) can
   * change what an import names, so it too makes the next compile a new one.
   */
  invalidate(file: string, removed = false): void {
    this.overrides.delete(file);
    if (removed) this.roots.delete(file);
    if (this.last?.inputs.has(file) || this.last?.probes.has(file)) this.last = undefined;
  }
}

/** What the host gets for `file` from a compile: no output if the compile failed. */
function resultFor(file: string, result: CompileResult, fresh: boolean): FileResult {
  const found: FileResult = {
    diagnostics: result.diagnostics,
    fresh,
    sourceText: result.sourceText,
  };
  const failed = result.diagnostics.some((d) => d.severity === "error");
  const output = result.outputs.get(file);
  if (output && !failed) found.output = output;
  return found;
}
