import { join } from "node:path";
import { importCompiled } from "./load.js";
import { formatNs, kib, ratio, table } from "./markdown.js";
import { nablaMemory, type NablaMemory } from "./structured.js";
import { measure, type Measurement, type TimingOptions } from "./timing.js";

// The function-values part of `npm run bench` (bench/programs/function-values.ts): a generic
// RK4 integrator taking the dynamics as a function-typed parameter, which nabla specializes
// for the call site, against the same loop with the dynamics inlined by hand. The question is
// whether passing a function costs anything once differentiated: the specialized gradient
// should cost what the hand-inlined one costs. run.ts calls these functions and puts
// `functionValuesReport` into docs/benchmarks.md.

/** Gradient ÷ primal of the higher-order version: the cheap-gradient bound of reverse.ts. */
export const TARGET_VS_PRIMAL = 3;
/** Specialized higher-order gradient ÷ hand-inlined gradient. */
export const TARGET_VS_INLINED = 1.1;
/** The two gradients compute the same operations: relative, per component. */
const AGREEMENT = 1e-12;
/** Central differences vs nabla, relative to the largest component. */
const FD_AGREEMENT = 1e-6;
/** Relative step of the central differences. */
const FD_STEP = 1e-6;
const TIMING: TimingOptions = { minSampleMs: 60, repetitions: 15 };
/** (length, θ₀) at which the gradients are checked: short and long pendulums, small and large swings. */
const POINTS: [length: number, theta0: number][] = [
  [1, 0.5],
  [2, 1.2],
  [0.5, -0.8],
];
/** The point of the timed loops. */
const [TIMED_LENGTH, TIMED_THETA0] = POINTS[0]!;

// What bench/programs/function-values.ts exports, once compiled by nabla.
interface FunctionValuesProgram {
  STEPS: number;
  finalAngle(length: number, theta0: number): number;
  finalAngleInlined(length: number, theta0: number): number;
  /** [∂/∂length, ∂/∂θ₀]. */
  gradFinalAngle(length: number, theta0: number): [number, number];
  gradFinalAngleInlined(length: number, theta0: number): [number, number];
}

export async function loadFunctionValuesProgram(dir: string): Promise<FunctionValuesProgram> {
  return importCompiled<FunctionValuesProgram>(join(dir, "function-values.ts"));
}

export const FUNCTION_VALUES_BENCHMARKS = [
  "(j) RK4 pendulum, 1000 steps: generic higher-order RK4 vs dynamics inlined by hand",
] as const;

// ---- agreement checks: run before timing, fail loudly ----

interface Agreement {
  /** Largest relative difference between the two gradients, per component. */
  gradientDifference: number;
  /** Largest difference from central differences, relative to the largest component. */
  fdDifference: number;
}

/** Central differences of f in each of its two arguments. */
function finiteDifferences(f: (length: number, theta0: number) => number, x: [number, number]) {
  return x.map((xi, k) => {
    const h = FD_STEP * Math.max(1, Math.abs(xi));
    const up: [number, number] = [...x];
    const down: [number, number] = [...x];
    up[k] = xi + h;
    down[k] = xi - h;
    return (f(...up) - f(...down)) / (2 * h);
  });
}

/**
 * The primals must be bit-identical (the baseline performs the same operations, so anything
 * else means it is not the same algorithm); the two gradients must agree to AGREEMENT, and
 * the higher-order one with central differences to FD_AGREEMENT. Throws with every problem.
 */
export function verifyFunctionValues(p: FunctionValuesProgram): Agreement {
  if (p.STEPS !== 1000) throw new Error("FUNCTION_VALUES_BENCHMARKS assumes 1000 RK4 steps");
  const problems: string[] = [];
  let gradientDifference = 0;
  let fdDifference = 0;
  for (const x of POINTS) {
    const at = `(length ${x[0]}, θ₀ ${x[1]})`;
    const primal = p.finalAngle(...x);
    const inlined = p.finalAngleInlined(...x);
    if (primal !== inlined || !Number.isFinite(primal)) {
      problems.push(`primal ${at}: finalAngle ${primal}, finalAngleInlined ${inlined}`);
    }
    const g = p.gradFinalAngle(...x);
    const gInlined = p.gradFinalAngleInlined(...x);
    const fd = finiteDifferences(p.finalAngle, x);
    const scale = Math.max(Math.abs(g[0]), Math.abs(g[1]));
    for (let k = 0; k < 2; k++) {
      const [a, b] = [g[k]!, gInlined[k]!];
      const relative = a === b ? 0 : Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b));
      gradientDifference = Math.max(gradientDifference, relative);
      if (!Number.isFinite(a) || !(relative <= AGREEMENT)) {
        problems.push(`gradient[${k}] ${at}: higher-order ${a}, hand-inlined ${b}`);
      }
      const fdRelative = Math.abs(a - fd[k]!) / scale;
      fdDifference = Math.max(fdDifference, fdRelative);
      if (!(fdRelative <= FD_AGREEMENT)) {
        problems.push(`gradient[${k}] ${at}: nabla ${a}, finite differences ${fd[k]}`);
      }
    }
  }
  if (problems.length > 0) {
    throw new Error(
      `function values: results disagree (primals bit for bit, gradients ${AGREEMENT} relative, finite differences ${FD_AGREEMENT} of the largest component):\n  ${problems.join("\n  ")}`,
    );
  }
  return { gradientDifference, fdDifference };
}

