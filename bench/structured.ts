import { join } from "node:path";
import { resetTapePeak, tape, tapeStats } from "../src/runtime/index.js";
import {
  matvecLossGradient,
  matvecScratchEntries,
  mlpLossGradient,
  mlpScratchEntries,
  particlesLossGradient,
  particlesTapeEntries,
  type MlpParameters,
  type ParticleState,
} from "./hand-written-structured.js";
import { importCompiled } from "./load.js";
import {
  fastestTable,
  formatNs,
  gradientTable,
  kib,
  ratio,
  table,
  type TimedRow,
} from "./markdown.js";
import { initTfjs, tfjsTensorCount, tfMlp } from "./tfjs.js";
import { measure, type Measurement, type TimingOptions } from "./timing.js";

// The structured-data part of `npm run bench`: gradients of functions of Float64Arrays,
// objects and classes (bench/programs/structured.ts) against the primal functions, gradients
// written by hand (bench/hand-written-structured.ts) and, for the MLP, TensorFlow.js; the tape
// and shadow memory of nabla's gradients. run.ts calls these functions and puts
// `structuredReport` into docs/benchmarks.md.

export const TARGET_VS_PRIMAL = 3;
export const TARGET_VS_HAND = 1.5;
/** nabla vs hand-written: relative, per component. */
const AGREEMENT = 1e-9;
/** Finite differences vs nabla, relative to the largest component of the gradient. */
const FD_AGREEMENT = 1e-5;
/** Components of each gradient checked against finite differences. */
const FD_COMPONENTS = 8;
/** tfjs (float32) vs nabla (float64), relative to the largest component of the gradient. */
const TFJS_AGREEMENT = 1e-3;
const TIMING: TimingOptions = { minSampleMs: 60, repetitions: 15 };
const TFJS_TIMING: TimingOptions = { minSampleMs: 200, repetitions: 5 };

/** A class instance of the program's MLP: its fields are what the gradient has. */
type Model = MlpParameters;
type Matvec = [Float64Array, Float64Array];

// What bench/programs/structured.ts exports, once compiled by nabla.
interface StructuredProgram {
  N: number;
  BATCH: number;
  WIDTH: number;
  PARTICLES: number;
  STEPS: number;
  matvecLoss(A: Float64Array, x: Float64Array, n: number): number;
  gradMatvec(A: Float64Array, x: Float64Array, n: number): Matvec;
  MLP: new (inputs: number, hidden: number, outputs: number) => Model;
  mlpLoss(model: Model, inputs: Float64Array[], targets: Float64Array[]): number;
  gradMlp(model: Model, inputs: Float64Array[], targets: Float64Array[]): MlpParameters;
  particlesLoss(initial: ParticleState, steps: number): number;
  gradParticles(initial: ParticleState, steps: number): ParticleState;
}

export async function loadStructuredProgram(dir: string): Promise<StructuredProgram> {
  return importCompiled<StructuredProgram>(join(dir, "structured.ts"));
}

export const STRUCTURED_BENCHMARKS = [
  "(e) matrix–vector product, n = 256",
  "(f) MLP 64 → 64 tanh → 64, batch 64",
  "(g) 64 particles, 100 steps in place",
] as const;

// ---- inputs: deterministic, different per seed ----

/** `length` values in [−scale, scale), a hash of the index and the seed. */
export function values(length: number, seed: number, scale: number): Float64Array {
  const a = new Float64Array(length);
  for (let k = 0; k < length; k++) {
    const v = Math.sin(12.9898 * k + 78.233 * seed) * 43758.5453;
    a[k] = scale * (2 * (v - Math.floor(v)) - 1);
  }
  return a;
}

interface MatvecInput {
  A: Float64Array;
  x: Float64Array;
}
interface MlpInput {
  model: Model;
  inputs: Float64Array[];
  targets: Float64Array[];
}

function matvecInput(p: StructuredProgram, seed: number): MatvecInput {
  return { A: values(p.N * p.N, seed, 1 / Math.sqrt(p.N)), x: values(p.N, seed + 0.5, 1) };
}

