import type { Diagnostic } from "./diagnostic.js";
import { formatDiagnostic, type FormatOptions, type SourceLookup } from "./format.js";

/** All diagnostics, errors first, then a count line. */
export function formatDiagnostics(
  diagnostics: Diagnostic[],
  sources: SourceLookup,
  options: FormatOptions = {},
): string {
  const sorted = [...diagnostics].sort((a, b) =>
    a.severity === b.severity ? 0 : a.severity === "error" ? -1 : 1,
  );
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  const warnings = diagnostics.length - errors;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const summary = [
    errors ? plural(errors, "error") : "",
    warnings ? plural(warnings, "warning") : "",
  ]
    .filter(Boolean)
    .join(", ");
  return [...sorted.map((d) => formatDiagnostic(d, sources, options)), summary].join("\n\n");
}

/** Options for diagnostics written to this process's stderr: paths from here, colors on a terminal. */
export function stderrOptions(): FormatOptions {
  return { cwd: process.cwd(), color: Boolean(process.stderr.isTTY) && !process.env.NO_COLOR };
}
