import { join } from "node:path";
import {
  rosenGradient,
  rosenHessian,
  rosenHessianVectorProduct,
} from "./hand-written-higher-order.js";
import { particlesLossGradient, type ParticleState } from "./hand-written-structured.js";
import { importCompiled } from "./load.js";
import { formatNs, kib, ratio, table } from "./markdown.js";
import {
  compareParts,
  largestOf,
  nablaMemory,
  particleParts,
  particleSample,
  particlesInput,
  SEEDS,
  values,
  type NablaMemory,
  type Parts,
} from "./structured.js";
import { initTfjs, tfjsTensorCount, tfRosenbrock } from "./tfjs.js";
import { measure, type Measurement, type TimingOptions } from "./timing.js";

// The higher-order part of `npm run bench` (bench/programs/higher-order.ts): the Hessian and
// Hessian-vector products of the Rosenbrock function against its gradient, derivatives written
// by hand, finite differences of the gradient and TensorFlow.js; and checkpointing, on the
// particle system of structured.ts with its steps grouped into segments: tape memory and time
// of a gradient with plain calls of each segment and with `checkpoint(segment)(…)`. run.ts
// calls these functions and puts `higherOrderReport` into docs/benchmarks.md.

/** Hessian-vector product ÷ gradient (medians). */
export const TARGET_HVP_VS_GRADIENT = 4;
/** nabla vs hand-written, and checkpointed vs plain: relative per component, absolute below 1. */
const AGREEMENT = 1e-9;
/** Finite-difference HVP vs nabla's, relative to the largest component. */
const FD_AGREEMENT = 1e-5;
/** Step of the finite-difference HVP along v (x and v are of order 1). */
const FD_STEP = 1e-5;
/** tfjs (float32) vs nabla (float64), relative to the largest component. */
const TFJS_AGREEMENT = 1e-3;
const TIMING: TimingOptions = { minSampleMs: 60, repetitions: 15 };
const TFJS_TIMING: TimingOptions = { minSampleMs: 200, repetitions: 5 };
/** The ways of grouping the particle system's 100 steps whose memory is measured. */
const SEGMENTATIONS: [segments: number, steps: number][] = [
  [1, 100],
  [5, 20],
  [10, 10],
  [20, 5],
  [100, 1],
];

// What bench/programs/higher-order.ts exports, once compiled by nabla.
interface HigherOrderProgram {
  DIMENSION: number;
  SEGMENTS: number;
  STEPS_PER_SEGMENT: number;
  rosen(x: Float64Array): number;
  gradRosen(x: Float64Array): Float64Array;
  hessRosen(x: Float64Array): Float64Array[];
  hvpRosen(x: Float64Array, v: Float64Array): Float64Array;
  segmentedLoss(initial: ParticleState, segments: number, steps: number): number;
  checkpointedLoss(initial: ParticleState, segments: number, steps: number): number;
  gradSegmented(initial: ParticleState, segments: number, steps: number): ParticleState;
  gradCheckpointed(initial: ParticleState, segments: number, steps: number): ParticleState;
}

export async function loadHigherOrderProgram(dir: string): Promise<HigherOrderProgram> {
  return importCompiled<HigherOrderProgram>(join(dir, "higher-order.ts"));
}

export const HIGHER_ORDER_BENCHMARKS = [
  "(h) Rosenbrock, n = 100: Hessian and Hessian-vector product",
  "(h) Rosenbrock, n = 100: TensorFlow.js gradient and Hessian-vector product",
  "(i) 64 particles, 100 steps in 10 segments: plain calls vs checkpoint",
] as const;

// ---- inputs: deterministic, different per seed ----

/** A point in the banana valley's neighbourhood, x ∈ [−1.2, 1.2)ⁿ. */
function rosenPoint(p: HigherOrderProgram, seed: number): Float64Array {
  return values(p.DIMENSION, seed, 1.2);
}

/** The direction of the Hessian-vector products, v ∈ [−1, 1)ⁿ. */
function rosenDirection(p: HigherOrderProgram, seed: number): Float64Array {
  return values(p.DIMENSION, seed + 0.5, 1);
}

/** The particles of (g) (runStructured checks that the program has 64). */
const PARTICLES = 64;

/** The particle state of (g) for a seed. */
function particles(seed: number): ParticleState {
  return particlesInput({ PARTICLES }, seed);
}