function mlpInput(p: StructuredProgram, seed: number): MlpInput {
  const model = new p.MLP(p.WIDTH, p.WIDTH, p.WIDTH);
  // A different model per seed: the class's initialization, shifted.
  const shift = (a: Float64Array, k: number) => {
    const d = values(a.length, seed + k, 0.05);
    for (let i = 0; i < a.length; i++) a[i] += d[i]!;
  };
  shift(model.hidden.w, 0.1);
  shift(model.hidden.b, 0.2);
  shift(model.output.w, 0.3);
  shift(model.output.b, 0.4);
  const inputs: Float64Array[] = [];
  const targets: Float64Array[] = [];
  for (let k = 0; k < p.BATCH; k++) {
    inputs.push(values(p.WIDTH, seed + 100 + k, 1));
    targets.push(values(p.WIDTH, seed + 1000 + k, 0.5));
  }
  return { model, inputs, targets };
}

export function particlesInput(
  p: Pick<StructuredProgram, "PARTICLES">,
  seed: number,
): ParticleState {
  return {
    x: values(p.PARTICLES, seed, 1),
    y: values(p.PARTICLES, seed + 0.25, 1),
    vx: values(p.PARTICLES, seed + 0.5, 1),
    vy: values(p.PARTICLES, seed + 0.75, 1),
  };
}

export const SEEDS = [1, 2];

// ---- agreement checks: run before timing, fail loudly ----

/** A gradient as its named arrays, in a fixed order. */
export type Parts = [string, Float64Array | Float32Array][];

interface MlpLayers<T> {
  hidden: { w: T; b: T };
  output: { w: T; b: T };
}

function matvecParts([dA, dx]: Matvec): Parts {
  return [
    ["A", dA],
    ["x", dx],
  ];
}

function mlpParts(g: MlpLayers<Float64Array> | MlpLayers<Float32Array>): Parts {
  return [
    ["hidden.w", g.hidden.w],
    ["hidden.b", g.hidden.b],
    ["output.w", g.output.w],
    ["output.b", g.output.b],
  ];
}

export function particleParts(g: ParticleState): Parts {
  return [
    ["x", g.x],
    ["y", g.y],
    ["vx", g.vx],
    ["vy", g.vy],
  ];
}

export function largestOf(parts: Parts): number {
  let m = 0;
  for (const [, a] of parts) for (const v of a) m = Math.max(m, Math.abs(v));
  return m;
}

/**
 * Compares two gradients array by array and component by component: relative to each
 * component (`scale` undefined) or to `scale`. Returns the problems found (at most a few per array).
 */
export function compareParts(
  what: string,
  got: Parts,
  expected: Parts,
  tolerance: number,
  scale?: number,
): string[] {
  const problems: string[] = [];
  if (got.length !== expected.length)
    return [`${what}: ${got.length} arrays, expected ${expected.length}`];
  got.forEach(([name, g], k) => {
    const [expectedName, e] = expected[k]!;
    if (name !== expectedName || g.length !== e.length) {
      problems.push(`${what}: ${name}[${g.length}], expected ${expectedName}[${e.length}]`);
      return;
    }
    let bad = 0;
    for (let i = 0; i < g.length; i++) {
      const bound = tolerance * (scale ?? Math.max(Math.abs(g[i]!), Math.abs(e[i]!)));
      if (Number.isFinite(g[i]!) && (g[i] === e[i] || Math.abs(g[i]! - e[i]!) <= bound)) continue;
      if (++bad <= 3) problems.push(`${what} ${name}[${i}]: ${g[i]}, expected ${e[i]}`);
    }
    if (bad > 3) problems.push(`${what} ${name}: ${bad - 3} more components disagree`);
  });
  return problems;
}

/**
 * Central differences of `loss` in a few components of the arrays `parts` of its input (they
 * are perturbed in place and restored), compared with `gradient`'s components.
 */
