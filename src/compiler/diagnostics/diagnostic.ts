import type { SourceLoc } from "../ir/types.js";

export type Severity = "error" | "warning";

export interface DiagnosticNote {
  message: string;
  loc?: SourceLoc;
}

export interface Diagnostic {
  severity: Severity;
  /** Stable code, e.g. NABLA101; every code is listed in docs/diagnostics.md. */
  code: string;
  message: string;
  loc: SourceLoc;
  notes: DiagnosticNote[];
}

/**
 * Thrown to abandon differentiating one function after its diagnostic has been recorded.
 * Never escapes the compiler: the driver catches it and reports what was collected.
 */
export class CompileAbort extends Error {
  constructor(readonly diagnostic: Diagnostic) {
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

  get hasErrors(): boolean {
    return this.items.some((d) => d.severity === "error");
  }
}
