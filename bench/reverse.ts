import { join } from "node:path";
import { resetTapePeak, tapeStats } from "../src/runtime/index.js";
import {
  energyGradient,
  oscillatorGradientInverted,
  oscillatorGradientTaped,
  oscillatorTapeEntries,
  pendulumGradientInverted,
  pendulumGradientTaped,
  pendulumTapeEntries,
  radicalGradient,
  radicalTapeEntries,
} from "./hand-written-reverse.js";
import { importCompiled } from "./load.js";
import { fastestTable, formatNs, gradientTable, ratio, table, type TimedRow } from "./markdown.js";
import {
  initTfjs,
  tfEnergyGradient,
  tfjsTensorCount,
  tfOscillatorGradient,
  tfPendulumGradient,
  tfRadicalGradient,
} from "./tfjs.js";
import { measure, type Measurement, type TimingOptions } from "./timing.js";

// The reverse-mode part of `npm run bench`: nabla's gradients (`gradient(f)`) against the
// primal functions, gradients written by hand (bench/hand-written-reverse.ts) and the same
// functions in TensorFlow.js (bench/tfjs.ts); the tape memory per loop iteration. run.ts calls
// these functions and puts `reverseReport` into docs/benchmarks.md.

export const TARGET_VS_PRIMAL = 3;
export const TARGET_VS_HAND = 1.3;
/** Loop iterations of (b) and (c) for nabla, the primal and the hand-written gradients. */
export const STEPS = 1_000_000;
/** Loop iterations of (b) and (c) for tfjs, which is about 10⁴ times slower per iteration. */
export const TFJS_STEPS = 1_000;
/** nabla vs hand-written (and the two hand-written loop gradients): relative, per component. */
const AGREEMENT = 1e-9;
/** Finite differences vs nabla, relative to the largest component of the gradient. */
const FD_AGREEMENT = 1e-5;
/** tfjs (float32) vs nabla (float64), relative to the largest component of the gradient. */
const TFJS_AGREEMENT = 1e-3;
const TIMING: TimingOptions = { minSampleMs: 60, repetitions: 15 };
const TFJS_TIMING: TimingOptions = { minSampleMs: 200, repetitions: 5 };

type Gradient = (...args: number[]) => number[];

// What the programs export, once compiled by nabla.
interface StraightProgram {
  energy(...coordinates: number[]): number;
  gradEnergy(...coordinates: number[]): number[];
}
interface LoopProgram {
  pendulum(k: number, c: number, theta0: number, steps: number): number;
  gradPendulum(k: number, c: number, theta0: number, steps: number): number[];
}
interface BranchesProgram {
  oscillator(k: number, c: number, b: number, x0: number, steps: number): number;
  gradOscillator(k: number, c: number, b: number, x0: number, steps: number): number[];
}
interface RecursiveProgram {
  DEPTH: number;
  nested(x: number, a: number): number;
  gradNested(x: number, a: number): number[];
}

export interface ReversePrograms {
  straight: StraightProgram;
  loop: LoopProgram;
  branches: BranchesProgram;
  recursive: RecursiveProgram;
}

export async function loadReversePrograms(dir: string): Promise<ReversePrograms> {
  const [straight, loop, branches, recursive] = await Promise.all([
    importCompiled<StraightProgram>(join(dir, "gradient-straight.ts")),
    importCompiled<LoopProgram>(join(dir, "gradient-loop.ts")),
    importCompiled<BranchesProgram>(join(dir, "gradient-branches.ts")),
    importCompiled<RecursiveProgram>(join(dir, "gradient-recursive.ts")),
  ]);
  return { straight, loop, branches, recursive };
}

// Points where the gradients are checked (the timed calls move a little around the first).
const STRAIGHT_POINTS: number[][] = [
  [0, 0, 1.2, 0.3, 2.0, -0.6, 3.1, -0.2],
  [0.1, -0.2, 1.1, 0.25, 2.2, -0.5, 3.0, 0.1],
];
const LOOP_POINTS: [k: number, c: number, theta0: number][] = [
  [1.0, 0.1, 0.5],
  [2.0, 0.3, -1.2],
];
const BRANCH_POINTS: [k: number, c: number, b: number, x0: number][] = [
  [4.0, 0.01, 3.0, 0.8],
  [2.5, 0.005, 1.5, -0.6],
];
const RECURSIVE_POINTS: [x: number, a: number][] = [
  [0.7, 0.3],
  [1.5, 0.05],
  [-0.4, 0.9],
];

