// docs/gradbench.md: the per-workload tables, the per-eval summary against the targets, and the
// method. Pure functions of the results (./results.ts), so they can be tested without timing.

import { table } from "../markdown.js";
import { TARGET_VS_HAND } from "./evals.js";
import { DASH, formatRatio, medianOf, ms, ratioCell, timeCell, verdict } from "./report-format.js";
import {
  nativeLegend,
  nativeLines,
  nativeSummaryTable,
  nativeWorkloadTable,
} from "./report-native.js";
import { jaxLegend, jaxLines, jaxSummaryTable, jaxWorkloadTable } from "./report-jax.js";
import type { EvalResult, Outcome, RunInfo, WorkloadResult } from "./results.js";

// ---- formatting (./report-format.ts) ----

export { formatRatio, formatTime, ms, verdict } from "./report-format.js";

// ---- summary ----

export interface EvalSummary {
  name: string;
  /** Workloads with both a primal and nabla's derivative timed. */
  workloads: number;
  /** Medians over the workloads (undefined when nothing was timed). */
  nablaVsPrimal?: number;
  handVsPrimal?: number;
  nablaVsHand?: number;
  tfjsVsTfjsPrimal?: number;
  tfjsVsNabla?: number;
  target?: number;
  /** "met", "missed (1.4× over)", "no target", or why there are no numbers. */
  verdict: string;
  handVerdict: string;
}

/** The derivative of a workload that pairs with the primal (the first one). */
function nablaDerivative(eval_: EvalResult, w: WorkloadResult): Outcome | undefined {
  return w.nabla[eval_.spec.derivatives[0]!];
}

export function summarize(eval_: EvalResult): EvalSummary {
  const { spec } = eval_;
  const perWorkload = (f: (w: WorkloadResult) => number | undefined) =>
    medianOf(eval_.workloads.map(f));
  const nabla = (w: WorkloadResult) => ms(nablaDerivative(eval_, w));
  const primal = (w: WorkloadResult) => ms(w.primal);
  const hand = (w: WorkloadResult) => ms(w.hand);
  const ratio = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined ? undefined : a / b;
  const summary: EvalSummary = {
    name: spec.name,
    workloads: eval_.workloads.filter((w) => nabla(w) !== undefined && primal(w) !== undefined)
      .length,
    nablaVsPrimal: perWorkload((w) => ratio(nabla(w), primal(w))),
    handVsPrimal: perWorkload((w) => ratio(hand(w), primal(w))),
    nablaVsHand: perWorkload((w) => ratio(nabla(w), hand(w))),
    tfjsVsTfjsPrimal: perWorkload((w) => ratio(ms(w.tfjs?.derivative), ms(w.tfjs?.primal))),
    tfjsVsNabla: perWorkload((w) => ratio(ms(w.tfjs?.derivative), nabla(w))),
    verdict: "",
    handVerdict: "",
  };
  if (spec.target !== undefined) summary.target = spec.target;
  if (eval_.compileError !== undefined) summary.verdict = "does not compile";
  else if (spec.primal === null) summary.verdict = "no primal";
  else if (eval_.workloads.length === 0) summary.verdict = "no workloads";
  else if (summary.nablaVsPrimal === undefined) summary.verdict = "not timed";
  else summary.verdict = verdict(summary.nablaVsPrimal, spec.target);
  summary.handVerdict =
    summary.nablaVsHand === undefined ? DASH : verdict(summary.nablaVsHand, TARGET_VS_HAND);
  return summary;
}

function summaryTable(evals: EvalResult[]): string {
  const rows = evals.map((e) => {
    const s = summarize(e);
    const r = (v: number | undefined) => (v === undefined ? DASH : formatRatio(v));
    return [
      e.spec.name,
      String(s.workloads),
      r(s.nablaVsPrimal),
      s.target === undefined ? DASH : `≤ ${s.target}`,
      s.verdict,
      r(s.handVsPrimal),
      r(s.nablaVsHand),
      s.handVerdict,
      r(s.tfjsVsTfjsPrimal),
      r(s.tfjsVsNabla),
      e.spec.manual === undefined ? DASH : formatRatio(e.spec.manual),
    ];
  });
  return table(
    [
      "eval",
      "workloads",
      "nabla ÷ primal",
      "target",
      "target met?",
      "hand ÷ primal",
      "nabla ÷ hand",
      `nabla ÷ hand ≤ ${TARGET_VS_HAND}?`,
      "tfjs ÷ tfjs primal",
      "tfjs ÷ nabla",
      "GradBench manual",
    ],
    rows,
    [false, true, true, false, false, true, true, false, true, true, true],
  );
}