function checkFiniteDifferences(
  what: string,
  loss: () => number,
  inputs: Parts,
  gradient: Parts,
  problems: string[],
): void {
  const scale = largestOf(gradient);
  for (let c = 0; c < FD_COMPONENTS; c++) {
    const k = c % inputs.length;
    const [name, input] = inputs[k]!;
    const i = Math.floor(((c + 0.5) / FD_COMPONENTS) * input.length);
    const saved = input[i]!;
    const h = 1e-6 * Math.max(1, Math.abs(saved));
    input[i] = saved + h;
    const up = loss();
    input[i] = saved - h;
    const down = loss();
    input[i] = saved;
    const fd = (up - down) / (2 * h);
    const g = gradient[k]![1][i]!;
    if (!(Math.abs(fd - g) <= FD_AGREEMENT * scale)) {
      problems.push(`${what} ${name}[${i}]: nabla ${g}, finite differences ${fd}`);
    }
  }
}

/**
 * nabla's gradients against the hand-written ones (1e-9, relative, every component) and, in a
 * few components, against central differences; throws with every disagreement found.
 */
export function verifyStructured(p: StructuredProgram): void {
  const problems: string[] = [];
  for (const seed of SEEDS) {
    const { A, x } = matvecInput(p, seed);
    const nabla = matvecParts(p.gradMatvec(A, x, p.N));
    problems.push(
      ...compareParts(
        `gradMatvec (seed ${seed}) hand-written`,
        matvecParts(matvecLossGradient(A, x, p.N)),
        nabla,
        AGREEMENT,
      ),
    );
    checkFiniteDifferences(
      `gradMatvec (seed ${seed})`,
      () => p.matvecLoss(A, x, p.N),
      matvecParts([A, x]),
      nabla,
      problems,
    );

    const m = mlpInput(p, seed);
    const mlp = mlpParts(p.gradMlp(m.model, m.inputs, m.targets));
    problems.push(
      ...compareParts(
        `gradMlp (seed ${seed}) hand-written`,
        mlpParts(mlpLossGradient(m.model, m.inputs, m.targets)),
        mlp,
        AGREEMENT,
      ),
    );
    checkFiniteDifferences(
      `gradMlp (seed ${seed})`,
      () => p.mlpLoss(m.model, m.inputs, m.targets),
      mlpParts(m.model),
      mlp,
      problems,
    );

    const state = particlesInput(p, seed);
    const particles = particleParts(p.gradParticles(state, p.STEPS));
    problems.push(
      ...compareParts(
        `gradParticles (seed ${seed}) hand-written`,
        particleParts(particlesLossGradient(state, p.STEPS)),
        particles,
        AGREEMENT,
      ),
    );
    checkFiniteDifferences(
      `gradParticles (seed ${seed})`,
      () => p.particlesLoss(state, p.STEPS),
      particleParts(state),
      particles,
      problems,
    );
  }
  if (problems.length > 0) {
    throw new Error(
      `structured data: gradients disagree (nabla vs hand-written ${AGREEMENT} relative, vs finite differences ${FD_AGREEMENT} of the largest component):\n  ${problems.join("\n  ")}`,
    );
  }
}

// ---- timing: one loop per variant, so each call site stays monomorphic ----
//
// Every call moves one input component a little, so nothing can be hoisted out of the loop. A
// gradient has up to 65,792 components here: summing them all would cost about as much as the
// primal, so one component of each gradient array (a different one on each call) goes into the
// sink instead.

function benchMatvec(p: StructuredProgram): Measurement[] {
  const { matvecLoss, gradMatvec, N } = p;
  const { A, x } = matvecInput(p, SEEDS[0]!);
  const x0 = x[0]!;
  return measure(
    [
      {
        name: "primal",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) {
            x[0] = x0 + i * 1e-9;
            s += matvecLoss(A, x, N);
          }
          return s;
        },
      },
      {
        name: "nabla",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) {
            x[0] = x0 + i * 1e-9;
            const [dA, dx] = gradMatvec(A, x, N);
            s += dA[i % dA.length]! + dx[i % dx.length]!;
          }
          return s;
        },
      },
      {
        name: "hand-written",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) {
            x[0] = x0 + i * 1e-9;
            const [dA, dx] = matvecLossGradient(A, x, N);
            s += dA[i % dA.length]! + dx[i % dx.length]!;
          }
          return s;
        },
      },
    ],
    TIMING,
  );
}

/** One component of each array of an MLP gradient. */
function mlpSample(g: MlpParameters, i: number): number {
  return (
    g.hidden.w[i % g.hidden.w.length]! +
    g.hidden.b[i % g.hidden.b.length]! +
    g.output.w[i % g.output.w.length]! +
    g.output.b[i % g.output.b.length]!
  );
}

