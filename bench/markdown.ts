// Formatting shared by the parts of the benchmark report.

/** Nanoseconds, with one decimal below 100 and thousands separators above. */
export function formatNs(ns: number): string {
  if (ns < 100) return ns.toFixed(1);
  return Math.round(ns).toLocaleString("en-US");
}

export function ratio(a: number, b: number): string {
  return `${(a / b).toFixed(2)}×`;
}

/** A Markdown table with padded columns, laid out as Prettier would. */
export function table(header: string[], rows: string[][], rightAligned: boolean[]): string {
  const widths = header.map((h, c) => Math.max(3, h.length, ...rows.map((r) => r[c]!.length)));
  const cell = (text: string, c: number) =>
    rightAligned[c] ? text.padStart(widths[c]!) : text.padEnd(widths[c]!);
  const line = (cells: string[]) => `| ${cells.map(cell).join(" | ")} |`;
  const rule = `| ${widths.map((w, c) => (rightAligned[c] ? "-".repeat(w - 1) + ":" : "-".repeat(w))).join(" | ")} |`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}