// ---- finite differences of the gradient ----

/** Arrays reused from call to call by the finite-difference HVP. */
const fdUp = new Float64Array(1024);
const fdDown = new Float64Array(1024);

/**
 * ∇²f(x)·v ≈ (∇f(x + εv) − ∇f(x − εv)) / 2ε: two gradients, the classic way to get a
 * Hessian-vector product from a gradient. Accurate to about ε² × the third derivatives.
 */
function finiteDifferenceHvp(
  grad: (x: Float64Array) => Float64Array,
  x: Float64Array,
  v: Float64Array,
): Float64Array {
  const n = x.length;
  const up = fdUp.subarray(0, n);
  const down = fdDown.subarray(0, n);
  for (let i = 0; i < n; i++) {
    up[i] = x[i]! + FD_STEP * v[i]!;
    down[i] = x[i]! - FD_STEP * v[i]!;
  }
  const gUp = grad(up);
  const gDown = grad(down);
  const hv = new Float64Array(n);
  for (let i = 0; i < n; i++) hv[i] = (gUp[i]! - gDown[i]!) / (2 * FD_STEP);
  return hv;
}

// ---- agreement checks: run before timing, fail loudly ----

/** A vector as the one-array Parts that compareParts takes. */
function vector(name: string, a: Float64Array | Float32Array): Parts {
  return [[name, a]];
}

/**
 * `got` against `expected` component by component, relative to the larger of the two or
 * absolute for components below 1 in magnitude (Hessian entries that nearly cancel); returns
 * the problems found (at most a few).
 */
function compareVectors(
  what: string,
  got: Float64Array | undefined,
  expected: Float64Array | undefined,
): string[] {
  if (!got || !expected || got.length !== expected.length) {
    return [`${what}: ${got?.length} components, expected ${expected?.length}`];
  }
  const problems: string[] = [];
  let bad = 0;
  for (let i = 0; i < got.length; i++) {
    const [g, e] = [got[i]!, expected[i]!];
    const bound = AGREEMENT * Math.max(1, Math.abs(g), Math.abs(e));
    if (Number.isFinite(g) && Math.abs(g - e) <= bound) continue;
    if (++bad <= 3) problems.push(`${what}[${i}]: ${g}, expected ${e}`);
  }
  if (bad > 3) problems.push(`${what}: ${bad - 3} more components disagree`);
  return problems;
}

/** compareVectors for matrices given as rows. */
function compareMatrices(what: string, got: Float64Array[], expected: Float64Array[]): string[] {
  if (got.length !== expected.length)
    return [`${what}: ${got.length} rows, expected ${expected.length}`];
  return got.flatMap((row, i) => compareVectors(`${what} row ${i}`, row, expected[i]));
}

/** H·v for a dense matrix given as rows. */
function multiply(h: Float64Array[], v: Float64Array): Float64Array {
  const hv = new Float64Array(h.length);
  h.forEach((row, i) => {
    let s = 0;
    for (let j = 0; j < row.length; j++) s += row[j]! * v[j]!;
    hv[i] = s;
  });
  return hv;
}

/** The largest difference between two vectors, relative to the largest component of `expected`. */
function maxDifference(got: Float64Array | Float32Array, expected: Float64Array): number {
  const scale = largestOf(vector("", expected));
  let d = 0;
  for (let i = 0; i < got.length; i++) d = Math.max(d, Math.abs(got[i]! - expected[i]!) / scale);
  return d;
}

interface Agreement {
  /** Finite-difference HVP vs nabla's, relative to its largest component (worst seed). */
  fdDifference: number;
  /** Checkpointed gradient vs plain, largest relative difference per component. */
  checkpointDifference: number;
}

/**
 * nabla's gradient, Hessian and HVP of Rosenbrock against the hand-written ones (and the HVP
 * against H·v, both from nabla's Hessian and from the hand-written one); the finite-difference
 * HVP against nabla's; the segmented particle gradients, plain and checkpointed, against each
 * other and against the hand-written gradient of (g). Throws with every disagreement found.
 */