// ---- agreement checks: run before timing, fail loudly ----

function largest(g: readonly number[]): number {
  return Math.max(...g.map(Math.abs));
}

/** Checks `got` against `expected` component by component; returns the problems found. */
function compare(
  label: string,
  got: readonly number[],
  expected: readonly number[],
  tolerance: number,
  relativeToLargest: boolean,
): string[] {
  if (got.length !== expected.length) {
    return [`${label}: ${got.length} components, expected ${expected.length}`];
  }
  const scale = largest(expected);
  return got.flatMap((g, i) => {
    const e = expected[i]!;
    const bound = tolerance * (relativeToLargest ? scale : Math.max(Math.abs(g), Math.abs(e)));
    return Number.isFinite(g) && (g === e || Math.abs(g - e) <= bound)
      ? []
      : [`${label}[${i}]: ${g}, expected ${e}`];
  });
}

/** Central differences of f in each of its first `count` arguments (the rest stay fixed). */
function finiteDifferences(f: (...args: number[]) => number, point: number[], count: number) {
  return point.slice(0, count).map((p, i) => {
    const h = 1e-6 * Math.max(1, Math.abs(p));
    const up = [...point];
    const down = [...point];
    up[i] = p + h;
    down[i] = p - h;
    return (f(...up) - f(...down)) / (2 * h);
  });
}

function checkPoint(
  what: string,
  nabla: number[],
  hands: [string, number[]][],
  fd: number[],
  problems: string[],
): void {
  for (const [name, hand] of hands) {
    problems.push(...compare(`${what} ${name}`, hand, nabla, AGREEMENT, false));
  }
  problems.push(...compare(`${what} finite differences`, fd, nabla, FD_AGREEMENT, true));
}

/**
 * nabla's gradients against the hand-written ones (1e-9, relative) and against central
 * differences; throws with every disagreement found.
 */
export function verifyReverse(p: ReversePrograms): void {
  const problems: string[] = [];
  for (const x of STRAIGHT_POINTS) {
    checkPoint(
      `gradEnergy(${x.join(", ")})`,
      p.straight.gradEnergy(...x),
      [["hand-written", energyGradient(...(x as Parameters<typeof energyGradient>))]],
      finiteDifferences(p.straight.energy, x, 8),
      problems,
    );
  }
  for (const [k, c, theta0] of LOOP_POINTS) {
    checkPoint(
      `gradPendulum(${k}, ${c}, ${theta0}, ${STEPS})`,
      p.loop.gradPendulum(k, c, theta0, STEPS),
      [
        ["hand-written (taped)", pendulumGradientTaped(k, c, theta0, STEPS)],
        ["hand-written (recomputing)", pendulumGradientInverted(k, c, theta0, STEPS)],
      ],
      finiteDifferences(p.loop.pendulum, [k, c, theta0, STEPS], 3),
      problems,
    );
  }
  for (const [k, c, b, x0] of BRANCH_POINTS) {
    checkPoint(
      `gradOscillator(${k}, ${c}, ${b}, ${x0}, ${STEPS})`,
      p.branches.gradOscillator(k, c, b, x0, STEPS),
      [
        ["hand-written (taped)", oscillatorGradientTaped(k, c, b, x0, STEPS)],
        ["hand-written (recomputing)", oscillatorGradientInverted(k, c, b, x0, STEPS)],
      ],
      finiteDifferences(p.branches.oscillator, [k, c, b, x0, STEPS], 4),
      problems,
    );
  }
  for (const [x, a] of RECURSIVE_POINTS) {
    checkPoint(
      `gradNested(${x}, ${a})`,
      p.recursive.gradNested(x, a),
      [["hand-written", radicalGradient(x, a, p.recursive.DEPTH)]],
      finiteDifferences(p.recursive.nested, [x, a], 2),
      problems,
    );
  }
  if (problems.length > 0) {
    throw new Error(
      `reverse mode: gradients disagree (nabla vs hand-written ${AGREEMENT} relative, vs finite differences ${FD_AGREEMENT} of the largest component):\n  ${problems.join("\n  ")}`,
    );
  }
}

