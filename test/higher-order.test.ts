import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  assertClose,
  compileFiles,
  diagnosticsText,
  importCompiled,
  loadProgram,
} from "./support/harness.js";

// Higher-order differentiation: derivatives of derivatives (forward over forward, reverse over
// forward), operators called inside differentiated code (perturbation confusion), hessian,
// hessianVectorProduct and jacobian, derivatives of array- and object-valued functions,
// withDerivative / withoutDerivative, and checkpointing. Every derivative is checked against an
// independent reference: closed forms where they are short, central finite differences of the
// primal (second-order differences for second derivatives), finite differences of a first
// derivative that is itself checked, and forward mode against reverse mode by the dot-product
// identity <J·v, w> = <v, Jᵀ·w> at seeded random points. Bugs these tests found have small
// regression programs at the end.

// ---------------------------------------------------------------------------------------------
// Numerical helpers

type Fn = (...args: unknown[]) => unknown;

/** A seeded generator (mulberry32): the same "random" inputs on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = seeded(20_261_201);
/** n numbers uniform in [lo, hi). */
const randoms = (n: number, lo = -1, hi = 1) =>
  Array.from({ length: n }, () => lo + (hi - lo) * random());
const f64 = (xs: readonly number[]) => new Float64Array(xs);

/** Every number of a value (arrays, typed arrays, objects by sorted keys), in order. */
function flat(v: unknown): number[] {
  if (typeof v === "number") return [v];
  if (v instanceof Float64Array || v instanceof Float32Array) return Array.from(v);
  if (Array.isArray(v)) return v.flatMap(flat);
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return Object.keys(o)
      .sort()
      .flatMap((k) => flat(o[k]));
  }
  throw new Error(`not a numeric value: ${String(v)}`);
}

/** x + h·v for values of any shape (v has x's shape; fields missing from v are copied). */
function axpy(x: unknown, h: number, v: unknown): unknown {
  if (typeof x === "number") return x + h * (v as number);
  if (x instanceof Float64Array || x instanceof Float32Array) {
    const y = x.slice();
    const d = v as ArrayLike<number>;
    for (let i = 0; i < y.length; i++) y[i]! += h * d[i]!;
    return y;
  }
  if (Array.isArray(x)) return x.map((xi, i) => axpy(xi, h, (v as unknown[])[i]));
  if (x !== null && typeof x === "object") {
    const out: Record<string, unknown> = {};
    const d = v as Record<string, unknown>;
    for (const [k, xk] of Object.entries(x)) out[k] = k in d ? axpy(xk, h, d[k]) : xk;
    return out;
  }
  throw new Error(`not a numeric value: ${String(x)}`);
}

/** Sum of products of the numbers of two values of the same shape. */
function dot(a: unknown, b: unknown): number {
  const fa = flat(a);
  const fb = flat(b);
  assert.equal(fa.length, fb.length, "dot: shapes differ");
  return fa.reduce((s, x, i) => s + x * fb[i]!, 0);
}

/** A deep copy (typed arrays included) so that functions writing their arguments get fresh ones. */
const copy = <T>(v: T): T => structuredClone(v);

/**
 * Central difference of f along the direction `dirs` (one entry per argument, undefined for
 * arguments held fixed): the numbers of (f(args + h·dirs) − f(args − h·dirs)) / 2h.
 */
function directional(f: Fn, args: unknown[], dirs: unknown[], h = 1e-6): number[] {
  const at = (s: number) =>
    args.map((a, i) => (dirs[i] === undefined ? copy(a) : axpy(copy(a), s, dirs[i])));
  const plus = flat(f(...at(h)));
  const minus = flat(f(...at(-h)));
  return plus.map((p, i) => (p - minus[i]!) / (2 * h));
}

/** Second central difference of a function of one number. */
function secondDifference(f: (x: number) => number, x: number, h = 1e-4): number {
  return (f(x + h) - 2 * f(x) + f(x - h)) / (h * h);
}

/** Central difference of a function of one number. */
function difference(f: (x: number) => number, x: number, h = 1e-5 * Math.max(1, Math.abs(x))) {
  return (f(x + h) - f(x - h)) / (2 * h);
}

/** The Hessian of f: number[] → number by second differences of the primal. */
function finiteHessian(f: (x: number[]) => number, x: number[], h = 1e-4): number[][] {
  const at = (i: number, si: number, j: number, sj: number) => {
    const y = [...x];
    y[i]! += si * h;
    y[j]! += sj * h;
    return f(y);
  };
  return x.map((_, i) =>
    x.map(
      (_, j) =>
        (at(i, 1, j, 1) - at(i, 1, j, -1) - at(i, -1, j, 1) + at(i, -1, j, -1)) / (4 * h * h),
    ),
  );
}

/** The Jacobian of f with respect to argument `wrt` (a number[]), by central differences. */
function finiteJacobian(f: Fn, args: unknown[], wrt: number, make = (x: number[]) => x as unknown) {
  const x = flat(args[wrt]);
  const columns = x.map((_, j) => {
    const e = x.map((_, k) => (k === j ? 1 : 0));
    const dirs = args.map((_, i) => (i === wrt ? make(e) : undefined));
    return directional(f, args, dirs);
  });
  return columns[0]!.map((_, i) => columns.map((c) => c[i]!));
}

/**
 * Whether a and b agree to a relative tolerance (absolute near zero), or, given a scale, to
 * `tolerance · scale` (for finite differences, whose error follows the largest entry).
 */
function near(a: number, b: number, tolerance: number, scale?: number): boolean {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  return Math.abs(a - b) <= tolerance * (scale ?? Math.max(1, Math.abs(a), Math.abs(b)));
}

/** Asserts that two numbers or two values of the same shape agree number by number. */
function assertNear(
  actual: unknown,
  expected: unknown,
  tolerance: number,
  what: string,
  scale?: number,
): void {
  const a = flat(actual);
  const e = flat(expected);
  assert.equal(a.length, e.length, `${what}: ${a.length} numbers, expected ${e.length}`);
  const bad = a.flatMap((x, i) => (near(x, e[i]!, tolerance, scale) ? [] : [i]));
  if (bad.length > 0) {
    const shown = bad.slice(0, 6).map((i) => `[${i}] ${a[i]} vs ${e[i]}`);
    assert.fail(`${what} (tolerance ${tolerance}): ${shown.join(", ")}`);
  }
}

/** Rows as plain number arrays. */
const matrix = (rows: unknown): number[][] => (rows as ArrayLike<number>[]).map((r) => flat(r));
const transpose = (m: number[][]) => m[0]!.map((_, j) => m.map((r) => r[j]!));
const times = (m: number[][], v: number[]) => m.map((r) => r.reduce((s, x, j) => s + x * v[j]!, 0));

// ---------------------------------------------------------------------------------------------
// The program: one compile for all tests but the bug repros at the end.

/** Scalar functions with closed-form second and third derivatives. */
const SCALARS: Record<
  string,
  { src: string; d2: (x: number) => number; d3: (x: number) => number }
> = {
  poly: {
    src: "return x ** 5 - 3 * x ** 3 + 2 * x;",
    d2: (x) => 20 * x ** 3 - 18 * x,
    d3: (x) => 60 * x ** 2 - 18,
  },
  expSin: {
    src: "return Math.exp(2 * x) * Math.sin(x);",
    d2: (x) => Math.exp(2 * x) * (3 * Math.sin(x) + 4 * Math.cos(x)),
    d3: (x) => Math.exp(2 * x) * (2 * Math.sin(x) + 11 * Math.cos(x)),
  },
  logSq: {
    src: "return Math.log(1 + x * x);",
    d2: (x) => (2 - 2 * x * x) / (1 + x * x) ** 2,
    d3: (x) => (4 * x ** 3 - 12 * x) / (1 + x * x) ** 3,
  },
  tanhOf: {
    src: "const t = Math.tanh(x);\n  return t;",
    d2: (x) => -2 * Math.tanh(x) * (1 - Math.tanh(x) ** 2),
    d3: (x) => (1 - Math.tanh(x) ** 2) * (6 * Math.tanh(x) ** 2 - 2),
  },
};

/**
 * Math functions (and compositions, ** with constant exponents, branches) for second and third
 * derivatives at -0.55, 0.37 and 0.81. Those whose rules use `select` are in MATH_WITH_SELECT.
 */
const MATH: Record<string, string> = {
  sin: "Math.sin(t)",
  cos: "Math.cos(t)",
  tan: "Math.tan(t)",
  exp: "Math.exp(t)",
  log: "Math.log(t + 2)",
  log2: "Math.log2(t + 2)",
  log10: "Math.log10(t + 2)",
  log1p: "Math.log1p(t)",
  expm1: "Math.expm1(t)",
  sqrt: "Math.sqrt(t + 1)",
  cbrt: "Math.cbrt(t + 2)",
  sinh: "Math.sinh(t)",
  cosh: "Math.cosh(t)",
  tanh: "Math.tanh(t)",
  asin: "Math.asin(t)",
  acos: "Math.acos(t)",
  atan: "Math.atan(t)",
  asinh: "Math.asinh(t)",
  acosh: "Math.acosh(t + 2)",
  atanh: "Math.atanh(t)",
  atan2: "Math.atan2(t, 1 + t * t)",
  abs: "Math.abs(t - 1) * t",
  min: "Math.min(t * t, t + 2)",
  max: "Math.max(t * t * t, t - 2)",
  powConst: "Math.pow(t + 2, 3.5)",
  powInt: "Math.pow(t, 4)",
  starConst: "(t + 2) ** 2.5",
  square: "t ** 2",
  reciprocal: "1 / (t + 2)",
  quotient: "t / (1 + t * t)",
  composite: "Math.sin(Math.exp(t) * t) + Math.exp(-t * t) / (1 + t * t)",
  ternary: "t > 0.5 ? t * t * t : Math.sin(t) * t",
};

/** Rules that pick coefficients with `select`, which nested differentiation once dropped. */
const MATH_WITH_SELECT: Record<string, string> = {
  powVariable: "Math.pow(2, t)",
  starVariable: "2 ** t",
  starSelf: "(t + 1) ** (t + 1)",
  powBoth: "Math.pow(t * t + 1, t)",
  powNegative: "Math.pow(t + 2, -2)",
  starNegative: "(t + 2) ** -1.5",
  hypot: "Math.hypot(t, 2 * t + 1)",
};
const POINTS = [-0.55, 0.37, 0.81];

const scalarExports = Object.entries(SCALARS)
  .map(
    ([name, { src }]) => `export function ${name}(x: number): number {
  ${src}
}
export const d1_${name} = derivative(${name});
export const d2_${name} = derivative(derivative(${name}));
export const d3_${name} = derivative(derivative(derivative(${name})));
export const gd_${name} = gradient(derivative(${name}));
export const dg_${name} = derivative(gradient(${name}));
export const gdd_${name} = gradient(derivative(derivative(${name})));
export const h_${name} = hessian(${name});
export const vwdd_${name} = valueWithDerivative(derivative(${name}));
`,
  )
  .join("");

const mathExports = Object.entries({ ...MATH, ...MATH_WITH_SELECT })
  .map(
    ([name, expr]) => `export const f_${name} = (t: number): number => ${expr};
export const m1_${name} = derivative((t: number) => ${expr});
export const m2_${name} = derivative(derivative((t: number) => ${expr}));
export const m3_${name} = derivative(derivative(derivative((t: number) => ${expr})));
export const mgd_${name} = gradient(derivative((t: number) => ${expr}));
export const mh_${name} = hessian((t: number) => ${expr});
`,
  )
  .join("");

const INNER = `import { derivative, gradient, valueWithGradient, valueWithDerivative } from "nabla";

export function potential(r: number, eps: number): number {
  const s = 1 / r;
  return eps * (s ** 12 - 2 * s ** 6);
}

/** -dV/dr, by derivative inside. */
export function force(r: number, eps: number): number {
  return -derivative((t: number) => potential(t, eps))(r);
}

/** The length of a gradient taken inside. */
export function slopeNorm(a: number, b: number): number {
  const g = gradient((u: number, w: number) => Math.exp(0.3 * u) * Math.cos(w) + u * w * w)(a, b);
  return Math.sqrt(g[0] * g[0] + g[1] * g[1]);
}

export function valueTimesSlope(a: number, c: number): number {
  const vg = valueWithGradient((u: number) => Math.sin(u * c) * u)(a);
  const vd = valueWithDerivative((u: number) => Math.log(1 + u * u) * c)(a);
  return vg.value * vg.gradient + vd.value * vd.derivative;
}

/** A loop, a branch and a helper: for derivatives of derivatives across files. */
export function series(x: number): number {
  let s = 0;
  let term = 1;
  for (let k = 1; k < 12; k++) {
    term = (term * x) / k;
    if (k % 2 === 0) s += term * Math.cos(x * k);
    else s -= shift(term, x);
  }
  return s;
}
function shift(a: number, x: number): number {
  return a * Math.exp(-x * x) + a * a;
}
`;

