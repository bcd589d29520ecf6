// docs/gradbench.svg: per eval, the median derivative ÷ primal of nabla (with its target), of
// hand-written code and of TensorFlow.js; below, nabla ÷ hand-written code against its target.

import type { TopLevelSpec } from "vega-lite";
import { figure, renderSvg, type BarChart, type BarRow } from "../chart.js";
import { TARGET_VS_HAND } from "./evals.js";
import { summarize } from "./report.js";
import type { EvalResult } from "./results.js";

/** The Vega-Lite spec of the figure. */
export function gradbenchFigure(evals: EvalResult[], date: string): TopLevelSpec {
  const summaries = evals.map(summarize);
  const ratios: BarRow[] = [];
  const vsHand: BarRow[] = [];
  for (const s of summaries) {
    if (s.nablaVsPrimal === undefined) continue;
    ratios.push({
      group: s.name,
      label: "nabla",
      note: `nabla's derivative ÷ the primal, median of ${s.workloads} workloads`,
      value: s.nablaVsPrimal,
      ...(s.target === undefined ? {} : { target: s.target }),
    });
    if (s.handVsPrimal !== undefined) {
      ratios.push({
        group: s.name,
        label: "hand-written",
        note: "the hand-written derivative ÷ the primal",
        value: s.handVsPrimal,
      });
    }
    if (s.tfjsVsTfjsPrimal !== undefined) {
      ratios.push({
        group: s.name,
        label: "TensorFlow.js",
        note: "TensorFlow.js's derivative ÷ its primal",
        value: s.tfjsVsTfjsPrimal,
      });
    }
    if (s.nablaVsHand !== undefined) {
      vsHand.push({
        label: s.name,
        note: `${s.name}: nabla's derivative ÷ the hand-written one`,
        value: s.nablaVsHand,
        target: TARGET_VS_HAND,
      });
    }
  }
  const missing = summaries.filter((s) => s.nablaVsPrimal === undefined).map((s) => s.name);
  const charts: BarChart[] = [];
  if (ratios.length > 0) {
    charts.push({
      rows: ratios,
      title: "Derivative ÷ primal, median over the workloads",
      subtitle: `lower is better; the marker is nabla's target${missing.length > 0 ? `; no numbers for ${missing.join(", ")}` : ""}`,
      axisLabel: "derivative time ÷ primal time",
      unit: "×",
    });
  }
  if (vsHand.length > 0) {
    charts.push({
      rows: vsHand,
      title: "nabla ÷ hand-written derivative, median over the workloads",
      subtitle: `target ≤ ${TARGET_VS_HAND}×`,
      axisLabel: "nabla time ÷ hand-written time",
      unit: "×",
    });
  }
  if (charts.length === 0) {
    charts.push({ rows: [{ label: "nothing timed", value: 1 }], title: "No eval was timed" });
  }
  return figure(charts, `nabla on GradBench (${date})`);
}

/** docs/gradbench.svg. */
export function gradbenchSvg(evals: EvalResult[], date: string): Promise<string> {
  return renderSvg(gradbenchFigure(evals, date));
}