export function verifyHigherOrder(p: HigherOrderProgram): Agreement {
  if (p.DIMENSION !== 100 || p.SEGMENTS * p.STEPS_PER_SEGMENT !== 100) {
    throw new Error("HIGHER_ORDER_BENCHMARKS assumes n = 100 and 100 particle steps");
  }
  const problems: string[] = [];
  let fdDifference = 0;
  let checkpointDifference = 0;
  for (const seed of SEEDS) {
    const x = rosenPoint(p, seed);
    const v = rosenDirection(p, seed);
    const at = `(seed ${seed})`;
    const exactHessian = rosenHessian(x);
    const hessian = p.hessRosen(x);
    const hvp = p.hvpRosen(x, v);
    problems.push(
      ...compareVectors(`gradRosen ${at}`, p.gradRosen(x), rosenGradient(x)),
      ...compareMatrices(`hessRosen ${at}`, hessian, exactHessian),
      ...compareVectors(`hvpRosen ${at} vs hand-written H·v`, hvp, multiply(exactHessian, v)),
      ...compareVectors(`hvpRosen ${at} vs nabla's Hessian times v`, hvp, multiply(hessian, v)),
      ...compareVectors(`hand-written HVP ${at}`, rosenHessianVectorProduct(x, v), hvp),
    );
    const fd = finiteDifferenceHvp(p.gradRosen, x, v);
    fdDifference = Math.max(fdDifference, maxDifference(fd, hvp));
    problems.push(
      ...compareParts(
        `finite-difference HVP ${at}`,
        vector("Hv", fd),
        vector("Hv", hvp),
        FD_AGREEMENT,
        largestOf(vector("Hv", hvp)),
      ),
    );

    const state = particles(seed);
    const expected = particleParts(particlesLossGradient(state, 100));
    for (const [segments, steps] of SEGMENTATIONS) {
      const plain = particleParts(p.gradSegmented(state, segments, steps));
      const checkpointed = particleParts(p.gradCheckpointed(state, segments, steps));
      const where = `${at}, ${segments} × ${steps} steps`;
      problems.push(
        ...compareParts(`gradSegmented ${where} vs hand-written`, plain, expected, AGREEMENT),
        ...compareParts(
          `gradCheckpointed ${where} vs gradSegmented`,
          checkpointed,
          plain,
          AGREEMENT,
        ),
      );
      plain.forEach(([, a], k) => {
        const b = checkpointed[k]![1];
        for (let i = 0; i < a.length; i++) {
          const scale = Math.max(Math.abs(a[i]!), Math.abs(b[i]!));
          if (scale > 0) {
            checkpointDifference = Math.max(checkpointDifference, Math.abs(a[i]! - b[i]!) / scale);
          }
        }
      });
      const loss = p.segmentedLoss(state, segments, steps);
      if (p.checkpointedLoss(state, segments, steps) !== loss) {
        problems.push(`checkpointedLoss ${where}: differs from segmentedLoss ${loss}`);
      }
    }
  }
  if (problems.length > 0) {
    throw new Error(
      `higher order: derivatives disagree (nabla vs hand-written and checkpointed vs plain ${AGREEMENT} relative, absolute below 1; finite differences ${FD_AGREEMENT} of the largest component):\n  ${problems.join("\n  ")}`,
    );
  }
  return { fdDifference, checkpointDifference };
}

// ---- timing: one loop per variant, so each call site stays monomorphic ----
//
// Every call moves x[0] (or the first particle) a little, so nothing can be hoisted out of the
// loop, and one component of the result (a different one each call) goes into the sink.

