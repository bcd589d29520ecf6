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

/**
 * Whether to color output to a stream: `FORCE_COLOR` forces it (`0` or `false` turns it off),
 * a non-empty `NO_COLOR` turns it off, and otherwise only a terminal gets colors — never a
 * pipe or a file.
 */
export function useColor(isTTY: boolean, env: Record<string, string | undefined>): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== "0" && force !== "false";
  if (env.NO_COLOR) return false;
  return isTTY && env.TERM !== "dumb";
}

/**
 * Options for diagnostics written to this process's stderr: paths from here, colors as
 * {@link useColor} decides, and frames as wide as a terminal.
 */
export function stderrOptions(): FormatOptions {
  const terminal = Boolean(process.stderr.isTTY);
  const columns = terminal ? process.stderr.columns : undefined;
  return {
    cwd: process.cwd(),
    color: useColor(terminal, process.env),
    // The gutter (`> 12 | `) and the `…` marks take about ten columns of the terminal's.
    ...(columns ? { width: columns - 10 } : {}),
  };
}
