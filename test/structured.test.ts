import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { AliasedArgumentsError } from "../src/runtime/index.js";
import { assertClose, centralDifference, finiteGradient, loadProgram } from "./support/harness.js";

// Structured data — objects, classes, tuples, number[], Float64Array, Float32Array, nested —
// in differentiated code. Every derivative is checked two independent ways at seeded random
// inputs: against central finite differences of the primal, and forward mode against reverse
// mode by the dot-product identity <J·v, w> = <v, Jᵀ·w> for a random tangent v and a random
// adjoint w. Then what the tangent values look like (kinds, shapes, keys, fresh values), what
// the operators may do to the user's inputs, pullbacks called twice, and aliased arguments.
// The programs live in one source below, compiled once; bugs these tests found have their own
// small programs at the end.

fc.configureGlobal({ includeErrorInReport: true });

/** One seed for every property: the same random inputs on every run. */
const SEED = 20_261_122;
const RUNS = 25;

// ---------------------------------------------------------------------------------------------
// The program

const PROGRAM = `
import { gradient, valueWithGradient, pullback, valueWithPullback, differential, valueWithDifferential } from "nabla";

// ---- 1. matrix–matrix product into an output array ----

function matmul(out: Float64Array, A: Float64Array, B: Float64Array, n: number): void {
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += A[i * n + k] * B[k * n + j];
      out[i * n + j] = s;
    }
  }
}

export function matmulLoss(A: Float64Array, B: Float64Array, n: number): number {
  const out = new Float64Array(n * n);
  matmul(out, A, B, n);
  let s = 0;
  for (let i = 0; i < out.length; i++) s += out[i] * out[i];
  return s;
}

// ---- 2. vector normalization returning a new array ----

function normalize(v: number[]): number[] {
  let s = 0;
  for (const x of v) s += x * x;
  const r = Math.sqrt(s);
  return v.map((x) => x / r);
}

export function normalizeLoss(v: number[], target: number[]): number {
  const u = normalize(v);
  let s = 0;
  for (let i = 0; i < u.length; i++) s += (u[i] - target[i]) * (u[i] - target[i]) * (i + 1);
  return s;
}

// ---- 3. in-place prefix sums on the argument, then reads of it ----

function prefixSums(a: Float64Array): void {
  for (let i = 1; i < a.length; i++) a[i] += a[i - 1];
}

export function prefixLoss(a: Float64Array): number {
  prefixSums(a);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.sin(a[i]) * a[i];
  return s;
}

// ---- 4. a struct-of-arrays particle system stepped in place ----

interface Particles {
  x: Float64Array;
  y: Float64Array;
  vx: Float64Array;
  vy: Float64Array;
}

/** Springs to the origin, drag on vy, and a soft pairwise attraction. */
function step(p: Particles, dt: number): void {
  const n = p.x.length;
  for (let i = 0; i < n; i++) {
    let ax = -p.x[i];
    let ay = -p.y[i] - 0.1 * p.vy[i];
    for (let j = 0; j < n; j++) {
      if (j === i) continue;
      const dx = p.x[j] - p.x[i];
      const dy = p.y[j] - p.y[i];
      const r2 = dx * dx + dy * dy + 1;
      ax += (0.1 * dx) / r2;
      ay += (0.1 * dy) / r2;
    }
    p.vx[i] += dt * ax;
    p.vy[i] += dt * ay;
  }
  for (let i = 0; i < n; i++) {
    p.x[i] += dt * p.vx[i];
    p.y[i] += dt * p.vy[i];
  }
}

export function simulate(p: Particles, dt: number): number {
  for (let s = 0; s < 100; s++) step(p, dt);
  let e = 0;
  for (let i = 0; i < p.x.length; i++) e += p.x[i] * p.x[i] + (p.y[i] - 1) * (p.y[i] - 1);
  return e;
}

// ---- 5. a small MLP written with classes ----

class Dense {
  w: Float64Array;
  b: Float64Array;
  /** @noDerivative */ nIn: number;
  /** @noDerivative */ nOut: number;
  constructor(w: Float64Array, b: Float64Array) {
    this.w = w;
    this.b = b;
    this.nOut = b.length;
    this.nIn = w.length / b.length;
  }
  forward(x: Float64Array): Float64Array {
    const y = new Float64Array(this.nOut);
    for (let o = 0; o < this.nOut; o++) {
      let s = this.b[o];
      for (let i = 0; i < this.nIn; i++) s += this.w[o * this.nIn + i] * x[i];
      y[o] = Math.tanh(s);
    }
    return y;
  }
}

export class MLP {
  layers: Dense[];
  constructor(layers: Dense[]) {
    this.layers = layers;
  }
  forward(x: Float64Array): Float64Array {
    let h = x;
    for (const layer of this.layers) h = layer.forward(h);
    return h;
  }
}

export function makeDense(w: Float64Array, b: Float64Array): Dense {
  return new Dense(w, b);
}

export function mlpLoss(m: MLP, xs: Float64Array[], ys: Float64Array[]): number {
  let total = 0;
  for (let k = 0; k < xs.length; k++) {
    const out = m.forward(xs[k]);
    for (let i = 0; i < out.length; i++) {
      const d = out[i] - ys[k][i];
      total += d * d;
    }
  }
  return total / xs.length;
}

// ---- 6. an element overwritten after it is read, then read again ----

export function overwrite(a: number[], t: number): number {
  for (let i = 0; i < a.length; i++) {
    a[i] = a[i] * a[i] + t;
  }
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * Math.cos(a[i]);
  return s + a[0] * a[a.length - 1];
}

// ---- 7. nested objects and arrays of arrays ----

type Layer = { w: number[][]; b: number[] };

export function nestedNet(model: { layers: Layer[] }, x: number[]): number {
  let h = x;
  for (const layer of model.layers) {
    const next = new Array(layer.b.length).fill(0);
    for (let o = 0; o < layer.b.length; o++) {
      let s = layer.b[o];
      for (let i = 0; i < h.length; i++) s += layer.w[o][i] * h[i];
      next[o] = Math.tanh(s);
    }
    h = next;
  }
  let out = 0;
  for (const v of h) out += v * v;
  return out;
}

// ---- array kinds, tuples and array methods ----

export function float32(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * Math.sin(b[i]) + a[i] * a[i] * b[i];
  return s;
}

export function tuples(p: [number, number], q: [number, number]): number {
  const r: [number, number] = [p[0] * q[1], p[1] + q[0]];
  r[1] *= p[0];
  return r[0] * r[1] + Math.sin(p[1]) * q[0];
}

export function arrayFrom(v: Float64Array): number {
  const sq = Array.from({ length: v.length }, (_, i) => v[i] * v[i] * (i + 1));
  let s = 0;
  for (const x of sq) s += Math.sqrt(1 + x);
  return s;
}

export function mapReduce(v: number[], w: number[]): number {
  const e = v.map((x) => Math.exp(-x * x));
  return e.reduce((acc, x) => acc + x * w[0], 0) * w[1];
}

export function slices(v: number[]): number {
  const tail = v.slice(1);
  const mid = v.slice(1, 3);
  return tail[0] * tail[tail.length - 1] + mid[1] * mid[1] + tail.length;
}

export function forEachSum(v: Float64Array): number {
  let t = 0;
  v.forEach((x) => {
    t += Math.sin(x) * x;
  });
  return t;
}

export function literals(v: number[]): number {
  const a = [v[0], v[1] * 2, 3];
  const o = { p: a[1], q: v[0] };
  const o2 = { ...o, r: a[0] * v[2] };
  o2.p *= o2.r;
  o2.q += o2.p;
  return o2.p + o2.q * o2.r + a[2];
}

export function buffers(v: number[]): number {
  const acc = new Float64Array(v.length);
  for (let i = 0; i < v.length; i++) acc[i] += v[i] * 2;
  const zeros = new Array(v.length).fill(0);
  for (let i = 0; i < v.length; i++) zeros[i] = acc[i] * acc[(i + 1) % v.length];
  let s = 0;
  for (const z of zeros) s += z;
  return s;
}

// ---- what tangent values look like ----

export class Body {
  /** @noDerivative */ id: number;
  label: string;
  mass: number;
  pos: Float64Array;
  vel: number[];
  spin: [number, number];
  coat: { charge: number; /** @noDerivative */ layer: number };
  constructor(mass: number, pos: Float64Array, vel: number[], spin: [number, number], charge: number) {
    this.id = 7;
    this.label = "body";
    this.mass = mass;
    this.pos = pos;
    this.vel = vel;
    this.spin = spin;
    this.coat = { charge: charge, layer: 2 };
  }
  /** Writes a field of its own: o.x *= v through this. */
  scale(k: number): void {
    this.mass *= k;
  }
  energy(): number {
    let e = 0;
    for (let i = 0; i < this.vel.length; i++) e += this.vel[i] * this.vel[i];
    let r = 0;
    for (const p of this.pos) r += p * p;
    return 0.5 * this.mass * e + this.coat.charge * Math.sqrt(r) + this.spin[0] * this.spin[1] + this.id;
  }
}

export function makeBody(mass: number, pos: Float64Array, vel: number[], spin: [number, number], charge: number): Body {
  return new Body(mass, pos, vel, spin, charge);
}

export function bodyEnergy(b: Body, k: number): number {
  b.scale(k);
  return b.energy();
}

export const gBody = gradient(bodyEnergy, { wrt: 0 });
export const vgBody = valueWithGradient(bodyEnergy, { wrt: 0 });
export const pBody = pullback(bodyEnergy, { wrt: 0 });

// ---- all operators of one function, for what they do to inputs ----

export const vgMlp = valueWithGradient(mlpLoss, { wrt: 0 });
export const vpMlp = valueWithPullback(mlpLoss, { wrt: 0 });
export const vdMlp = valueWithDifferential(mlpLoss, { wrt: 0 });
export const vgMatmul = valueWithGradient(matmulLoss, { wrt: [0, 1] });
export const vgNested = valueWithGradient(nestedNet, { wrt: [0, 1] });
export const vgNormalize = valueWithGradient(normalizeLoss, { wrt: [0, 1] });
export const vgPrefix = valueWithGradient(prefixLoss);
export const vpPrefix = valueWithPullback(prefixLoss);
export const vdPrefix = valueWithDifferential(prefixLoss);

// ---- aliasing ----

export function writesFirst(a: number[], b: number[]): number {
  a[0] = a[0] * b[1];
  return a[0] + b[0] * b[1];
}
export const vgWritesFirst = valueWithGradient(writesFirst);
export const vpWritesFirst = valueWithPullback(writesFirst);
export const vdWritesFirst = valueWithDifferential(writesFirst);
export const gWritesFirstOnly = gradient(writesFirst, { wrt: 0 });

export function writesField(p: { x: number }, q: { x: number }): number {
  p.x *= q.x;
  return p.x + q.x;
}
export const gWritesField = gradient(writesField);

export function writesSecond(a: Float64Array, b: Float64Array): number {
  b[0] = a[0] * 2;
  return b[0] * a[0];
}
export const dWritesSecond = differential(writesSecond);

export function readsBoth(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * Math.sin(b[i]) + b[i] * b[i] * a[0];
  return s;
}

// ---- activity through calls: recursion over index lists, arrays active in some calls only ----

/** GradBench's det: cofactor expansion, rows and columns removed from linked index lists. */
function minorDet(a: Float64Array, n: number, size: number, rows: number[], cols: number[]): number {
  const r0 = rows[n];
  let cj = cols[n];
  if (size === 1) return a[r0 * n + cj];
  let det = 0;
  let sign = 1;
  rows[n] = rows[r0];
  let previous = n;
  for (let j = 0; j < size; j++) {
    const m0j = a[r0 * n + cj];
    cols[previous] = cols[cj];
    const sub = minorDet(a, n, size - 1, rows, cols);
    cols[previous] = cj;
    if (sign > 0) det += m0j * sub;
    else det -= m0j * sub;
    previous = cj;
    cj = cols[cj];
    sign = -sign;
  }
  rows[n] = r0;
  return det;
}

export function cofactorDet(a: Float64Array, n: number): number {
  const rows: number[] = [];
  const cols: number[] = [];
  for (let i = 0; i < n; i++) {
    rows.push(i + 1);
    cols.push(i + 1);
  }
  rows.push(0);
  cols.push(0);
  return minorDet(a, n, n, rows, cols) * Math.cos(a[0]);
}

function scaleInto(out: number[], src: number[], k: number): void {
  for (let i = 0; i < src.length; i++) out[i] = src[i] * k;
}

/** scaleInto fills one array with constants and one with varied values. */
export function mixedCalls(x: number[], c: number): number {
  const weights: number[] = [];
  const values: number[] = [];
  const base: number[] = [];
  for (let i = 0; i < x.length; i++) {
    weights.push(0);
    values.push(0);
    base.push(i + 1);
  }
  scaleInto(weights, base, 0.5);
  scaleInto(values, x, c);
  let s = 0;
  for (let i = 0; i < x.length; i++) s += values[i] * values[i] * weights[i] + x[weights[i] * 2 - 1];
  return s;
}

/** The arrays swap roles at each level: b receives a's values only through the recursion. */
function swapMix(a: number[], b: number[], k: number): void {
  if (k <= 0) return;
  a[k - 1] += 0.5 * b[k];
  swapMix(b, a, k - 1);
}

export function recursiveSwap(x: number[]): number {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < x.length; i++) {
    a.push(x[i]);
    b.push(i);
  }
  swapMix(a, b, x.length - 1);
  let s = 0;
  for (let i = 0; i < x.length; i++) s += b[i] * b[i] + Math.sin(a[i]);
  return s;
}

/** k-means' cost: a helper called for every pair, only the nearest one's adjoint nonzero. */
function squaredDistance(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const diff = a[i] - b[i];
    sum += diff * diff;
  }
  return sum;
}

export function nearestCost(points: Float64Array[], centroids: Float64Array[]): number {
  let total = 0;
  for (const point of points) {
    let nearest = Infinity;
    for (const centroid of centroids) {
      const dist = squaredDistance(point, centroid);
      if (dist < nearest) nearest = dist;
    }
    total += nearest * (1 + 0.1 * point[0]);
  }
  return total;
}

/** A counted loop from a counter of an outer loop, counting down, and to a fractional bound. */
export function countedLoops(x: Float64Array, bound: number): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    for (let j = i + 1; j <= x.length - 1; j++) s += x[i] * Math.sin(x[j]);
    for (let j = i; j > -1; j--) s += x[j] * x[i] * 0.25;
  }
  for (let k = 0; k < bound; k++) s += x[k % x.length] * k;
  return s;
}
`;