function benchMlp(p: StructuredProgram): Measurement[] {
  const { mlpLoss, gradMlp } = p;
  const { model, inputs, targets } = mlpInput(p, SEEDS[0]!);
  const first = inputs[0]!;
  const x0 = first[0]!;
  return measure(
    [
      {
        name: "primal",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) {
            first[0] = x0 + i * 1e-9;
            s += mlpLoss(model, inputs, targets);
          }
          return s;
        },
      },
      {
        name: "nabla",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) {
            first[0] = x0 + i * 1e-9;
            s += mlpSample(gradMlp(model, inputs, targets), i);
          }
          return s;
        },
      },
      {
        name: "hand-written",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) {
            first[0] = x0 + i * 1e-9;
            s += mlpSample(mlpLossGradient(model, inputs, targets), i);
          }
          return s;
        },
      },
    ],
    TIMING,
  );
}

/** One component of each array of a particle-state gradient. */
export function particleSample(g: ParticleState, i: number): number {
  const k = i % g.x.length;
  return g.x[k]! + g.y[k]! + g.vx[k]! + g.vy[k]!;
}

function benchParticles(p: StructuredProgram): Measurement[] {
  const { particlesLoss, gradParticles, STEPS } = p;
  const state = particlesInput(p, SEEDS[0]!);
  const x0 = state.x[0]!;
  return measure(
    [
      {
        name: "primal",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) {
            state.x[0] = x0 + i * 1e-9;
            s += particlesLoss(state, STEPS);
          }
          return s;
        },
      },
      {
        name: "nabla",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) {
            state.x[0] = x0 + i * 1e-9;
            s += particleSample(gradParticles(state, STEPS), i);
          }
          return s;
        },
      },
      {
        name: "hand-written",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) {
            state.x[0] = x0 + i * 1e-9;
            s += particleSample(particlesLossGradient(state, STEPS), i);
          }
          return s;
        },
      },
    ],
    TIMING,
  );
}

// ---- memory ----

/** The typed arrays among `entries` and the fields of their fields, counted once each, in bytes. */
function referencedArrayBytes(entries: readonly unknown[]): number {
  const seen = new Set<ArrayBufferView>();
  const visit = (value: unknown, depth: number): void => {
    if (ArrayBuffer.isView(value)) seen.add(value);
    else if (depth > 0 && typeof value === "object" && value !== null) {
      for (const field of Object.values(value)) visit(field, depth - 1);
    }
  };
  for (const entry of entries) visit(entry, 2);
  let bytes = 0;
  for (const a of seen) bytes += a.byteLength;
  return bytes;
}

/**
 * Stands in for `tape.objects` during one call: records its peak height and the peak of the
 * bytes of the typed arrays its entries hold (shadows, and the copies a checkpoint saves).
 */
class MeasuringStack extends Array<unknown> {
  peak = 0;
  peakArrayBytes = 0;

  override push(...items: unknown[]): number {
    const length = super.push(...items);
    if (length > this.peak) this.peak = length;
    this.peakArrayBytes = Math.max(this.peakArrayBytes, referencedArrayBytes(this));
    return length;
  }
}

export interface NablaMemory {
  /** The most float64 values the number tape held, × 8. */
  tapeBytes: number;
  /** The most entries the object stack held. */
  objects: number;
  /** The most bytes of typed arrays the object stack held (counted once each). */
  arrayBytes: number;
}

/** The memory of one gradient call: the tape and the object stack are empty before and after. */
export function nablaMemory(call: () => void): NablaMemory {
  const saved = tape.objects;
  if (tapeStats().size !== 0 || saved.length !== 0) throw new Error("the nabla tape is not empty");
  const stack = new MeasuringStack();
  tape.objects = stack;
  resetTapePeak();
  try {
    call();
  } finally {
    tape.objects = saved;
  }
  const { size, peak } = tapeStats();
  if (size !== 0 || stack.length !== 0) {
    throw new Error(`the nabla tape holds ${size} values and ${stack.length} objects after a call`);
  }
  return { tapeBytes: peak * 8, objects: stack.peak, arrayBytes: stack.peakArrayBytes };
}

