// The report's comparison with GradBench's JAX tool (--jax-python, ./jax.ts): issue 22's
// "faster than JAX-on-CPU on lse, ode and kmeans when JAX's timings wait for its results". A
// summary table, a table per eval and the lines saying what was checked. Pure functions of the
// results, like ./report.ts.

import { table } from "../markdown.js";
import { DASH, formatRatio, medianOf, ms, ratioCell, timeCell, usableMs } from "./report-format.js";
import type { EvalResult, RunInfo, WorkloadResult } from "./results.js";

/** The evals where nabla is to be faster than JAX (issue 22). */
export const FASTER_THAN_JAX = new Set(["lse", "ode", "kmeans"]);

const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined ? undefined : a / b;

export interface JaxSummary {
  name: string;
  /** Medians over the workloads. */
  jaxVsJaxPrimal?: number;
  nablaVsJax?: number;
  wasmVsJax?: number;
  /** nabla's faster backend ÷ JAX < 1 where issue 22 asks it ("met", "missed (…)", "no target"). */
  verdict: string;
}

export function summarizeJax(e: EvalResult): JaxSummary {
  const fn = e.spec.derivatives[0]!;
  const per = (f: (w: WorkloadResult) => number | undefined) => medianOf(e.workloads.map(f));
  const jax = (w: WorkloadResult) => usableMs(w.jax?.derivative);
  const s: JaxSummary = {
    name: e.spec.name,
    jaxVsJaxPrimal: per((w) => ratio(jax(w), usableMs(w.jax?.primal))),
    nablaVsJax: per((w) => ratio(ms(w.nabla[fn]), jax(w))),
    wasmVsJax: per((w) => ratio(ms(w.wasm?.[fn]), jax(w))),
    verdict: DASH,
  };
  const best = [s.nablaVsJax, s.wasmVsJax].filter((v): v is number => v !== undefined);
  if (best.length > 0) {
    const v = Math.min(...best);
    s.verdict = !FASTER_THAN_JAX.has(e.spec.name)
      ? "no target"
      : v < 1
        ? "met"
        : `missed (JAX is ${formatRatio(v)} faster)`;
  }
  return s;
}

const ran = (e: EvalResult) => e.workloads.some((w) => w.jax !== undefined);

/** The summary table against JAX; "" when JAX did not run. */
export function jaxSummaryTable(evals: EvalResult[]): string {
  const withJax = evals.filter(ran);
  if (withJax.length === 0) return "";
  const r = (v: number | undefined) => (v === undefined ? DASH : formatRatio(v));
  const rows = withJax.map((e) => {
    const s = summarizeJax(e);
    return [e.spec.name, r(s.jaxVsJaxPrimal), r(s.nablaVsJax), r(s.wasmVsJax), s.verdict];
  });
  return table(
    ["eval", "JAX ÷ JAX primal", "nabla ÷ JAX", "nabla-wasm ÷ JAX", "faster than JAX?"],
    rows,
    [false, true, true, true, false],
  );
}

const INSTALL =
  "A Python with JAX: `python3 -m venv DIR && DIR/bin/pip install jax`, then `--jax-python DIR/bin/python`.";

/** The legend under the JAX summary (also when JAX was asked for but could not run). */
export function jaxLegend(info: RunInfo): string {
  if (info.jax === null || info.jax === undefined) {
    return `GradBench's JAX tool was not run (\`--jax-python PY\` or \`$NABLA_JAX_PYTHON\` runs it, with \`--gradbench-repo\`). ${INSTALL}`;
  }
  if (!info.jax.ok) return `GradBench's JAX tool was asked for but does not run: ${info.jax.text}.`;
  return `GradBench's JAX tool: ${info.jax.text}.

- **JAX ÷ JAX primal**: JAX's derivative ÷ its primal; **nabla ÷ JAX**, **nabla-wasm ÷ JAX**:
  nabla's derivative with the JS and the wasm backend ÷ JAX's, timed on the same workload in
  the same run (JAX after nabla, in a Python process of its own per workload, timed as nabla is:
  warm-up, which includes JAX's compilation, then interleaved samples; the median time per
  call). Below 1, nabla is faster. **faster than JAX?**: issue 22's target on
  ${[...FASTER_THAN_JAX].join(", ")}, for the faster of nabla's two backends.
- GradBench's own wrapper (\`gradbench.wrap\`) stops its clock when the call returns, which for
  JAX is before the result is computed (JAX dispatches asynchronously); here each call waits
  for its result with \`jax.block_until_ready\`. JAX is pinned to one CPU, as GradBench's tool
  pins itself unless run with \`--multithreaded\`; nabla runs on one thread. ${INSTALL}`;
}

/** The per-workload table of one eval against JAX; "" when JAX did not run on it. */
export function jaxWorkloadTable(e: EvalResult): string {
  if (!ran(e) || e.spec.primal === null) return "";
  const fn = e.spec.derivatives[0]!;
  const rows = e.workloads.map((w) => {
    const jax = usableMs(w.jax?.derivative);
    return [
      w.name,
      timeCell(w.jax?.primal),
      timeCell(w.jax?.derivative),
      ratioCell(ms(w.nabla[fn]), jax),
      ratioCell(ms(w.wasm?.[fn]), jax),
    ];
  });
  return table(["workload", "JAX primal", `JAX ${fn}`, "nabla ÷ JAX", "nabla-wasm ÷ JAX"], rows, [
    false,
    true,
    true,
    true,
    true,
  ]);
}

/** The lines of one eval about the JAX tool: why it did not run, what its outputs passed. */
export function jaxLines(e: EvalResult): string[] {
  const lines: string[] = [];
  if (e.jaxSkipped !== undefined) lines.push(`GradBench's JAX tool: ${e.jaxSkipped}.`);
  const checked = e.workloads.filter((w) => w.checks.jaxValid !== undefined);
  if (checked.length > 0) {
    const fns = [e.spec.primal!, e.spec.derivatives[0]!];
    const valid = checked.filter((w) => w.checks.jaxValid!.length === fns.length).length;
    lines.push(
      `GradBench's JAX ${fns.join(" and ")} pass GradBench's check on ${valid} of ${checked.length} workloads.`,
    );
  }
  return lines;
}