function benchRosenbrock(p: HigherOrderProgram): Measurement[] {
  const { rosen, gradRosen, hessRosen, hvpRosen } = p;
  const x = rosenPoint(p, SEEDS[0]!);
  const v = rosenDirection(p, SEEDS[0]!);
  const x0 = x[0]!;
  const n = x.length;
  return measure(
    [
      {
        name: "primal",
        run: (calls) => {
          let s = 0;
          for (let i = 0; i < calls; i++) {
            x[0] = x0 + i * 1e-9;
            s += rosen(x);
          }
          return s;
        },
      },
      {
        name: "gradient",
        run: (calls) => {
          let s = 0;
          for (let i = 0; i < calls; i++) {
            x[0] = x0 + i * 1e-9;
            s += gradRosen(x)[i % n]!;
          }
          return s;
        },
      },
      {
        name: "hand gradient",
        run: (calls) => {
          let s = 0;
          for (let i = 0; i < calls; i++) {
            x[0] = x0 + i * 1e-9;
            s += rosenGradient(x)[i % n]!;
          }
          return s;
        },
      },
      {
        name: "HVP",
        run: (calls) => {
          let s = 0;
          for (let i = 0; i < calls; i++) {
            x[0] = x0 + i * 1e-9;
            s += hvpRosen(x, v)[i % n]!;
          }
          return s;
        },
      },
      {
        name: "hand HVP",
        run: (calls) => {
          let s = 0;
          for (let i = 0; i < calls; i++) {
            x[0] = x0 + i * 1e-9;
            s += rosenHessianVectorProduct(x, v)[i % n]!;
          }
          return s;
        },
      },
      {
        name: "FD HVP",
        run: (calls) => {
          let s = 0;
          for (let i = 0; i < calls; i++) {
            x[0] = x0 + i * 1e-9;
            s += finiteDifferenceHvp(gradRosen, x, v)[i % n]!;
          }
          return s;
        },
      },
      {
        // Not a derivative: what allocating one result array costs, for reading the others.
        name: "allocation",
        run: (calls) => {
          let s = 0;
          for (let i = 0; i < calls; i++) {
            const a = new Float64Array(n);
            a[0] = i;
            s += a[i % n]!;
          }
          return s;
        },
      },
      {
        name: "Hessian",
        run: (calls) => {
          let s = 0;
          for (let i = 0; i < calls; i++) {
            x[0] = x0 + i * 1e-9;
            const k = i % n;
            s += hessRosen(x)[k]![k]!;
          }
          return s;
        },
      },
      {
        name: "hand Hessian",
        run: (calls) => {
          let s = 0;
          for (let i = 0; i < calls; i++) {
            x[0] = x0 + i * 1e-9;
            const k = i % n;
            s += rosenHessian(x)[k]![k]!;
          }
          return s;
        },
      },
    ],
    TIMING,
  );
}

function benchCheckpoint(p: HigherOrderProgram): Measurement[] {
  const { segmentedLoss, gradSegmented, gradCheckpointed, SEGMENTS, STEPS_PER_SEGMENT } = p;
  const state = particles(SEEDS[0]!);
  const x0 = state.x[0]!;
  return measure(
    [
      {
        name: "primal",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) {
            state.x[0] = x0 + i * 1e-9;
            s += segmentedLoss(state, SEGMENTS, STEPS_PER_SEGMENT);
          }
          return s;
        },
      },
      {
        name: "plain",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) {
            state.x[0] = x0 + i * 1e-9;
            s += particleSample(gradSegmented(state, SEGMENTS, STEPS_PER_SEGMENT), i);
          }
          return s;
        },
      },
      {
        name: "checkpoint",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) {
            state.x[0] = x0 + i * 1e-9;
            s += particleSample(gradCheckpointed(state, SEGMENTS, STEPS_PER_SEGMENT), i);
          }
          return s;
        },
      },
    ],
    TIMING,
  );
}

// ---- tfjs ----

interface TfjsResult {
  version: string;
  nsPerGradient: number;
  nsPerHvp: number;
  /** Largest difference from nabla's, relative to its largest component. */
  gradientDifference: number;
  hvpDifference: number;
}