// ---------------------------------------------------------------------------------------------
// Cases: a function of the program, which arguments to differentiate, and how to build its
// arguments from random numbers. Each gets `g_`, `p_` and `d_` exports (gradient, pullback,
// differential with the same wrt).

interface Case {
  name: string;
  /** The differentiated arguments. */
  wrt: number[];
  /** How many random numbers `build` takes, and their range. */
  size: number;
  range?: [number, number];
  /** Fresh arguments from the random numbers (the function may write them). */
  build: (m: Exports, r: number[]) => unknown[];
  /** Number fields without a derivative (`@noDerivative`), absent from the tangents. */
  noDerivative?: string[];
  /** The finite-difference step (relative), and the tolerances of the two checks. */
  step?: number;
  tolerance?: number;
  identityTolerance?: number;
}

const f64 = (xs: number[]) => new Float64Array(xs);
const f32 = (xs: number[]) => new Float32Array(xs);
/** r cut into pieces of the given lengths. */
function pieces(r: number[], ...lengths: number[]): number[][] {
  let at = 0;
  return lengths.map((n) => r.slice(at, (at += n)));
}
/** A rows × cols matrix as arrays of arrays. */
const rows = (r: number[], cols: number) =>
  Array.from({ length: r.length / cols }, (_, i) => r.slice(i * cols, (i + 1) * cols));