const CLIP = `/** Adjoints and tangents the callback saw (the callback runs as plain JavaScript). */
export const seen: number[] = [];
export function record(d: number): number {
  seen.push(d);
  return d;
}
export function clipUnit(d: number): number {
  return Math.max(-1, Math.min(1, d));
}
`;

const SIM = `/** Moves the positions; a checkpointed helper from another file. */
export function drift(x: Float64Array, v: Float64Array, dt: number): void {
  for (let i = 0; i < x.length; i++) x[i] += dt * v[i] + 0.01 * Math.sin(x[i]);
}
`;

const MAIN = `import {
  derivative,
  valueWithDerivative,
  differential,
  valueWithDifferential,
  gradient,
  valueWithGradient,
  pullback,
  valueWithPullback,
  hessian,
  hessianVectorProduct,
  gradientAndHessianVectorProduct,
  jacobian,
  withDerivative,
  withoutDerivative,
  checkpoint,
  tapeStats,
  resetTapePeak,
} from "nabla";
import { force, slopeNorm, valueTimesSlope, series } from "./lib/inner.ts";
import { clipUnit, record } from "./lib/clip.ts";
import { drift } from "./lib/sim.ts";

export { series };
export { seen } from "./lib/clip.ts";

/** How high the tape's peak went while run ran. */
export function peakOf(run: () => unknown): number {
  resetTapePeak();
  const before = tapeStats().peak;
  run();
  return tapeStats().peak - before;
}

// ---- 1. derivatives of derivatives ----

${scalarExports}
export const d1_series = derivative(series);
export const d2_series = derivative(derivative(series));
export const d3_series = derivative(derivative(derivative(series)));
export const dg_series = derivative(gradient(series));
export const gd_series = gradient(derivative(series));
export const h_series = hessian(series);

${mathExports}

// ---- 2. perturbation confusion ----

export const classic = derivative((x: number) => x * derivative((y: number) => x + y)(1));
export const classicReverse = gradient((x: number) => x * derivative((y: number) => x + y)(1));
export const classicHessian = hessian((x: number) => x * derivative((y: number) => x * y)(1));
export const innerAtOuter = derivative((x: number) => derivative((y: number) => x * y)(x));
export const threeLevels = derivative(
  (x: number) => x * derivative((y: number) => x * y * derivative((z: number) => x + y + z)(1))(2),
);
export const threeLevelsProduct = derivative(
  (x: number) => x * derivative((y: number) => x * y * derivative((z: number) => x * y * z)(3))(2),
);
export const threeLevelsReverse = gradient(
  (x: number) => x * derivative((y: number) => x * y * derivative((z: number) => x * y * z)(3))(2),
);
export const innerGradient = gradient(
  (x: number) => x * gradient((y: number, z: number) => x * y * z + y)(2, 3)[0],
);
export const innerValueWithGradient = derivative((x: number) => {
  const r = valueWithGradient((y: number) => x * y * y)(x);
  return r.value * r.gradient;
});
function add(a: number, b: number): number {
  return a + b;
}
export const namedInner = derivative((x: number) => x * derivative((y: number) => add(x, y) * y)(1));
export const shadowed = derivative((x: number) => derivative((x: number) => x * x)(x) * x);

// ---- 3. operators inside differentiated code ----

export function work(rs: number[], eps: number): number {
  let w = 0;
  for (let i = 0; i < rs.length; i++) {
    w += force(rs[i], eps) * (i + 1);
    w += slopeNorm(rs[i], eps * rs[i]);
  }
  return w + valueTimesSlope(rs[0], eps);
}
export const gWork = gradient(work);
export const dWork = differential(work);

export function loopInner(x: number): number {
  let s = 0;
  for (let k = 1; k <= 4; k++) {
    s += derivative((t: number) => t * t * t * k * x + Math.sin(t * x))(x + k);
  }
  return s;
}
export const gLoopInner = gradient(loopInner);
export const dLoopInner = derivative(loopInner);
export const d2LoopInner = derivative(derivative(loopInner));

export function stateInner(w: number[]): number {
  const state = [0, 0];
  let s = 0;
  for (let i = 0; i < 3; i++) {
    state[0] += w[0] * (i + 1);
    s += derivative((t: number) => t * state[0] * state[0] + Math.sin(t * w[1]))(0.5);
    state[1] = s;
  }
  return s * state[1];
}
export const gStateInner = gradient(stateInner);
export const dStateInner = differential(stateInner);

export function polyValue(c: Float64Array, t: number): number {
  let s = 0;
  let p = 1;
  for (let i = 0; i < c.length; i++) {
    s += c[i] * p;
    p *= t;
  }
  return s;
}
export const gSlopeCoefficients = gradient((c: Float64Array) => derivative((t: number) => polyValue(c, t))(0.5));
export const hSlopeSquared = hessian((c: Float64Array) => {
  const d = derivative((t: number) => polyValue(c, t))(0.5);
  return d * d;
});
export const hOfInnerDerivative = hessian((x: number) => derivative(series)(x));
export const jOfInnerDerivative = jacobian((x: number[]): number[] => [derivative(series)(x[0]) * x[1], x[0] * x[1]]);

// ---- 4. hessian and hessianVectorProduct ----

export function rosen(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length - 1; i++) {
    const a = x[i + 1] - x[i] * x[i];
    const b = 1 - x[i];
    s += 100 * a * a + b * b;
  }
  return s;
}
export const hRosen = hessian(rosen);
export const hvpRosen = hessianVectorProduct(rosen);
export const gRosen = gradient(rosen);

export function mathy(x: number[]): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    s += Math.sin(x[i]) * Math.exp(x[(i + 1) % x.length]) + Math.log(1 + x[i] * x[i]);
  }
  return s + Math.sqrt(x[0] * x[0] + x[1] * x[1] + 1) * Math.tanh(x[2]) + Math.atan(x[1] * x[3]);
}
export const hMathy = hessian(mathy);
export const hvpMathy = hessianVectorProduct(mathy);
export const gMathy = gradient(mathy);

export const hScalar = hessian((x: number) => Math.sin(x) * x * x);
export const hvpScalar = hessianVectorProduct((x: number) => Math.sin(x) * x * x);

export function twoParams(a: number[], k: number): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += k * a[i] * a[i] * a[(i + 1) % a.length] + Math.cos(k * a[i]);
  return s;
}
export const hTwo0 = hessian(twoParams, { wrt: 0 });
export const hTwo1 = hessian(twoParams, { wrt: 1 });
export const hvpTwo0 = hessianVectorProduct(twoParams, { wrt: 0 });
export const hvpTwo1 = hessianVectorProduct(twoParams, { wrt: 1 });
export const gTwo0 = gradient(twoParams, { wrt: 0 });

export function capturingHessian(x: Float64Array, c: number): Float64Array[] {
  const w = c * 2;
  return hessian((y: Float64Array) => w * y[0] * y[0] * y[1] + Math.exp(c * y[1]))(x);
}
export function capturingHvp(x: Float64Array, c: number, v: Float64Array): Float64Array {
  const w = c * 2;
  return hessianVectorProduct((y: Float64Array) => w * y[0] * y[0] * y[1] + Math.exp(c * y[1]))(x, v);
}

/** A helper that writes nothing, its value compared (a running minimum) and used. */
function pairCost(x: Float64Array, i: number, j: number): number {
  const d = x[i] - x[j];
  return d * d * (1 + 0.5 * Math.sin(x[i]));
}
export function minPairs(x: Float64Array): number {
  let total = 0;
  for (let i = 0; i < x.length; i++) {
    let best = Infinity;
    for (let j = 0; j < x.length; j++) {
      if (j === i) continue;
      const c = pairCost(x, i, j);
      if (c < best) best = c;
    }
    total += best + Math.exp(0.1 * pairCost(x, i, (i + 1) % x.length));
  }
  return total;
}
export const ghvRosen = gradientAndHessianVectorProduct(rosen);
export const ghvMathy = gradientAndHessianVectorProduct(mathy);
export const ghvTwo0 = gradientAndHessianVectorProduct(twoParams, { wrt: 0 });
export const ghvTwo1 = gradientAndHessianVectorProduct(twoParams, { wrt: 1 });
export const ghvMinPairs = gradientAndHessianVectorProduct(minPairs);
export function capturingGhv(x: Float64Array, c: number, v: Float64Array): unknown {
  const w = c * 2;
  return gradientAndHessianVectorProduct((y: Float64Array) => w * y[0] * y[0] * y[1] + Math.exp(c * y[1]))(x, v);
}
export const hMinPairs = hessian(minPairs);
export const hvpMinPairs = hessianVectorProduct(minPairs);
export const gMinPairs = gradient(minPairs);

export function quartic32(a: Float32Array): number {
  return a[0] * a[0] * a[1] + a[1] * a[1] * a[1] * a[1];
}
export const hQuartic32 = hessian(quartic32);

// ---- 5. jacobian ----

export function wide(x: number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < 5; i++) out.push(Math.sin(x[0] * (i + 1)) + x[1] * x[1] * i);
  return out;
}
export const jWide = jacobian(wide);
export function narrow(x: Float64Array): Float64Array {
  const out = new Float64Array(2);
  for (let i = 0; i < x.length; i++) {
    out[0] += x[i] * x[i] * x[(i + 1) % x.length];
    out[1] += Math.exp(x[i] * 0.3) * (i + 1);
  }
  return out;
}
export const jNarrow = jacobian(narrow);
export function square(x: number[]): number[] {
  return [x[0] * x[1], x[1] * x[2], Math.sin(x[2] * x[0])];
}
export const jSquare = jacobian(square);
export function ofNumber(t: number): number[] {
  return [t * t, Math.sin(t), Math.exp(2 * t)];
}
export const jOfNumber = jacobian(ofNumber);
export function toNumber(x: number[]): number {
  return x[0] * x[1] * x[2] + Math.sin(x[3]);
}
export const jToNumber = jacobian(toNumber);
export const gToNumber = gradient(toNumber);
export const jNumberToNumber = jacobian((t: number) => t * Math.sin(t));
export function float32(x: Float32Array): Float32Array {
  const y = new Float32Array(3);
  y[0] = x[0] * x[1];
  y[1] = x[1] + x[0] * 2;
  y[2] = x[0] * x[0];
  return y;
}
export const jFloat32 = jacobian(float32);
export function withParam(k: number, x: number[]): number[] {
  return [k * x[0], k * k * x[1], x[0] * x[1] * k];
}
export const jWrt1 = jacobian(withParam, { wrt: 1 });
export const jWrt0 = jacobian(withParam, { wrt: 0 });
/** Writes its argument (prefix sums), then returns more outputs than inputs. */
export function prefixWide(a: number[]): number[] {
  for (let i = 1; i < a.length; i++) a[i] += a[i - 1];
  return [a[0] * a[1], a[1], a[0], a[1] * a[1], 1];
}
export const jPrefixWide = jacobian(prefixWide);

// ---- 6. derivatives of array- and object-valued functions ----

export function curve(t: number): number[] {
  return [Math.cos(t), Math.sin(t) * t, t * t * t];
}
export const dCurve = derivative(curve);
export const vdCurve = valueWithDerivative(curve);
export const diffCurve = differential(curve);
export const pbCurve = pullback(curve);
export const d2Curve = derivative(derivative(curve));

export function field(x: Float64Array, k: number): Float64Array {
  const y = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) y[i] = Math.sin(k * x[i]) + x[(i + 1) % x.length] * x[i];
  return y;
}
export const diffField = differential(field);
export const vdiffField = valueWithDifferential(field);
export const pbField = pullback(field);
export const vpbField = valueWithPullback(field);
export const pbFieldK = pullback(field, { wrt: 1 });
export const diffFieldK = differential(field, { wrt: 1 });

export function polar(p: [number, number]): [number, number] {
  return [Math.sqrt(p[0] * p[0] + p[1] * p[1]), Math.atan2(p[1], p[0])];
}
export const diffPolar = differential(polar);
export const vdiffPolar = valueWithDifferential(polar);
export const pbPolar = pullback(polar);

interface Inner {
  a: number;
  b: Float64Array;
}
interface State {
  pos: number[];
  energy: number;
  inner: Inner;
}
export function state(x: number, v: number[]): State {
  const pos = v.map((vi) => vi * x);
  let e = 0;
  for (const p of pos) e += p * p;
  const b = new Float64Array(2);
  b[0] = x * e;
  b[1] = Math.exp(x) * v[1];
  return { pos: pos, energy: 0.5 * e, inner: { a: x * v[0], b: b } };
}
export const diffState = differential(state);
export const vdiffState = valueWithDifferential(state);
export const pbState = pullback(state);
export const vpbState = valueWithPullback(state);
export const dStateAt = derivative((x: number): State => state(x, [1, 2]));

export function scaleInPlace(x: number[], k: number): number[] {
  for (let i = 0; i < x.length; i++) x[i] *= k;
  return x;
}
export const diffScale = differential(scaleInPlace);
export const pbScale = pullback(scaleInPlace);

// ---- 7. withDerivative and withoutDerivative ----

export function clipped(x: number): number {
  const y = withDerivative(x * x, clipUnit);
  return 10 * y;
}
export const gClipped = gradient(clipped);
export const dClipped = derivative(clipped);
export const pbClipped = pullback(clipped);

const GAIN = 2;
export function scaled(x: number): number {
  return Math.sin(withDerivative(3 * x, (d: number) => GAIN * d));
}
export const dScaled = derivative(scaled);
export const gScaled = gradient(scaled);

export function observed(xs: number[]): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += (i + 1) * withDerivative(xs[i] * xs[i], record);
  return s;
}
export const gObserved = gradient(observed);
export const pbObserved = pullback(observed);
export const dObserved = differential(observed);

export function clipEach(xs: Float64Array): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    const c = withDerivative(xs[i], (d: number) => Math.max(-0.5, Math.min(0.5, d)));
    s += c * c * c;
  }
  return s;
}
export const gClipEach = gradient(clipEach);
export const diffClipEach = differential(clipEach);

export function frozenArray(xs: number[], w: number[]): number {
  const c = withoutDerivative(w);
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i] * c[i] * w[i];
  return s;
}
export const gFrozenArray = gradient(frozenArray);
export const diffFrozenArray = differential(frozenArray);

interface Params {
  a: number;
  b: Float64Array;
}
export function frozenObject(p: Params, x: number): number {
  const q = withoutDerivative(p);
  return q.a * p.a * x + q.b[0] * x * x + p.b[1] * q.b[1];
}
export const gFrozenObject = gradient(frozenObject);
export const diffFrozenObject = differential(frozenObject);

// ---- 8. checkpointing ----

function force1(x: Float64Array, i: number, k: number): number {
  let f = -k * x[i];
  for (let j = 0; j < x.length; j++) {
    if (j === i) continue;
    const d = x[j] - x[i];
    f += (0.1 * d) / (1 + d * d);
  }
  return f;
}

function segment(x: Float64Array, v: Float64Array, k: number, steps: number): void {
  const dt = 0.01;
  for (let s = 0; s < steps; s++) {
    for (let i = 0; i < x.length; i++) v[i] += dt * force1(x, i, k);
    for (let i = 0; i < x.length; i++) x[i] += dt * v[i];
  }
}

/** @checkpoint */
function segmentTagged(x: Float64Array, v: Float64Array, k: number, steps: number): void {
  segment(x, v, k, steps);
}

function energy(x: Float64Array, v: Float64Array): number {
  let e = 0;
  for (let i = 0; i < x.length; i++) e += x[i] * x[i] * (i + 1) + v[i] * v[i];
  return e;
}

export function simPlain(x: Float64Array, v: Float64Array, k: number): number {
  for (let c = 0; c < 10; c++) segment(x, v, k, 20);
  return energy(x, v);
}
export function simCheckpoint(x: Float64Array, v: Float64Array, k: number): number {
  for (let c = 0; c < 10; c++) checkpoint(segment)(x, v, k, 20);
  return energy(x, v);
}
export function simTagged(x: Float64Array, v: Float64Array, k: number): number {
  for (let c = 0; c < 10; c++) segmentTagged(x, v, k, 20);
  return energy(x, v);
}
export const gSimPlain = gradient(simPlain);
export const gSimCheckpoint = gradient(simCheckpoint);
export const gSimTagged = gradient(simTagged);
export const gSimCheckpointK = gradient(simCheckpoint, { wrt: 2 });
export const vgSimCheckpoint = valueWithGradient(simCheckpoint);
export const pbSimPlain = pullback(simPlain);
export const dSimCheckpoint = differential(simCheckpoint);

function bump(x: Float64Array, k: number): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    x[i] = Math.sin(x[i] * k) + x[i];
    s += x[i] * x[i];
  }
  return s;
}
export function bumpsCheckpoint(x: Float64Array, k: number): number {
  let t = 0;
  for (let c = 0; c < 5; c++) t += checkpoint(bump)(x, k) * (c + 1);
  return t;
}
export function bumpsPlain(x: Float64Array, k: number): number {
  let t = 0;
  for (let c = 0; c < 5; c++) t += bump(x, k) * (c + 1);
  return t;
}
export const gBumpsCheckpoint = gradient(bumpsCheckpoint);
export const gBumpsPlain = gradient(bumpsPlain);

function cube(x: number): number {
  return x * x * x;
}
export function cubes(x: number): number {
  let s = 0;
  for (let i = 0; i < 4; i++) s += checkpoint(cube)(x + i) * Math.sin(x * i);
  return s;
}
export const gCubes = gradient(cubes);
export const hCubes = hessian(cubes);

function kick(x: Float64Array, v: Float64Array, k: number): void {
  for (let i = 0; i < x.length; i++) v[i] -= 0.05 * k * x[i] * x[i] * x[i];
}
function leap(x: Float64Array, v: Float64Array, k: number): void {
  for (let s = 0; s < 5; s++) {
    checkpoint(kick)(x, v, k);
    checkpoint(drift)(x, v, 0.05);
  }
}
function leapPlain(x: Float64Array, v: Float64Array, k: number): void {
  for (let s = 0; s < 5; s++) {
    kick(x, v, k);
    drift(x, v, 0.05);
  }
}
export function leapsNested(x: Float64Array, v: Float64Array, k: number): number {
  for (let c = 0; c < 6; c++) checkpoint(leap)(x, v, k);
  return x[0] * x[1] + v[2] * v[2];
}
export function leapsPlain(x: Float64Array, v: Float64Array, k: number): number {
  for (let c = 0; c < 6; c++) leapPlain(x, v, k);
  return x[0] * x[1] + v[2] * v[2];
}
export const gLeapsNested = gradient(leapsNested);
export const gLeapsPlain = gradient(leapsPlain);

interface Body {
  x: Float64Array;
  v: Float64Array;
  t: number;
}
function stepBody(s: Body, k: number): void {
  for (let r = 0; r < 10; r++) {
    for (let i = 0; i < s.x.length; i++) s.v[i] -= 0.05 * k * Math.sin(s.x[i]) * s.t;
    for (let i = 0; i < s.x.length; i++) s.x[i] += 0.05 * s.v[i];
    s.t = s.t * 0.99 + 0.01 * s.x[0];
  }
}
export function bodyCheckpoint(s: Body, k: number): number {
  for (let c = 0; c < 8; c++) checkpoint(stepBody)(s, k);
  return s.x[0] * s.v[1] + s.t;
}
export function bodyPlain(s: Body, k: number): number {
  for (let c = 0; c < 8; c++) stepBody(s, k);
  return s.x[0] * s.v[1] + s.t;
}
export const gBodyCheckpoint = gradient(bodyCheckpoint);
export const gBodyPlain = gradient(bodyPlain);
export const dBodyCheckpoint = differential(bodyCheckpoint);
`;