// ---- per eval ----

function workloadTable(e: EvalResult): string {
  const { spec } = e;
  const hasHand = e.workloads.some((w) => w.hand !== null);
  const hasTfjs = e.workloads.some((w) => w.tfjs !== null);
  if (spec.primal === null) {
    return table(
      ["workload", ...spec.derivatives],
      e.workloads.map((w) => [w.name, ...spec.derivatives.map((fn) => timeCell(w.nabla[fn]))]),
      [false, ...spec.derivatives.map(() => true)],
    );
  }
  const fn = spec.derivatives[0]!;
  const header = [
    "workload",
    spec.primal === "primal" ? "primal" : `primal (${spec.primal})`,
    `nabla ${fn}`,
    "nabla ÷ primal",
    ...(hasHand ? ["hand", "hand ÷ primal", "nabla ÷ hand"] : []),
    ...(hasTfjs ? ["tfjs primal", `tfjs ${fn}`, "tfjs ÷ tfjs primal", "tfjs ÷ nabla"] : []),
  ];
  const rows = e.workloads.map((w) => {
    const primal = ms(w.primal);
    const nabla = ms(w.nabla[fn]);
    const hand = ms(w.hand);
    const tp = ms(w.tfjs?.primal);
    const td = ms(w.tfjs?.derivative);
    return [
      w.name,
      timeCell(w.primal),
      timeCell(w.nabla[fn]),
      ratioCell(nabla, primal),
      ...(hasHand ? [timeCell(w.hand), ratioCell(hand, primal), ratioCell(nabla, hand)] : []),
      ...(hasTfjs
        ? [
            timeCell(w.tfjs?.primal),
            timeCell(w.tfjs?.derivative),
            ratioCell(td, tp),
            ratioCell(td, nabla),
          ]
        : []),
    ];
  });
  return table(header, rows, [false, ...header.slice(1).map(() => true)]);
}

/** The first lines of a compiler message, for a code block. */
function firstLines(text: string, n: number): string {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .slice(0, n)
    .join("\n");
}

/** "all 5 workloads" or "3 of 5 workloads". */
function ofWorkloads(k: number, n: number): string {
  return k === n
    ? `${n === 1 ? "the" : n === 2 ? "both" : `all ${n}`} workload${n === 1 ? "" : "s"}`
    : `${k} of ${n} workloads`;
}

/** The checks that passed, one line per kind, over all workloads. */
export function checkLines(e: EvalResult): string[] {
  const ws = e.workloads;
  const lines: string[] = [];
  const referenced = ws.filter((w) => w.checks.referenced.length > 0);
  const fns = [...new Set(referenced.flatMap((w) => w.checks.referenced))];
  if (referenced.length > 0) {
    const agree = referenced.filter(
      (w) => w.checks.reference.length === w.checks.referenced.length,
    ).length;
    lines.push(
      `Checked: nabla's ${fns.join(", ")} agree${fns.length === 1 ? "s" : ""} with GradBench's reference on ${ofWorkloads(agree, referenced.length)}.`,
    );
  }
  const unreferenced = ws.length - referenced.length;
  if (unreferenced > 0) {
    const which = ofWorkloads(unreferenced, ws.length);
    lines.push(
      `${which[0]!.toUpperCase()}${which.slice(1)} ${unreferenced === 1 ? "has" : "have"} no reference output (generated inputs), so nabla's outputs are not checked there.`,
    );
  }
  const hand = ws.filter((w) => w.checks.handAgrees !== undefined);
  if (hand.length > 0) {
    const agree = hand.filter((w) => w.checks.handAgrees).length;
    lines.push(
      `The hand-written ${e.spec.derivatives[0]} agrees with nabla's to 1e-9 (relative) on ${ofWorkloads(agree, hand.length)}.`,
    );
  }
  const tfjs = ws.filter((w) => w.checks.tfjsDifference !== undefined);
  if (tfjs.length > 0) {
    const worst = Math.max(...tfjs.map((w) => w.checks.tfjsDifference!));
    const extra = [...new Set(tfjs.map((w) => w.checks.tfjsExtra).filter((x) => x !== undefined))];
    lines.push(
      `TensorFlow.js's ${e.spec.primal} and ${e.spec.derivatives[0]} agree with nabla's to float32 accuracy on ${ofWorkloads(tfjs.length, ws.length)}: the largest difference is ${worst.toExponential(1)} of the output's largest magnitude` +
        (extra.length > 0 ? `; also checked on ${extra.join(", ")}` : "") +
        ".",
    );
  }
  const skipped = ws.filter((w) => w.checks.tfjsSkipped).length;
  if (skipped > 0) {
    lines.push(
      `TensorFlow.js is not run on the last ${skipped === 1 ? "workload" : `${skipped} workloads`}: its calls take seconds.`,
    );
  }
  return lines;
}