interface MemoryRow {
  nabla: NablaMemory;
  /** Shadow arrays nabla allocates per gradient, in bytes (estimated from the sizes). */
  shadowBytes: number;
  /** Of which the gradient handed to the caller. */
  gradientBytes: number;
  /** The hand-written gradient's tape or scratch memory, in bytes. */
  handScratchBytes: number;
  /** The arrays the hand-written gradient allocates for its result, in bytes. */
  handGradientBytes: number;
}

/**
 * Shadow memory is estimated from the array sizes, following the generated code (`nabla emit
 * bench/programs/structured.ts`): every differentiated Float64Array argument gets a zero shadow
 * of its length (that is the gradient returned), and every Float64Array the function allocates
 * (`new Float64Array(n)`, `slice()`) gets one too, which stays alive until the backward sweep.
 */
function measureMemory(p: StructuredProgram): MemoryRow[] {
  const { A, x } = matvecInput(p, SEEDS[0]!);
  const matvec = nablaMemory(() => p.gradMatvec(A, x, p.N));
  matvecLossGradient(A, x, p.N);
  const matvecGradient = (A.length + x.length) * 8;

  const m = mlpInput(p, SEEDS[0]!);
  const mlp = nablaMemory(() => p.gradMlp(m.model, m.inputs, m.targets));
  mlpLossGradient(m.model, m.inputs, m.targets);
  const mlpGradient = mlpParts(m.model).reduce((bytes, [, a]) => bytes + a.length * 8, 0);
  // Per sample, each layer's forward() allocates its output y, and nabla its shadow.
  const layerOutputs = m.model.hidden.b.length + m.model.output.b.length;

  const state = particlesInput(p, SEEDS[0]!);
  const particles = nablaMemory(() => p.gradParticles(state, p.STEPS));
  particlesLossGradient(state, p.STEPS);
  const particlesGradient = 4 * p.PARTICLES * 8;

  return [
    {
      nabla: matvec,
      // dA, dx, and the shadow of y = A·x.
      shadowBytes: matvecGradient + p.N * 8,
      gradientBytes: matvecGradient,
      handScratchBytes: matvecScratchEntries() * 8,
      handGradientBytes: matvecGradient,
    },
    {
      nabla: mlp,
      shadowBytes: mlpGradient + p.BATCH * layerOutputs * 8,
      gradientBytes: mlpGradient,
      handScratchBytes: mlpScratchEntries() * 8,
      handGradientBytes: mlpGradient,
    },
    {
      nabla: particles,
      // The gradient, and the shadows of the four slice() copies.
      shadowBytes: 2 * particlesGradient,
      gradientBytes: particlesGradient,
      handScratchBytes: particlesTapeEntries() * 8,
      // The hand-written gradient copies the state (4 × 64 float64) and returns the copies.
      handGradientBytes: particlesGradient,
    },
  ];
}

// ---- tfjs ----

interface TfjsResult {
  version: string;
  nsPerGradient: number;
  /** Largest difference from nabla's gradient, relative to its largest component. */
  difference: number;
}

function flatten(rows: readonly Float64Array[]): Float32Array {
  const flat = new Float32Array(rows.reduce((n, r) => n + r.length, 0));
  let offset = 0;
  for (const r of rows) {
    flat.set(r, offset);
    offset += r.length;
  }
  return flat;
}