const FILES = {
  "main.ts": MAIN,
  "lib/inner.ts": INNER,
  "lib/clip.ts": CLIP,
  "lib/sim.ts": SIM,
};

let cached: Promise<Record<string, unknown>> | undefined;
const program = () => (cached ??= loadProgram(FILES));

/** An export of the program, which must be a function. */
async function get(name: string): Promise<Fn> {
  const f = (await program())[name];
  assert.equal(typeof f, "function", `the program exports a function '${name}'`);
  return f as Fn;
}
/** An export of the program that returns a function (a differential or a pullback maker). */
async function curried(name: string): Promise<(...args: unknown[]) => Fn> {
  return (await get(name)) as (...args: unknown[]) => Fn;
}

/** An export of the program as a function of one number. */
async function scalar(name: string): Promise<(x: number) => number> {
  const f = await get(name);
  return (x) => {
    const y = f(x);
    assert.equal(typeof y, "number", `${name} returns a number`);
    return y as number;
  };
}

// ---------------------------------------------------------------------------------------------
// 1. Derivatives of derivatives

describe("second and third derivatives of scalar functions", () => {
  for (const [name, { d2, d3 }] of Object.entries(SCALARS)) {
    test(`${name}: every composition against the closed forms`, async () => {
      const f = await scalar(name);
      for (const x of [-1.3, -0.4, 0.2, 0.9, 1.7]) {
        const second = d2(x);
        assertNear((await scalar(`d2_${name}`))(x), second, 1e-12, `derivative²(${name})(${x})`);
        assertNear((await scalar(`gd_${name}`))(x), second, 1e-12, `gradient(derivative)`);
        assertNear((await scalar(`dg_${name}`))(x), second, 1e-12, `derivative(gradient)`);
        assertNear((await scalar(`h_${name}`))(x), second, 1e-12, `hessian(${name})(${x})`);
        assertNear((await scalar(`d3_${name}`))(x), d3(x), 1e-12, `derivative³(${name})(${x})`);
        assertNear((await scalar(`gdd_${name}`))(x), d3(x), 1e-12, `gradient(derivative²)`);
        // And the references themselves against second differences of the primal.
        assertNear(secondDifference(f, x), second, 1e-5, `second difference of ${name}`);
        const both = (await get(`vwdd_${name}`))(x) as { value: number; derivative: number };
        assertNear(both.value, (await scalar(`d1_${name}`))(x), 1e-15, "valueWithDerivative.value");
        assertNear(both.derivative, second, 1e-12, "valueWithDerivative.derivative");
      }
    });
  }

  test("a function of another file with a loop, a branch and a helper", async () => {
    const f = await scalar("series");
    const d2 = await scalar("d2_series");
    const d3 = await scalar("d3_series");
    for (const x of [-0.8, 0.3, 1.1]) {
      const second = d2(x);
      assertNear(second, secondDifference(f, x), 1e-5, `series''(${x}) by differences`);
      assertNear((await scalar("gd_series"))(x), second, 1e-12, "gradient(derivative(series))");
      assertNear((await scalar("dg_series"))(x), second, 1e-12, "derivative(gradient(series))");
      assertNear((await scalar("h_series"))(x), second, 1e-12, "hessian(series)");
      assertNear(d3(x), difference(d2, x), 1e-6, `series'''(${x}) by differences of series''`);
    }
  });
});

describe("second and third derivatives of Math functions", () => {
  for (const [name, expr] of Object.entries({ ...MATH, ...MATH_WITH_SELECT })) {
    test(`${name}: ${expr}`, async () => {
      const f = await scalar(`f_${name}`);
      const d1 = await scalar(`m1_${name}`);
      const d2 = await scalar(`m2_${name}`);
      const d3 = await scalar(`m3_${name}`);
      for (const t of POINTS) {
        const second = d2(t);
        assertNear(second, secondDifference(f, t), 1e-5, `(${expr})'' at ${t}, second differences`);
        assertNear(second, difference(d1, t), 1e-7, `(${expr})'' at ${t}, differences of f'`);
        assertNear(d3(t), difference(d2, t), 1e-6, `(${expr})''' at ${t}, differences of f''`);
        assertNear((await scalar(`mgd_${name}`))(t), second, 1e-12, "gradient(derivative)");
        assertNear((await scalar(`mh_${name}`))(t), second, 1e-12, "hessian");
      }
    });
  }
});

// ---------------------------------------------------------------------------------------------
// 2. Perturbation confusion

describe("perturbation confusion", () => {
  test("d/dx [x · d/dy (x + y)](1) is 1, in forward and reverse mode", async () => {
    assert.equal((await scalar("classic"))(1), 1);
    assert.equal((await scalar("classic"))(-2.5), 1);
    assert.equal((await scalar("classicReverse"))(1), 1);
  });

  test("d/dx [d/dy (x · y)](x) is 1 (a confused implementation gives 2)", async () => {
    assert.equal((await scalar("innerAtOuter"))(0.7), 1);
  });

  test("hessian of x · d/dy (x · y) is 2", async () => {
    assertNear((await scalar("classicHessian"))(0.3), 2, 1e-14, "hessian");
  });

  test("three levels of lambdas capturing every level above", async () => {
    // d/dz (x + y + z) = 1, so the middle is d/dy (x·y) = x and the whole is d/dx x² = 2x.
    for (const x of [1, -0.6, 2.2]) {
      assertNear((await scalar("threeLevels"))(x), 2 * x, 1e-14, `threeLevels(${x})`);
    }
    // d/dz (x·y·z) = x·y, d/dy (x·y·x·y) at 2 = 4x², whole: d/dx 4x³ = 12x².
    for (const x of [1, 1.5, -0.4]) {
      assertNear((await scalar("threeLevelsProduct"))(x), 12 * x * x, 1e-13, `forward (${x})`);
      assertNear((await scalar("threeLevelsReverse"))(x), 12 * x * x, 1e-13, `reverse (${x})`);
    }
  });

  test("gradient and valueWithGradient inside, of lambdas capturing x", async () => {
    // x · ∂/∂y (x·y·z + y) at (2, 3) = x(3x + 1): derivative 6x + 1.
    assertNear((await scalar("innerGradient"))(1.5), 10, 1e-14, "innerGradient");
    // value x·x², gradient 2x·x: x³ · 2x² = 2x⁵, derivative 10x⁴.
    assertNear((await scalar("innerValueWithGradient"))(0.8), 10 * 0.8 ** 4, 1e-13, "vwg");
  });

  test("a named helper called at both levels, and a lambda parameter shadowing x", async () => {
    // d/dy ((x + y)·y) at 1 = x + 2, times x: derivative 2x + 2.
    assertNear((await scalar("namedInner"))(0.3), 2.6, 1e-14, "namedInner");
    // The inner x is the lambda's own: d/dx [2x · x] = 4x.
    assertNear((await scalar("shadowed"))(0.7), 2.8, 1e-14, "shadowed");
  });
});