// ---- timing: one loop per variant, so each call site stays monomorphic ----

/** Sum of a gradient's components, so none of them can be optimized away. */
function total(g: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < g.length; i++) s += g[i]!;
  return s;
}

function benchStraight({ energy, gradEnergy }: StraightProgram): Measurement[] {
  return measure(
    [
      {
        name: "primal",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) s += energy(i * 1e-9, 0, 1.2, 0.3, 2.0, -0.6, 3.1, -0.2);
          return s;
        },
      },
      {
        name: "nabla",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) {
            s += total(gradEnergy(i * 1e-9, 0, 1.2, 0.3, 2.0, -0.6, 3.1, -0.2));
          }
          return s;
        },
      },
      {
        name: "hand-written",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) {
            s += total(energyGradient(i * 1e-9, 0, 1.2, 0.3, 2.0, -0.6, 3.1, -0.2));
          }
          return s;
        },
      },
    ],
    TIMING,
  );
}

function benchLoop({ pendulum, gradPendulum }: LoopProgram): Measurement[] {
  return measure(
    [
      {
        name: "primal",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) s += pendulum(1 + i * 1e-3, 0.1, 0.5, STEPS);
          return s;
        },
      },
      {
        name: "nabla",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) s += total(gradPendulum(1 + i * 1e-3, 0.1, 0.5, STEPS));
          return s;
        },
      },
      {
        name: "hand-written",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) {
            s += total(pendulumGradientTaped(1 + i * 1e-3, 0.1, 0.5, STEPS));
          }
          return s;
        },
      },
      {
        name: "recomputing",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) {
            s += total(pendulumGradientInverted(1 + i * 1e-3, 0.1, 0.5, STEPS));
          }
          return s;
        },
      },
    ],
    TIMING,
  );
}

function benchBranches({ oscillator, gradOscillator }: BranchesProgram): Measurement[] {
  return measure(
    [
      {
        name: "primal",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) s += oscillator(4 + i * 1e-3, 0.01, 3, 0.8, STEPS);
          return s;
        },
      },
      {
        name: "nabla",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) s += total(gradOscillator(4 + i * 1e-3, 0.01, 3, 0.8, STEPS));
          return s;
        },
      },
      {
        name: "hand-written",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) {
            s += total(oscillatorGradientTaped(4 + i * 1e-3, 0.01, 3, 0.8, STEPS));
          }
          return s;
        },
      },
      {
        name: "recomputing",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) {
            s += total(oscillatorGradientInverted(4 + i * 1e-3, 0.01, 3, 0.8, STEPS));
          }
          return s;
        },
      },
    ],
    TIMING,
  );
}

function benchRecursive({ DEPTH, nested, gradNested }: RecursiveProgram): Measurement[] {
  return measure(
    [
      {
        name: "primal",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) s += nested(0.7 + i * 1e-9, 0.3);
          return s;
        },
      },
      {
        name: "nabla",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) s += total(gradNested(0.7 + i * 1e-9, 0.3));
          return s;
        },
      },
      {
        name: "hand-written",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) s += total(radicalGradient(0.7 + i * 1e-9, 0.3, DEPTH));
          return s;
        },
      },
    ],
    TIMING,
  );
}

// ---- tape memory ----

/** Bytes the nabla tape held at its highest during `call` (the tape is empty before and after). */
function nablaTapeBytes(call: () => void): number {
  const before = tapeStats().size;
  resetTapePeak();
  call();
  const { size, peak } = tapeStats();
  if (size !== before) throw new Error(`the nabla tape holds ${size - before} values after a call`);
  return (peak - before) * 8;
}

interface TapeRow {
  /** Bytes per loop iteration for the loops, per call otherwise. */
  nabla: number;
  hand: number;
  /** Hand-written variant that recomputes instead of saving (the loops only). */
  recomputing?: number;
  /** What the bytes are counted per. */
  unit: string;
}