function evalSection(e: EvalResult): string {
  const { spec } = e;
  const parts = [`### ${spec.name}`, ""];
  if (spec.note !== undefined)
    parts.push(`${spec.note[0]!.toUpperCase()}${spec.note.slice(1)}.`, "");
  if (e.workloadNote !== undefined) parts.push(`Workloads: ${e.workloadNote}.`, "");
  if (e.compileError !== undefined) {
    parts.push(
      `**Does not compile**: nabla rejects gradbench/evals/${spec.name}.ts, so nothing of it is timed:`,
      "",
      "```",
      firstLines(e.compileError, 8),
      "```",
      "",
    );
    return parts.join("\n");
  }
  if (e.workloads.length === 0) {
    parts.push("No workloads.", "");
    return parts.join("\n");
  }
  parts.push(workloadTable(e), "");
  const native = nativeWorkloadTable(e);
  if (native !== "") parts.push(native, "");
  const jax = jaxWorkloadTable(e);
  if (jax !== "") parts.push(jax, "");
  const lines = [
    ...checkLines(e),
    ...nativeLines(e),
    ...jaxLines(e),
    ...e.workloads.flatMap((w) => w.values.map((v) => `${w.name}: ${v}`)),
    ...e.workloads.flatMap((w) => w.problems.map((v) => `**${w.name}**: ${v}`)),
  ];
  if (lines.length > 0) parts.push(...lines.map((l) => `- ${l}`), "");
  return parts.join("\n");
}

// ---- the document ----

const seconds = (s: number) => String(Number(s.toPrecision(2)));

function machine(info: RunInfo): string {
  const load = (l: number[]) => l.map((v) => v.toFixed(2)).join(", ");
  return [
    `- ${info.cpu}, ${info.logicalCpus} logical CPUs, ${info.platform}; Node ${info.node}${info.tfjsVersion === null ? "" : `; TensorFlow.js ${info.tfjsVersion} ('cpu' backend)`}`,
    `- load average (1, 5, 15 min): ${load(info.loadStart)} at the start, ${load(info.loadEnd)} at the end` +
      (info.loadStart[0]! > info.logicalCpus / 2
        ? ` — other processes were competing for the CPUs, so the times are noisy (±30% is common)`
        : ""),
    `- ${(info.durationMs / 1000).toFixed(0)} s for the whole run (\`${info.command}\`)`,
  ].join("\n");
}

/** The comparison with GradBench's C++ tool and nabla's wasm backend, when either ran. */
function nativeSection(evals: EvalResult[], info: RunInfo): string {
  const summary = nativeSummaryTable(evals, info);
  const legend = nativeLegend(evals, info);
  const jax = jaxSummaryTable(evals);
  return [
    "## Against native code",
    "",
    ...(summary === "" ? [] : [summary, ""]),
    legend,
    "",
    "### Against JAX",
    "",
    ...(jax === "" ? [] : [jax, ""]),
    jaxLegend(info),
    "",
    "",
  ].join("\n");
}