// ---------------------------------------------------------------------------------------------
// 3. Operators inside differentiated code

describe("gradient of functions that take derivatives inside", () => {
  test("force and slopes from another file, in a loop: finite differences and forward = reverse", async () => {
    const work = await get("work");
    const grad = await get("gWork");
    const diff = await curried("dWork");
    for (let trial = 0; trial < 4; trial++) {
      const rs = randoms(3, 0.9, 1.4);
      const eps = 0.5 + random();
      const g = grad(rs, eps);
      const v = [randoms(3), random() - 0.5];
      const jv = diff(rs, eps)(...v) as number;
      assertNear(jv, directional(work, [rs, eps], v)[0], 1e-6, "differential vs differences");
      assertNear(jv, dot(v, g), 1e-10, "forward = reverse: J·v = <v, ∇f>");
    }
  });

  test("derivative inside a loop, lambda capturing x and the loop counter", async () => {
    const f = await scalar("loopInner");
    for (const x of [0.2, 0.6, 1.1]) {
      const expected = difference(f, x, 1e-6);
      assertNear((await scalar("gLoopInner"))(x), expected, 1e-7, `gradient(loopInner)(${x})`);
      assertNear((await scalar("dLoopInner"))(x), expected, 1e-7, `derivative(loopInner)(${x})`);
      assertNear(
        (await scalar("d2LoopInner"))(x),
        difference(await scalar("dLoopInner"), x),
        1e-6,
        `derivative²(loopInner)(${x})`,
      );
    }
  });

  test("a lambda capturing an array the loop writes", async () => {
    const f = await get("stateInner");
    for (let trial = 0; trial < 4; trial++) {
      const w = randoms(2);
      const v = randoms(2);
      const g = (await get("gStateInner"))([...w]);
      const jv = (await curried("dStateInner"))([...w])(v) as number;
      assertNear(jv, directional(f, [w], [v])[0], 1e-6, "differential vs differences");
      assertNear(jv, dot(v, g), 1e-10, "forward = reverse");
    }
  });

  test("gradient and hessian with respect to the coefficients a derivative inside reads", async () => {
    const c = f64([1, 2, 3, 4]);
    // d/dt Σ cᵢ tⁱ at 0.5: ∂/∂cᵢ = i · 0.5^(i-1).
    assertNear((await get("gSlopeCoefficients"))(c), [0, 1, 1, 0.75], 1e-15, "gradient");
    const d = [0, 1, 1, 0.75];
    const H = matrix((await get("hSlopeSquared"))(c));
    assertNear(
      H,
      d.map((a) => d.map((b) => 2 * a * b)),
      1e-14,
      "hessian of (p'(0.5))² = 2 ∇ ∇ᵀ",
    );
  });

  test("hessian and jacobian of functions that call derivative", async () => {
    const d3 = await scalar("d3_series");
    for (const x of [-0.5, 0.4]) {
      assertNear((await scalar("hOfInnerDerivative"))(x), d3(x), 1e-12, "hessian(series')");
      // [series'(x₀)·x₁, x₀·x₁] at x₁ = 2.
      const J = matrix((await get("jOfInnerDerivative"))([x, 2]));
      const d1 = (await scalar("d1_series"))(x);
      const d2 = (await scalar("d2_series"))(x);
      assertNear(
        J,
        [
          [2 * d2, d1],
          [2, x],
        ],
        1e-12,
        "jacobian(series' · x₁, x₀ · x₁)",
      );
    }
  });
});

// ---------------------------------------------------------------------------------------------
// 4. hessian and hessianVectorProduct

/** The closed-form Hessian of the Rosenbrock function. */
function rosenHessian(x: number[]): number[][] {
  const n = x.length;
  const H = x.map(() => new Array<number>(n).fill(0));
  for (let i = 0; i < n - 1; i++) {
    H[i]![i]! += 1200 * x[i]! * x[i]! - 400 * x[i + 1]! + 2;
    H[i + 1]![i + 1]! += 200;
    H[i]![i + 1] = -400 * x[i]!;
    H[i + 1]![i] = -400 * x[i]!;
  }
  return H;
}

/** Checks a Hessian against second differences, symmetry and Hessian-vector products. */
async function checkHessian(options: {
  f: (x: number[]) => number;
  hessian: (x: number[]) => unknown;
  hvp: (x: number[], v: number[]) => unknown;
  gradient: (x: number[]) => unknown;
  x: number[];
}): Promise<void> {
  const { f, x } = options;
  const H = matrix(options.hessian(x));
  assert.equal(H.length, x.length, "one row per coordinate");
  // Second differences err by about 1e-8 of the largest entry here.
  const scale = Math.max(1, ...H.flat().map(Math.abs));
  assertNear(H, finiteHessian(f, x), 1e-6, "second differences of f", scale);
  assertNear(H, transpose(H), 1e-12, "H = Hᵀ");
  const g = (y: number[]) => flat(options.gradient(y));
  assertNear(
    H,
    finiteJacobian((y) => g(y as number[]), [x], 0),
    1e-7,
    "differences of ∇f",
    scale,
  );
  for (let trial = 0; trial < 3; trial++) {
    const v = randoms(x.length);
    const hv = flat(options.hvp(x, v));
    assertNear(hv, times(H, v), 1e-11, "hessianVectorProduct = H·v");
    assertNear(
      hv,
      directional((y) => g(y as number[]), [x], [v]),
      1e-6,
      "HVP vs ∇f differences",
    );
  }
}

describe("hessian and hessianVectorProduct", () => {
  test("a helper's value both compared and used, inside a loop (nested calls split)", async () => {
    const f = await get("minPairs");
    const hessian = await get("hMinPairs");
    const hvp = await get("hvpMinPairs");
    const gradient = await get("gMinPairs");
    for (let trial = 0; trial < 3; trial++) {
      await checkHessian({
        f: (y) => f(f64(y)) as number,
        hessian: (y) => hessian(f64(y)),
        hvp: (y, v) => hvp(f64(y), f64(v)),
        gradient: (y) => gradient(f64(y)),
        x: randoms(5, -2, 2),
      });
    }
  });

  for (const n of [4, 10]) {
    test(`Rosenbrock over Float64Array, n = ${n}`, async () => {
      const rosen = await get("rosen");
      const hessian = await get("hRosen");
      const hvp = await get("hvpRosen");
      const gradient = await get("gRosen");
      for (let trial = 0; trial < 2; trial++) {
        const x = randoms(n, -1.2, 1.2);
        const H = hessian(f64(x)) as unknown[];
        assert.ok(
          H.every((r) => r instanceof Float64Array),
          "rows are Float64Arrays",
        );
        assertNear(matrix(H), rosenHessian(x), 1e-13, "closed form");
        await checkHessian({
          f: (y) => rosen(f64(y)) as number,
          hessian: (y) => hessian(f64(y)),
          hvp: (y, v) => {
            const r = hvp(f64(y), f64(v));
            assert.ok(r instanceof Float64Array, "the HVP is a Float64Array");
            return r;
          },
          gradient: (y) => gradient(f64(y)),
          x,
        });
      }
    });
  }

  test("a number[] function of many Math functions", async () => {
    const [f, hessian, hvp, gradient] = await Promise.all(
      ["mathy", "hMathy", "hvpMathy", "gMathy"].map(get),
    );
    for (let trial = 0; trial < 3; trial++) {
      const x = randoms(5);
      const H = hessian!([...x]) as unknown[];
      assert.ok(H.every(Array.isArray), "rows are number[]");
      await checkHessian({
        f: (y) => f!(y) as number,
        hessian: (y) => hessian!(y),
        hvp: (y, v) => hvp!(y, v),
        gradient: (y) => gradient!(y),
        x,
      });
    }
  });

  test("a scalar function: a number, and the HVP is H·v", async () => {
    for (const x of [-0.7, 0.4, 2.1]) {
      const expected = (2 - x * x) * Math.sin(x) + 4 * x * Math.cos(x);
      assertNear((await scalar("hScalar"))(x), expected, 1e-13, `hessian at ${x}`);
      assertNear((await get("hvpScalar"))(x, 3) as number, 3 * expected, 1e-13, "HVP");
    }
  });

  test("a function of two parameters, with wrt", async () => {
    const [f, h0, h1, hvp0, hvp1, g0] = await Promise.all(
      ["twoParams", "hTwo0", "hTwo1", "hvpTwo0", "hvpTwo1", "gTwo0"].map(get),
    );
    for (let trial = 0; trial < 3; trial++) {
      const a = randoms(4);
      const k = 0.5 + random();
      await checkHessian({
        f: (y) => f!(y, k) as number,
        hessian: (y) => h0!(y, k),
        hvp: (y, v) => hvp0!(y, k, v),
        gradient: (y) => g0!(y, k),
        x: a,
      });
      const second = secondDifference((t) => f!(a, t) as number, k);
      assertNear(h1!(a, k) as number, second, 1e-5, "∂²f/∂k² by differences");
      const exact = -a.reduce((s, ai) => s + ai * ai * Math.cos(k * ai), 0);
      assertNear(h1!(a, k) as number, exact, 1e-13, "∂²f/∂k² closed form");
      assertNear(hvp1!(a, k, 2.5) as number, 2.5 * exact, 1e-13, "HVP with respect to k");
    }
  });

  test("gradientAndHessianVectorProduct: the gradient and the HVP, as the two operators give them", async () => {
    const cases: [string, string, string, (x: number[]) => unknown[]][] = [
      ["ghvRosen", "gRosen", "hvpRosen", (x) => [f64(x)]],
      ["ghvMathy", "gMathy", "hvpMathy", (x) => [x]],
      ["ghvMinPairs", "gMinPairs", "hvpMinPairs", (x) => [f64(x)]],
    ];
    for (const [both, grad, hv, args] of cases) {
      const [fb, fg, fh] = [await get(both), await get(grad), await get(hv)];
      for (let trial = 0; trial < 3; trial++) {
        const x = randoms(5, -1.5, 1.5);
        const v = randoms(5);
        const vArg = args(v)[0];
        const r = fb(...args(x), vArg) as { gradient: unknown; hessianVectorProduct: unknown };
        assert.deepEqual(Object.keys(r).sort(), ["gradient", "hessianVectorProduct"]);
        assert.equal(r.gradient?.constructor, (fg(...args(x)) as object).constructor, both);
        assertNear(flat(r.gradient), flat(fg(...args(x))), 1e-12, `${both}: gradient`);
        const hvp = flat(fh(...args(x), vArg));
        assertNear(flat(r.hessianVectorProduct), hvp, 1e-12, `${both}: H·v`);
        // And the HVP against differences of the gradient.
        assertNear(
          flat(r.hessianVectorProduct),
          directional((y) => flat(fg(...args(y as number[]))), [x], [v]),
          1e-6,
          `${both}: H·v vs ∇f differences`,
        );
      }
    }
    // A number x next to an array, and x an array next to a number.
    const [ghv0, ghv1, g0, hvp0, hvp1] = await Promise.all(
      ["ghvTwo0", "ghvTwo1", "gTwo0", "hvpTwo0", "hvpTwo1"].map(get),
    );
    const a = randoms(4);
    const k = 0.8;
    const v = randoms(4);
    const r0 = ghv0!(a, k, v) as { gradient: number[]; hessianVectorProduct: number[] };
    assertNear(r0.gradient, flat(g0!(a, k)), 1e-13, "wrt 0: gradient");
    assertNear(r0.hessianVectorProduct, flat(hvp0!(a, k, v)), 1e-13, "wrt 0: H·v");
    const r1 = ghv1!(a, k, 2.5) as { gradient: number; hessianVectorProduct: number };
    const dk = (ghv1!(a, k + 1e-6, 1) as { gradient: number }).gradient;
    const dk_ = (ghv1!(a, k - 1e-6, 1) as { gradient: number }).gradient;
    assertNear(r1.hessianVectorProduct, hvp1!(a, k, 2.5) as number, 1e-13, "wrt 1: H·v");
    assertNear(r1.hessianVectorProduct, (2.5 * (dk - dk_)) / 2e-6, 1e-6, "wrt 1: differences");
    // A lambda capturing locals.
    const capturing = await get("capturingGhv");
    const [y0, y1, c] = [0.5, 0.2, 0.7];
    const w = [0.3, -1.1];
    const rc = capturing(f64([y0, y1]), c, f64(w)) as {
      gradient: Float64Array;
      hessianVectorProduct: Float64Array;
    };
    assertNear(rc.gradient, [4 * c * y0 * y1, 2 * c * y0 * y0 + c * Math.exp(c * y1)], 1e-14, "∇f");
    const H = [
      [4 * c * y1, 4 * c * y0],
      [4 * c * y0, c * c * Math.exp(c * y1)],
    ];
    assertNear(rc.hessianVectorProduct, times(H, w), 1e-14, "H·v");
  });

  test("a lambda capturing locals of the function calling hessian", async () => {
    const hessian = await get("capturingHessian");
    const hvp = await get("capturingHvp");
    const [y0, y1, c] = [0.5, 0.2, 0.7];
    const H = matrix(hessian(f64([y0, y1]), c));
    const expected = [
      [4 * c * y1, 4 * c * y0],
      [4 * c * y0, c * c * Math.exp(c * y1)],
    ];
    assertNear(H, expected, 1e-14, "closed form");
    const v = [0.3, -1.1];
    assertNear(hvp(f64([y0, y1]), c, f64(v)), times(expected, v), 1e-14, "HVP");
  });

  test("Float32Array: rows are Float32Arrays", async () => {
    const H = (await get("hQuartic32"))(new Float32Array([0.5, 0.25])) as unknown[];
    assert.ok(H.every((r) => r instanceof Float32Array));
    assertNear(
      matrix(H),
      [
        [0.5, 1],
        [1, 0.75],
      ],
      1e-7,
      "closed form",
    );
  });
});