const N = 3;

const PROGRAMS: Case[] = [
  {
    name: "matmulLoss",
    wrt: [0, 1],
    size: 2 * N * N,
    build: (_, r) => [...pieces(r, N * N, N * N).map(f64), N],
  },
  {
    name: "normalizeLoss",
    wrt: [0, 1],
    size: 8,
    range: [0.2, 2],
    build: (_, r) => pieces(r, 4, 4),
  },
  { name: "prefixLoss", wrt: [0], size: 5, build: (_, r) => [f64(r)] },
  {
    name: "simulate",
    wrt: [0, 1],
    size: 4 * N + 1,
    build: (_, r) => {
      const [x, y, vx, vy, [dt]] = pieces(r, N, N, N, N, 1);
      return [{ x: f64(x!), y: f64(y!), vx: f64(vx!), vy: f64(vy!) }, 0.02 + 0.01 * dt!];
    },
  },
  {
    name: "mlpLoss",
    wrt: [0],
    size: 3 * 4 + 4 + 4 * 2 + 2,
    build: (m, r) => [mlp(m, r), ...batch()],
    noDerivative: ["nIn", "nOut"],
  },
  { name: "overwrite", wrt: [0, 1], size: 5, build: (_, r) => [r.slice(0, 4), r[4]] },
  { name: "cofactorDet", wrt: [0], size: 16, build: (_, r) => [f64(r), 4] },
  { name: "mixedCalls", wrt: [0, 1], size: 5, build: (_, r) => [r.slice(0, 4), r[4]] },
  { name: "recursiveSwap", wrt: [0], size: 5, build: (_, r) => [r] },
  {
    name: "nearestCost",
    wrt: [0, 1],
    size: 16,
    build: (_, r) => [rows(r.slice(0, 10), 2).map(f64), rows(r.slice(10), 2).map(f64)],
  },
  {
    name: "countedLoops",
    wrt: [0],
    size: 5,
    build: (_, r) => [f64(r.slice(0, 4)), 5.5 + r[4]!],
  },
  {
    name: "nestedNet",
    wrt: [0, 1],
    size: 3 * 2 + 3 + 1 * 3 + 1 + 2,
    build: (_, r) => {
      const [w0, b0, w1, b1, x] = pieces(r, 6, 3, 3, 1, 2);
      const layers = [
        { w: rows(w0!, 2), b: b0! },
        { w: rows(w1!, 3), b: b1! },
      ];
      return [{ layers }, x];
    },
  },
];

const CONSTRUCTS: Case[] = [
  // Float32 rounding, in the primal and in the tangents: a larger step, looser tolerances.
  {
    name: "float32",
    wrt: [0, 1],
    size: 6,
    build: (_, r) => pieces(r, 3, 3).map(f32),
    step: 1e-2,
    tolerance: 2e-3,
    identityTolerance: 1e-6,
  },
  { name: "tuples", wrt: [0, 1], size: 4, build: (_, r) => pieces(r, 2, 2) },
  { name: "arrayFrom", wrt: [0], size: 4, build: (_, r) => [f64(r)] },
  { name: "mapReduce", wrt: [0, 1], size: 5, build: (_, r) => pieces(r, 3, 2) },
  { name: "slices", wrt: [0], size: 4, build: (_, r) => [r] },
  { name: "forEachSum", wrt: [0], size: 4, build: (_, r) => [f64(r)] },
  { name: "literals", wrt: [0], size: 3, build: (_, r) => [r] },
  { name: "buffers", wrt: [0], size: 4, build: (_, r) => [r] },
  {
    name: "bodyEnergy",
    wrt: [0, 1],
    size: 9,
    build: (m, r) => [body(m, r), 0.5 + Math.abs(r[8]!)],
    noDerivative: ["id", "layer"],
  },
  { name: "writesFirst", wrt: [0, 1], size: 4, build: (_, r) => pieces(r, 2, 2) },
  { name: "readsBoth", wrt: [0, 1], size: 6, build: (_, r) => pieces(r, 3, 3).map(f64) },
];

/** The cases by name. */
const CASES = Object.fromEntries([...PROGRAMS, ...CONSTRUCTS].map((c) => [c.name, c])) as Record<
  string,
  Case
>;

/** A 3 → 4 → 2 MLP of the program's classes, weights from r. */
function mlp(m: Exports, r: number[]): unknown {
  const [w0, b0, w1, b1] = pieces(r, 12, 4, 8, 2).map(f64);
  return new m.MLP([m.makeDense(w0!, b0!), m.makeDense(w1!, b1!)]);
}

/** A fixed batch of three inputs and targets for the MLP. */
function batch(): [Float64Array[], Float64Array[]] {
  const xs = [f64([1, 2, 3]), f64([-1, 0.5, 0]), f64([0.3, -0.7, 1.1])];
  const ys = [f64([0.5, -0.5]), f64([0, 1]), f64([-0.2, 0.4])];
  return [xs, ys];
}

function body(m: Exports, r: number[]): unknown {
  const [[mass], pos, vel, spin, [charge]] = pieces(r, 1, 2, 2, 2, 1);
  return m.makeBody(1 + Math.abs(mass!), f64(pos!), vel!, spin! as [number, number], charge!);
}

type AnyFn = (...args: unknown[]) => unknown;
interface Exports {
  [name: string]: unknown;
  MLP: new (layers: unknown[]) => unknown;
  makeDense: (w: Float64Array, b: Float64Array) => unknown;
  makeBody: (...args: unknown[]) => unknown;
}

/** `g_f`, `p_f` and `d_f` for every case. */
function caseExports(cases: Case[]): string {
  return cases
    .map(({ name, wrt }) => {
      const options = `{ wrt: ${wrt.length === 1 ? wrt[0] : `[${wrt.join(", ")}]`} }`;
      return (
        `export const g_${name} = gradient(${name}, ${options});\n` +
        `export const p_${name} = pullback(${name}, ${options});\n` +
        `export const d_${name} = differential(${name}, ${options});\n`
      );
    })
    .join("");
}