// ---- timing: one loop per variant, so each call site stays monomorphic ----
//
// The length moves a little on every call, so nothing can be hoisted out of the loop; both
// components of each gradient go into the sink.

function benchRk4(p: FunctionValuesProgram): Measurement[] {
  const { finalAngle, finalAngleInlined, gradFinalAngle, gradFinalAngleInlined } = p;
  return measure(
    [
      {
        name: "primal HOF",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) s += finalAngle(TIMED_LENGTH + i * 1e-9, TIMED_THETA0);
          return s;
        },
      },
      {
        name: "primal inlined",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) {
            s += finalAngleInlined(TIMED_LENGTH + i * 1e-9, TIMED_THETA0);
          }
          return s;
        },
      },
      {
        name: "gradient HOF",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) {
            const g = gradFinalAngle(TIMED_LENGTH + i * 1e-9, TIMED_THETA0);
            s += g[0] + g[1];
          }
          return s;
        },
      },
      {
        name: "gradient inlined",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) {
            const g = gradFinalAngleInlined(TIMED_LENGTH + i * 1e-9, TIMED_THETA0);
            s += g[0] + g[1];
          }
          return s;
        },
      },
    ],
    TIMING,
  );
}

// ---- the whole function-values benchmark ----

/** A variant's median and fastest run, in ns per call. */
interface Timed {
  median: number;
  fastest: number;
}

export interface FunctionValuesResults {
  primal: Timed;
  primalInlined: Timed;
  gradient: Timed;
  gradientInlined: Timed;
  memory: { gradient: NablaMemory; gradientInlined: NablaMemory };
  agreement: Agreement;
  steps: number;
}

function measurementLine(m: Measurement): string {
  return `    ${m.name.padEnd(16)} ${formatNs(m.nsPerCall).padStart(12)} ns/call  (range ${formatNs(m.minNs)}–${formatNs(m.maxNs)}, ${m.callsPerSample} calls/run)`;
}

/** Runs the function-values benchmark; `step(k)` reports progress of benchmark k. */
export function runFunctionValues(
  p: FunctionValuesProgram,
  agreement: Agreement,
  progress: (message: string) => void,
  step: (k: number, name: string) => void,
): FunctionValuesResults {
  step(0, FUNCTION_VALUES_BENCHMARKS[0]);
  const ms = benchRk4(p);
  ms.forEach((m) => progress(measurementLine(m)));
  const [primal, primalInlined, gradient, gradientInlined] = ms.map((m) => ({
    median: m.nsPerCall,
    fastest: m.minNs,
  }));
  const results: FunctionValuesResults = {
    primal: primal!,
    primalInlined: primalInlined!,
    gradient: gradient!,
    gradientInlined: gradientInlined!,
    memory: {
      gradient: nablaMemory(() => p.gradFinalAngle(TIMED_LENGTH, TIMED_THETA0)),
      gradientInlined: nablaMemory(() => p.gradFinalAngleInlined(TIMED_LENGTH, TIMED_THETA0)),
    },
    agreement,
    steps: p.STEPS,
  };
  progress(`    ${functionValuesSummary(results)}`);
  return results;
}

// ---- report ----

/** "met" or "not met"; `bold` marks a miss in Markdown, as the other sections do. */
function met(value: number, target: number, bold = true): string {
  if (value <= target) return "met";
  return bold ? "**not met**" : "not met";
}

function timeTable(r: FunctionValuesResults): string {
  const rowsOf: [string, Timed, Timed, Timed][] = [
    // [name, time, its primal, its hand-inlined counterpart]
    ["primal `finalAngle` (calls `rk4(dynamics, …)`)", r.primal, r.primal, r.primalInlined],
    ["primal `finalAngleInlined` (by hand)", r.primalInlined, r.primalInlined, r.primalInlined],
    ["nabla `gradient(finalAngle)` (specialized `rk4`)", r.gradient, r.primal, r.gradientInlined],
    ["nabla `gradient(finalAngleInlined)`", r.gradientInlined, r.primalInlined, r.gradientInlined],
  ];
  return table(
    [
      "variant",
      "µs/call",
      "÷ its primal",
      "÷ hand-inlined counterpart",
      "÷ hand-inlined (fastest runs)",
    ],
    rowsOf.map(([name, t, primal, inlined]) => [
      name,
      (t.median / 1000).toFixed(1),
      ratio(t.median, primal.median),
      ratio(t.median, inlined.median),
      ratio(t.fastest, inlined.fastest),
    ]),
    [false, true, true, true, true],
  );
}