async function benchTfjs(
  p: HigherOrderProgram,
  progress: (message: string) => void,
): Promise<TfjsResult> {
  const version = await initTfjs();
  const tfRosen = tfRosenbrock(p.DIMENSION);
  let gradientDifference = 0;
  let hvpDifference = 0;
  progress("    checking tfjs's gradient and HVP against nabla's");
  for (const seed of SEEDS) {
    const x = rosenPoint(p, seed);
    const v = rosenDirection(p, seed);
    const [x32, v32] = [Float32Array.from(x), Float32Array.from(v)];
    const g = p.gradRosen(x);
    const hvp = p.hvpRosen(x, v);
    const problems = [
      ...compareParts(
        `tfjs gradient (seed ${seed})`,
        vector("g", tfRosen.gradient(x32)),
        vector("g", g),
        TFJS_AGREEMENT,
        largestOf(vector("g", g)),
      ),
      ...compareParts(
        `tfjs HVP (seed ${seed})`,
        vector("Hv", tfRosen.hessianVectorProduct(x32, v32)),
        vector("Hv", hvp),
        TFJS_AGREEMENT,
        largestOf(vector("Hv", hvp)),
      ),
    ];
    if (problems.length > 0) {
      throw new Error(
        `tfjs and nabla disagree (tolerance ${TFJS_AGREEMENT} of the largest component):\n  ${problems.join("\n  ")}`,
      );
    }
    gradientDifference = Math.max(gradientDifference, maxDifference(tfRosen.gradient(x32), g));
    hvpDifference = Math.max(
      hvpDifference,
      maxDifference(tfRosen.hessianVectorProduct(x32, v32), hvp),
    );
  }
  const x = Float32Array.from(rosenPoint(p, SEEDS[0]!));
  const v = Float32Array.from(rosenDirection(p, SEEDS[0]!));
  const x0 = x[0]!;
  const n = x.length;
  const [gradient, hvp] = measure(
    [
      {
        name: "tfjs gradient",
        run: (calls) => {
          let s = 0;
          for (let i = 0; i < calls; i++) {
            x[0] = x0 + i * 1e-6;
            s += tfRosen.gradient(x)[i % n]!;
          }
          return s;
        },
      },
      {
        name: "tfjs HVP",
        run: (calls) => {
          let s = 0;
          for (let i = 0; i < calls; i++) {
            x[0] = x0 + i * 1e-6;
            s += tfRosen.hessianVectorProduct(x, v)[i % n]!;
          }
          return s;
        },
      },
    ],
    TFJS_TIMING,
  ) as [Measurement, Measurement];
  for (const m of [gradient, hvp]) progress(measurementLine(m));
  const leaked = tfjsTensorCount();
  if (leaked > 0) throw new Error(`tfjs: ${leaked} tensors still alive after the Rosenbrock HVP`);
  return {
    version,
    nsPerGradient: gradient.nsPerCall,
    nsPerHvp: hvp.nsPerCall,
    gradientDifference,
    hvpDifference,
  };
}

// ---- memory of checkpointing ----

interface CheckpointMemoryRow {
  segments: number;
  steps: number;
  plain: NablaMemory;
  checkpointed: NablaMemory;
  /** The copies of the state the checkpoints hold: array bytes beyond the plain gradient's. */
  snapshotBytes: number;
}

/**
 * The memory of the segmented gradients, plain and checkpointed, for each segmentation. The
 * snapshot bytes are what the checkpointed gradient's object stack holds in typed arrays beyond
 * what the plain one's holds (the shadows, referenced by both), and must equal one copy of the
 * state's 4 × 64 float64 per segment: `checkpoint` copies its array arguments.
 */
function measureCheckpointMemory(p: HigherOrderProgram): CheckpointMemoryRow[] {
  const state = particles(SEEDS[0]!);
  const stateBytes = particleParts(state).reduce((bytes, [, a]) => bytes + a.byteLength, 0);
  return SEGMENTATIONS.map(([segments, steps]) => {
    const plain = nablaMemory(() => p.gradSegmented(state, segments, steps));
    const checkpointed = nablaMemory(() => p.gradCheckpointed(state, segments, steps));
    const snapshotBytes = checkpointed.arrayBytes - plain.arrayBytes;
    if (snapshotBytes !== segments * stateBytes) {
      throw new Error(
        `checkpoint ${segments} × ${steps}: the object stack holds ${snapshotBytes} bytes of snapshots, expected ${segments} × ${stateBytes}`,
      );
    }
    return { segments, steps, plain, checkpointed, snapshotBytes };
  });
}

/** The tape peak of one gradient and one HVP of Rosenbrock, in bytes. */
function rosenbrockTapes(p: HigherOrderProgram): { gradient: number; hvp: number } {
  const x = rosenPoint(p, SEEDS[0]!);
  const v = rosenDirection(p, SEEDS[0]!);
  return {
    gradient: nablaMemory(() => p.gradRosen(x)).tapeBytes,
    hvp: nablaMemory(() => p.hvpRosen(x, v)).tapeBytes,
  };
}

// ---- the whole higher-order benchmark ----

function measurementLine(m: Measurement): string {
  return `    ${m.name.padEnd(14)} ${formatNs(m.nsPerCall).padStart(12)} ns/call  (range ${formatNs(m.minNs)}–${formatNs(m.maxNs)}, ${m.callsPerSample} calls/run)`;
}

/** A variant's median and fastest run, in ns per call. */
interface Timed {
  median: number;
  fastest: number;
}

function timed(m: Measurement): Timed {
  return { median: m.nsPerCall, fastest: m.minNs };
}