let loaded: Promise<Exports> | undefined;
function program(): Promise<Exports> {
  loaded ??= loadProgram<Exports>({
    "main.ts": PROGRAM + caseExports([...PROGRAMS, ...CONSTRUCTS]),
  });
  return loaded;
}

async function get<T = AnyFn>(name: string): Promise<T> {
  const value = (await program())[name];
  assert.equal(typeof value, "function", `the program exports '${name}'`);
  return value as T;
}

// ---------------------------------------------------------------------------------------------
// Tangent values: numbers, arrays, typed arrays and plain objects of them, walked by path.

type Key = string | number;
type Path = Key[];

function isTypedArray(v: unknown): v is Float64Array | Float32Array {
  return v instanceof Float64Array || v instanceof Float32Array;
}

/** The paths of the numbers in a tangent (or in a value shaped like one), in a fixed order. */
function leaves(t: unknown, path: Path = []): Path[] {
  if (typeof t === "number") return [path];
  if (isTypedArray(t) || Array.isArray(t)) {
    return Array.from(t as ArrayLike<unknown>, (x, i) => leaves(x, [...path, i])).flat();
  }
  if (t !== null && typeof t === "object") {
    return Object.keys(t).flatMap((k) => leaves((t as Record<string, unknown>)[k], [...path, k]));
  }
  throw new Error(`not a tangent at ${pathText(path)}: ${String(t)}`);
}

/** The paths of the numbers of a primal value, without `skip` fields and non-number fields. */
function numberPaths(v: unknown, skip: Set<string>, path: Path = []): Path[] {
  if (typeof v === "number") return [path];
  if (isTypedArray(v) || Array.isArray(v)) {
    return Array.from(v as ArrayLike<unknown>, (x, i) => numberPaths(x, skip, [...path, i])).flat();
  }
  if (v !== null && typeof v === "object") {
    return Object.entries(v)
      .filter(([k]) => !skip.has(k))
      .flatMap(([k, x]) => numberPaths(x, skip, [...path, k]));
  }
  return [];
}

function getAt(v: unknown, path: Path): number {
  let x = v;
  for (const k of path) x = (x as Record<Key, unknown>)[k];
  assert.equal(typeof x, "number", `a number at ${pathText(path)}`);
  return x as number;
}

function setAt(v: unknown, path: Path, value: number): void {
  let x = v;
  for (const k of path.slice(0, -1)) x = (x as Record<Key, unknown>)[k];
  (x as Record<Key, unknown>)[path[path.length - 1]!] = value;
}

function pathText(path: Path): string {
  return path.map((k) => (typeof k === "number" ? `[${k}]` : `.${k}`)).join("");
}

/** A deep copy of a value: typed arrays stay typed, class instances keep their class. */
function deepCopy<T>(v: T): T {
  if (isTypedArray(v)) return v.slice() as T;
  if (Array.isArray(v)) return v.map(deepCopy) as T;
  if (v !== null && typeof v === "object") {
    const copy = Object.create(Object.getPrototypeOf(v)) as Record<string, unknown>;
    for (const [k, x] of Object.entries(v)) copy[k] = deepCopy(x);
    return copy as T;
  }
  return v;
}

/** A value shaped like t, numbers from `next` (typed arrays keep their kind). */
function randomLike<T>(t: T, next: () => number): T {
  if (typeof t === "number") return next() as T;
  if (t instanceof Float64Array) return Float64Array.from(t, next) as T;
  if (t instanceof Float32Array) return Float32Array.from(t, next) as T;
  if (Array.isArray(t)) return t.map((x) => randomLike(x, next)) as T;
  const o: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(t as object)) o[k] = randomLike(x, next);
  return o as T;
}

/** <a, b> over the numbers of a (b has at least a's shape), and the sum of |aᵢ·bᵢ| (a scale). */
function dot(a: unknown, b: unknown): { value: number; scale: number } {
  let value = 0;
  let scale = 0;
  for (const path of leaves(a)) {
    const term = getAt(a, path) * getAt(b, path);
    value += term;
    scale += Math.abs(term);
  }
  return { value, scale };
}

/** A small deterministic generator (mulberry32), for tangents shaped like a gradient. */
function generator(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * 2 - 1;
  };
}

/** A gradient as a list in wrt order (one differentiated argument gives its tangent alone). */
function perArgument(result: unknown, wrt: number[]): unknown[] {
  return wrt.length === 1 ? [result] : (result as unknown[]);
}

// ---------------------------------------------------------------------------------------------
// The two checks

const uniform = (min: number, max: number) =>
  fc.integer({ min: 0, max: 2 ** 30 }).map((k) => min + ((max - min) * k) / 2 ** 30);

/**
 * At seeded random points: (1) every number of the gradient against a central difference of
 * the primal in that coordinate; (2) differential against pullback by <J·v, w> = <v, Jᵀ·w>.
 * Arguments are built afresh for each call, as the functions may write them.
 */
async function checkCase(c: Case): Promise<void> {
  const m = await program();
  const f = await get(c.name);
  const g = await get(`g_${c.name}`);
  const p = await get<(...args: unknown[]) => (w: number) => unknown>(`p_${c.name}`);
  const d = await get<(...args: unknown[]) => (...v: unknown[]) => number>(`d_${c.name}`);
  const [min, max] = c.range ?? [-1, 1];
  const points = fc.tuple(
    fc.array(uniform(min, max), { minLength: c.size, maxLength: c.size }),
    fc.integer(),
  );
  fc.assert(
    fc.property(points, ([r, seed]) => {
      const args = () => c.build(m, r);
      const grads = perArgument(g(...args()), c.wrt);

      // One number in the gradient for each differentiable number of the argument, so that
      // the checks below, which walk the gradient, see every coordinate.
      const built = args();
      c.wrt.forEach((arg, k) => {
        const expected = numberPaths(built[arg], new Set(c.noDerivative)).map(pathText).sort();
        const actual = leaves(grads[k]).map(pathText).sort();
        assert.deepEqual(actual, expected, `${c.name}: the numbers of argument ${arg}`);
      });

      // (1) Finite differences, at the value actually stored (Float32Array rounds it).
      c.wrt.forEach((arg, k) => {
        for (const path of leaves(grads[k])) {
          const at = (shift: number) => {
            const xs = args();
            const x = getAt(xs, [arg, ...path]);
            setAt(xs, [arg, ...path], x + shift * (c.step ?? 1e-6) * Math.max(1, Math.abs(x)));
            return { x: getAt(xs, [arg, ...path]), y: f(...xs) as number };
          };
          const [hi, lo] = [at(1), at(-1)];
          const fd = (hi.y - lo.y) / (hi.x - lo.x);
          const what = `${c.name}: ∂/∂ argument ${arg}${pathText(path)}`;
          assertClose(getAt(grads[k], path), fd, c.tolerance ?? 1e-5, what);
        }
      });

      // (2) <J·v, w> = <v, Jᵀ·w>: differential (forward) against pullback (reverse).
      const next = generator(seed);
      const v = grads.map((t) => randomLike(t, next));
      const w = next();
      const forward = d(...args())(...v) * w;
      const back = perArgument(p(...args())(w), c.wrt);
      const products = v.map((vk, k) => dot(vk, back[k]));
      const reverse = products.reduce((s, x) => s + x.value, 0);
      const scale = products.reduce((s, x) => s + x.scale, 0);
      const tolerance = c.identityTolerance ?? 1e-9;
      assert.ok(
        Math.abs(forward - reverse) <= tolerance * Math.max(1, scale),
        `${c.name}: <J·v, w> = ${forward} but <v, Jᵀ·w> = ${reverse}`,
      );
    }),
    { seed: SEED, numRuns: RUNS },
  );
}

