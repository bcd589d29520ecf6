// Formatting shared by the parts of the benchmark report.

/** Nanoseconds, with one decimal below 100 and thousands separators above. */
export function formatNs(ns: number): string {
  if (ns < 100) return ns.toFixed(1);
  return Math.round(ns).toLocaleString("en-US");
}

/** Bytes, in KiB from 1 KiB on. */
export function kib(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const k = bytes / 1024;
  return `${k < 100 ? k.toFixed(1) : Math.round(k).toLocaleString("en-US")} KiB`;
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

/** One benchmark timed three ways: medians, and the fastest run of each. */
export interface TimedRow {
  benchmark: string;
  primal: number;
  nabla: number;
  hand: number;
  /** The fastest run of each variant: a cross-check that is less sensitive to other load. */
  fastest: { primal: number; nabla: number; hand: number };
}

/** The ratios of the fastest runs, for rows measured as medians elsewhere. */
export function fastestTable(rows: TimedRow[]): string {
  return table(
    ["benchmark", "nabla/primal", "nabla/hand-written"],
    rows.map((r) => [
      r.benchmark,
      ratio(r.fastest.nabla, r.fastest.primal),
      ratio(r.fastest.nabla, r.fastest.hand),
    ]),
    [false, true, true],
  );
}

/** Gradient times against the primal and hand-written code, with whether targets are met. */
export function gradientTable<R extends TimedRow>(rows: R[], verdict: (r: R) => string): string {
  return table(
    [
      "benchmark",
      "primal ns/call",
      "nabla ns/gradient",
      "hand-written ns/gradient",
      "nabla/primal",
      "nabla/hand-written",
      "hand-written/primal",
      "target met?",
    ],
    rows.map((r) => [
      r.benchmark,
      formatNs(r.primal),
      formatNs(r.nabla),
      formatNs(r.hand),
      ratio(r.nabla, r.primal),
      ratio(r.nabla, r.hand),
      ratio(r.hand, r.primal),
      verdict(r),
    ]),
    [false, true, true, true, true, true, true, false],
  );
}