export interface HigherOrderResults {
  rosenbrock: {
    primal: Timed;
    gradient: Timed;
    handGradient: Timed;
    hvp: Timed;
    handHvp: Timed;
    fdHvp: Timed;
    allocation: Timed;
    hessian: Timed;
    handHessian: Timed;
  };
  tapes: { gradient: number; hvp: number };
  tfjs: TfjsResult;
  checkpoint: { primal: Timed; plain: Timed; checkpointed: Timed };
  memory: CheckpointMemoryRow[];
  agreement: Agreement;
  /** Bytes per object-stack entry: a pointer, 4 bytes if V8 compresses pointers. */
  pointerBytes: number;
  segments: number;
  stepsPerSegment: number;
}

/** Runs the higher-order benchmarks; `step(k)` reports progress of benchmark k. */
export async function runHigherOrder(
  p: HigherOrderProgram,
  agreement: Agreement,
  progress: (message: string) => void,
  step: (k: number, name: string) => void,
): Promise<HigherOrderResults> {
  step(0, HIGHER_ORDER_BENCHMARKS[0]);
  const r = benchRosenbrock(p) as [Measurement, ...Measurement[]];
  r.forEach((m) => progress(measurementLine(m)));
  const [primal, gradient, handGradient, hvp, handHvp, fdHvp, allocation, hessian, handHessian] =
    r.map(timed);
  progress(
    `    HVP/gradient ${ratio(hvp!.median, gradient!.median)}, Hessian/gradient ${ratio(hessian!.median, gradient!.median)}`,
  );
  const tapes = rosenbrockTapes(p);

  step(1, `${HIGHER_ORDER_BENCHMARKS[1]} (tfjs, 'cpu' backend)`);
  const tfjs = await benchTfjs(p, progress);

  step(2, HIGHER_ORDER_BENCHMARKS[2]);
  const c = benchCheckpoint(p);
  c.forEach((m) => progress(measurementLine(m)));
  const [checkpointPrimal, plain, checkpointed] = c.map(timed);
  const memory = measureCheckpointMemory(p);
  for (const m of memory) {
    progress(
      `    memory ${m.segments} × ${m.steps}: plain tape ${m.plain.tapeBytes} bytes; checkpoint tape ${m.checkpointed.tapeBytes} bytes + snapshots ${m.snapshotBytes} bytes`,
    );
  }
  const variables = process.config.variables as Record<string, unknown>;
  const compressed = Number(variables["v8_enable_pointer_compression"] ?? 0) === 1;
  return {
    rosenbrock: {
      primal: primal!,
      gradient: gradient!,
      handGradient: handGradient!,
      hvp: hvp!,
      handHvp: handHvp!,
      fdHvp: fdHvp!,
      allocation: allocation!,
      hessian: hessian!,
      handHessian: handHessian!,
    },
    tapes,
    tfjs,
    checkpoint: { primal: checkpointPrimal!, plain: plain!, checkpointed: checkpointed! },
    memory,
    agreement,
    pointerBytes: compressed ? 4 : 8,
    segments: p.SEGMENTS,
    stepsPerSegment: p.STEPS_PER_SEGMENT,
  };
}

// ---- report ----

function rosenbrockTable(results: HigherOrderResults): string {
  const r = results.rosenbrock;
  const rowsOf: [string, Timed][] = [
    ["primal `rosen(x)`", r.primal],
    ["nabla `gradient(rosen)(x)`", r.gradient],
    ["hand-written gradient", r.handGradient],
    ["nabla `hessianVectorProduct(rosen)(x, v)`", r.hvp],
    ["hand-written HVP (tridiagonal)", r.handHvp],
    ["finite-difference HVP (2 nabla gradients)", r.fdHvp],
    ["(reference) `new Float64Array(100)` alone", r.allocation],
    ["nabla `hessian(rosen)(x)`", r.hessian],
    ["hand-written Hessian (tridiagonal, 100 rows)", r.handHessian],
  ];
  return table(
    ["variant", "ns/call", "÷ nabla gradient", "÷ primal", "÷ nabla gradient (fastest runs)"],
    rowsOf.map(([name, t]) => [
      name,
      formatNs(t.median),
      ratio(t.median, r.gradient.median),
      ratio(t.median, r.primal.median),
      ratio(t.fastest, r.gradient.fastest),
    ]),
    [false, true, true, true, true],
  );
}