async function benchTfjs(
  p: StructuredProgram,
  progress: (message: string) => void,
): Promise<TfjsResult> {
  const version = await initTfjs();
  const { model, inputs, targets } = mlpInput(p, SEEDS[0]!);
  const tfModel = tfMlp(model, p.BATCH);
  let result: TfjsResult;
  try {
    const xs = flatten(inputs);
    const ts = flatten(targets);
    progress("    checking tfjs's gradient against nabla's");
    const expected = mlpParts(p.gradMlp(model, inputs, targets));
    const got = mlpParts(tfModel.gradient(xs, ts));
    const scale = largestOf(expected);
    const problems = compareParts("tfjs MLP", got, expected, TFJS_AGREEMENT, scale);
    if (problems.length > 0) {
      throw new Error(
        `tfjs and nabla disagree (tolerance ${TFJS_AGREEMENT} of the largest component):\n  ${problems.join("\n  ")}`,
      );
    }
    let difference = 0;
    got.forEach(([, g], k) => {
      const e = expected[k]![1];
      for (let i = 0; i < g.length; i++) {
        difference = Math.max(difference, Math.abs(g[i]! - e[i]!) / scale);
      }
    });
    const x0 = xs[0]!;
    const [m] = measure(
      [
        {
          name: "tfjs",
          run: (n) => {
            let s = 0;
            for (let i = 0; i < n; i++) {
              xs[0] = x0 + i * 1e-6;
              const g = tfModel.gradient(xs, ts);
              s += g.hidden.w[i % g.hidden.w.length]! + g.output.b[i % g.output.b.length]!;
            }
            return s;
          },
        },
      ],
      TFJS_TIMING,
    );
    progress(
      `    tfjs         ${formatNs(m!.nsPerCall).padStart(12)} ns/gradient  (range ${formatNs(m!.minNs)}–${formatNs(m!.maxNs)}, ${m!.callsPerSample} calls/run)`,
    );
    result = { version, nsPerGradient: m!.nsPerCall, difference };
  } finally {
    tfModel.dispose();
  }
  const leaked = tfjsTensorCount();
  if (leaked > 0) throw new Error(`tfjs: ${leaked} tensors still alive after the MLP benchmark`);
  return result;
}

// ---- the whole structured-data benchmark ----

type StructuredRow = TimedRow;

export interface StructuredResults {
  rows: StructuredRow[];
  memory: MemoryRow[];
  tfjs: TfjsResult;
  /** Bytes per object-stack entry: a pointer, 4 bytes if V8 compresses pointers. */
  pointerBytes: number;
  sizes: { n: number; batch: number; width: number; particles: number; steps: number };
}

/** Runs the structured-data benchmarks; `step(k)` reports progress of benchmark k. */
export async function runStructured(
  p: StructuredProgram,
  progress: (message: string) => void,
  step: (k: number, name: string) => void,
): Promise<StructuredResults> {
  if (p.N !== 256 || p.BATCH !== 64 || p.WIDTH !== 64 || p.PARTICLES !== 64 || p.STEPS !== 100) {
    throw new Error(
      "STRUCTURED_BENCHMARKS assumes N 256, BATCH 64, WIDTH 64, 64 particles, 100 steps",
    );
  }
  const runs: (() => Measurement[])[] = [
    () => benchMatvec(p),
    () => benchMlp(p),
    () => benchParticles(p),
  ];
  const rows: StructuredRow[] = [];
  for (const [k, run] of runs.entries()) {
    const benchmark = STRUCTURED_BENCHMARKS[k]!;
    step(k, `gradient ${benchmark}`);
    const [primal, nabla, hand] = run() as [Measurement, Measurement, Measurement];
    for (const m of [primal, nabla, hand]) {
      progress(
        `    ${m.name.padEnd(12)} ${formatNs(m.nsPerCall).padStart(12)} ns/call  (range ${formatNs(m.minNs)}–${formatNs(m.maxNs)}, ${m.callsPerSample} calls/run)`,
      );
    }
    rows.push({
      benchmark,
      primal: primal.nsPerCall,
      nabla: nabla.nsPerCall,
      hand: hand.nsPerCall,
      fastest: { primal: primal.minNs, nabla: nabla.minNs, hand: hand.minNs },
    });
  }
  const memory = measureMemory(p);
  for (const [k, m] of memory.entries()) {
    progress(
      `    memory ${STRUCTURED_BENCHMARKS[k]!.slice(0, 3)} tape ${m.nabla.tapeBytes} bytes, ${m.nabla.objects} objects, shadows ~${m.shadowBytes} bytes; hand-written ${m.handScratchBytes} bytes`,
    );
  }
  step(runs.length, "TensorFlow.js gradient of the MLP (tfjs, 'cpu' backend)");
  const tfjs = await benchTfjs(p, progress);
  const variables = process.config.variables as Record<string, unknown>;
  const compressed = Number(variables["v8_enable_pointer_compression"] ?? 0) === 1;
  return {
    rows,
    memory,
    tfjs,
    pointerBytes: compressed ? 4 : 8,
    sizes: { n: p.N, batch: p.BATCH, width: p.WIDTH, particles: p.PARTICLES, steps: p.STEPS },
  };
}

