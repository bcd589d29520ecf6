import type { SourceLoc } from "../ir/types.js";

/** An error stops the compile (no outputs); a warning does not. */
export type Severity = "error" | "warning";

/** A note attached to a diagnostic, such as one step of the call chain that led to it. */
export interface DiagnosticNote {
  /** The note's text. */
  message: string;
  /** Where it points, if anywhere (same form as {@link Diagnostic.loc}). */
  loc?: SourceLoc;
}

/** A problem the compiler found: where, why, and the notes that explain how it got there. */
export interface Diagnostic {
  /** `error` or `warning`: only errors stop the compile. */
  severity: Severity;
  /** Stable code, e.g. NABLA101; every code is listed in docs/diagnostics.md. */
  code: string;
  /** What is wrong, in one sentence or two. */
  message: string;
  /** The source range: `file`, and `start`/`end` as UTF-16 offsets into its text. */
  loc: SourceLoc;
  /** Further context: the call chain, the operator call that asked for the derivative. */
  notes: DiagnosticNote[];
  /** What to write instead, when the message does not say it: printed as `help: …`. */
  help?: string;
}

/**
 * Thrown to abandon differentiating one function after its diagnostic has been recorded.
 * Never escapes the compiler: the driver catches it and reports what was collected.
 */
export class CompileAbort extends Error {
  constructor(
    readonly diagnostic: Diagnostic,
    /** Further errors of the same function, independent of the first (lower/recovery.ts). */
    readonly more: readonly Diagnostic[] = [],
  ) {
    super(diagnostic.message);
  }
}

/** Collects diagnostics for one compilation, dropping exact duplicates. */
export class DiagnosticBag {
  readonly items: Diagnostic[] = [];
  private readonly seen = new Set<string>();

  add(d: Diagnostic): void {
    const key = `${d.code}|${d.loc.file}|${d.loc.start}|${d.message}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.items.push(d);
  }

  /**
   * Puts the diagnostics in source order: files in `files` order (others after, by name),
   * then by position. The order they were found in follows the work queue, not the code.
   */
  sortBySource(files: readonly string[]): void {
    const rank = (file: string) => {
      const i = files.indexOf(file);
      return i < 0 ? files.length : i;
    };
    this.items.sort(
      (a, b) =>
        rank(a.loc.file) - rank(b.loc.file) ||
        (a.loc.file < b.loc.file ? -1 : a.loc.file > b.loc.file ? 1 : 0) ||
        a.loc.start - b.loc.start,
    );
  }

  get hasErrors(): boolean {
    return this.items.some((d) => d.severity === "error");
  }
}