function targetLine(results: HigherOrderResults): string {
  const r = results.rosenbrock;
  const hvpRatio = r.hvp.median / r.gradient.median;
  const met = hvpRatio <= TARGET_HVP_VS_GRADIENT ? "met" : "**not met**";
  return `HVP ÷ gradient = **${ratio(r.hvp.median, r.gradient.median)}** (target ≤ ${TARGET_HVP_VS_GRADIENT}×: ${met}); Hessian ÷ gradient = ${ratio(r.hessian.median, r.gradient.median)}; nabla ÷ hand-written: gradient ${ratio(r.gradient.median, r.handGradient.median)}, HVP ${ratio(r.hvp.median, r.handHvp.median)}, Hessian ${ratio(r.hessian.median, r.handHessian.median)}.`;
}

function tfjsTable(results: HigherOrderResults): string {
  const t = results.tfjs;
  const r = results.rosenbrock;
  const us = (ns: number) => (ns / 1000).toFixed(ns < 100_000 ? 1 : 0);
  return table(
    [
      "benchmark",
      "tfjs µs/gradient",
      "tfjs µs/HVP",
      "tfjs HVP ÷ gradient",
      "tfjs HVP ÷ nabla HVP",
      "tfjs − nabla (gradient, HVP)",
    ],
    [
      [
        "Rosenbrock, n = 100",
        us(t.nsPerGradient),
        us(t.nsPerHvp),
        ratio(t.nsPerHvp, t.nsPerGradient),
        ratio(t.nsPerHvp, r.hvp.median),
        `${t.gradientDifference.toExponential(1)}, ${t.hvpDifference.toExponential(1)}`,
      ],
    ],
    [false, true, true, true, true, true],
  );
}

function checkpointTimeTable(results: HigherOrderResults): string {
  const c = results.checkpoint;
  const shape = `${results.segments} × ${results.stepsPerSegment}`;
  const rowsOf: [string, Timed][] = [
    [`primal \`segmentedLoss(state, ${results.segments}, ${results.stepsPerSegment})\``, c.primal],
    [`nabla gradient, plain calls of \`segment\` (${shape})`, c.plain],
    [`nabla gradient, \`checkpoint(segment)(…)\` (${shape})`, c.checkpointed],
  ];
  return table(
    ["variant", "ns/call", "÷ primal", "÷ plain gradient", "÷ plain gradient (fastest runs)"],
    rowsOf.map(([name, t]) => [
      name,
      formatNs(t.median),
      ratio(t.median, c.primal.median),
      ratio(t.median, c.plain.median),
      ratio(t.fastest, c.plain.fastest),
    ]),
    [false, true, true, true, true],
  );
}

function checkpointMemoryTable(results: HigherOrderResults): string {
  const pointer = results.pointerBytes;
  const total = (m: NablaMemory, snapshots: number) =>
    m.tapeBytes + snapshots + m.objects * pointer;
  const plain = results.memory.find((m) => m.segments === results.segments)!.plain;
  const plainTotal = total(plain, 0);
  const row = (name: string, m: NablaMemory, snapshots: number) => [
    name,
    kib(m.tapeBytes),
    kib(snapshots),
    `${m.objects} (${kib(m.objects * pointer)})`,
    kib(total(m, snapshots)),
    ratio(total(m, snapshots), plainTotal),
  ];
  return table(
    [
      "gradient",
      "number tape (peak)",
      "snapshots",
      "object stack entries (peak)",
      "total",
      "÷ plain",
    ],
    [
      row(`plain calls, ${results.segments} × ${results.stepsPerSegment}`, plain, 0),
      ...results.memory.map((m) =>
        row(`checkpoint, ${m.segments} × ${m.steps}`, m.checkpointed, m.snapshotBytes),
      ),
    ],
    [false, true, true, true, true, true],
  );
}