// ---- report ----

function verdict(row: StructuredRow): string {
  const misses = [
    row.nabla / row.primal <= TARGET_VS_PRIMAL ? "" : `nabla/primal > ${TARGET_VS_PRIMAL}`,
    row.nabla / row.hand <= TARGET_VS_HAND ? "" : `nabla/hand > ${TARGET_VS_HAND}`,
  ].filter(Boolean);
  return misses.length === 0 ? "yes" : `no (${misses.join(", ")})`;
}

function runTimeTable(rows: StructuredRow[]): string {
  return gradientTable(rows, verdict);
}

function memoryTable(results: StructuredResults): string {
  return table(
    [
      "benchmark",
      "nabla tape",
      "nabla object stack",
      "nabla shadows (estimate)",
      "of which the gradient",
      "hand-written tape/scratch",
      "hand-written gradient",
      "nabla tape + objects + shadows / hand-written",
    ],
    results.memory.map((m, k) => {
      const objectBytes = m.nabla.objects * results.pointerBytes;
      const nablaTotal = m.nabla.tapeBytes + objectBytes + m.shadowBytes;
      const handTotal = m.handScratchBytes + m.handGradientBytes;
      return [
        results.rows[k]!.benchmark,
        kib(m.nabla.tapeBytes),
        `${m.nabla.objects.toLocaleString("en-US")} (${kib(objectBytes)})`,
        kib(m.shadowBytes),
        kib(m.gradientBytes),
        kib(m.handScratchBytes),
        kib(m.handGradientBytes),
        ratio(nablaTotal, handTotal),
      ];
    }),
    [false, true, true, true, true, true, true, true],
  );
}

function tfjsTable(results: StructuredResults): string {
  const row = results.rows[1]!;
  const t = results.tfjs;
  const us = (ns: number) => Math.round(ns / 1000).toLocaleString("en-US");
  return table(
    [
      "benchmark",
      "tfjs µs/gradient",
      "nabla µs/gradient",
      "hand-written µs/gradient",
      "tfjs/nabla",
      "tfjs/hand-written",
      "tfjs gradient − nabla's",
    ],
    [
      [
        row.benchmark,
        us(t.nsPerGradient),
        us(row.nabla),
        us(row.hand),
        ratio(t.nsPerGradient, row.nabla),
        ratio(t.nsPerGradient, row.hand),
        t.difference.toExponential(1),
      ],
    ],
    [false, true, true, true, true, true, true],
  );
}