/** The whole report, as written to docs/gradbench.md. */
export function gradbenchReport(evals: EvalResult[], info: RunInfo, chartFile: string): string {
  const failed = evals.filter((e) => e.compileError !== undefined).map((e) => e.spec.name);
  const partial = info.full
    ? ""
    : "\n**A partial run** (some evals or workloads only, or `--quick`): numbers are indicative.\n";
  return `# GradBench benchmark

Written by \`npm run bench:gradbench\` (bench/gradbench/main.ts) on ${info.date}: the time of
nabla's derivatives on the [GradBench](https://github.com/gradbench/gradbench) evals of
[gradbench/](../gradbench/README.md), against the primal function, hand-written derivatives
(gradbench/hand/) and TensorFlow.js; and [against native code](#against-native-code): nabla's
WebAssembly backend and GradBench's hand-written C++ tool, built on this machine.
${partial}
${machine(info)}

![Bar charts: per eval, the median over its workloads of the derivative's time divided by the primal's, for nabla (against its target), hand-written code and TensorFlow.js; and nabla divided by hand-written code](${chartFile})

## Summary

Medians over each eval's workloads of the time ratios below.${failed.length > 0 ? ` ${failed.join(", ")} ${failed.length === 1 ? "does" : "do"} not compile yet, so ${failed.length === 1 ? "it has" : "they have"} no numbers.` : ""}

${summaryTable(evals)}

- **nabla ÷ primal**: nabla's derivative (\`run<Derivative>\` of gradbench/evals/<eval>.ts, which
  calls nabla's operators) divided by the primal (\`run<Primal>\` of the same file: the plain
  function, as nabla compiles it). The target is an upper bound on this median.
- **hand ÷ primal**, **nabla ÷ hand**: the hand-written derivative (gradbench/hand/<eval>.ts, plain
  TypeScript) against the same primal, and nabla against it; target nabla ÷ hand ≤ ${TARGET_VS_HAND}.
- **tfjs ÷ tfjs primal**: TensorFlow.js's derivative (tf.grad / tf.grads on vectorized tensor
  code, bench/gradbench/tfjs-<eval>.ts) divided by its own primal, the ratio GradBench reports
  for a tool; **tfjs ÷ nabla**: its derivative's time divided by nabla's. tfjs computes in
  float32, nabla in float64.
- **GradBench manual**: the median derivative ÷ primal published by GradBench's nightly run
  (2026-03-14) for its hand-written C++ tool, over GradBench's default workloads (not the same
  as the ones here), for scale.

${nativeSection(evals, info)}## Per eval

Times are medians per call. ✗ marks an output that differs from GradBench's reference (the
notes say how), "fails" a function that threw or a baseline whose output was wrong (not
timed), "–" nothing to time.

${evals.map(evalSection).join("\n")}
## Method

- **Workloads**: the GradBench reference files (input and expected output), smallest first; when
  they are missing, generated inputs of the same sizes (bench/gradbench/generate.ts).
- **What is timed**: \`run<Fn>(prepared)\` of each module, as a GradBench tool's "evaluate":
  \`prepare<Fn>\` (JSON arrays to typed arrays, ba's input expanded) is done once, outside, and so
  is the conversion of typed arrays in the result to lists (\`toJson\`, as the tool does after
  timing); reshaping GradBench asks for (ba's truncated CSR, lstm's flat list) is inside, for
  nabla and hand-written code alike. TensorFlow.js: the input tensors are made
  once; a call builds the computation on them, runs it and reads the result back (\`dataSync\`,
  \`arraySync\`), in \`tf.tidy\`.
- **Checks before timing**: each output against GradBench's reference with GradBench's rule
  (|x − y| / max(1, |x| + |y|) ≤ 1e-4); the hand-written derivative against nabla's (relative
  1e-9); TensorFlow.js against nabla to float32 accuracy (each value within 1e-3 relative, or
  within 1e-4 of the output's largest magnitude, or within 1e-6). A baseline that fails its
  check is not timed.
- **Timing**: the primal and the derivatives of a workload (nabla's with the JS and the wasm
  backend, and the hand-written one) are timed side by side, then TensorFlow.js's primal and derivative side by side (tfjs makes
  much more garbage, whose collection would land in the others' samples), after a full garbage
  collection. Each function is first warmed up for ${seconds(info.warmupSeconds)} s (at least
  one call); then in rounds, one sample of each per round, a sample being as many calls as take
  about a tenth of the budget (at least one), until each has spent ${info.seconds} s and has 3
  samples, or has spent ${info.capSeconds} s (a call slower than that gets fewer samples). The
  median over the samples of the time per call is reported; ratios are ratios of medians, and
  an eval's summary is the median of its workloads' ratios.
- **Native code** (issue 22): GradBench's manual C++ tool (\`--gradbench-repo\`) runs after
  nabla's functions on each workload, alternating its primal and derivative, one process per
  run of one function for a third of the budget, until each has run for the budget (at least 3
  calls) or the cap; the tool times each call itself (steady_clock) and the median is reported.
  nabla's wasm-backend module (the eval compiled a second time with backend "wasm", imported
  from a temporary folder) is checked like the JS one, and against it to 1e-12 relative, and its
  derivatives are timed side by side with the JS backend's.
- Each eval runs in a Node process of its own, as GradBench's harness starts a tool per eval
  (\`--one-process\` runs them all in one, where each eval's collections also go through the
  heap the evals before it left), compiled by nabla through its module hooks (as \`nabla run\`
  does) when first imported.
`;
}