function measureTapes(p: ReversePrograms): TapeRow[] {
  const depth = p.recursive.DEPTH;
  const [x, a] = RECURSIVE_POINTS[0]!;
  const [k, c, theta0] = LOOP_POINTS[0]!;
  const [ko, co, bo, x0] = BRANCH_POINTS[0]!;
  const straight = nablaTapeBytes(() => p.straight.gradEnergy(...STRAIGHT_POINTS[0]!));
  const loop = nablaTapeBytes(() => p.loop.gradPendulum(k, c, theta0, STEPS));
  pendulumGradientTaped(k, c, theta0, STEPS);
  const branches = nablaTapeBytes(() => p.branches.gradOscillator(ko, co, bo, x0, STEPS));
  oscillatorGradientTaped(ko, co, bo, x0, STEPS);
  const recursive = nablaTapeBytes(() => p.recursive.gradNested(x, a));
  radicalGradient(x, a, depth);
  return [
    { nabla: straight, hand: 0, unit: "call" },
    {
      nabla: loop / STEPS,
      hand: (pendulumTapeEntries() * 8) / STEPS,
      recomputing: 0,
      unit: "iteration",
    },
    {
      nabla: branches / STEPS,
      hand: (oscillatorTapeEntries() * 8) / STEPS,
      recomputing: 0,
      unit: "iteration",
    },
    { nabla: recursive, hand: radicalTapeEntries() * 8, unit: `call (depth ${depth + 1})` },
  ];
}

// ---- tfjs ----

interface TfjsRow {
  /** Loop iterations tfjs ran (the loops only). */
  steps?: number;
  nsPerGradient: number;
  /** Largest difference from nabla's gradient, relative to its largest component. */
  difference: number;
}

function maxDifference(got: readonly number[], expected: readonly number[]): number {
  const scale = largest(expected);
  return Math.max(...got.map((g, i) => Math.abs(g - expected[i]!) / scale));
}

/** tfjs gradients at the first check point of each benchmark, compared with nabla's. */
function verifyTfjs(p: ReversePrograms, tfjs: Gradient[]): number[] {
  const [straightTf, loopTf, branchesTf, recursiveTf] = tfjs as [
    Gradient,
    Gradient,
    Gradient,
    Gradient,
  ];
  const s = STRAIGHT_POINTS[0]!;
  const [k, c, theta0] = LOOP_POINTS[0]!;
  const [ko, co, bo, x0] = BRANCH_POINTS[0]!;
  const [x, a] = RECURSIVE_POINTS[0]!;
  const pairs: [string, number[], number[]][] = [
    ["energy", straightTf(...s), p.straight.gradEnergy(...s)],
    [
      `pendulum, ${TFJS_STEPS} steps`,
      loopTf(k, c, theta0),
      p.loop.gradPendulum(k, c, theta0, TFJS_STEPS),
    ],
    [
      `oscillator, ${TFJS_STEPS} steps`,
      branchesTf(ko, co, bo, x0),
      p.branches.gradOscillator(ko, co, bo, x0, TFJS_STEPS),
    ],
    ["nested radical", recursiveTf(x, a), p.recursive.gradNested(x, a)],
  ];
  const problems = pairs.flatMap(([what, got, expected]) =>
    compare(`tfjs ${what}`, got, expected, TFJS_AGREEMENT, true),
  );
  if (problems.length > 0) {
    throw new Error(
      `tfjs and nabla disagree (tolerance ${TFJS_AGREEMENT} of the largest component):\n  ${problems.join("\n  ")}`,
    );
  }
  return pairs.map(([, got, expected]) => maxDifference(got, expected));
}