/** The structured-data section of docs/benchmarks.md. */
export function structuredReport(results: StructuredResults): string {
  const { n, batch, width, particles, steps } = results.sizes;
  return `## Gradients of structured data (arrays, objects, classes)

${runTimeTable(results.rows)}

Targets: nabla/primal ≤ ${TARGET_VS_PRIMAL}× and nabla/hand-written ≤ ${TARGET_VS_HAND}×. One gradient is one call of
what \`gradient(f, { wrt })\` returns; it allocates the gradient's arrays (the shadows of the
arguments) and returns them: \`[Float64Array, Float64Array]\` for (e), a plain object
\`{ hidden: { w, b }, output: { w, b } }\` of Float64Arrays for (f), \`{ x, y, vx, vy }\` for (g).

The programs are in bench/programs/structured.ts, written as plain TypeScript:

- **(e)** \`matvecLoss(A, x, n)\`: a helper \`matvec(out, A, x, n)\` writes y = A·x into a
  Float64Array (A row-major, n = ${n}), then the loss is ‖y‖²; the gradient is with respect to A
  and x (${(n * n + n).toLocaleString("en-US")} components).
- **(f)** \`mlpLoss(model, inputs, targets)\`: classes \`Dense { w; b; forward(x) }\` and
  \`MLP { hidden; output; forward(x) }\` (${width} → ${width} tanh → ${width}), \`forward\` allocating its output
  Float64Array, and a loop over a batch of ${batch} inputs (\`Float64Array[]\`) summing the squared
  error, divided by the batch size; the gradient is with respect to the model
  (${(2 * width * width + 2 * width).toLocaleString("en-US")} components).
- **(g)** \`particlesLoss(initial, steps)\`: a struct of arrays \`{ x, y, vx, vy }\` of ${particles}
  particles, copied with \`slice()\`, then ${steps} semi-implicit Euler steps of a function \`step(p, h)\`
  that updates the arrays in place (\`p.vx[i] += ax * h\`…) under a spring to the origin and
  quadratic drag (−c|v|v); the loss is the squared distance of the final positions to a point;
  the gradient is with respect to the initial state.

The hand-written gradients (bench/hand-written-structured.ts) are what a careful engineer would
write: (e) y = A·x in scratch memory, then Ā = 2y xᵀ and x̄ = Aᵀ(2y) in one pass over A; (f) the
forward and backward sweeps of each sample back to back (the parameters do not change within a
batch), the hidden activations and the adjoints in ${2 * width + width} float64 of scratch memory, the
adjoints accumulated straight into the gradient's arrays; (g) the forward steps saving per
particle and step the velocity before the step and the speed (3 float64; positions enter
linearly), then the adjoint steps in reverse. They allocate the gradient they return, as nabla
does. They are checked before timing to agree with nabla's gradients to ${AGREEMENT} (relative,
every component), and nabla's gradients to agree with central finite differences in
${FD_COMPONENTS} components to ${FD_AGREEMENT.toExponential()} of the largest component, at ${SEEDS.length} inputs each. In the timed
loops one input component moves a little on every call, and one component of each gradient
array (a different one each call) goes into the sink: summing all of them would cost about as
much as the primal.

The same ratios computed from the fastest run of each variant instead of the median:

${fastestTable(results.rows)}

### Memory of structured gradients

${memoryTable(results)}

Per gradient call. **nabla tape**: the most float64 values nabla's tape held during the call
(\`resetTapePeak()\`, then \`tapeStats().peak\`), × 8 bytes. **nabla object stack**: the most entries
\`tape.objects\` held (the shadows and arrays the backward sweep needs; counted by standing in a
stack that records its height for one call), × ${results.pointerBytes} bytes per reference. **nabla shadows**: the
bytes of the shadow Float64Arrays one gradient allocates, estimated from the sizes following
the generated code (\`nabla emit bench/programs/structured.ts\`): one shadow per differentiated
array argument — that is the gradient returned — and one per Float64Array the function
allocates, alive until the backward sweep: (e) Ā (n²) and x̄ (n), plus ȳ (n); (f) the model's
${(2 * width * width + 2 * width).toLocaleString("en-US")} parameters, plus per sample the shadows of both layers' outputs (${batch} × 2 × ${width}); (g)
the initial state's 4 × ${particles}, plus the 4 × ${particles} of its \`slice()\` copy. Small objects
holding the shadows (\`{ x, y, vx, vy }\`…) are not counted. **hand-written**: the size of its
scratch Float64Array (the tape, for (g)) and of the arrays it returns. The last column
compares all of nabla's memory with all of the hand-written's.

### TensorFlow.js: the MLP

${tfjsTable(results)}

The same MLP with TensorFlow.js ${results.tfjs.version} on its pure-JavaScript \`'cpu'\` backend (bench/tfjs.ts),
written as a tfjs user would: the weights in \`tf.variable\`s holding the same values as the
nabla model (in float32), the batch as one ${batch} × ${width} matrix, \`tf.matMul\` and \`tf.tanh\` for the
layers, \`tf.variableGrads\` for the gradient; one gradient is one call in \`tf.tidy\` that makes
the input and target tensors from Float32Arrays and reads the four gradients back with
\`dataSync\`. Batched matrix products are tfjs's strength; nabla and the hand-written code loop over
the samples. tfjs computes in float32: the last column is the largest difference between its
gradient and nabla's, relative to the largest component; the benchmark fails above
${TFJS_AGREEMENT.toExponential()}. tfjs is timed with ${TFJS_TIMING.repetitions} repetitions of at least ${TFJS_TIMING.minSampleMs} ms, after the same warm-up as the rest.
`;
}