// ---------------------------------------------------------------------------------------------
// The two checks on every case

test("the program compiles", async () => {
  await program();
});

describe("programs with structured data: finite differences, and forward against reverse", () => {
  for (const c of PROGRAMS) test(c.name, () => checkCase(c));
});

describe("array kinds, tuples, literals and array methods", () => {
  for (const c of CONSTRUCTS) test(c.name, () => checkCase(c));
});

// ---------------------------------------------------------------------------------------------
// What tangent values look like

/** Fixed random numbers, for tests that look at one point. */
const R = Array.from({ length: 64 }, generator(SEED));

/** The arguments of case `name` built from the first of r. */
function argsAt(m: Exports, name: string, r = R): unknown[] {
  const c = CASES[name]!;
  return c.build(m, r.slice(0, c.size));
}

function assertPlainObject(v: unknown, keys: string[], what: string): void {
  assert.ok(v !== null && typeof v === "object", `${what}: an object`);
  assert.equal(Object.getPrototypeOf(v), Object.prototype, `${what}: a plain object`);
  assert.deepEqual(Object.keys(v as object).sort(), [...keys].sort(), `${what}: its keys`);
}

function assertKind(v: unknown, kind: "Float64Array" | "Float32Array" | "Array", length: number) {
  const actual = Array.isArray(v) ? "Array" : (v as object)?.constructor?.name;
  assert.equal(actual, kind, `a ${kind}`);
  assert.equal((v as ArrayLike<unknown>).length, length, `${kind} of length ${length}`);
}

describe("tangent values", () => {
  test("a class instance: a plain object of its differentiable fields, each of its own kind", async () => {
    const m = await program();
    const b = body(m, R) as Record<string, unknown>;
    const g = (await get("gBody"))(b, 0.5) as Record<string, unknown>;
    // No `id` (@noDerivative) and no `label` (a string); `coat` without its @noDerivative `layer`.
    assertPlainObject(g, ["mass", "pos", "vel", "spin", "coat"], "the gradient");
    assert.equal(typeof g.mass, "number");
    assertKind(g.pos, "Float64Array", 2);
    assertKind(g.vel, "Array", 2);
    assertKind(g.spin, "Array", 2);
    assertPlainObject(g.coat, ["charge"], "the tangent of coat");
    for (const k of ["pos", "vel", "spin", "coat"]) assert.notEqual(g[k], b[k], `a fresh ${k}`);
  });

  test("an MLP: layers of { w, b } Float64Arrays, without the @noDerivative sizes", async () => {
    const m = await program();
    const [model, xs, ys] = [mlp(m, R), ...batch()];
    const g = (await get("g_mlpLoss"))(model, xs, ys) as { layers: unknown[] };
    assertPlainObject(g, ["layers"], "the gradient");
    assertKind(g.layers, "Array", 2);
    const sizes = [12, 4, 8, 2];
    g.layers.forEach((layer, l) => {
      assertPlainObject(layer, ["w", "b"], `layer ${l}`);
      assertKind((layer as { w: unknown }).w, "Float64Array", sizes[2 * l]!);
      assertKind((layer as { b: unknown }).b, "Float64Array", sizes[2 * l + 1]!);
    });
  });

  test("Float32Array stays Float32Array, number[][] stays arrays of arrays, a tuple an array", async () => {
    const [a, b] = perArgument((await get("g_float32"))(f32([1, 2, 3]), f32([4, 5, 6])), [0, 1]);
    assertKind(a, "Float32Array", 3);
    assertKind(b, "Float32Array", 3);
    const [p, q] = perArgument((await get("g_tuples"))([1, 2], [3, 4]), [0, 1]);
    assertKind(p, "Array", 2);
    assertKind(q, "Array", 2);
    const [model, x] = perArgument(
      (await get("g_nestedNet"))(...argsAt(await program(), "nestedNet")),
      [0, 1],
    );
    const layers = (model as { layers: { w: number[][]; b: number[] }[] }).layers;
    assertKind(layers, "Array", 2);
    assertKind(layers[0]!.w, "Array", 3);
    assertKind(layers[0]!.w[0], "Array", 2);
    assertKind(layers[1]!.w[0], "Array", 3);
    assertKind(layers[1]!.b, "Array", 1);
    assertKind(x, "Array", 2);
  });

  test("each gradient is a fresh value: a second call leaves the first result as it was", async () => {
    const m = await program();
    const gBody = await get("gBody");
    const first = gBody(body(m, R), 0.5);
    const copy = deepCopy(first);
    const second = gBody(body(m, R.slice(8)), 0.75);
    assert.deepStrictEqual(first, copy);
    assert.notDeepStrictEqual(second, first);
    const gMlp = await get("g_mlpLoss");
    const firstMlp = gMlp(mlp(m, R), ...batch());
    const copyMlp = deepCopy(firstMlp);
    gMlp(mlp(m, R.slice(1)), ...batch());
    assert.deepStrictEqual(firstMlp, copyMlp);
  });
});

// ---------------------------------------------------------------------------------------------
// The user's inputs, values and pullbacks

/**
 * Uses what an operator gave as a user would: calls a pullback (`p_…`, `vp…`) and a
 * differential (`d_…`, `vd…`) twice, the differential with a random tangent shaped like the
 * gradient of `name`.
 */
async function use(op: string, name: string, made: unknown): Promise<void> {
  const m = await program();
  const call =
    (made as { pullback?: AnyFn; differential?: AnyFn }).pullback ??
    (made as { differential?: AnyFn }).differential ??
    (typeof made === "function" ? (made as AnyFn) : undefined);
  if (/^(p_|vp)/.test(op)) {
    call!(1);
    call!(1);
  } else if (/^(d_|vd)/.test(op)) {
    const { wrt } = CASES[name]!;
    const grads = perArgument((await get(`g_${name}`))(...argsAt(m, name)), wrt);
    const v = grads.map((t) => randomLike(t, generator(1)));
    call!(...v);
    call!(...v);
  }
}