function benchTfjs(p: ReversePrograms, progress: (message: string) => void): TfjsRow[] {
  const energyTf = tfEnergyGradient;
  const pendulumTf = tfPendulumGradient(TFJS_STEPS);
  const oscillatorTf = tfOscillatorGradient(TFJS_STEPS);
  const radicalTf = tfRadicalGradient(p.recursive.DEPTH);
  progress("    checking tfjs's gradients against nabla's");
  const differences = verifyTfjs(p, [energyTf, pendulumTf, oscillatorTf, radicalTf]);
  const variants: [string, (n: number) => number][] = [
    [
      "(a)",
      (n) => {
        let s = 0;
        for (let i = 0; i < n; i++) s += total(energyTf(i * 1e-9, 0, 1.2, 0.3, 2, -0.6, 3.1, -0.2));
        return s;
      },
    ],
    [
      "(b)",
      (n) => {
        let s = 0;
        for (let i = 0; i < n; i++) s += total(pendulumTf(1 + i * 1e-3, 0.1, 0.5));
        return s;
      },
    ],
    [
      "(c)",
      (n) => {
        let s = 0;
        for (let i = 0; i < n; i++) s += total(oscillatorTf(4 + i * 1e-3, 0.01, 3, 0.8));
        return s;
      },
    ],
    [
      "(d)",
      (n) => {
        let s = 0;
        for (let i = 0; i < n; i++) s += total(radicalTf(0.7 + i * 1e-9, 0.3));
        return s;
      },
    ],
  ];
  const rows = variants.map(([name, run], k) => {
    const [m] = measure([{ name: "tfjs", run }], TFJS_TIMING);
    progress(
      `    tfjs ${name} ${formatNs(m!.nsPerCall).padStart(14)} ns/gradient  (range ${formatNs(m!.minNs)}–${formatNs(m!.maxNs)}, ${m!.callsPerSample} calls/run)`,
    );
    const loop = k === 1 || k === 2;
    return {
      ...(loop ? { steps: TFJS_STEPS } : {}),
      nsPerGradient: m!.nsPerCall,
      difference: differences[k]!,
    };
  });
  const leaked = tfjsTensorCount();
  if (leaked > 0) throw new Error(`tfjs: ${leaked} tensors still alive after the benchmark`);
  return rows;
}

// ---- the whole reverse-mode benchmark ----

export interface ReverseRow extends TimedRow {
  /** The hand-written loop gradient that recomputes the states backwards. */
  recomputing?: number;
}

export interface ReverseResults {
  rows: ReverseRow[];
  tapes: TapeRow[];
  tfjs: TfjsRow[];
  tfjsVersion: string;
  /** The capacity of nabla's tape at the end, in bytes (it grows and never shrinks). */
  tapeCapacity: number;
  depth: number;
}

export const REVERSE_BENCHMARKS = [
  "(a) straight-line, ~100 ops, 8 inputs",
  "(b) loop, 10⁶ pendulum steps, 3 parameters",
  "(c) if/else in a loop, 10⁶ steps, 4 parameters",
  "(d) recursion, depth 26 (nested radical)",
] as const;

/** Runs the reverse-mode benchmarks; `step(k)` reports progress of benchmark k. */
export async function runReverse(
  p: ReversePrograms,
  progress: (message: string) => void,
  step: (k: number, name: string) => void,
): Promise<ReverseResults> {
  if (p.recursive.DEPTH !== 25) throw new Error("REVERSE_BENCHMARKS assumes DEPTH 25");
  const runs: (() => Measurement[])[] = [
    () => benchStraight(p.straight),
    () => benchLoop(p.loop),
    () => benchBranches(p.branches),
    () => benchRecursive(p.recursive),
  ];
  const rows: ReverseRow[] = [];
  for (const [k, run] of runs.entries()) {
    const benchmark = REVERSE_BENCHMARKS[k]!;
    step(k, `gradient ${benchmark}`);
    const measurements = run();
    for (const m of measurements) {
      progress(
        `    ${m.name.padEnd(12)} ${formatNs(m.nsPerCall).padStart(12)} ns/call  (range ${formatNs(m.minNs)}–${formatNs(m.maxNs)}, ${m.callsPerSample} calls/run)`,
      );
    }
    const [primal, nabla, hand, recomputing] = measurements as [
      Measurement,
      Measurement,
      Measurement,
      Measurement | undefined,
    ];
    rows.push({
      benchmark,
      primal: primal.nsPerCall,
      nabla: nabla.nsPerCall,
      hand: hand.nsPerCall,
      ...(recomputing ? { recomputing: recomputing.nsPerCall } : {}),
      fastest: { primal: primal.minNs, nabla: nabla.minNs, hand: hand.minNs },
    });
  }
  const tapes = measureTapes(p);
  step(runs.length, `TensorFlow.js gradients (tfjs, 'cpu' backend, ${TFJS_STEPS} loop steps)`);
  const tfjsVersion = await initTfjs();
  const tfjs = benchTfjs(p, progress);
  return {
    rows,
    tapes,
    tfjs,
    tfjsVersion,
    tapeCapacity: tapeStats().capacity * 8,
    depth: p.recursive.DEPTH,
  };
}