// ---------------------------------------------------------------------------------------------
// 5. jacobian

describe("jacobian", () => {
  test("n < m (the forward path): 2 inputs, 5 outputs", async () => {
    const x = randoms(2);
    const J = matrix((await get("jWide"))([...x]));
    assert.equal(J.length, 5);
    assertNear(J, finiteJacobian(await get("wide"), [x], 0), 1e-7, "differences");
  });

  test("n > m (the reverse path): Float64Array of 5, 2 outputs", async () => {
    const x = randoms(5);
    const rows = (await get("jNarrow"))(f64(x)) as unknown[];
    assert.equal(rows.length, 2);
    assert.ok(
      rows.every((r) => r instanceof Float64Array),
      "rows shaped like x",
    );
    const expected = finiteJacobian(await get("narrow"), [f64(x)], 0, f64);
    assertNear(matrix(rows), expected, 1e-7, "differences");
  });

  test("n = m", async () => {
    const x = randoms(3);
    const J = matrix((await get("jSquare"))([...x]));
    assertNear(J, finiteJacobian(await get("square"), [x], 0), 1e-7, "differences");
  });

  test("a number input, an array output: rows are numbers", async () => {
    const t = 0.45;
    const J = (await get("jOfNumber"))(t) as unknown[];
    assert.ok(J.every((r) => typeof r === "number"));
    assertNear(J, [2 * t, Math.cos(t), 2 * Math.exp(2 * t)], 1e-15, "closed form");
  });

  test("an array input, a number output: the gradient", async () => {
    const x = randoms(4);
    const J = (await get("jToNumber"))([...x]);
    assertNear(J, (await get("gToNumber"))([...x]), 0, "equals the gradient");
    assert.ok(Array.isArray(J), "a number[] (the gradient), not rows");
    assertNear(J, finiteJacobian(await get("toNumber"), [x], 0)[0], 1e-7, "differences");
    assertNear(
      (await get("jNumberToNumber"))(0.8) as number,
      Math.sin(0.8) + 0.8 * Math.cos(0.8),
      1e-15,
      "number to number",
    );
  });

  test("Float32Array in and out", async () => {
    const rows = (await get("jFloat32"))(new Float32Array([2, 3])) as unknown[];
    assert.ok(rows.every((r) => r instanceof Float32Array));
    assertNear(
      matrix(rows),
      [
        [3, 2],
        [2, 1],
        [4, 0],
      ],
      0,
      "closed form",
    );
  });

  test("a function writing its argument (forward path): the Jacobian at x, x written once", async () => {
    const [x0, x1] = [0.3, 0.2];
    const x = [x0, x1];
    const J = matrix((await get("jPrefixWide"))(x));
    const s = x0 + x1;
    // Outputs [x₀·s, s, x₀, s², 1] with s = x₀ + x₁.
    assertNear(
      J,
      [
        [s + x0, x0],
        [1, 1],
        [1, 0],
        [2 * s, 2 * s],
        [0, 0],
      ],
      1e-15,
      "closed form",
    );
    assertNear(x, [x0, s], 0, "the argument holds the prefix sums once");
  });

  test("wrt: an array parameter and a number parameter", async () => {
    const [k, x0, x1] = [1.5, 0.3, -0.8];
    assertNear(
      matrix((await get("jWrt1"))(k, [x0, x1])),
      [
        [k, 0],
        [0, k * k],
        [x1 * k, x0 * k],
      ],
      1e-15,
      "with respect to x",
    );
    assertNear((await get("jWrt0"))(k, [x0, x1]), [x0, 2 * k * x1, x0 * x1], 1e-15, "to k");
  });
});

// ---------------------------------------------------------------------------------------------
// 6. Array- and object-valued functions

describe("derivatives of array- and object-valued functions", () => {
  test("number → number[]: derivative, valueWithDerivative, differential, pullback, second derivative", async () => {
    for (const t of [-0.3, 0.5, 1.4]) {
      const d = [-Math.sin(t), Math.cos(t) * t + Math.sin(t), 3 * t * t];
      const value = (await get("curve"))(t);
      const dc = (await get("dCurve"))(t);
      assert.ok(Array.isArray(dc), "a number[]");
      assertNear(dc, d, 1e-15, "derivative");
      const vd = (await get("vdCurve"))(t) as { value: unknown; derivative: unknown };
      assertNear(vd.value, value, 0, "value");
      assertNear(vd.derivative, d, 1e-15, "valueWithDerivative");
      assertNear(
        (await curried("diffCurve"))(t)(2) as unknown,
        d.map((x) => 2 * x),
        1e-15,
        "diff",
      );
      const w = randoms(3);
      assertNear((await curried("pbCurve"))(t)(w) as number, dot(d, w), 1e-14, "pullback");
      const d2 = [-Math.cos(t), 2 * Math.cos(t) - t * Math.sin(t), 6 * t];
      assertNear((await get("d2Curve"))(t), d2, 1e-14, "second derivative");
    }
  });

  test("Float64Array → Float64Array: dot-product identity, differences, pullback twice", async () => {
    const field = await get("field");
    for (let trial = 0; trial < 4; trial++) {
      const x = f64(randoms(4));
      const k = random() + 0.5;
      const v = [f64(randoms(4)), random()];
      const w = f64(randoms(4));
      const jv = (await curried("diffField"))(x, k)(...v);
      assert.ok(jv instanceof Float64Array, "the tangent is a Float64Array");
      assertNear(jv, directional(field, [x, k], v), 1e-7, "differential vs differences");
      const vd = (await get("vdiffField"))(x, k) as { value: unknown; differential: Fn };
      assertNear(vd.value, field(x, k), 0, "valueWithDifferential.value");
      assertNear(vd.differential(...v), jv, 0, "valueWithDifferential.differential");
      const back = (await get("pbField"))(x, k) as Fn;
      const first = back(w) as unknown[];
      assert.ok(first[0] instanceof Float64Array && typeof first[1] === "number");
      assertNear(dot(jv, w), dot(v, first), 1e-12, "<J·v, w> = <v, Jᵀ·w>");
      const saved = copy(first);
      const second = back(w);
      assertNear(second, saved, 0, "pullback called twice");
      assertNear(first, saved, 0, "the first adjoints are left alone");
      const vp = (await get("vpbField"))(x, k) as { value: unknown; pullback: Fn };
      assertNear(vp.value, field(x, k), 0, "valueWithPullback.value");
      assertNear(vp.pullback(w), saved, 0, "valueWithPullback.pullback");
      assertNear((await curried("pbFieldK"))(x, k)(w) as number, first[1], 1e-15, "wrt: 1");
      assertNear(
        (await curried("diffFieldK"))(x, k)(v[1]),
        directional(field, [x, k], [undefined, v[1]]),
        1e-7,
        "wrt k",
      );
    }
  });

  test("tuples", async () => {
    const polar = await get("polar");
    for (let trial = 0; trial < 4; trial++) {
      const p = randoms(2, 0.2, 2);
      const v = randoms(2);
      const w = randoms(2);
      const jv = (await curried("diffPolar"))([...p])(v) as unknown;
      assertNear(jv, directional(polar, [p], [v]), 1e-7, "differential vs differences");
      const vd = (await get("vdiffPolar"))([...p]) as { value: unknown; differential: Fn };
      assertNear(vd.value, polar(p), 0, "value");
      assertNear(vd.differential(v), jv, 0, "valueWithDifferential");
      const adj = (await curried("pbPolar"))([...p])(w);
      assertNear(dot(jv, w), dot(v, adj), 1e-12, "<J·v, w> = <v, Jᵀ·w>");
    }
  });

  test("nested objects with arrays and typed arrays", async () => {
    const state = await get("state");
    for (let trial = 0; trial < 4; trial++) {
      const x = random() - 0.5;
      const vel = randoms(3);
      const tx = random() - 0.5;
      const tv = randoms(3);
      const jv = (await curried("diffState"))(x, [...vel])(tx, tv) as Record<string, unknown>;
      assert.deepEqual(Object.keys(jv).sort(), ["energy", "inner", "pos"]);
      assert.ok((jv.inner as { b: unknown }).b instanceof Float64Array, "inner.b's tangent");
      assertNear(jv, directional(state, [x, vel], [tx, tv]), 1e-7, "differential vs differences");
      const vd = (await get("vdiffState"))(x, [...vel]) as { value: unknown; differential: Fn };
      assertNear(vd.value, state(x, vel), 0, "value");
      assertNear(vd.differential(tx, tv), jv, 0, "valueWithDifferential");
      const w = {
        pos: randoms(3),
        energy: random(),
        inner: { a: random(), b: f64(randoms(2)) },
      };
      const back = (await get("pbState"))(x, [...vel]) as Fn;
      const adj = back(w);
      assertNear(dot(jv, w), dot([tx, tv], adj), 1e-12, "<J·v, w> = <v, Jᵀ·w>");
      assertNear(back(w), adj, 0, "pullback called twice");
      const vp = (await get("vpbState"))(x, [...vel]) as { value: unknown; pullback: Fn };
      assertNear(vp.value, state(x, vel), 0, "valueWithPullback.value");
      assertNear(vp.pullback(w), adj, 0, "valueWithPullback.pullback");
      const along = (await get("dStateAt"))(x);
      assertNear(along, directional(state, [x, [1, 2]], [1, undefined]), 1e-7, "derivative");
    }
  });

  test("a function returning its own argument, written in place", async () => {
    const x = [1, 2];
    const d = (await curried("diffScale"))(x, 3);
    assertNear(d([1, 0], 0), [3, 0], 0, "along x");
    assertNear(d([0, 0], 1), [1, 2], 0, "along k: the argument as it was");
    assertNear(d([1, 1], 1), [4, 5], 0, "both, a third call");
    assert.deepEqual(x, [3, 6], "the argument is written once");
    const y = [1, 2];
    const back = (await curried("pbScale"))(y, 3);
    assert.deepEqual(y, [3, 6], "the argument is written once");
    assertNear(back([1, 1]), [[3, 3], 3], 0, "pullback");
    assertNear(back([1, -1]), [[3, -3], -1], 0, "pullback twice");
  });
});

// ---------------------------------------------------------------------------------------------
// 7. withDerivative and withoutDerivative

