// docs/benchmarks.svg: the main ratios of the report as bar charts (bench/chart.ts). One
// chart for the cost of nabla's derivatives (÷ the primal, ÷ hand-written code, against the
// targets), one for TensorFlow.js ÷ nabla: the two are orders of magnitude apart, so each
// has its own axis.

import {
  TARGET_VS_INLINED as FUNCTION_VALUES_TARGET_VS_INLINED,
  TARGET_VS_PRIMAL as FUNCTION_VALUES_TARGET_VS_PRIMAL,
  type FunctionValuesResults,
} from "./function-values.js";
import { TARGET_HVP_VS_GRADIENT, type HigherOrderResults } from "./higher-order.js";
import type { TimedRow } from "./markdown.js";
import {
  STEPS,
  TARGET_VS_HAND as REVERSE_TARGET_VS_HAND,
  TARGET_VS_PRIMAL as REVERSE_TARGET_VS_PRIMAL,
  type ReverseResults,
} from "./reverse.js";
import {
  TARGET_VS_HAND as STRUCTURED_TARGET_VS_HAND,
  TARGET_VS_PRIMAL as STRUCTURED_TARGET_VS_PRIMAL,
  type StructuredResults,
} from "./structured.js";
import { figure, renderSvg, type BarRow } from "./chart.js";

export interface ChartInputs {
  /** The date and machine, for the subtitle. */
  when: string;
  forward: TimedRow[];
  forwardTargets: { primal: number; hand: number };
  reverse: ReverseResults;
  structured: StructuredResults;
  higherOrder: HigherOrderResults;
  functionValues: FunctionValuesResults;
}

/** "(c) if/else in a loop, 10⁶ steps, 4 parameters" → "(c) if/else in a loop". */
const short = (benchmark: string) => benchmark.split(",")[0]!;

/** The report's ratios as one SVG document: two charts one above the other. */
export function benchmarksSvg(inputs: ChartInputs): Promise<string> {
  const { forward, forwardTargets, reverse, structured, higherOrder, functionValues } = inputs;
  const VS_PRIMAL = "nabla ÷ the primal function";
  const VS_HAND = "nabla ÷ hand-written derivative code";
  const OTHER = "higher order and checkpointing";
  const timed = (
    kind: string,
    rows: TimedRow[],
    targets: { primal: number; hand: number },
  ): [BarRow[], BarRow[]] => [
    rows.map((r) => ({
      group: VS_PRIMAL,
      label: `${kind} ${short(r.benchmark)}`,
      note: `${kind} ${r.benchmark}, nabla ÷ primal`,
      value: r.nabla / r.primal,
      target: targets.primal,
    })),
    rows.map((r) => ({
      group: VS_HAND,
      label: `${kind} ${short(r.benchmark)}`,
      note: `${kind} ${r.benchmark}, nabla ÷ hand-written`,
      value: r.nabla / r.hand,
      target: targets.hand,
    })),
  ];
  const [forwardPrimal, forwardHand] = timed("forward", forward, forwardTargets);
  const [reversePrimal, reverseHand] = timed("gradient", reverse.rows, {
    primal: REVERSE_TARGET_VS_PRIMAL,
    hand: REVERSE_TARGET_VS_HAND,
  });
  const [structuredPrimal, structuredHand] = timed("gradient", structured.rows, {
    primal: STRUCTURED_TARGET_VS_PRIMAL,
    hand: STRUCTURED_TARGET_VS_HAND,
  });
  const fv = functionValues;
  const h = higherOrder.rosenbrock;
  const cost: BarRow[] = [
    ...forwardPrimal,
    ...reversePrimal,
    ...structuredPrimal,
    {
      group: VS_PRIMAL,
      label: "gradient (j) RK4 with a function parameter",
      value: fv.gradient.median / fv.primal.median,
      target: FUNCTION_VALUES_TARGET_VS_PRIMAL,
    },
    ...forwardHand,
    ...reverseHand,
    ...structuredHand,
    {
      group: VS_HAND,
      label: "gradient (h) Rosenbrock",
      value: h.gradient.median / h.handGradient.median,
    },
    {
      group: VS_HAND,
      label: "HVP (h) Rosenbrock",
      value: h.hvp.median / h.handHvp.median,
    },
    {
      group: VS_HAND,
      label: "Hessian (h) Rosenbrock",
      value: h.hessian.median / h.handHessian.median,
    },
    {
      group: VS_HAND,
      label: "gradient (j) RK4, specialized",
      note: "gradient (j) RK4 with the dynamics as a function parameter ÷ the same loop inlined by hand",
      value: fv.gradient.median / fv.gradientInlined.median,
      target: FUNCTION_VALUES_TARGET_VS_INLINED,
    },
    {
      group: OTHER,
      label: "(h) HVP ÷ gradient",
      note: "(h) Rosenbrock, n = 100: Hessian-vector product ÷ gradient",
      value: h.hvp.median / h.gradient.median,
      target: TARGET_HVP_VS_GRADIENT,
    },
    {
      group: OTHER,
      label: "(i) checkpointed ÷ plain gradient",
      note: "(i) 64 particles, 100 steps in 10 segments: checkpoint(segment) ÷ plain calls",
      value: higherOrder.checkpoint.checkpointed.median / higherOrder.checkpoint.plain.median,
    },
  ];

  const tfjs: BarRow[] = [
    ...reverse.tfjs.map((t, k) => {
      const row = reverse.rows[k]!;
      const perStep = t.steps !== undefined;
      const value = perStep
        ? t.nsPerGradient / t.steps! / (row.nabla / STEPS)
        : t.nsPerGradient / row.nabla;
      return {
        label: `gradient ${short(row.benchmark)}${perStep ? ", per step" : ""}`,
        note: `gradient ${row.benchmark}: tfjs ÷ nabla${perStep ? ` (time per loop step: tfjs runs ${t.steps} steps)` : ""}`,
        value,
      };
    }),
    {
      label: `gradient ${short(structured.rows[1]!.benchmark)}`,
      note: `gradient ${structured.rows[1]!.benchmark}: tfjs (batched matrix products) ÷ nabla`,
      value: structured.tfjs.nsPerGradient / structured.rows[1]!.nabla,
    },
    {
      label: "gradient (h) Rosenbrock",
      value: higherOrder.tfjs.nsPerGradient / h.gradient.median,
    },
    {
      label: "HVP (h) Rosenbrock",
      value: higherOrder.tfjs.nsPerHvp / h.hvp.median,
    },
  ];

  const first = {
    rows: cost,
    title: "Cost of nabla's derivatives",
    subtitle: "time ratios of medians (lower is better); the markers are the targets",
    axisLabel: "time ratio",
    unit: "×",
  };
  const second = {
    rows: tfjs,
    title: "TensorFlow.js ÷ nabla",
    subtitle: `how many times longer a gradient takes in tfjs ${reverse.tfjsVersion} ('cpu' backend, float32) than in nabla`,
    axisLabel: "time ratio",
    unit: "×",
  };
  return renderSvg(figure([first, second], `nabla benchmarks (npm run bench, ${inputs.when})`));
}
