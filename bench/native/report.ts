// The figures of `npm run bench:native` as markdown: per workload, each implementation's time
// for the primal and the derivative, against C, and its largest difference from nabla's result.
// main.ts prints it and puts it between the markers of docs/native-gap.md, whose analysis
// around the markers is written by hand.

import { table } from "../markdown.js";

export interface Row {
  name: string;
  /** What the time includes, e.g. "kernel only" or "copy in + kernel + copy out". */
  note: string;
  /** Median ms per call, or why there is none. */
  primal: number | string;
  derivative: number | string;
  /** The fastest samples (ms per call), less disturbed by other processes than the median. */
  fastest?: [number | null, number | null];
  /** Largest relative difference from the reference outputs; null: the reference itself. */
  difference: number | null;
  /** No ratio columns: the row is not an implementation (e.g. the copies). */
  noRatios?: boolean;
}

export interface WorkloadReport {
  eval: string;
  workload: string;
  source: "data" | "generated";
  primalName: string;
  derivativeName: string;
  rows: Row[];
  /** The row the ratios are taken against (C when there is one). */
  baseline: string | null;
  /** The row whose outputs the others are checked against. */
  reference: string;
}

export interface RunConditions {
  date: string;
  command: string;
  node: string;
  cpu: string;
  cpus: number;
  loadStart: number[];
  loadEnd: number[];
  seconds: number;
  compiler: string;
  wabt: string;
  durationS: number;
}

export const START = "<!-- bench:native results start -->";
export const END = "<!-- bench:native results end -->";

export function formatMs(ms: number): string {
  if (ms < 0.01) return `${(ms * 1000).toFixed(2)} µs`;
  if (ms < 1) return `${(ms * 1000).toFixed(0)} µs`;
  return ms < 10 ? `${ms.toFixed(2)} ms` : `${ms.toFixed(1)} ms`;
}

const cell = (v: number | string) => (typeof v === "number" ? formatMs(v) : v);

function ratio(v: number | string, base: number | string | undefined): string {
  if (typeof v !== "number" || typeof base !== "number") return "–";
  return `${(v / base).toFixed(2)}×`;
}

function workloadTable(w: WorkloadReport): string {
  const base = w.rows.find((r) => r.name === w.baseline);
  const head = [
    "implementation",
    "time covers",
    w.primalName,
    w.derivativeName,
    `${w.derivativeName} ÷ ${w.primalName}`,
    ...(base ? [`${w.primalName} ÷ ${base.name}`, `${w.derivativeName} ÷ ${base.name}`] : []),
    "fastest samples",
    `rel. diff. from ${w.reference}`,
  ];
  const rows = w.rows.map((r) => [
    r.name,
    r.note,
    cell(r.primal),
    cell(r.derivative),
    r.noRatios ? "–" : ratio(r.derivative, r.primal),
    ...(base ? [ratio(r.primal, base.primal), ratio(r.derivative, base.derivative)] : []),
    r.fastest ? r.fastest.map((v) => (v === null ? "–" : formatMs(v))).join(" / ") : "–",
    r.noRatios ? "–" : r.difference === null ? "(reference)" : r.difference.toExponential(1),
  ]);
  return table(
    head,
    rows,
    head.map((_, i) => i >= 2),
  );
}

export function nativeReport(workloads: WorkloadReport[], info: RunConditions): string {
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(", ");
  const parts = [
    `Written by \`${info.command}\` (bench/native/main.ts) on ${info.date}, ${info.durationS.toFixed(0)} s.`,
    "",
    `- ${info.cpu}, ${info.cpus} logical CPUs; Node ${info.node}; C: ${info.compiler}; WAT assembled by wabt ${info.wabt}`,
    `- load average (1, 5, 15 min): ${load(info.loadStart)} at the start, ${load(info.loadEnd)} at the end`,
    `- each time is the median over samples of the time per call, after warm-up; ${info.seconds} s of samples per function and workload, the JavaScript and WebAssembly ones interleaved round by round in one process, C timed by the same method in its own process (bench/native/harness.c); the ratios are of medians; "fastest samples" gives the fastest sample of each function`,
    "- every result is checked before timing against the reference row (nabla's; for lse's gradient the hand-written softmax, see the analysis): the largest relative difference per element, |x − y| / max(|x|, |y|), is shown; over 1e-12 means not timed",
  ];
  for (const w of workloads) {
    parts.push(
      "",
      `### ${w.eval} ${w.workload}${w.source === "generated" ? " (generated)" : ""}`,
      "",
      workloadTable(w),
    );
  }
  return parts.join("\n") + "\n";
}

/** `doc` with the text between the markers replaced by `report` (appended when none). */
export function spliceReport(doc: string, report: string): string {
  const block = `${START}\n\n${report}\n${END}`;
  const a = doc.indexOf(START);
  const b = doc.indexOf(END);
  if (a < 0 || b < a) return `${doc.trimEnd()}\n\n${block}\n`;
  return doc.slice(0, a) + block + doc.slice(b + END.length);
}