/** The higher-order section of docs/benchmarks.md. */
export function higherOrderReport(results: HigherOrderResults): string {
  const a = results.agreement;
  const { segments, stepsPerSegment } = results;
  return `## Higher-order derivatives and checkpointing

### (h) Hessian and Hessian-vector products: Rosenbrock, n = 100

${rosenbrockTable(results)}

${targetLine(results)}

The program is in bench/programs/higher-order.ts: \`rosen(x: Float64Array)\` is the loop
Σᵢ 100 (xᵢ₊₁ − xᵢ²)² + (1 − xᵢ)², and \`gradient(rosen)\`, \`hessianVectorProduct(rosen)\`
and \`hessian(rosen)\` are nabla's operators on it. nabla computes a Hessian-vector product
as the gradient of x ↦ ⟨∇f(x), v⟩ with the inner derivative in forward mode (reverse over
forward), and the Hessian as one such product per basis vector (100 rows). The hand-written
derivatives (bench/hand-written-higher-order.ts) use the analytic form: the gradient in one
loop, the HVP from the three diagonals of the tridiagonal Hessian, the Hessian as 100 fresh
Float64Array rows of which the three diagonals are filled — as nabla returns it, but without
the 100 passes. The finite-difference HVP is (∇f(x + εv) − ∇f(x − εv)) / 2ε with ε =
${FD_STEP.toExponential()}, two of nabla's gradients; it differs from the exact product by up to
${a.fdDifference.toExponential(1)} of its largest component. Every result is a fresh Float64Array, as nabla's
are: the reference row times allocating one, which on this machine costs more than the
arithmetic of a gradient of this size and accounts for much of every row (the Hessians
allocate 100 rows; nabla's reuses one basis vector). nabla's gradient,
Hessian and HVP are checked before timing against the hand-written ones, and the HVP against
H·v with H both nabla's and the hand-written Hessian, to ${AGREEMENT} (relative, absolute for
components below 1), at ${SEEDS.length} points x ∈ [−1.2, 1.2)¹⁰⁰ and directions v ∈ [−1, 1)¹⁰⁰. The number tape
peaks at ${kib(results.tapes.gradient)} for a gradient and ${kib(results.tapes.hvp)} for an HVP.

**TensorFlow.js** ${results.tfjs.version} (\`'cpu'\` backend, bench/tfjs.ts), the same function vectorized with
slices of x, the gradient with \`tf.grad\` and the HVP with \`tf.grad\` of x ↦ ⟨\`tf.grad\`(f)(x), v⟩
(reverse over reverse), each call in \`tf.tidy\` from a Float32Array to a Float32Array; timed with
${TFJS_TIMING.repetitions} repetitions of at least ${TFJS_TIMING.minSampleMs} ms. The last column is the largest difference from
nabla's result relative to its largest component (tfjs computes in float32).

${tfjsTable(results)}

### (i) Checkpointing: 64 particles, 100 steps in segments

${checkpointTimeTable(results)}

Memory per gradient call:

${checkpointMemoryTable(results)}

The particle system of (g), with its 100 steps grouped into calls of
\`segment(p, steps, h)\` (a loop of \`step\`) in bench/programs/higher-order.ts:
\`segmentedLoss\` calls \`segment\` plainly, \`checkpointedLoss\` calls \`checkpoint(segment)(p, steps, h)\`,
so that the forward sweep keeps a copy of the state instead of taping the segment, and the
backward sweep reruns the segment's forward sweep from that copy just before its backward
sweep. The timed rows are ${segments} segments of ${stepsPerSegment} steps; memory is measured for
several groupings. What checkpointing adds to the time is one more run of every segment (the
forward sweep runs the primal segment, the backward sweep its taped forward sweep) and one
copy of the state per segment, the one the forward sweep keeps (four Float64Array
allocations per segment); under a pullback, which may replay the tape, the rerun works on a
second copy.
**number tape**: \`resetTapePeak()\`, one gradient, \`tapeStats().peak\` × 8 bytes.
**snapshots**: the copies of the state (4 × 64 float64) a checkpoint keeps on \`tape.objects\`,
one per segment, all alive at the end of the forward sweep: measured as the bytes of the typed
arrays the object stack holds at its peak beyond those the plain gradient's holds (the shadows,
referenced by both), and checked to equal one state per segment. **object stack entries**: the
peak height of \`tape.objects\` (references, ${results.pointerBytes} bytes each). **total** adds the three
peaks, an upper bound of what is held at once (the snapshots are released one by one as the
backward sweep reruns the segments; the copy a rerun works on, one at a time, is not counted). The checkpointed gradient is checked against the plain one
(largest relative difference ${a.checkpointDifference.toExponential(1)}, tolerance ${AGREEMENT}) and the plain one
against the hand-written gradient of (g), for every grouping, at ${SEEDS.length} initial states.
`;
}