// ---- report ----

function verdict(row: ReverseRow): string {
  const misses = [
    row.nabla / row.primal <= TARGET_VS_PRIMAL ? "" : `nabla/primal > ${TARGET_VS_PRIMAL}`,
    row.nabla / row.hand <= TARGET_VS_HAND ? "" : `nabla/hand > ${TARGET_VS_HAND}`,
  ].filter(Boolean);
  return misses.length === 0 ? "yes" : `no (${misses.join(", ")})`;
}

function formatBytes(bytes: number): string {
  return Number.isInteger(bytes) ? String(bytes) : bytes.toFixed(1);
}

function mebibytes(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(0)} MiB`;
}

function runTimeTable(rows: ReverseRow[]): string {
  return gradientTable(rows, verdict);
}

function tapeTable(results: ReverseResults): string {
  return table(
    [
      "benchmark",
      "tape bytes per",
      "nabla",
      "hand-written (taped)",
      "nabla/hand-written",
      "hand-written, recomputing",
      "recomputing ns/gradient",
      "nabla/recomputing (time)",
    ],
    results.tapes.map((t, k) => {
      const row = results.rows[k]!;
      return [
        row.benchmark,
        t.unit,
        formatBytes(t.nabla),
        k === 0 ? "0 (locals)" : formatBytes(t.hand),
        t.hand === 0 ? "—" : ratio(t.nabla, t.hand),
        t.recomputing === undefined ? "—" : formatBytes(t.recomputing),
        row.recomputing === undefined ? "—" : formatNs(row.recomputing),
        row.recomputing === undefined ? "—" : ratio(row.nabla, row.recomputing),
      ];
    }),
    [false, false, true, true, true, true, true, true],
  );
}

function tfjsTable(results: ReverseResults): string {
  return table(
    [
      "benchmark",
      "tfjs loop steps",
      "tfjs µs/gradient",
      "tfjs ns per step",
      "nabla ns per step",
      "tfjs/nabla",
      "tfjs gradient − nabla's",
    ],
    results.tfjs.map((t, k) => {
      const row = results.rows[k]!;
      const tfjsNs = t.steps === undefined ? t.nsPerGradient : t.nsPerGradient / t.steps;
      const nablaNs = t.steps === undefined ? row.nabla : row.nabla / STEPS;
      return [
        row.benchmark,
        t.steps === undefined ? "—" : t.steps.toLocaleString("en-US"),
        t.nsPerGradient < 1e5
          ? (t.nsPerGradient / 1000).toFixed(1)
          : Math.round(t.nsPerGradient / 1000).toLocaleString("en-US"),
        t.steps === undefined ? "—" : formatNs(tfjsNs),
        t.steps === undefined ? "—" : formatNs(nablaNs),
        `${Math.round(tfjsNs / nablaNs).toLocaleString("en-US")}×`,
        t.difference.toExponential(1),
      ];
    }),
    [false, true, true, true, true, true, true],
  );
}

/** The reverse-mode section of docs/benchmarks.md. */
export function reverseReport(results: ReverseResults): string {
  return `## Run time of reverse derivatives (gradients)

${runTimeTable(results.rows)}

