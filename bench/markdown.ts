// Formatting shared by the parts of the benchmark report.

import { markdownTable } from "markdown-table";

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
  // Prettier makes every column at least 3 wide; the header's width sets the column's.
  const head = header.map((h, c) => (rightAligned[c] ? h.padStart(3) : h.padEnd(3)));
  return markdownTable([head, ...rows], { align: rightAligned.map((r) => (r ? "r" : "")) });
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