function memoryTable(r: FunctionValuesResults): string {
  const row = (name: string, m: NablaMemory) => [
    name,
    kib(m.tapeBytes),
    (m.tapeBytes / 8 / r.steps).toFixed(1),
    m.objects.toLocaleString("en-US"),
  ];
  return table(
    ["gradient", "number tape (peak)", "float64 per step", "object stack entries (peak)"],
    [
      row("`gradient(finalAngle)` (specialized `rk4`)", r.memory.gradient),
      row("`gradient(finalAngleInlined)`", r.memory.gradientInlined),
    ],
    [false, true, true, true],
  );
}

/** One line for the README: the two ratios and whether their targets are met. */
export function functionValuesSummary(r: FunctionValuesResults): string {
  const vsPrimal = r.gradient.median / r.primal.median;
  const vsInlined = r.gradient.median / r.gradientInlined.median;
  return `function values: the gradient of a generic RK4 taking the dynamics as a function parameter (${r.steps}-step pendulum, specialized per call site) costs ${ratio(r.gradient.median, r.primal.median)} its primal (target ≤ ${TARGET_VS_PRIMAL}×: ${met(vsPrimal, TARGET_VS_PRIMAL, false)}) and ${ratio(r.gradient.median, r.gradientInlined.median)} the gradient of the same loop with the dynamics inlined by hand (target ≤ ${TARGET_VS_INLINED}×: ${met(vsInlined, TARGET_VS_INLINED, false)})`;
}

/** The function-values section of docs/benchmarks.md. */
export function functionValuesReport(r: FunctionValuesResults): string {
  const vsPrimal = r.gradient.median / r.primal.median;
  const vsInlined = r.gradient.median / r.gradientInlined.median;
  return `## Function values

### (j) RK4 pendulum, ${r.steps} steps: generic higher-order RK4 vs dynamics inlined by hand

${timeTable(r)}

Higher-order gradient ÷ its primal = **${ratio(r.gradient.median, r.primal.median)}** (target ≤ ${TARGET_VS_PRIMAL}×: ${met(vsPrimal, TARGET_VS_PRIMAL)});
specialized higher-order gradient ÷ hand-inlined gradient = **${ratio(r.gradient.median, r.gradientInlined.median)}** (target ≤ ${TARGET_VS_INLINED}×: ${met(vsInlined, TARGET_VS_INLINED)});
primal with the function parameter ÷ primal inlined by hand = ${ratio(r.primal.median, r.primalInlined.median)}.

Memory per gradient call:

${memoryTable(r)}

How the specialization matches the hand-inlined loop: nabla compiles \`rk4\` once for this call
site with the arrow known there, and since the arrow is written in the same module and
returns only at its end, each \`f(…)\` call is the arrow's body inlined in place, its captures
(\`g\`, \`length\`) extra parameters of the specialized \`rk4\`. The derivative then is the same
code as for the loop written by hand. (Called instead of inlined — an arrow from another
module, or one with early returns — each stage pays a call of the arrow's own sweeps, which
saves the shadows of its array arguments and retapes its captures: about 1.8× in this
benchmark before inlining.)

The program is in bench/programs/function-values.ts: \`rk4(f, y0, t0, t1, steps)\` is a generic
classic 4-stage Runge–Kutta integrator whose right-hand side is a function-typed parameter
\`f: (t, y, out) => void\` (stages k1…k4 and a tmp Float64Array, loops over the state's
length). \`finalAngle(length, θ₀)\` defines the pendulum's dynamics as a local arrow capturing
\`length\` (\`out[0] = y[1]; out[1] = −(g / length) sin y[0]\`), integrates ${r.steps} steps from 0
to 10 s and returns the final angle; \`finalAngleInlined\` is the same loop with the dynamics
written into each stage by hand, no function parameter. Both gradients are nabla's
\`gradient\` (with respect to length and θ₀); \`nabla emit bench/programs/function-values.ts\`
shows the specialized \`rk4\`. The primals run as written,
\`rk4\` calling the arrow through its parameter. Checked before timing, at ${POINTS.length} points: the two primals
are bit-identical (the same floating-point operations in the same order); the two gradients
agree to ${AGREEMENT} (relative, largest difference ${r.agreement.gradientDifference.toExponential(1)}); the higher-order gradient agrees with
central finite differences (relative step ${FD_STEP.toExponential()}) to ${r.agreement.fdDifference.toExponential(1)} of the larger component
(tolerance ${FD_AGREEMENT.toExponential()}). The timed loops move the length by 10⁻⁹ per call; ${TIMING.repetitions} repetitions of at
least ${TIMING.minSampleMs} ms. **number tape**: \`tapeStats().peak\` × 8 bytes after
\`resetTapePeak()\`; **object stack entries**: the peak height of \`tape.objects\`.
`;
}