describe("withDerivative and withoutDerivative", () => {
  test("gradient clipping: the adjoint flowing into x·x passes through clip", async () => {
    // y = x² with its derivative clipped; f = 10·y. Reverse: clip(10) · 2x = 2x.
    const g = await scalar("gClipped");
    for (const x of [3, -0.01, 0.7]) assertNear(g(x), 2 * x, 1e-15, `gradient at ${x}`);
    assertNear(
      (await curried("pbClipped"))(0.5)(0.05) as number,
      0.05 * 10 * 2 * 0.5,
      1e-15,
      "small",
    );
    assertNear((await curried("pbClipped"))(0.5)(-3) as number, -1 * 2 * 0.5, 1e-15, "clipped");
    // Forward: the tangent of x² (2x·ẋ) is clipped, then scaled by 10.
    const d = await scalar("dClipped");
    assertNear(d(3), 10, 1e-15, "forward, clipped");
    assertNear(d(0.01), 0.2, 1e-15, "forward, not clipped");
    assert.equal((await scalar("clipped"))(3), 90, "the value is untouched");
  });

  test("scaling by an inline arrow that reads a module-level constant", async () => {
    // sin(3x) with the derivative of 3x doubled: 6·cos(3x) in both modes.
    for (const x of [0.5, -1.2]) {
      assertNear((await scalar("dScaled"))(x), 6 * Math.cos(3 * x), 1e-15, "forward");
      assertNear((await scalar("gScaled"))(x), 6 * Math.cos(3 * x), 1e-15, "reverse");
    }
  });

  test("a callback from another file that records what flows through it", async () => {
    const seen = (await program()).seen as number[];
    seen.length = 0;
    const g = (await get("gObserved"))([1, 2, 3]);
    assertNear(g, [2, 8, 18], 0, "the gradient is unchanged");
    assert.deepEqual([...seen].sort(), [1, 2, 3], "reverse mode: the adjoints (i + 1)");
    seen.length = 0;
    const back = (await get("pbObserved"))([1, 2, 3]) as Fn;
    assert.deepEqual(seen, [], "making a pullback runs no backward sweep");
    back(2);
    back(1);
    assert.deepEqual([...seen].sort(), [1, 2, 2, 3, 4, 6], "once per element per call");
    seen.length = 0;
    const jv = (await curried("dObserved"))([1, 2, 3])([1, 1, 1]);
    assert.equal(jv, 2 + 8 + 18);
    assert.deepEqual([...seen].sort(), [2, 4, 6], "forward mode: the tangents of xᵢ²");
  });

  test("clipping each element of a typed array, forward and reverse", async () => {
    const xs = [0.2, -1.5, 0.9, 0.05];
    // The adjoint into cᵢ is 3cᵢ², clipped to ±0.5, then passes to xᵢ unchanged.
    const expected = xs.map((x) => Math.max(-0.5, Math.min(0.5, 3 * x * x)));
    assertNear((await get("gClipEach"))(f64(xs)), expected, 1e-15, "reverse");
    // Forward: the tangent vᵢ is clipped first, then multiplied by 3xᵢ².
    const v = [2, -0.1, 0.3, -4];
    const jv = (await curried("diffClipEach"))(f64(xs))(f64(v)) as number;
    const forward = xs.reduce((s, x, i) => s + 3 * x * x * Math.max(-0.5, Math.min(0.5, v[i]!)), 0);
    assertNear(jv, forward, 1e-14, "forward");
  });

  test("withoutDerivative of an array: a constant for the derivative", async () => {
    const [xs, w] = [
      [1, 2],
      [3, 4],
    ];
    // Σ xᵢ·cᵢ·wᵢ with c = w frozen: ∂/∂x = c·w, ∂/∂w = x·c (once, not twice).
    assertNear(
      (await get("gFrozenArray"))(xs, w),
      [
        [9, 16],
        [3, 8],
      ],
      0,
      "gradient",
    );
    const jv = (await curried("diffFrozenArray"))(xs, w)([1, 0], [0, 1]) as number;
    assert.equal(jv, 9 + 8, "differential");
  });

  test("withoutDerivative of an object with a typed array", async () => {
    const p = { a: 2, b: f64([3, 5]) };
    const x = 1.5;
    const [gp, gx] = (await get("gFrozenObject"))(p, x) as [{ a: number; b: Float64Array }, number];
    // q.a·p.a·x + q.b₀·x² + p.b₁·q.b₁, q frozen.
    assert.equal(gp.a, 2 * x);
    assertNear(gp.b, [0, 5], 0, "∂/∂b");
    assert.equal(gx, 2 * 2 + 2 * 3 * x);
    const jv = (await curried("diffFrozenObject"))(p, x)({ a: 1, b: f64([1, 1]) }, 0) as number;
    assert.equal(jv, 2 * x + 5);
  });
});

// ---------------------------------------------------------------------------------------------
// 8. Checkpointing

const particles = () => [f64([0.3, -0.2, 0.5, 0.1]), f64([0, 0.1, -0.1, 0.2])] as const;

describe("checkpointing", () => {
  test("checkpoint(segment)(x, v, k, steps) and @checkpoint: the same gradient, a lower tape peak", async () => {
    const peakOf = (await get("peakOf")) as (run: () => unknown) => number;
    const gradients: Record<string, unknown> = {};
    const peaks: Record<string, number> = {};
    for (const name of ["gSimPlain", "gSimCheckpoint", "gSimTagged"]) {
      const g = await get(name);
      const [x, v] = particles();
      peaks[name] = peakOf(() => (gradients[name] = g(x, v, 1.3)));
    }
    assertNear(gradients.gSimCheckpoint, gradients.gSimPlain, 1e-12, "checkpoint(segment)");
    assertNear(gradients.gSimTagged, gradients.gSimPlain, 1e-12, "@checkpoint");
    assert.ok(peaks.gSimCheckpoint! * 3 < peaks.gSimPlain!, `peaks ${JSON.stringify(peaks)}`);
    assert.ok(peaks.gSimTagged! * 3 < peaks.gSimPlain!, `peaks ${JSON.stringify(peaks)}`);
  });

  test("the checkpointed gradient against differences, forward mode, wrt, valueWithGradient", async () => {
    const [x, v] = particles();
    const g = (await get("gSimCheckpoint"))(x.slice(), v.slice(), 1.3);
    const dirs = [f64(randoms(4)), f64(randoms(4)), random()];
    const sim = await get("simPlain");
    const fd = directional(sim, [x, v, 1.3], dirs)[0]!;
    assertNear(dot(dirs, g), fd, 1e-6, "<∇f, v> vs differences");
    const jv = (await curried("dSimCheckpoint"))(x.slice(), v.slice(), 1.3)(...dirs) as number;
    assertNear(jv, dot(dirs, g), 1e-10, "forward = reverse");
    const gk = (await get("gSimCheckpointK"))(x.slice(), v.slice(), 1.3);
    assertNear(gk, (g as unknown[])[2], 1e-12, "wrt: 2");
    const vg = (await get("vgSimCheckpoint"))(x.slice(), v.slice(), 1.3) as {
      value: number;
      gradient: unknown;
    };
    assertNear(vg.value, sim(x.slice(), v.slice(), 1.3), 0, "value");
    assertNear(vg.gradient, g, 1e-12, "valueWithGradient");
  });

  test("a checkpointed helper that returns a number and writes its argument", async () => {
    const x = [0.3, 0.4];
    const g = (await get("gBumpsCheckpoint"))(f64(x), 0.7);
    assertNear(g, (await get("gBumpsPlain"))(f64(x), 0.7), 1e-12, "the plain gradient");
    const dirs = [f64(randoms(2)), random()];
    const fd = directional(await get("bumpsPlain"), [f64(x), 0.7], dirs)[0]!;
    assertNear(dot(dirs, g), fd, 1e-6, "differences");
  });

  test("checkpointed number functions under gradient and hessian", async () => {
    const f = await scalar("cubes");
    for (const x of [0.3, 1.2]) {
      assertNear((await scalar("gCubes"))(x), difference(f, x, 1e-6), 1e-7, "gradient");
      assertNear((await scalar("hCubes"))(x), secondDifference(f, x), 1e-5, "hessian");
    }
  });

  test("nested checkpoints, and a checkpointed function of another file", async () => {
    const [x, v] = particles();
    const peakOf = (await get("peakOf")) as (run: () => unknown) => number;
    let nested: unknown;
    let plain: unknown;
    const gNested = await get("gLeapsNested");
    const gPlain = await get("gLeapsPlain");
    const peakNested = peakOf(() => (nested = gNested(x.slice(0, 3), v.slice(0, 3), 1.3)));
    const peakPlain = peakOf(() => (plain = gPlain(x.slice(0, 3), v.slice(0, 3), 1.3)));
    assertNear(nested, plain, 1e-12, "the plain gradient");
    assert.ok(peakNested * 3 < peakPlain, `peaks ${peakNested} and ${peakPlain}`);
  });

  test("a state object with typed arrays and a number field", async () => {
    const body = () => ({ x: f64([0.3, 0.5, 1.0]), v: f64([0.1, 0, -0.2]), t: 1 });
    const peakOf = (await get("peakOf")) as (run: () => unknown) => number;
    let a: unknown;
    let b: unknown;
    const gc = await get("gBodyCheckpoint");
    const gp = await get("gBodyPlain");
    const peakCheckpoint = peakOf(() => (a = gc(body(), 1.7)));
    const peakPlain = peakOf(() => (b = gp(body(), 1.7)));
    assertNear(a, b, 1e-12, "the plain gradient");
    assert.ok(peakCheckpoint * 3 < peakPlain, `peaks ${peakCheckpoint} and ${peakPlain}`);
    const dirs = [{ x: f64(randoms(3)), v: f64(randoms(3)), t: random() }, random()];
    const jv = (await curried("dBodyCheckpoint"))(body(), 1.7)(...dirs) as number;
    assertNear(jv, dot(dirs, a), 1e-10, "forward = reverse");
    assertNear(jv, directional(await get("bodyPlain"), [body(), 1.7], dirs)[0], 1e-6, "FD");
  });

  test("the plain pullback called twice (the reference for the checkpointed one)", async () => {
    const [x, v] = particles();
    const back = (await get("pbSimPlain"))(x, v, 1.3) as Fn;
    const first = back(1);
    assertNear(
      back(2),
      flat(first).map((a) => 2 * a),
      1e-14,
      "linear in the adjoint",
    );
    assertNear(back(1), first, 0, "repeatable");
  });
});

// ---------------------------------------------------------------------------------------------
// Bugs found by these tests, now fixed: each states what a user should get.

/**
 * Compiles `main`; if nabla reports an error, it must match `diagnostic` (and not `wrong`);
 * otherwise the program's exports must pass `check`. For bugs whose fix may be either a
 * working program or a clear diagnostic.
 */
async function valueOrDiagnostic(
  main: string,
  check: (m: Record<string, unknown>) => void,
  diagnostic: RegExp,
  wrong?: RegExp,
): Promise<void> {
  const result = compileFiles({ "main.ts": main });
  if (result.diagnostics.some((d) => d.severity === "error")) {
    const text = diagnosticsText(result);
    assert.match(text, diagnostic);
    if (wrong) assert.doesNotMatch(text, wrong);
    return;
  }
  check(await importCompiled(join(result.dir, "main.ts")));
}

