import type { Diagnostic } from "../compiler/diagnostics/diagnostic.js";
import type { SourceLoc } from "../compiler/ir/types.js";

// `nabla check --format json`: diagnostics as data for CI annotations and editors, with
// 1-based lines and columns (UTF-16 code units, as editors count them) instead of offsets.

interface JsonPosition {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

interface JsonDiagnostic extends JsonPosition {
  severity: Diagnostic["severity"];
  code: string;
  message: string;
  help?: string;
  notes: ({ message: string } & Partial<JsonPosition>)[];
}

/**
 * The JSON report of `diagnostics` of a check of `files` (absolute paths; the files they
 * import were checked with them): `{ errors, warnings, files: [...], diagnostics: [...] }`.
 */
export function jsonReport(
  diagnostics: readonly Diagnostic[],
  sourceText: (file: string) => string | undefined,
  files: readonly string[],
): string {
  const position = (loc: SourceLoc): JsonPosition => {
    const text = sourceText(loc.file) ?? "";
    const [line, column] = lineColumn(text, loc.start);
    const [endLine, endColumn] = lineColumn(text, loc.end);
    return { file: loc.file, line, column, endLine, endColumn };
  };
  const items: JsonDiagnostic[] = diagnostics.map((d) => ({
    ...position(d.loc),
    severity: d.severity,
    code: d.code,
    message: d.message,
    ...(d.help ? { help: d.help } : {}),
    notes: d.notes.map((n) => ({ message: n.message, ...(n.loc ? position(n.loc) : {}) })),
  }));
  const count = (severity: string) => items.filter((d) => d.severity === severity).length;
  return JSON.stringify(
    { errors: count("error"), warnings: count("warning"), files, diagnostics: items },
    null,
    2,
  );
}

function lineColumn(text: string, offset: number): [number, number] {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    start = i + 1;
  }
  return [line, offset - start + 1];
}