describe("the user's inputs, values and pullbacks", () => {
  test("no operator changes inputs that the function does not write", async () => {
    const m = await program();
    const operators: Record<string, string[]> = {
      mlpLoss: ["g_mlpLoss", "vgMlp", "p_mlpLoss", "vpMlp", "d_mlpLoss", "vdMlp"],
      matmulLoss: ["g_matmulLoss", "vgMatmul", "p_matmulLoss", "d_matmulLoss"],
      nestedNet: ["g_nestedNet", "vgNested", "p_nestedNet", "d_nestedNet"],
      normalizeLoss: ["g_normalizeLoss", "vgNormalize", "p_normalizeLoss", "d_normalizeLoss"],
      readsBoth: ["g_readsBoth", "p_readsBoth", "d_readsBoth"],
    };
    for (const [name, ops] of Object.entries(operators)) {
      for (const op of ops) {
        const args = argsAt(m, name);
        const before = deepCopy(args);
        await use(op, name, (await get(op))(...args));
        assert.deepStrictEqual(args, before, `${op}: the arguments of ${name}`);
      }
    }
  });

  test("a function that writes its argument writes it once, as a call does, in reverse mode", async () => {
    const m = await program();
    const expected = argsAt(m, "prefixLoss");
    (await get("prefixLoss"))(...expected);
    // A pullback runs the function when it is made; calling it only reads the tape.
    for (const op of ["g_prefixLoss", "vgPrefix", "p_prefixLoss", "vpPrefix"]) {
      const args = argsAt(m, "prefixLoss");
      await use(op, "prefixLoss", (await get(op))(...args));
      assert.deepStrictEqual(args, expected, `${op}: the argument holds the prefix sums`);
    }
  });

  test("valueWithGradient, valueWithPullback and valueWithDifferential: the value of the function", async () => {
    const m = await program();
    const withValue: [name: string, op: string][] = [
      ["mlpLoss", "vgMlp"],
      ["mlpLoss", "vpMlp"],
      ["mlpLoss", "vdMlp"],
      ["matmulLoss", "vgMatmul"],
      ["nestedNet", "vgNested"],
      ["normalizeLoss", "vgNormalize"],
      ["prefixLoss", "vgPrefix"],
      ["prefixLoss", "vpPrefix"],
      ["prefixLoss", "vdPrefix"],
      ["bodyEnergy", "vgBody"],
    ];
    for (const [name, op] of withValue) {
      const expected = (await get(name))(...argsAt(m, name));
      const { value } = (await get(op))(...argsAt(m, name)) as { value: number };
      assert.equal(value, expected, `${op}: the value of ${name}`);
    }
  });

  test("a pullback called twice gives the same adjoints, and leaves the first ones alone", async () => {
    const m = await program();
    const pullbacks: [name: string, pullback: string, gradient: string][] = [
      ["mlpLoss", "p_mlpLoss", "g_mlpLoss"],
      ["bodyEnergy", "pBody", "gBody"],
      ["simulate", "p_simulate", "g_simulate"],
      ["prefixLoss", "p_prefixLoss", "g_prefixLoss"],
    ];
    for (const [name, op, gradient] of pullbacks) {
      const back = (await get(op))(...argsAt(m, name)) as (w: number) => unknown;
      const first = back(1);
      const copy = deepCopy(first);
      // Other reverse-mode work in between, on the same tape.
      (await get("g_matmulLoss"))(...argsAt(m, "matmulLoss"));
      const second = back(1);
      assert.deepStrictEqual(first, copy, `${op}: the first adjoints after a second call`);
      assert.deepStrictEqual(second, first, `${op}: the second call`);
      assert.notEqual(second, first, `${op}: a fresh value each call`);
      const expected = (await get(gradient))(...argsAt(m, name));
      assert.deepStrictEqual(first, expected, `${op}(1) is the gradient`);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Aliased arguments

describe("the same array as two arguments", () => {
  test("when the function writes one: AliasedArgumentsError from every operator, before it runs", async () => {
    const operators = [
      "g_writesFirst",
      "vgWritesFirst",
      "p_writesFirst",
      "vpWritesFirst",
      "d_writesFirst",
      "vdWritesFirst",
      "gWritesFirstOnly",
    ];
    for (const op of operators) {
      const run = await get(op);
      const x = [0.5, 2];
      assert.throws(() => run(x, x), AliasedArgumentsError, op);
      assert.deepEqual(x, [0.5, 2], `${op}: the array is unchanged`);
    }
    // The same object, and the same Float64Array.
    const gField = await get("gWritesField");
    const o = { x: 3 };
    assert.throws(() => gField(o, o), AliasedArgumentsError, "the same object");
    assert.deepEqual(o, { x: 3 });
    const dSecond = await get("dWritesSecond");
    const z = f64([3]);
    assert.throws(() => dSecond(z, z), AliasedArgumentsError, "the same Float64Array");
  });

  test("when the function only reads both: the two gradients add up to the derivative of x ↦ f(x, x)", async () => {
    const f = await get("readsBoth");
    const g = await get("g_readsBoth");
    const d = await get<(...args: unknown[]) => (...v: unknown[]) => number>("d_readsBoth");
    const x = f64(R.slice(0, 3));
    const [ga, gb] = g(x, x) as Float64Array[];
    const total = ga!.map((a, i) => a + gb![i]!);
    for (let i = 0; i < x.length; i++) {
      const at = (t: number) => {
        const y = x.slice();
        y[i] = t;
        return f(y, y) as number;
      };
      assertClose(total[i]!, centralDifference(at, x[i]!), 1e-6, `∂/∂x[${i}]`);
    }
    const v = f64(R.slice(3, 6));
    assertClose(d(x, x)(v, v), dot(v, total).value, 1e-12, "differential along (v, v)");
  });
});

// ---------------------------------------------------------------------------------------------
// Module-level data: read as constants

type Scalar = (...xs: unknown[]) => number;

test("a module-level Float64Array and a method of a module-level class instance", async () => {
  const m = await loadProgram<Record<string, Scalar>>({
    "main.ts": `import { gradient, differential } from "nabla";
class Poly {
  c: number[];
  constructor(c: number[]) {
    this.c = c;
  }
  at(x: number): number {
    let s = 0;
    for (let i = this.c.length - 1; i >= 0; i--) s = s * x + this.c[i];
    return s;
  }
}
const P = new Poly([1, 2, 3]);
const W = new Float64Array([0.5, -1, 2]);
export function f(x: number, v: number[]): number {
  let s = P.at(x);
  for (let i = 0; i < v.length; i++) s += W[i] * v[i] * v[i];
  return s;
}
export const g = gradient(f);
export const d = differential(f);
`,
  });
  // 1 + 2x + 3x² + Σ Wᵢ·vᵢ²: (2 + 6x, 2·Wᵢ·vᵢ).
  const [dx, dv] = m.g!(2, [1, 2, 3]) as unknown as [number, number[]];
  assert.equal(dx, 14);
  assert.deepEqual(dv, [1, -4, 12]);
  assert.equal((m.d!(2, [1, 2, 3]) as unknown as Scalar)(1, [1, 1, 1]), 14 + 1 - 4 + 12);
});

// ---------------------------------------------------------------------------------------------
// Bugs found by these tests, each on a program of its own so it stays fixed.

describe("regressions", () => {
  test("the gradient of an array the function lengthens has the length it was given", async () => {
    // It used to come back with the added elements' zeros at its end: [6, 3, 2, 0].
    const m = await loadProgram<Record<string, Scalar>>({
      "main.ts": `import { gradient, pullback, hessian } from "nabla";
export function grow(xs: number[]): number {
  xs.push(xs[0] * xs[1]);
  return xs[2] * xs[3];
}
export function insert(xs: number[]): number {
  xs.splice(1, 0, xs[0] * 5);
  return xs[1] * xs[2] + xs[3];
}
export function prepend(xs: number[]): number {
  xs.unshift(7, xs[2] * 3);
  return xs[1] * xs[2] + xs[4];
}
export const g = gradient(grow);
export const p = pullback(grow);
export const h = hessian(grow);
export const gi = gradient(insert);
export const gp = gradient(prepend);
`,
    });
    // x2·x0·x1: (x1·x2, x0·x2, x0·x1); 5·x0·x1 + x2; 3·x2·x0 + x2.
    assert.deepEqual(m.g!([1, 2, 3]), [6, 3, 2]);
    assert.deepEqual((m.p!([1, 2, 3]) as unknown as Scalar)(1), [6, 3, 2]);
    assert.deepEqual(m.h!([1, 2, 3]), [
      [0, 3, 2],
      [3, 0, 1],
      [2, 1, 0],
    ]);
    assert.deepEqual(m.gi!([1, 2, 3]), [10, 5, 1]);
    assert.deepEqual(m.gp!([1, 2, 3]), [9, 0, 4]);
    // Against central differences of the functions themselves, each call on a fresh array
    // (they lengthen it), at a point where no coefficient is an integer.
    const at = [1.3, -0.7, 2.1];
    for (const [name, gradientOf] of [
      ["grow", m.g!],
      ["insert", m.gi!],
      ["prepend", m.gp!],
    ] as const) {
      const f = m[name] as unknown as (xs: number[]) => number;
      const expected = finiteGradient((...xs) => f([...xs]), at);
      const got = gradientOf([...at]) as unknown as number[];
      assert.equal(got.length, at.length, `${name}: the gradient's length`);
      got.forEach((d, i) => assertClose(d, expected[i]!, 1e-6, `${name}: ∂/∂x${i}`));
    }
  });

  test("an array grown with .push: its adjoint in reverse mode", async () => {
    const m = await loadProgram<Record<string, Scalar>>({
      "main.ts": `import { gradient, pullback, differential } from "nabla";
export function pushed(v: number[]): number {
  const out: number[] = [];
  for (let i = 0; i < v.length; i++) out.push(v[i] * v[i]);
  return out[0] * out[1];
}
export const g = gradient(pushed);
export const d = differential(pushed);
`,
    });
    // v0²·v1²: the gradient (2·v0·v1², 2·v0²·v1).
    assert.deepEqual(m.g!([2, 3]), [36, 24]);
    assert.equal((m.d!([2, 3]) as unknown as Scalar)([1, 0]), 36);
  });

  test("an array literal with a spread: its adjoint in reverse mode", async () => {
    const m = await loadProgram<Record<string, Scalar>>({
      "main.ts": `import { gradient } from "nabla";
export function spread(v: number[]): number {
  const a = [...v, 1];
  return a[0] * a[1] + a[2];
}
export const g = gradient(spread);
`,
    });
    assert.deepEqual(m.g!([3, 4]), [4, 3]);
  });

  test("a helper that builds an array or object from numbers only", async () => {
    const m = await loadProgram<Record<string, Scalar>>({
      "main.ts": `import { gradient, differential } from "nabla";
function pair(r: number): number[] {
  return [r * 2, r * r];
}
export function viaArray(r: number): number {
  const p = pair(r);
  return p[0] + p[1];
}
function polar(r: number, t: number): { x: number; y: number } {
  return { x: r * Math.cos(t), y: r * Math.sin(t) };
}
export function viaObject(r: number, t: number): number {
  const p = polar(r, t);
  return p.x * p.y;
}
export const gArray = gradient(viaArray);
export const dArray = differential(viaArray);
export const gObject = gradient(viaObject);
`,
    });
    // 2r + r²: 8 at 3. r²·cos t·sin t: (2r·cos t·sin t, r²·cos 2t).
    assert.equal(m.gArray!(3), 8);
    assert.equal((m.dArray!(3) as unknown as Scalar)(1), 8);
    const [r, t] = [2, 0.5];
    const [dr, dt] = m.gObject!(r, t) as unknown as number[];
    assertClose(dr!, 2 * r * Math.cos(t) * Math.sin(t), 1e-12, "∂/∂r");
    assertClose(dt!, r * r * Math.cos(2 * t), 1e-12, "∂/∂t");
  });

  test("bugs the random structured programs found", async () => {
    const m = await loadProgram<Record<string, Scalar>>({
      "main.ts": `import { derivative, gradient, valueWithGradient, differential } from "nabla";
// Float64Array.prototype.map returns a Float64Array.
function squares(v: Float64Array): Float64Array { return v.map((e) => e * e); }
export const gMap = gradient((v: Float64Array) => squares(v)[0] + squares(v)[1]);
// A constant array from a helper, written with an active value inside a branch.
function zeros(): number[] { return [0, 0]; }
export function branchWrite(x: number): number { const a = zeros(); if (x > 0) a[1] = x * 2; return a[1]; }
export const dBranch = derivative(branchWrite);
export const gBranch = gradient(branchWrite);
// A helper returning an array from inside a loop.
function firstAbove(src: number[], t: number): number[] {
  for (let i = 0; i < src.length; i++) if (src[i] > t) return [src[i]];
  return [t];
}
export function early(v: number[], x: number): number { return firstAbove(v, x)[0] * x; }
export const gEarly = gradient(early);
export const dEarly = differential(early);
// One array as the output and the input of a helper.
function sq(out: number[], src: number[]): void { out[0] = src[0] * src[0]; }
export function same(x: number): number { const a = [x]; sq(a, a); return a[0]; }
export const gSame = gradient(same);
// A read inside a ternary, then a call that writes the array.
function bump(src: number[]): number { src[0] += 1; return 0; }
export function ternary(x: number): number { const a = [x]; return (x > 0 ? a[0] : x) + bump(a); }
export const vgTernary = valueWithGradient(ternary);
`,
    });
    assert.deepEqual(m.gMap!(new Float64Array([1, 2])), new Float64Array([2, 4]));
    assert.equal(m.dBranch!(0.5), 2);
    assert.equal(m.dBranch!(-0.5), 0);
    assert.equal(m.gBranch!(0.5), 2);
    assert.deepEqual(m.gEarly!([0.1, 0.5, 0.2], 0.3), [[0, 0.3, 0], 0.5]);
    assert.equal((m.dEarly!([0.1, 0.5, 0.2], 0.3) as unknown as Scalar)([0, 1, 0], 0), 0.3);
    assert.equal(m.gSame!(0.5), 1);
    assert.deepEqual(m.vgTernary!(0.5), { value: 0.5, gradient: 1 });
  });

  test("arrays read again in the backward sweep, but changed in between: the review's cases", async () => {
    const m = await loadProgram<Record<string, Scalar>>({
      "main.ts": `import { gradient, pullback } from "nabla";
// A local array that leaves its function in the result, then is written by the caller.
function g(a: number[]): { t: number[]; s: number } {
  const t = [a[0] * 1.5, a[1]];
  return { t, s: t[0] * t[1] };
}
export function escaped(a: number[]): number {
  const r = g(a);
  r.t[0] = 10;
  return r.s + r.t[0] * r.t[1];
}
export const gEscaped = gradient(escaped);
// A callee that stores one argument into another.
function store(o: { v: number[] }, b: number[]): void { o.v = b; }
export function stored(a: number[]): number {
  const b = [a[0], a[1]];
  const o = { v: [0, 0] };
  store(o, b);
  let s = 0;
  for (let i = 0; i < 2; i++) s += b[i] * b[i] * a[2];
  o.v[0] = 5;
  o.v[1] = 5;
  return s;
}
export const gStored = gradient(stored);
// An array reached through a @noDerivative field.
interface Holder { /** @noDerivative */ data: number[]; w: number }
export function hidden(x: number, a: number[]): number {
  let y = 0;
  for (let i = 0; i < 2; i++) y += x * a[i] * x;
  const c: Holder = { data: a, w: 1 };
  c.data[0] = 50;
  c.data[1] = 50;
  return y;
}
export const gHidden = gradient(hidden, { wrt: 0 });
// A field replaced by the caller after a callee read it (the shadow changes too).
function prod(o: { v: number[] }): number { return o.v[0] * o.v[1]; }
export function replaced(a: number[]): number {
  const o = { v: [a[0], a[1]] };
  const s = prod(o);
  o.v = [a[2], 2];
  return s + o.v[0] * o.v[1];
}
export const gReplaced = gradient(replaced);
// A module-level array changed between the forward sweep and a pullback.
export const G = [0.5, 1.5, 2.5];
export function scaled(x: number): number { return x * G[1] * x; }
export const pbScaled = pullback(scaled);
// A function that replaces an array inside its argument.
export function swapsOut(o: { v: number[] }): number {
  const s = o.v[0] * o.v[1];
  o.v = [1, 2];
  return s;
}
export const gSwapsOut = gradient(swapsOut);
`,
    });
    const close = (a: number[], b: number[]) =>
      a.forEach((x, i) => assertClose(x, b[i]!, 1e-12, `component ${i}`));
    close(m.gEscaped!([0.3, 0.7, 1.1]) as unknown as number[], [1.05, 10.45, 0]);
    close(m.gStored!([0.3, 0.7, 1.1]) as unknown as number[], [0.66, 1.54, 0.58]);
    assertClose(m.gHidden!(0.7, [2, 3]), 7, 1e-12, "through @noDerivative");
    close(m.gReplaced!([0.3, 0.7, 1.1]) as unknown as number[], [0.7, 0.3, 2]);
    const back = m.pbScaled!(0.7) as unknown as (seed: number) => number;
    (m.G as unknown as number[])[1] = 100;
    assertClose(back(1), 2.1, 1e-12, "pullback after the module array changed");
    (m.G as unknown as number[])[1] = 1.5;
    const swapped = m.gSwapsOut!({ v: [0.4, 0.9] }) as unknown as { v: number[] };
    close(swapped.v, [0.9, 0.4]);
  });

  test("class fields typed by their initializers", async () => {
    const m = await loadProgram<Record<string, Scalar>>({
      "main.ts": `import { gradient, differential } from "nabla";
export class Spring {
  k = 2;
  rest = [0.5, 1.5];
  /** @noDerivative */ label = "s";
  energy(x: number): number {
    let e = 0;
    for (const r of this.rest) e += 0.5 * this.k * (x - r) * (x - r);
    return e;
  }
}
export const g = gradient((s: Spring, x: number) => s.energy(x));
export const d = differential((s: Spring, x: number) => s.energy(x));
`,
    });
    const Spring = m.Spring as unknown as new () => unknown;
    const [ds, dx] = m.g!(new Spring(), 1) as unknown as [{ k: number; rest: number[] }, number];
    // e = k/2 Σ (x − r)²: ∂k = Σ (x − r)²/2, ∂r = −k (x − r), ∂x = k Σ (x − r).
    assertClose(ds.k, 0.25, 1e-12, "∂k");
    assert.deepEqual(Object.keys(ds).sort(), ["k", "rest"]);
    assertClose(ds.rest[0]!, -1, 1e-12, "∂r0");
    assertClose(ds.rest[1]!, 1, 1e-12, "∂r1");
    assertClose(dx, 0, 1e-12, "∂x");
    const tangent = { k: 1, rest: [0, 0] };
    assertClose((m.d!(new Spring(), 1) as unknown as Scalar)(tangent, 0), 0.25, 1e-12, "forward");
  });

  test("a parameter named o", async () => {
    const m = await loadProgram<Record<string, Scalar>>({
      "main.ts": `import { gradient, differential } from "nabla";
export function norm2(o: { x: number; y: number }): number {
  return o.x * o.x + o.y * o.y;
}
export const g = gradient(norm2);
export const d = differential(norm2);
`,
    });
    assert.deepEqual(m.g!({ x: 3, y: 4 }), { x: 6, y: 8 });
    assert.equal((m.d!({ x: 3, y: 4 }) as unknown as Scalar)({ x: 1, y: 0 }), 6);
  });

  test("the same array as an argument and inside another argument, written through one", async () => {
    const m = await loadProgram<Record<string, Scalar>>({
      "main.ts": `import { gradient } from "nabla";
export function f(p: { v: number[] }, b: number[]): number {
  p.v[0] = p.v[0] * b[0];
  return p.v[0] + b[0];
}
export const g = gradient(f);
`,
    });
    // With y both p.v and b: y0·y0 + y0·y0 = 2·y0², of derivative 4·y0 = 8 at 2. Treating
    // p.v and b as separate values gives (y0, y0 + 1) = (2, 3), which add up to 5.
    const y = [2];
    assert.throws(() => m.g!({ v: y }, y), AliasedArgumentsError);
  });

  test("the differential of a function that writes its argument, called twice", async () => {
    const m = await program();
    const build = () => argsAt(m, "prefixLoss");
    const v = f64(R.slice(5, 10));
    const expected = dot(v, (await get("g_prefixLoss"))(...build())).value;
    const written = build();
    (await get("prefixLoss"))(...written);

    const args = build();
    const df = (await get("d_prefixLoss"))(...args) as (v: Float64Array) => number;
    assertClose(df(v), expected, 1e-12, "differential, first call");
    assertClose(df(v), expected, 1e-12, "differential, second call");
    assert.deepStrictEqual(args, written, "differential: the argument written once");

    const more = build();
    const { differential } = (await get("vdPrefix"))(...more) as {
      differential: (v: Float64Array) => number;
    };
    assertClose(differential(v), expected, 1e-12, "valueWithDifferential");
    assert.deepStrictEqual(more, written, "valueWithDifferential: the argument written once");
  });
});

test("a type alias of an array reached twice from one parameter's type (two fields, nested interfaces)", async () => {
  const m = await loadProgram<{ g: (x: number) => number[] }>({
    "main.ts": `import { gradient } from "nabla";
type Vec = number[];
type Matrix = number[][];
interface Inner { m: Matrix; v: Vec }
interface Data { a: Vec; b: Vec; inner: Inner; n: Matrix }
function f(x: number, data: Data): number {
  return x * data.b[0]! + x * x * data.inner.m[0]![1]! + data.a[0]! * data.n[0]![0]! * x;
}
export const g = (x: number) => {
  const data: Data = { a: [2], b: [3], inner: { m: [[0, 5]], v: [1] }, n: [[7]] };
  const grad = gradient(f, { wrt: [0, 1] })(x, data);
  return [grad[0], grad[1].a[0]!, grad[1].inner.m[0]![1]!];
};
`,
  });
  // d/dx = 3 + 2·x·5 + 2·7; d/da0 = 7·x; d/dm01 = x²
  const [dx, da, dm] = m.g(1.5);
  assertClose(dx!, 3 + 15 + 14);
  assertClose(da!, 10.5);
  assertClose(dm!, 2.25);
});