describe("regressions", () => {
  test("second derivative of 2 ** t", async () => {
    const m = await loadProgram<Record<string, (t: number) => number>>({
      "main.ts": `import { derivative } from "nabla";
export const d2 = derivative(derivative((t: number) => 2 ** t));
`,
    });
    assertNear(m.d2!(0.5), 2 ** 0.5 * Math.LN2 ** 2, 1e-14, "(2^t)''");
  });

  test("hessian of Math.hypot", async () => {
    const m = await loadProgram<Record<string, Fn>>({
      "main.ts": `import { hessian } from "nabla";
export const h = hessian((p: number[]) => Math.hypot(p[0], p[1]));
`,
    });
    // (I − p̂p̂ᵀ)/r at (3, 4).
    const expected = [
      [16 / 125, -12 / 125],
      [-12 / 125, 9 / 125],
    ];
    assertNear(matrix(m.h!([3, 4])), expected, 1e-14, "hessian of |p|");
  });

  test("an inner derivative of t ** k · x, k a constant: the outer derivative misses the t path", async () => {
    const m = await loadProgram<Record<string, (x: number) => number>>({
      "main.ts": `import { derivative } from "nabla";
export const d = derivative((x: number) => {
  const k = 3;
  return derivative((t: number) => Math.pow(t, k) * x)(x);
});
`,
    });
    // d/dt (t³·x) at t = x is 3x³; its derivative is 9x².
    assertNear(m.d!(0.6), 9 * 0.36, 1e-14, "d/dx 3x³");
  });

  test("hessian of a function that writes its argument: each row at the original x, x written once", async () => {
    const m = await loadProgram<Record<string, Fn>>({
      "main.ts": `import { hessian } from "nabla";
export function prefixLoss(a: Float64Array): number {
  for (let i = 1; i < a.length; i++) a[i] += a[i - 1];
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.sin(a[i]) * a[i];
  return s;
}
export const h = hessian(prefixLoss);
`,
    });
    const x = [0.3, 0.2, 0.1];
    const a = f64(x);
    const H = matrix(m.h!(a));
    // f = Σ g(Sᵢ), g(s) = s·sin s, Sᵢ = x₀ + … + xᵢ: Hⱼₖ = Σ_{i ≥ max(j,k)} g''(Sᵢ).
    const S = [0.3, 0.5, 0.6];
    const g2 = (s: number) => 2 * Math.cos(s) - s * Math.sin(s);
    const expected = x.map((_, j) =>
      x.map((_, k) => S.slice(Math.max(j, k)).reduce((t, si) => t + g2(si), 0)),
    );
    assertNear(a, S, 1e-15, "the argument holds the prefix sums once");
    assertNear(H, expected, 1e-13, "the Hessian at x");
  });

  test("jacobian (reverse path, n > m) of a function that writes its argument", async () => {
    const m = await loadProgram<Record<string, Fn>>({
      "main.ts": `import { jacobian } from "nabla";
export function prefixProduct(a: number[]): number[] {
  for (let i = 1; i < a.length; i++) a[i] += a[i - 1];
  return [a[2] * a[1]];
}
export const j = jacobian(prefixProduct);
`,
    });
    const x = [0.3, 0.2, 0.1];
    const J = matrix(m.j!(x));
    // S₁·S₂ with S₁ = x₀ + x₁, S₂ = S₁ + x₂.
    const [s1, s2] = [0.5, 0.6];
    assertNear(x, [0.3, s1, s2], 1e-15, "the argument holds the prefix sums once");
    assertNear(J, [[s1 + s2, s1 + s2, s1]], 1e-15, "the Jacobian at x");
  });

  test("the pullback of a function with a checkpointed call, called twice", async () => {
    const m = await loadProgram<Record<string, Fn>>({
      "main.ts": `import { pullback, checkpoint } from "nabla";
function square(x: Float64Array): void {
  x[0] = x[0] * x[0];
}
/** @checkpoint */
function squareTagged(x: Float64Array): void {
  x[0] = x[0] * x[0];
}
export const pb = pullback((x: Float64Array) => {
  checkpoint(square)(x);
  return x[0];
});
export const pbTagged = pullback((x: Float64Array) => {
  squareTagged(x);
  return x[0];
});
`,
    });
    for (const name of ["pb", "pbTagged"]) {
      const back = m[name]!(f64([3])) as Fn;
      assertNear(back(1), [6], 0, `${name}: first call`);
      assertNear(back(1), [6], 0, `${name}: second call`);
      assertNear(back(2), [12], 0, `${name}: third call`);
    }
  });

  test("@checkpoint on a class method checkpoints its calls (or is reported)", async () => {
    const method = (tag: string) => `  ${tag}
  advance(k: number, steps: number): void {
    for (let s = 0; s < steps; s++) {
      for (let i = 0; i < this.x.length; i++) this.v[i] -= 0.05 * k * Math.sin(this.x[i]);
      for (let i = 0; i < this.x.length; i++) this.x[i] += 0.05 * this.v[i];
    }
  }`;
    const source = (tag: string) => `import { gradient, tapeStats, resetTapePeak } from "nabla";
export class Sim {
  x: Float64Array;
  v: Float64Array;
  constructor(x: Float64Array, v: Float64Array) {
    this.x = x;
    this.v = v;
  }
${method(tag)}
}
export function makeSim(x: Float64Array, v: Float64Array): Sim {
  return new Sim(x, v);
}
export function run(s: Sim, k: number): number {
  for (let c = 0; c < 8; c++) s.advance(k, 10);
  let e = 0;
  for (let i = 0; i < s.x.length; i++) e += s.x[i] * s.x[i] + s.v[i];
  return e;
}
export const g = gradient(run);
export function peakOf(run: () => unknown): number {
  resetTapePeak();
  const before = tapeStats().peak;
  run();
  return tapeStats().peak - before;
}
`;
    const peakAndGradient = async (tag: string) => {
      const m = await loadProgram<Record<string, Fn>>({ "main.ts": source(tag) });
      const sim = m.makeSim!(f64([0.3, 0.5, 1.0]), f64([0.1, 0, -0.2]));
      let g: unknown;
      const peak = m.peakOf!(() => (g = m.g!(sim, 1.7))) as number;
      return { peak, g };
    };
    const compiled = compileFiles({ "main.ts": source("/** @checkpoint */") });
    if (compiled.diagnostics.some((d) => d.severity === "error")) {
      assert.match(diagnosticsText(compiled), /checkpoint/);
      return;
    }
    const tagged = await peakAndGradient("/** @checkpoint */");
    const plain = await peakAndGradient("");
    assertNear(tagged.g, plain.g, 1e-12, "the same gradient");
    assert.ok(tagged.peak * 3 < plain.peak, `peaks ${tagged.peak} and ${plain.peak}`);
  });

  test("jacobian of an arrow returning an array literal, without a return type", async () => {
    await valueOrDiagnostic(
      `import { jacobian } from "nabla";
export const j = jacobian((t: number) => [t * t, Math.sin(t)]);
`,
      (m) => assertNear((m.j as Fn)(0.5), [1, Math.cos(0.5)], 1e-15, "jacobian"),
      /annotat/,
      /expected a number here/,
    );
  });

  test("derivative of an array-valued function inside differentiated code", async () => {
    await valueOrDiagnostic(
      `import { derivative, gradient } from "nabla";
function curve(t: number): number[] {
  return [Math.cos(t), Math.sin(t) * t];
}
export const g = gradient((x: number) => derivative(curve)(x)[1] * x);
`,
      (m) => {
        const t = 0.5;
        // x · (x cos x + sin x): derivative 3x cos x + sin x − x² sin x.
        const expected = 3 * t * Math.cos(t) + Math.sin(t) - t * t * Math.sin(t);
        assertNear((m.g as Fn)(t), expected, 1e-14, "gradient");
      },
      /derivative/,
      /on a number/,
    );
  });

  test("withDerivative under a derivative of a derivative", async () => {
    await valueOrDiagnostic(
      `import { derivative, gradient, withDerivative } from "nabla";
function twice(d: number): number {
  return 2 * d;
}
export const dd = derivative(derivative((x: number) => withDerivative(x * x * x, twice)));
export const gd = gradient(derivative((x: number) => withDerivative(x * x * x, twice)));
`,
      (m) => {
        // The first derivative is twice(3x²) = 6x²; its derivative is 12x.
        assertNear((m.dd as Fn)(0.5), 6, 1e-14, "derivative(derivative)");
        assertNear((m.gd as Fn)(0.5), 6, 1e-14, "gradient(derivative)");
      },
      /withDerivative/,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Review regressions: programs a reviewer found wrong, with what a user should get.

describe("review regressions", () => {
  /** The derivative of f(a, b) along a and along b, by central differences. */
  const differences2 = (f: (a: number, b: number) => number, a: number, b: number) => [
    difference((t) => f(t, b), a, 1e-6),
    difference((t) => f(a, t), b, 1e-6),
  ];

  const ALIASED_CHECKPOINTS = `import { checkpoint, derivative, gradient } from "nabla";
interface State {
  pos: number[];
  vel: number[];
}
// Writes through 'pos' and reads through 's.pos': the caller passes the same array as both.
function advance(s: State, pos: number[], dt: number): number {
  for (let i = 0; i < pos.length; i++) pos[i] += dt * s.vel[i] * s.pos[i];
  return s.pos[0] * s.pos[0];
}
export function run(x: number, dt: number, ck: boolean): number {
  const s: State = { pos: [x, 1], vel: [1, 2] };
  let r = 0;
  for (let k = 0; k < 3; k++) r += ck ? checkpoint(advance)(s, s.pos, dt) : advance(s, s.pos, dt);
  return r;
}
// Writes through 'a' and reads through 'b', called with the same array as both.
function step(a: number[], b: number[], k: number): number {
  a[0] += k * b[1];
  a[1] += k * b[0] * b[0];
  return a[1] * b[0];
}
export function sim(x: number, k: number, ck: boolean): number {
  const u = [x, 2 * x];
  let r = 0;
  for (let i = 0; i < 3; i++) r += ck ? checkpoint(step)(u, u, k) : step(u, u, k);
  return r + u[0];
}
export const gRun = gradient(run, { wrt: [0, 1] });
export const dRun = derivative((x: number) => run(x, 0.5, true));
export const gSim = gradient(sim, { wrt: [0, 1] });
export const gRunX = gradient((x: number) => run(x, 0.5, true));
export const gRunXPlain = gradient((x: number) => run(x, 0.5, false));
export const gSimX = gradient((x: number) => sim(x, 0.4, true));
export const gSimXPlain = gradient((x: number) => sim(x, 0.4, false));
`;

  test("checkpoint(advance)(s, s.pos, 0.5) and checkpoint(step)(u, u, k): the plain gradient", async () => {
    const m = await loadProgram<Record<string, Fn>>({ "main.ts": ALIASED_CHECKPOINTS });
    const run = (x: number) => m.run!(x, 0.5, true) as number;
    assertNear(m.gRunX!(1), 37.40625, 1e-14, "checkpointed, at 1");
    for (const x of [1, 0.7]) {
      const plain = m.gRunXPlain!(x) as number;
      assertNear(m.gRunX!(x), plain, 1e-14, `checkpoint(advance) at ${x}: plain`);
      assertNear(m.gRunX!(x), difference(run, x, 1e-6), 1e-7, `checkpoint(advance) at ${x}: FD`);
      assertNear(m.dRun!(x), plain, 1e-14, `derivative through checkpoint(advance) at ${x}`);
    }
    const sim = (x: number) => m.sim!(x, 0.4, true) as number;
    for (const x of [0.3, -0.6]) {
      const plain = m.gSimXPlain!(x) as number;
      assertNear(m.gSimX!(x), plain, 1e-14, `checkpoint(step)(u, u, k) at ${x}: plain`);
      assertNear(m.gSimX!(x), difference(sim, x, 1e-6), 1e-7, `checkpoint(step) at ${x}: FD`);
    }
  });

  for (const c of [
    { name: "checkpoint(advance)(s, s.pos, dt)", f: "run", g: "gRun", at: [1, 0.5] },
    { name: "checkpoint(step)(u, u, k)", f: "sim", g: "gSim", at: [0.3, 0.4] },
  ]) {
    test(`${c.name}: the gradient with respect to the number argument too`, async () => {
      const m = await loadProgram<Record<string, Fn>>({ "main.ts": ALIASED_CHECKPOINTS });
      const [x, k] = c.at as [number, number];
      const plain = m[c.g]!(x, k, false);
      const fd = differences2((a, b) => m[c.f]!(a, b, true) as number, x, k);
      assertNear(plain, fd, 1e-7, "the plain gradient against differences");
      assertNear(m[c.g]!(x, k, true), plain, 1e-12, "checkpointed: [x, k]");
    });
  }

  test("a function named like the checkpoint wrapper's parameters (a0, s0) can be checkpointed", async () => {
    const m = await loadProgram<Record<string, (x: number) => number>>({
      "main.ts": `import { checkpoint, gradient } from "nabla";
function a0(u: number[], k: number): number {
  u[0] *= k;
  return u[0] * u[0];
}
function s0(u: number[], k: number): number {
  u[0] *= k;
  return u[0] * u[0];
}
export const gA0 = gradient((x: number) => checkpoint(a0)([x], 2));
export const gS0 = gradient((x: number) => checkpoint(s0)([x], 2));
`,
    });
    // (2x)² = 4x²: 8x.
    assertNear(m.gA0!(3), 24, 0, "checkpoint(a0)");
    assertNear(m.gS0!(3), 24, 0, "checkpoint(s0)");
  });

  test("hessian, hessianVectorProduct, jacobian and differential of lambdas writing a captured array", async () => {
    const m = await loadProgram<Record<string, Fn>>({
      "main.ts": `import { hessian, hessianVectorProduct, jacobian, differential, valueWithDifferential } from "nabla";
// Each lambda writes an array it captures (a counter, a cache, a log…): once per operator call.
export function hess(calls: number[], x: number[]): number[][] {
  return hessian((y: number[]) => {
    calls[0] += 1;
    return calls[0] * y[0] * y[0] * y[1];
  })(x);
}
export function hvp(calls: number[], x: number[], v: number[]): number[] {
  return hessianVectorProduct((y: number[]) => {
    calls[0] += 1;
    return calls[0] * y[0] * y[0] * y[1];
  })(x, v);
}
// n < m (the forward path) and n > m (the reverse path).
export function jacForward(scale: number[], x: number[]): number[][] {
  return jacobian((y: number[]): number[] => {
    scale[0] *= 2;
    return [scale[0] * y[0], y[0] * y[1], y[1]];
  })(x);
}
export function jacReverse(scale: number[], x: number[]): number[][] {
  return jacobian((y: number[]): number[] => {
    scale[0] *= 2;
    return [scale[0] * y[0] * y[1], y[2]];
  })(x);
}
export function diff(k: number[], t0: number): number[] {
  const d = differential((t: number) => {
    k[0] *= 2;
    return k[0] * t;
  })(t0);
  return [d(1), d(1), d(0.5)];
}
export function valueDiff(k: number[], t0: number): number[] {
  const r = valueWithDifferential((t: number) => {
    k[0] *= 2;
    return k[0] * t * t;
  })(t0);
  return [r.value, r.differential(1), r.differential(1)];
}
`,
    });
    const x = [0.5, 2];
    // c·y₀²·y₁ with c the count after the write: H = c·[[2y₁, 2y₀], [2y₀, 0]].
    const calls = [0];
    for (const c of [1, 2]) {
      const H = matrix(m.hess!(calls, x));
      assert.deepEqual(calls, [c], `hessian call ${c}: the lambda's write ran once`);
      assertNear(
        H,
        [
          [4 * c, c],
          [c, 0],
        ],
        1e-15,
        `hessian call ${c}`,
      );
      const f = (y: number[]) => c * y[0]! * y[0]! * y[1]!;
      assertNear(H, finiteHessian(f, x), 1e-6, `hessian call ${c}: second differences`);
    }
    const hvpCalls = [0];
    for (const c of [1, 2]) {
      const hv = m.hvp!(hvpCalls, x, [1, -1]);
      assert.deepEqual(hvpCalls, [c], `hessianVectorProduct call ${c}: one write`);
      assertNear(hv, [3 * c, c], 1e-15, `hessianVectorProduct call ${c}`);
    }
    // The scale is doubled once per call: 2, then 4.
    const scale = [1];
    for (const s of [2, 4]) {
      const J = matrix(m.jacForward!(scale, x));
      assert.deepEqual(scale, [s], `jacobian (forward path): one write`);
      assertNear(
        J,
        [
          [s, 0],
          [x[1]!, x[0]!],
          [0, 1],
        ],
        1e-15,
        `jacobian (forward path), scale ${s}`,
      );
      const f = (y: unknown) => [
        s * (y as number[])[0]!,
        (y as number[])[0]! * (y as number[])[1]!,
        (y as number[])[1]!,
      ];
      assertNear(J, finiteJacobian(f, [x], 0), 1e-8, `jacobian (forward path): differences`);
    }
    const y = [0.5, 2, 3];
    const scaleR = [1];
    for (const s of [2, 4]) {
      const J = matrix(m.jacReverse!(scaleR, y));
      assert.deepEqual(scaleR, [s], `jacobian (reverse path): one write`);
      assertNear(
        J,
        [
          [s * y[1]!, s * y[0]!, 0],
          [0, 0, 1],
        ],
        1e-15,
        `jacobian (reverse path)`,
      );
      const f = (z: unknown) => [
        s * (z as number[])[0]! * (z as number[])[1]!,
        (z as number[])[2]!,
      ];
      assertNear(J, finiteJacobian(f, [y], 0), 1e-8, `jacobian (reverse path): differences`);
    }
    // k·t, k doubled once per call: the differential is k·dt for every tangent given to it.
    const k = [1];
    assertNear(m.diff!(k, 3), [2, 2, 1], 0, "differential, first call");
    assert.deepEqual(k, [2]);
    assertNear(m.diff!(k, 3), [4, 4, 2], 0, "differential, second call");
    assert.deepEqual(k, [4]);
    // k·t²: the value and 2k·t.
    const kv = [1];
    assertNear(m.valueDiff!(kv, 3), [18, 12, 12], 0, "valueWithDifferential");
    assert.deepEqual(kv, [2]);
    assertNear(
      difference((t) => 2 * t * t, 3),
      12,
      1e-8,
      "differences of 2t²",
    );
  });

  test("withDerivative arrows reading module-level dx, t and seed, and a function named dx", async () => {
    const m = await loadProgram<Record<string, (x: number) => number>>({
      "main.ts": `import { derivative, gradient, pullback, withDerivative } from "nabla";
// Names that derivative code also uses for its own locals and parameters.
const dx = 0.5;
const t = 0.25;
const seed = 3;
function f(x: number): number {
  return withDerivative(x * x, (d) => d * dx);
}
function g(x: number): number {
  const y = withDerivative(x * x, (d) => d * 2);
  return withDerivative(y * x, (d) => d * t * 4);
}
function h(x: number): number {
  return withDerivative(Math.sin(x), (d) => d * seed);
}
export const df = derivative(f);
export const gf = gradient(f);
export const dg = derivative(g);
export const gg = gradient(g);
export const dh = derivative(h);
export const gh = gradient(h);
export const ph = (x: number) => pullback(h)(x)(2);
`,
    });
    const named = await loadProgram<Record<string, (x: number) => number>>({
      "main.ts": `import { derivative, gradient, withDerivative } from "nabla";
function dx(d: number): number {
  return 0.5 * d;
}
function t(d: number): number {
  return 2 * d;
}
function seed(d: number): number {
  return 3 * d;
}
function k(x: number): number {
  return withDerivative(x * x, dx) + withDerivative(x, t) + withDerivative(x * x * x, seed);
}
export const dk = derivative(k);
export const gk = gradient(k);
`,
    });
    for (const x of [1, 0.7]) {
      // x² with its derivative halved: x.
      assertNear(m.df!(x), x, 1e-15, `derivative(f)(${x})`);
      assertNear(m.gf!(x), x, 1e-15, `gradient(f)(${x})`);
      // y = x² with its derivative doubled, then y·x with its derivative unchanged (t·4 = 1):
      // x̄ = y + 2·2x·x = 5x².
      assertNear(m.dg!(x), 5 * x * x, 1e-15, `derivative(g)(${x})`);
      assertNear(m.gg!(x), 5 * x * x, 1e-15, `gradient(g)(${x})`);
      assertNear(m.dh!(x), 3 * Math.cos(x), 1e-15, `derivative(h)(${x})`);
      assertNear(m.gh!(x), 3 * Math.cos(x), 1e-15, `gradient(h)(${x})`);
      assertNear(m.ph!(x), 6 * Math.cos(x), 1e-15, `pullback(h)(${x})(2)`);
      // The functions named dx, t and seed given by name: 0.5·2x + 2 + 3·3x².
      assertNear(named.dk!(x), x + 2 + 9 * x * x, 1e-15, `derivative(k)(${x})`);
      assertNear(named.gk!(x), x + 2 + 9 * x * x, 1e-15, `gradient(k)(${x})`);
    }
  });

  test("a withDerivative arrow reading a module-level constant named 'derivative'", async () => {
    const m = await loadProgram<Record<string, (x: number) => number>>({
      "main.ts": `import { gradient, withDerivative } from "nabla";
const derivative = 0.5;
function f(x: number): number {
  return withDerivative(x * x, (d) => d * derivative);
}
export const gf = gradient(f);
`,
    });
    assertNear(m.gf!(1), 1, 1e-15, "gradient(f)(1)");
    assertNear(m.gf!(0.7), 0.7, 1e-15, "gradient(f)(0.7)");
  });

  test("@checkpoint on 'export default function': the tape peak drops as for a named export", async () => {
    const body = `  let y = x;
  for (let k = 0; k < 100; k++) y += 0.001 * Math.sin(y * v);
  return y;
`;
    const m = await loadProgram<Record<string, Fn>>({
      "lib.ts": `/** @checkpoint */
export default function step(x: number, v: number): number {
${body}}
/** @checkpoint */
export function step2(x: number, v: number): number {
${body}}
export function step3(x: number, v: number): number {
${body}}
`,
      "main.ts": `import { gradient, resetTapePeak, tapeStats } from "nabla";
import step, { step2, step3 } from "./lib.js";
export function a(x0: number, v: number): number {
  let x = x0;
  for (let i = 0; i < 50; i++) x = step(x, v);
  return x;
}
export function b(x0: number, v: number): number {
  let x = x0;
  for (let i = 0; i < 50; i++) x = step2(x, v);
  return x;
}
export function c(x0: number, v: number): number {
  let x = x0;
  for (let i = 0; i < 50; i++) x = step3(x, v);
  return x;
}
export const ga = gradient(a);
export const gb = gradient(b);
export const gc = gradient(c);
export function peakOf(run: () => unknown): number {
  resetTapePeak();
  const before = tapeStats().peak;
  run();
  return tapeStats().peak - before;
}
`,
    });
    const peakOf = m.peakOf as (run: () => unknown) => number;
    const gradients: Record<string, unknown> = {};
    const peaks: Record<string, number> = {};
    for (const name of ["ga", "gb", "gc"]) {
      peaks[name] = peakOf(() => (gradients[name] = m[name]!(0.5, 2)));
    }
    assert.equal(
      peaks.ga,
      peaks.gb,
      `export default and export function: ${JSON.stringify(peaks)}`,
    );
    assert.ok(peaks.ga! * 3 < peaks.gc!, `checkpointed and plain: ${JSON.stringify(peaks)}`);
    assertNear(gradients.ga, gradients.gc, 1e-12, "export default: the plain gradient");
    assertNear(gradients.gb, gradients.gc, 1e-12, "export function: the plain gradient");
    const fd = differences2((x, v) => m.a!(x, v) as number, 0.5, 2);
    assertNear(gradients.ga, fd, 1e-7, "export default: differences");
  });

  test("@checkpoint on an anonymous 'export default function' compiles and checkpoints (or is reported)", async () => {
    const files = {
      "lib.ts": `/** @checkpoint */
export default function (x: number, v: number): number {
  let y = x;
  for (let k = 0; k < 100; k++) y += 0.001 * Math.sin(y * v);
  return y;
}
`,
      "main.ts": `import { gradient } from "nabla";
import step from "./lib.js";
export function a(x0: number, v: number): number {
  let x = x0;
  for (let i = 0; i < 50; i++) x = step(x, v);
  return x;
}
export const ga = gradient(a);
`,
    };
    const compiled = compileFiles(files);
    if (compiled.diagnostics.some((d) => d.severity === "error")) {
      assert.match(diagnosticsText(compiled), /checkpoint/);
      return;
    }
    const m = await importCompiled<Record<string, Fn>>(join(compiled.dir, "main.ts"));
    const fd = differences2((x, v) => m.a!(x, v) as number, 0.5, 2);
    assertNear(m.ga!(0.5, 2), fd, 1e-7, "differences");
  });

  test("hessian and jacobian of tuples of numbers", async () => {
    const m = await loadProgram<Record<string, (...args: unknown[]) => unknown>>({
      "main.ts": `import { hessian, hessianVectorProduct, jacobian } from "nabla";
function f(p: [number, number]): number {
  return p[0] * p[0] * p[1] + Math.sin(p[1]);
}
function g(p: [number, number]): [number, number] {
  return [p[0] * p[1], p[0] + p[1] * p[1]];
}
export const h = hessian(f);
export const hv = hessianVectorProduct(f);
export const j = jacobian(g);
export const jt = jacobian((t: number): [number, number] => [t, t * t]);
`,
    });
    // f = x²y + sin y: H = [[2y, 2x], [2x, −sin y]]; g: J = [[y, x], [1, 2y]].
    assertNear(
      m.h!([1, 2]),
      [
        [4, 2],
        [2, -Math.sin(2)],
      ],
      1e-14,
      "hessian",
    );
    assertNear(m.hv!([1, 2], [0.5, -1]), [0, 1 + Math.sin(2)], 1e-14, "hessianVectorProduct");
    assertNear(
      m.j!([1, 2]),
      [
        [2, 1],
        [1, 4],
      ],
      1e-14,
      "jacobian",
    );
    assertNear(m.jt!(3), [1, 6], 1e-14, "jacobian of a number");
  });

  test("hessian of a function calling methods and a getter of an instance it builds", async () => {
    // The derivative differentiated again calls the primal method where only its value is
    // read: on its receiver, as lowered code calls it (it is no module-level function).
    const m = await loadProgram<Record<string, (...args: unknown[]) => unknown>>({
      "main.ts": `import { hessian } from "nabla";
class Spring {
  constructor(public k: number) {}
  energy(len: number): number {
    return 0.5 * this.k * len * len;
  }
  get stiff(): number {
    return this.k * this.k;
  }
}
function f(p: [number, number]): number {
  const s = new Spring(p[0]);
  return s.energy(p[1]) + s.stiff;
}
export const h = hessian(f);
`,
    });
    // f = ½ x y² + x²: H = [[2, y], [y, x]].
    assertNear(
      m.h!([3, 2]),
      [
        [2, 2],
        [2, 3],
      ],
      1e-14,
      "hessian",
    );
  });
});

test("a Hessian-vector product and the value and gradient of a directional derivative of the same function agree", async () => {
  // hessianVectorProduct never reads ⟨∇f(x), v⟩, so its sweeps skip it; valueWithGradient of a
  // function computing that derivative needs it: each gets its own derivative functions.
  const m = await loadProgram<{
    f: (x: number[]) => number;
    hv: (x: number[], v: number[]) => number[];
    vgSlope: (x: number[], v: number[]) => { value: number; gradient: number[] };
  }>({
    "main.ts": `import { derivative, hessianVectorProduct, valueWithGradient } from "nabla";
export function f(x: number[]): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.sin(x[i]) * x[(i + 1) % x.length];
  return s;
}
export const hv = hessianVectorProduct(f);
function slope(x: number[], v: number[]): number {
  return derivative((t: number) => f(x.map((xi, i) => xi + t * v[i])))(0);
}
export const vgSlope = valueWithGradient(slope, { wrt: 0 });
`,
  });
  const x = [0.3, -1.2, 2.1, 0.7];
  const v = [1, 0.5, -0.25, 2];
  const { value, gradient } = m.vgSlope(x, v);
  const h = 1e-6;
  const along = (t: number) => m.f(x.map((xi, i) => xi + t * v[i]!));
  assertClose(value, (along(h) - along(-h)) / (2 * h), 1e-8, "⟨∇f, v⟩");
  const hv = m.hv(x, v);
  hv.forEach((hi, i) => assertClose(hi, gradient[i]!, 1e-12, `(Hv)[${i}]`));
  // Hv against central differences of the directional derivative.
  hv.forEach((hi, i) => {
    const moved = (s: number) =>
      m.vgSlope(
        x.map((xj, j) => xj + (i === j ? s : 0)),
        v,
      ).value;
    assertClose(hi, (moved(h) - moved(-h)) / (2 * h), 1e-6, `(Hv)[${i}] by differences`);
  });
});