Targets: nabla/primal ≤ ${TARGET_VS_PRIMAL}× (the cheap-gradient principle) and nabla/hand-written ≤
${TARGET_VS_HAND}×. One gradient is one call of what \`gradient(f, { wrt })\` returns: for (a) and (d), the fused
gradient \`f$grad\`, which runs the forward sweep and then the backward sweep in one function
(keeping the values outside loops in locals); for the loops (b) and (c), the forward sweep
\`f$fwd\` then the backward sweep \`f$bwd\`, which V8 optimizes better as two functions. It
returns all partial derivatives as an array; the hand-written gradients return an array too.

The programs are in bench/programs/gradient-*.ts:

- **(a)** the potential energy of a chain of four atoms in the plane (Lennard-Jones between every
  pair, harmonic bonds, a bending and a torsion-like term, a soft wall): about 100 arithmetic
  and \`Math\` operations of 8 inputs, no control flow; the gradient has 8 components.
- **(b)** ${STEPS.toLocaleString("en-US")} semi-implicit Euler steps of a damped pendulum with its energy accumulated,
  differentiated with respect to the stiffness k and damping c (read in every iteration) and
  the initial angle.
- **(c)** ${STEPS.toLocaleString("en-US")} steps of an asymmetric oscillator that takes a data-dependent \`if\`/\`else\`
  in every iteration (a pendulum-like force for x > 0, a stiffening Duffing spring for x ≤ 0;
  both branches are taken many times), differentiated with respect to 4 parameters.
- **(d)** the nested radical √(25a + x√(24a + x√(… + x√(a + x)))) as a recursion of depth
  ${results.depth + 1}, differentiated with respect to x and a. Every level's value is needed by the
  backward sweep.

The hand-written gradients (bench/hand-written-reverse.ts) are what a careful engineer would
write: for (a), the forward values kept in locals and the adjoints in one function, no tape;
for the loops (b) and (c), a forward loop that saves per iteration only what the backward loop
reads — 3 float64 each: sin θ, cos θ and ω for (b), which make the backward loop free of
\`Math\` calls; x, v and sin x for (c), x also telling the branch — into a preallocated
Float64Array reused from call to call, then the adjoint loop; for (d), the same recursion saving
one value per level, then the adjoint as a loop down the levels. They are checked before timing
to agree with nabla's gradients to ${AGREEMENT} (relative, per component), and nabla's gradients to
agree with central finite differences to ${FD_AGREEMENT.toExponential()} of the largest component, at ${STRAIGHT_POINTS.length}–${RECURSIVE_POINTS.length} points each.

The same ratios computed from the fastest run of each variant instead of the median:

${fastestTable(results.rows)}

## Tape memory of reverse derivatives

${tapeTable(results)}

nabla's tape is its global float64 stack (src/runtime/tape.ts): the most entries it held
during one gradient call (\`resetTapePeak()\`, then \`tapeStats().peak\`), × 8 bytes, divided by the
${STEPS.toLocaleString("en-US")} iterations for the loops. The hand-written figure is the size of the Float64Array the
gradient used. The tape grows by doubling and is never shrunk: after this run it holds
${mebibytes(results.tapeCapacity)}.

The steps of (b) and (c) are invertible, so a hand-written gradient can also do without a
tape: "hand-written, recomputing" runs the loop forward to the final state, then steps the
states back (θᵢ = θᵢ₊₁ − ωᵢ₊₁h, ωᵢ = (ωᵢ₊₁ + k sin θᵢ h)/(1 − ch) for (b), likewise for (c)) along
with the adjoints, calling sin and cos again. Rounding makes the recomputed states differ slightly
from the forward ones (it is within the ${AGREEMENT} check here because damping over the simulated
time is mild; with strong damping backward stepping amplifies rounding and this is not an
option). The 1.3× target is measured against the taped version, the same strategy as nabla's.

## Reverse mode against TensorFlow.js

${tfjsTable(results)}

TensorFlow.js ${results.tfjsVersion} (\`@tensorflow/tfjs\`) on its pure-JavaScript \`'cpu'\` backend (no
native binding), in production mode, with the same functions written as eager tfjs ops on
scalars (\`tf.scalar\`), differentiated by \`tf.grads\` (bench/tfjs.ts); each gradient call
is wrapped in \`tf.tidy\` and reads the gradients back with \`dataSync\`, so no tensor outlives it.
(c) reads x's value (\`dataSync\`) to choose the branch, as an eager tfjs user would. **tfjs runs
the loops of (b) and (c) with ${TFJS_STEPS.toLocaleString("en-US")} steps, not ${STEPS.toLocaleString("en-US")}**: its time per gradient is for
${TFJS_STEPS.toLocaleString("en-US")} steps, and the loop rows compare time per step (tfjs time / ${TFJS_STEPS.toLocaleString("en-US")} against nabla's time /
${STEPS.toLocaleString("en-US")}; both grow linearly with the steps). For (a) and (d) the factor compares time per
gradient. tfjs computes in float32 (its CPU backend has no float64): the last column is the
largest difference between its gradient and nabla's (at the same number of steps), relative to
the largest component; the benchmark fails above ${TFJS_AGREEMENT.toExponential()}. tfjs is timed with
${TFJS_TIMING.repetitions} repetitions of at least ${TFJS_TIMING.minSampleMs} ms, after the same warm-up as the rest.
`;
}
