import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  assertClose,
  centralDifference,
  compileFiles,
  diagnosticsText,
  importCompiled,
  loadProgram,
  writeProgram,
} from "./support/harness.js";

// Registered derivatives: `registerDerivative(f, { forward, reverse })` makes differentiated
// code call the user's rule instead of differentiating f's body — for numerical stability
// (logSumExp), for speed (a sigmoid whose pullback reuses its output), and for functions whose
// source nabla cannot see (a package that ships only a .d.ts). Every derivative is checked
// against central differences of the real function, and forward mode against reverse mode by
// <J·v, w> = <v, Jᵀ·w>; counters kept by the rules show that the rules are what ran. Bugs found
// while writing these tests are at the end, as `todo` tests that pass once they are fixed.

// ---------------------------------------------------------------------------------------------
// A package with no TypeScript source: a .d.ts for nabla, plain JavaScript for node.

/** Bessel functions by their power series (good to ~1e-15 for |x| < 4). */
const FAKE_SPECIAL_JS = `function series(x, n) {
  const h = x / 2;
  let term = Math.pow(h, n);
  for (let k = 1; k <= n; k++) term /= k;
  let sum = 0;
  for (let k = 0; k < 40; k++) {
    sum += term;
    term *= -(h * h) / ((k + 1) * (k + 1 + n));
  }
  return sum;
}
export function besselJ0(x) {
  return series(x, 0);
}
export function besselJ1(x) {
  return series(x, 1);
}
`;

const FAKE_SPECIAL_DTS = `/** The Bessel function of the first kind of order 0. */
export declare function besselJ0(x: number): number;
/** The Bessel function of the first kind of order 1: J1 = -J0'. */
export declare function besselJ1(x: number): number;
`;

/** The files of package `name` in node_modules; the .d.ts found through "types" or not. */
function fakeSpecial(name = "fake-special", withTypesField = true): Record<string, string> {
  const manifest = {
    name,
    version: "1.0.0",
    type: "module",
    main: "index.js",
    ...(withTypesField ? { types: "index.d.ts" } : {}),
  };
  return {
    [`node_modules/${name}/package.json`]: JSON.stringify(manifest, null, 2) + "\n",
    [`node_modules/${name}/index.d.ts`]: FAKE_SPECIAL_DTS,
    [`node_modules/${name}/index.js`]: FAKE_SPECIAL_JS,
  };
}

// ---------------------------------------------------------------------------------------------
// The program: rules in the entry file, in the file of the function, in a third file, and for
// a package function; functions of numbers, arrays, typed arrays, objects and strings.

const COUNTERS = `// How often each rule (and the body of sigmoid) ran.
export const counts = {
  sigmoidBody: 0,
  sigmoidForward: 0,
  sigmoidReverse: 0,
  sigmoidPullback: 0,
  lseForward: 0,
  lseReverse: 0,
  besselForward: 0,
  besselReverse: 0,
  softplusForward: 0,
  softplusReverse: 0,
  smoothAbsForward: 0,
  smoothAbsReverse: 0,
  weightedReverse: 0,
  weightedPullback: 0,
  basisForward: 0,
  basisReverse: 0,
};
export function resetCounts(): void {
  for (const k of Object.keys(counts)) (counts as Record<string, number>)[k] = 0;
}
`;

/** A function that registers its own rule; the entry file only imports the function. */
const SOFTPLUS = `import { registerDerivative } from "nabla";
import { counts } from "./counters.ts";

/** log(1 + eˣ). */
export function softplus(x: number): number {
  return Math.log(1 + Math.exp(x));
}
registerDerivative(softplus, {
  forward: (x, dx) => {
    counts.softplusForward++;
    return { value: softplus(x), tangent: dx / (1 + Math.exp(-x)) };
  },
  reverse: (x) => {
    counts.softplusReverse++;
    const p = 1 / (1 + Math.exp(-x));
    return { value: softplus(x), pullback: (dy) => dy * p };
  },
});
`;

/** A function in one file, its rule in another, used from a third. */
const FNS = `export function smoothAbs(x: number): number {
  return Math.sqrt(x * x + 0.01);
}
`;

const RULES = `import { registerDerivative } from "nabla";
import { smoothAbs } from "./fns.ts";
import { counts } from "./counters.ts";

registerDerivative(smoothAbs, {
  forward: (x: number, dx: number) => {
    counts.smoothAbsForward++;
    const r = smoothAbs(x);
    return { value: r, tangent: (x / r) * dx };
  },
  reverse: (x: number) => {
    counts.smoothAbsReverse++;
    const r = smoothAbs(x);
    return { value: r, pullback: (dy: number) => (dy * x) / r };
  },
});
`;

const MAIN = `import {
  registerDerivative,
  gradient,
  valueWithGradient,
  pullback,
  valueWithPullback,
  derivative,
  valueWithDerivative,
  differential,
  valueWithDifferential,
} from "nabla";
import { besselJ0, besselJ1 } from "fake-special";
import * as special from "fake-special";
import { counts, resetCounts } from "./lib/counters.ts";
import { softplus } from "./lib/softplus.ts";
import { smoothAbs } from "./lib/fns.ts";
import "./lib/rules.ts";

export { counts, resetCounts, besselJ0, besselJ1, softplus, smoothAbs };

// ---- logSumExp: the body overflows for large inputs, the rule shifts by the maximum ----

export function logSumExp(xs: number[]): number {
  let s = 0;
  for (const x of xs) s += Math.exp(x);
  return Math.log(s);
}
registerDerivative(logSumExp, {
  forward: (xs, dxs) => {
    counts.lseForward++;
    const m = Math.max(...xs);
    let s = 0;
    for (const x of xs) s += Math.exp(x - m);
    let t = 0;
    for (let i = 0; i < xs.length; i++) t += (Math.exp(xs[i]! - m) / s) * dxs[i]!;
    return { value: m + Math.log(s), tangent: t };
  },
  reverse: (xs) => {
    counts.lseReverse++;
    const m = Math.max(...xs);
    let s = 0;
    for (const x of xs) s += Math.exp(x - m);
    return {
      value: m + Math.log(s),
      pullback: (dy) => xs.map((x) => (dy * Math.exp(x - m)) / s),
    };
  },
});

// ---- sigmoid: the pullback reuses the value it computed ----

export function sigmoid(x: number): number {
  counts.sigmoidBody++;
  return 1 / (1 + Math.exp(-x));
}
registerDerivative(sigmoid, {
  forward: (x, dx) => {
    counts.sigmoidForward++;
    const s = sigmoid(x);
    return { value: s, tangent: dx * s * (1 - s) };
  },
  reverse: (x) => {
    counts.sigmoidReverse++;
    const s = sigmoid(x);
    return {
      value: s,
      pullback: (dy) => {
        counts.sigmoidPullback++;
        return dy * s * (1 - s);
      },
    };
  },
});

// ---- a package function known only from its .d.ts ----

registerDerivative(besselJ0, {
  forward: (x, dx) => {
    counts.besselForward++;
    return { value: besselJ0(x), tangent: -besselJ1(x) * dx };
  },
  reverse: (x) => {
    counts.besselReverse++;
    const d = -besselJ1(x);
    return { value: besselJ0(x), pullback: (dy) => d * dy };
  },
});

// ---- several parameters: a number and an array; two numbers ----

/** k·Σ xᵢ². */
export function weightedSquares(k: number, xs: number[]): number {
  let s = 0;
  for (const x of xs) s += k * x * x;
  return s;
}
registerDerivative(weightedSquares, {
  forward: (k, xs, dk, dxs) => {
    let v = 0;
    let t = 0;
    for (let i = 0; i < xs.length; i++) {
      v += k * xs[i]! * xs[i]!;
      t += dk * xs[i]! * xs[i]! + 2 * k * xs[i]! * dxs[i]!;
    }
    return { value: v, tangent: t };
  },
  reverse: (k, xs) => {
    counts.weightedReverse++;
    let q = 0;
    for (const x of xs) q += x * x;
    return {
      value: k * q,
      pullback: (dy) => {
        counts.weightedPullback++;
        return [dy * q, xs.map((x) => 2 * dy * k * x)];
      },
    };
  },
});

export function hypot2(a: number, b: number): number {
  return Math.sqrt(a * a + b * b);
}
registerDerivative(hypot2, {
  forward: (a, b, da, db) => {
    const r = hypot2(a, b);
    return { value: r, tangent: (a * da + b * db) / r };
  },
  reverse: (a, b) => {
    const r = hypot2(a, b);
    return { value: r, pullback: (dy) => [(dy * a) / r, (dy * b) / r] };
  },
});

// ---- an object parameter ----

interface Spring {
  k: number;
  x: number;
  rest: number;
}
export function springEnergy(s: Spring): number {
  const d = s.x - s.rest;
  return 0.5 * s.k * d * d;
}
registerDerivative(springEnergy, {
  forward: (s, ds) => {
    const d = s.x - s.rest;
    return { value: springEnergy(s), tangent: 0.5 * ds.k * d * d + s.k * d * (ds.x - ds.rest) };
  },
  reverse: (s) => {
    const d = s.x - s.rest;
    return {
      value: springEnergy(s),
      pullback: (dy) => ({ k: 0.5 * dy * d * d, x: dy * s.k * d, rest: -dy * s.k * d }),
    };
  },
});

// ---- a body with a rule (the rule is used, the body never differentiated), and a string parameter ----

export function basis(x: number, kind: string): number {
  switch (kind) {
    case "sin":
      return Math.sin(x);
    case "cos":
      return Math.cos(x);
    default:
      return x;
  }
}
registerDerivative(basis, {
  forward: (x, kind, dx) => {
    counts.basisForward++;
    const d = kind === "sin" ? Math.cos(x) : kind === "cos" ? -Math.sin(x) : 1;
    return { value: basis(x, kind), tangent: d * dx };
  },
  reverse: (x, kind) => {
    counts.basisReverse++;
    const d = kind === "sin" ? Math.cos(x) : kind === "cos" ? -Math.sin(x) : 1;
    return { value: basis(x, kind), pullback: (dy) => d * dy };
  },
});

// ---- a typed array in, a typed array out ----

export function squares(xs: Float64Array): Float64Array {
  return xs.map((x) => x * x);
}
registerDerivative(squares, {
  forward: (xs, dxs) => ({ value: squares(xs), tangent: xs.map((x, i) => 2 * x * dxs[i]!) }),
  reverse: (xs) => ({ value: squares(xs), pullback: (dy) => xs.map((x, i) => 2 * x * dy[i]!) }),
});

// ---- the functions the tests differentiate ----

export function lse(xs: number[]): number {
  return logSumExp(xs);
}

export function scalarChain(x: number): number {
  return sigmoid(2 * x) * sigmoid(x) + softplus(x) * smoothAbs(x - 0.3) + besselJ0(x);
}

export function specialLoss(x: number, y: number): number {
  return besselJ0(x) * sigmoid(y) + special.besselJ0(2 * y) * x + besselJ0(1.5) * y;
}

export function weighted(k: number, xs: number[]): number {
  return weightedSquares(k, xs) * sigmoid(k) + weightedSquares(2, xs);
}

export function twoNumbers(a: number, b: number): number {
  return hypot2(a, b) + hypot2(b, 2 * a) * a;
}

export function spring(s: Spring, t: number): number {
  return springEnergy(s) * t + springEnergy({ k: t, x: s.x, rest: 0.5 });
}

/** A recurrence: each step calls three rules, one with an array literal of active values. */
export function loop(x: number, w: number[]): number {
  let h = x;
  for (let i = 0; i < w.length; i++) {
    h = sigmoid(w[i]! * h + logSumExp([h, w[i]!, 0.5 * i])) + 0.1 * softplus(h);
  }
  return h + basis(x, "sin") * basis(x, "cos") + basis(h, "id");
}

export function typed(xs: Float64Array, t: number): number {
  const q = squares(xs);
  let s = 0;
  for (let i = 0; i < q.length; i++) s += q[i]! * Math.sin(t * (i + 1));
  return s + softplus(t) * smoothAbs(xs[0]!);
}

// ---- other operators ----

export const dSigmoid = derivative(sigmoid);
export const gSigmoid = gradient(sigmoid);
export const vdSigmoid = valueWithDerivative(sigmoid);
export const vgSigmoid = valueWithGradient(sigmoid);
export const pSigmoid = pullback(sigmoid);
export const dChain = derivative(scalarChain);
export const vdChain = valueWithDerivative(scalarChain);
export const gWeightedXs = gradient(weighted, { wrt: 1 });
export const gWeightedK = gradient(weighted, { wrt: [0] });
export const dWeightedXs = differential(weighted, { wrt: 1 });
export const dWeightedK = differential(weighted, { wrt: [0] });
export const gTwoB = gradient(twoNumbers, { wrt: 1 });
export const dTwoA = differential(twoNumbers, { wrt: 0 });
export const vdTwo = valueWithDifferential(twoNumbers);
export const vpWeighted = valueWithPullback(weighted);
export const vpLoop = valueWithPullback(loop);
export const gHypot = gradient(hypot2);
export const dHypot = differential(hypot2);
export const gSpringDirect = gradient(springEnergy);
export const gLogSumExp = gradient(logSumExp);
export const dLogSumExp = differential(logSumExp);
`;

// ---------------------------------------------------------------------------------------------
// Cases: a function of the program and how to build its arguments from random numbers.

interface Case {
  name: string;
  /** How many random numbers `build` takes (in [-1, 1]). */
  size: number;
  build: (r: number[]) => unknown[];
  /** Skips calling the pullback more than once (a known bug, with a todo test below). */
  singlePullback?: boolean;
}

const f64 = (xs: number[]) => new Float64Array(xs);

const CASES: Case[] = [
  { name: "lse", size: 4, build: (r) => [r.map((x) => 3 * x)] },
  { name: "scalarChain", size: 1, build: (r) => [2 * r[0]!] },
  { name: "specialLoss", size: 2, build: (r) => [2 * r[0]!, 1.5 * r[1]!] },
  { name: "weighted", size: 4, build: (r) => [r[0]!, r.slice(1)] },
  { name: "twoNumbers", size: 2, build: (r) => [1 + r[0]!, 0.5 + r[1]!] },
  {
    name: "spring",
    size: 4,
    build: (r) => [{ k: 1.5 + r[0]!, x: r[1]!, rest: r[2]! }, 1 + r[3]!],
  },
  { name: "loop", size: 5, build: (r) => [r[0]!, r.slice(1)] },
  // A rule with an array result.
  { name: "typed", size: 4, build: (r) => [f64(r.slice(0, 3)), r[3]!] },
];

function caseExports(): string {
  return CASES.map(
    ({ name }) =>
      `export const g_${name} = gradient(${name});\n` +
      `export const vg_${name} = valueWithGradient(${name});\n` +
      `export const p_${name} = pullback(${name});\n` +
      `export const vp_${name} = valueWithPullback(${name});\n` +
      `export const d_${name} = differential(${name});\n` +
      `export const vd_${name} = valueWithDifferential(${name});\n`,
  ).join("");
}

const FILES: Record<string, string> = {
  "main.ts": MAIN + caseExports(),
  "lib/counters.ts": COUNTERS,
  "lib/softplus.ts": SOFTPLUS,
  "lib/fns.ts": FNS,
  "lib/rules.ts": RULES,
  ...fakeSpecial(),
};

type AnyFn = (...args: unknown[]) => unknown;
type Counts = Record<string, number>;
interface Exports {
  [name: string]: unknown;
  counts: Counts;
  resetCounts: () => void;
}

let loaded: Promise<Exports> | undefined;
function program(): Promise<Exports> {
  loaded ??= loadProgram<Exports>(FILES);
  return loaded;
}

async function get<T = AnyFn>(name: string): Promise<T> {
  const value = (await program())[name];
  assert.equal(typeof value, "function", `the program exports '${name}'`);
  return value as T;
}

// ---------------------------------------------------------------------------------------------
// Values shaped like arguments: numbers, arrays, typed arrays, plain objects

type Key = string | number;
type Path = Key[];

/** The paths of the numbers in a value, in a fixed order. */
function leaves(t: unknown, path: Path = []): Path[] {
  if (typeof t === "number") return [path];
  if (ArrayBuffer.isView(t) || Array.isArray(t)) {
    return Array.from(t as ArrayLike<unknown>, (x, i) => leaves(x, [...path, i])).flat();
  }
  if (t !== null && typeof t === "object") {
    return Object.keys(t).flatMap((k) => leaves((t as Record<string, unknown>)[k], [...path, k]));
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

function deepCopy<T>(v: T): T {
  if (v instanceof Float64Array) return v.slice() as T;
  if (Array.isArray(v)) return v.map(deepCopy) as T;
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deepCopy(x)])) as T;
  }
  return v;
}

/** A value shaped like t, numbers from `next`. */
function randomLike<T>(t: T, next: () => number): T {
  if (typeof t === "number") return next() as T;
  if (t instanceof Float64Array) return Float64Array.from(t, next) as T;
  if (Array.isArray(t)) return t.map((x) => randomLike(x, next)) as T;
  const o: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(t as object)) o[k] = randomLike(x, next);
  return o as T;
}

/** A value shaped like t, each number multiplied by k. */
function scaled<T>(t: T, k: number): T {
  if (typeof t === "number") return (t * k) as T;
  if (t instanceof Float64Array) return t.map((x) => x * k) as T;
  if (Array.isArray(t)) return t.map((x) => scaled(x, k)) as T;
  const o: Record<string, unknown> = {};
  for (const [key, x] of Object.entries(t as object)) o[key] = scaled(x, k);
  return o as T;
}

/** <a, b> over the numbers of a, and the sum of |aᵢ·bᵢ| (its scale). */
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

/** Asserts that two values of the same shape agree number by number. */
function assertAllClose(actual: unknown, expected: unknown, tolerance: number, what: string) {
  const paths = leaves(expected);
  assert.deepEqual(leaves(actual).map(pathText), paths.map(pathText), `${what}: the shape`);
  for (const path of paths) {
    assertClose(getAt(actual, path), getAt(expected, path), tolerance, what + pathText(path));
  }
}

/** A small deterministic generator (mulberry32) of numbers in [-1, 1). */
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

/** Every argument of f is differentiated: one gradient per argument, as a list. */
function perArgument(result: unknown, arity: number): unknown[] {
  return arity === 1 ? [result] : (result as unknown[]);
}

/** The gradient of f at args by central differences, shaped like the arguments. */
function finiteGradient(f: AnyFn, args: () => unknown[]): unknown[] {
  const shape = args();
  const result = deepCopy(shape);
  shape.forEach((arg, i) => {
    for (const path of leaves(arg)) {
      const x = getAt(arg, path);
      const at = (t: number) => {
        const xs = args();
        setAt(xs, [i, ...path], t);
        return f(...xs) as number;
      };
      setAt(result, [i, ...path], centralDifference(at, x));
    }
  });
  return result;
}

// ---------------------------------------------------------------------------------------------
// The checks on every case

const POINTS = 6;

describe("gradient and differential through registered rules: finite differences, forward against reverse", () => {
  for (const c of CASES) {
    test(c.name, async () => {
      const f = await get(c.name);
      const g = await get(`g_${c.name}`);
      const vg = await get<(...a: unknown[]) => { value: number; gradient: unknown }>(
        `vg_${c.name}`,
      );
      const p = await get<(...a: unknown[]) => (w: number) => unknown>(`p_${c.name}`);
      const vp = await get<
        (...a: unknown[]) => { value: number; pullback: (w: number) => unknown }
      >(`vp_${c.name}`);
      const d = await get<(...a: unknown[]) => (...v: unknown[]) => number>(`d_${c.name}`);
      const vd = await get<
        (...a: unknown[]) => { value: number; differential: (...v: unknown[]) => number }
      >(`vd_${c.name}`);
      const next = generator(c.name.length * 7919);
      for (let point = 0; point < POINTS; point++) {
        const r = Array.from({ length: c.size }, next);
        const args = () => c.build(r);
        const arity = args().length;
        const value = f(...args()) as number;

        // (1) The gradient against finite differences of the real function.
        const grads = perArgument(g(...args()), arity);
        assertAllClose(grads, finiteGradient(f, args), 1e-5, `${c.name}: gradient`);

        // The value-returning operators give the function's value and the same derivative.
        const withGradient = vg(...args());
        assertClose(withGradient.value, value, 1e-12, `${c.name}: valueWithGradient value`);
        assert.deepStrictEqual(withGradient.gradient, g(...args()));

        // (2) <J·v, w> = <v, Jᵀ·w>, differential (forward rules) against pullback (reverse).
        const v = grads.map((t) => randomLike(t, next));
        const w = next();
        const forward = d(...args())(...v);
        const back = perArgument(p(...args())(w), arity);
        const products = v.map((vk, k) => dot(vk, back[k]));
        const reverse = products.reduce((s, x) => s + x.value, 0);
        const scale = products.reduce((s, x) => s + x.scale, 0);
        assert.ok(
          Math.abs(forward * w - reverse) <= 1e-9 * Math.max(1, scale),
          `${c.name}: <J·v, w> = ${forward * w} but <v, Jᵀ·w> = ${reverse}`,
        );

        // (3) The differential against a finite difference along v.
        const along = (t: number) => {
          const xs = args();
          xs.forEach((_, i) => {
            for (const path of leaves(v[i])) {
              setAt(xs, [i, ...path], getAt(xs, [i, ...path]) + t * getAt(v[i], path));
            }
          });
          return f(...xs) as number;
        };
        assertClose(forward, centralDifference(along, 0, 1e-6), 1e-5, `${c.name}: J·v`);
        const withDifferential = vd(...args());
        assertClose(withDifferential.value, value, 1e-12, `${c.name}: valueWithDifferential`);
        assertClose(withDifferential.differential(...v), forward, 1e-12, `${c.name}: vd J·v`);

        // (4) A pullback called twice, with different adjoints: linear, and fresh each call.
        const made = vp(...args());
        assertClose(made.value, value, 1e-12, `${c.name}: valueWithPullback value`);
        const once = made.pullback(1);
        assertAllClose(perArgument(once, arity), grads, 1e-12, `${c.name}: pullback(1)`);
        if (c.singlePullback) continue;
        const copy = deepCopy(once);
        const twice = made.pullback(2.5);
        const again = made.pullback(1);
        assert.deepStrictEqual(once, copy, `${c.name}: the first adjoints after more calls`);
        assertAllClose(twice, scaled(once, 2.5), 1e-12, `${c.name}: pullback(2.5)`);
        assertAllClose(again, once, 1e-12, `${c.name}: pullback(1) again`);
      }
    });
  }
});

// ---------------------------------------------------------------------------------------------
// logSumExp

/** The softmax of xs, computed stably. */
function softmax(xs: number[]): number[] {
  const m = Math.max(...xs);
  const e = xs.map((x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}

describe("logSumExp: a numerically stable rule", () => {
  const large = [1000, 1001, 999];
  const expectedValue = 1001 + Math.log(1 + Math.exp(-1) + Math.exp(-2));

  test("its body overflows at [1000, 1001, 999], so the rule is what makes derivatives finite", async () => {
    const logSumExp = await get<(xs: number[]) => number>("logSumExp");
    assert.equal(logSumExp(large), Infinity);
  });

  test("reverse mode at [1000, 1001, 999]: a finite value, and the softmax as gradient", async () => {
    const { value, gradient } = (await get("vg_lse"))(large) as {
      value: number;
      gradient: number[];
    };
    assertClose(value, expectedValue, 1e-14, "value");
    assert.ok(gradient.every(Number.isFinite), `finite: ${gradient}`);
    assertAllClose(gradient, softmax(large), 1e-14, "gradient");
    assertClose(
      gradient.reduce((a, b) => a + b, 0),
      1,
      1e-14,
      "the gradient sums to 1",
    );
    const back = (await get<(xs: number[]) => (w: number) => number[]>("p_lse"))(large);
    assertAllClose(back(-3), scaled(softmax(large), -3), 1e-14, "pullback(-3)");
  });

  test("forward mode at [1000, 1001, 999]: each basis direction gives a softmax entry", async () => {
    const d = (await get<(xs: number[]) => (dxs: number[]) => number>("d_lse"))(large);
    const p = softmax(large);
    for (let i = 0; i < 3; i++) {
      const e = [0, 0, 0];
      e[i] = 1;
      assertClose(d(e), p[i]!, 1e-14, `direction ${i}`);
    }
    // Shifting every input by t changes logSumExp by t: the tangent along (1, 1, 1) is 1.
    assertClose(d([1, 1, 1]), 1, 1e-14, "along (1, 1, 1)");
    const { value } = (await get("vd_lse"))(large) as { value: number };
    assertClose(value, expectedValue, 1e-14, "valueWithDifferential value");
  });

  test("forward and reverse agree, and agree with differences of a stable reference, at large inputs", async () => {
    const reference = (xs: number[]) => {
      const m = Math.max(...xs);
      return m + Math.log(xs.reduce((s, x) => s + Math.exp(x - m), 0));
    };
    for (const xs of [large, [-800, -801.5, -799], [500, 500, 500, 499.5]]) {
      const g = (await get("g_lse"))(xs) as number[];
      const d = (await get<(xs: number[]) => (dxs: number[]) => number>("d_lse"))(xs);
      xs.forEach((x, i) => {
        const e = xs.map((_, j) => (j === i ? 1 : 0));
        assertClose(d(e), g[i]!, 1e-14, `forward ∂/∂x${i} at ${xs}`);
        const fd = centralDifference(
          (t) => reference(xs.map((v, j) => (j === i ? t : v))),
          x,
          1e-4,
        );
        assertClose(g[i]!, fd, 1e-6, `∂/∂x${i} at ${xs}`);
      });
    }
  });

  test("each operator calls its own rule, once per call", async () => {
    const m = await program();
    m.resetCounts();
    (await get("g_lse"))(large);
    assert.deepEqual([m.counts.lseReverse, m.counts.lseForward], [1, 0]);
    (await get("d_lse"))(large);
    assert.deepEqual([m.counts.lseReverse, m.counts.lseForward], [1, 0], "differential(f)(x)");
    (await get<(xs: number[]) => (v: number[]) => number>("d_lse"))(large)([1, 0, 0]);
    assert.deepEqual([m.counts.lseReverse, m.counts.lseForward], [1, 1]);
  });
});

// ---------------------------------------------------------------------------------------------
// sigmoid

describe("sigmoid: a rule whose pullback reuses its output", () => {
  const logistic = (x: number) => 1 / (1 + Math.exp(-x));

  test("gradient and derivative of sigmoid itself: the rule's values, which match differences", async () => {
    const m = await program();
    const d = await get<(x: number) => number>("dSigmoid");
    const g = await get<(x: number) => number>("gSigmoid");
    for (const x of [-3, -0.5, 0, 0.25, 2, 8]) {
      const s = logistic(x);
      const fd = centralDifference(logistic, x);
      m.resetCounts();
      assertClose(g(x), s * (1 - s), 1e-14, `gradient at ${x}`);
      assertClose(d(x), s * (1 - s), 1e-14, `derivative at ${x}`);
      assertClose(g(x), fd, 1e-7, `gradient against differences at ${x}`);
      assert.equal(m.counts.sigmoidReverse, 2, "the reverse rule ran for each gradient");
      assert.equal(m.counts.sigmoidForward, 1, "the forward rule ran for the derivative");
    }
    const vd = (await get("vdSigmoid"))(0.7) as { value: number; derivative: number };
    const vg = (await get("vgSigmoid"))(0.7) as { value: number; gradient: number };
    assertClose(vd.value, logistic(0.7), 1e-15, "valueWithDerivative value");
    assertClose(vg.value, logistic(0.7), 1e-15, "valueWithGradient value");
    assertClose(vd.derivative, vg.gradient, 1e-15, "forward against reverse");
  });

  test("the body runs once per reverse pass; its pullback, called three times, runs it no more", async () => {
    const m = await program();
    const p = await get<(x: number) => (w: number) => number>("pSigmoid");
    m.resetCounts();
    const back = p(1.3);
    assert.deepEqual(
      [m.counts.sigmoidReverse, m.counts.sigmoidBody, m.counts.sigmoidPullback],
      [1, 1, 0],
      "making the pullback: the reverse rule, which computes sigmoid once",
    );
    const s = logistic(1.3);
    assertClose(back(1), s * (1 - s), 1e-15);
    assertClose(back(-2), -2 * s * (1 - s), 1e-15);
    assertClose(back(1), s * (1 - s), 1e-15);
    assert.deepEqual(
      [m.counts.sigmoidReverse, m.counts.sigmoidBody, m.counts.sigmoidPullback],
      [1, 1, 3],
      "three pullback calls: the rule's pullback three times, the body no more",
    );
    assert.equal(m.counts.sigmoidForward, 0);
  });

  test("derivative and gradient of a scalar chain of rules (sigmoid, softplus, smoothAbs, J0) agree", async () => {
    const m = await program();
    const f = await get<(x: number) => number>("scalarChain");
    const d = await get<(x: number) => number>("dChain");
    const g = await get<(x: number) => number>("g_scalarChain");
    for (const x of [-1.7, -0.2, 0.3, 0.9, 2.4]) {
      m.resetCounts();
      const forward = d(x);
      const reverse = g(x);
      assertClose(forward, reverse, 1e-13, `forward against reverse at ${x}`);
      assertClose(reverse, centralDifference(f, x), 1e-6, `against differences at ${x}`);
      const { value, derivative } = (await get("vdChain"))(x) as {
        value: number;
        derivative: number;
      };
      assertClose(value, f(x), 1e-14, `value at ${x}`);
      assertClose(derivative, forward, 1e-14, `valueWithDerivative at ${x}`);
      const c = m.counts;
      assert.deepEqual(
        [c.sigmoidForward, c.softplusForward, c.smoothAbsForward, c.besselForward],
        [4, 2, 2, 2],
        "the forward rules, two calls to sigmoid in each of two derivatives",
      );
      assert.deepEqual(
        [c.sigmoidReverse, c.softplusReverse, c.smoothAbsReverse, c.besselReverse],
        [2, 1, 1, 1],
        "the reverse rules",
      );
    }
  });
});

test("rules that are not the true derivative are what nabla uses, in each mode its own", async () => {
  // A forward rule that triples and a reverse rule that doubles the derivative: what a caller
  // gets is the rule's, not the derivative of the body (which differences give).
  const m = await loadProgram<Record<string, (x: number) => number>>({
    "main.ts": `import { registerDerivative, derivative, gradient } from "nabla";
export function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}
registerDerivative(sigmoid, {
  forward: (x, dx) => {
    const s = sigmoid(x);
    return { value: s, tangent: 3 * dx * s * (1 - s) };
  },
  reverse: (x) => {
    const s = sigmoid(x);
    return { value: s, pullback: (dy) => 2 * dy * s * (1 - s) };
  },
});
export function f(x: number): number {
  return x * sigmoid(x);
}
export const df = derivative(f);
export const gf = gradient(f);
export const dSigmoid = derivative(sigmoid);
export const gSigmoid = gradient(sigmoid);
`,
  });
  for (const x of [-1, 0.5, 2]) {
    const s = 1 / (1 + Math.exp(-x));
    const ds = centralDifference(m.sigmoid!, x);
    assertClose(ds, s * (1 - s), 1e-8, "differences of the body: the true derivative");
    assertClose(m.dSigmoid!(x), 3 * ds, 1e-8, "derivative: the forward rule's");
    assertClose(m.gSigmoid!(x), 2 * ds, 1e-8, "gradient: the reverse rule's");
    assertClose(m.df!(x), s + x * 3 * ds, 1e-8, "the chain rule around the forward rule");
    assertClose(m.gf!(x), s + x * 2 * ds, 1e-8, "the chain rule around the reverse rule");
  }
});

// ---------------------------------------------------------------------------------------------
// A package function known from its .d.ts

describe("a function of a package that ships only a .d.ts", () => {
  test("J0 through its rule: derivatives match differences of the package's own function", async () => {
    const m = await program();
    const J0 = m.besselJ0 as (x: number) => number;
    const J1 = m.besselJ1 as (x: number) => number;
    const f = await get<(x: number, y: number) => number>("specialLoss");
    const g = await get<(x: number, y: number) => [number, number]>("g_specialLoss");
    const d =
      await get<(x: number, y: number) => (dx: number, dy: number) => number>("d_specialLoss");
    for (const [x, y] of [
      [0.3, -0.4],
      [1.7, 0.9],
      [-2.2, 1.4],
    ] as const) {
      assertClose(-J1(x), centralDifference(J0, x), 1e-8, "the fake package: J0' = -J1");
      const [gx, gy] = g(x, y);
      const sig = 1 / (1 + Math.exp(-y));
      assertClose(gx, -J1(x) * sig + J0(2 * y), 1e-13, `∂/∂x at ${x}, ${y}`);
      assertClose(
        gy,
        J0(x) * sig * (1 - sig) - 2 * J1(2 * y) * x + J0(1.5),
        1e-13,
        `∂/∂y at ${x}, ${y}`,
      );
      assertClose(d(x, y)(1, 0), gx, 1e-13, "forward ∂/∂x");
      assertClose(d(x, y)(0, 1), gy, 1e-13, "forward ∂/∂y");
      assertClose(
        gx,
        centralDifference((t) => f(t, y), x),
        1e-6,
        "∂/∂x against differences",
      );
    }
  });

  test("generated code imports the package function it calls from the package", () => {
    const result = compileFiles(FILES);
    assert.equal(diagnosticsText(result), "");
    const main = [...result.outputs].find(([file]) => file.endsWith("main.ts"))![1].code;
    // J0 at a constant (inactive) inside specialLoss's derivatives: called from generated code.
    const generated = main.slice(main.indexOf("derivatives generated by nabla"));
    assert.match(generated, /^import \{[^}]*\bbesselJ0\b[^}]*\} from "fake-special";$/m);
  });

  test("a package without a 'types' field: its index.d.ts, through a namespace import", async () => {
    const m = await loadProgram<Record<string, (x: number) => number>>({
      ...fakeSpecial("special-untyped-manifest", false),
      "main.ts": `import { registerDerivative, derivative, gradient } from "nabla";
import * as sp from "special-untyped-manifest";
import { besselJ0 } from "special-untyped-manifest";
export { besselJ0 };
registerDerivative(besselJ0, {
  forward: (x, dx) => ({ value: besselJ0(x), tangent: -sp.besselJ1(x) * dx }),
  reverse: (x) => ({ value: besselJ0(x), pullback: (dy) => -sp.besselJ1(x) * dy }),
});
export const d = derivative((x: number) => sp.besselJ0(x * x));
export const g = gradient((x: number) => sp.besselJ0(x * x));
`,
    });
    for (const x of [0.4, 1.1, 1.6]) {
      const fd = centralDifference((t) => m.besselJ0!(t * t), x);
      assertClose(m.d!(x), fd, 1e-6, `derivative at ${x}`);
      assertClose(m.g!(x), m.d!(x), 1e-14, `gradient at ${x}`);
    }
  });

  test("without a rule, the package function is still not differentiable (NABLA102)", () => {
    const text = diagnosticsText(
      compileFiles({
        ...fakeSpecial(),
        "main.ts": `import { gradient } from "nabla";
import { besselJ0 } from "fake-special";
export const g = gradient((x: number) => besselJ0(x));
`,
      }),
    );
    assert.match(text, /NABLA102: cannot differentiate 'besselJ0': it comes from package/);
  });
});

// ---------------------------------------------------------------------------------------------
// Rules across files

describe("rules across files", () => {
  test("a rule registered in the function's file, and one in a third file, are used by an importer", async () => {
    const m = await program();
    const g = await get<(x: number) => number>("g_scalarChain");
    const d = await get<(x: number) => number>("dChain");
    m.resetCounts();
    g(0.5);
    assert.equal(m.counts.softplusReverse, 1, "softplus: registered in its own file");
    assert.equal(m.counts.smoothAbsReverse, 1, "smoothAbs: registered in lib/rules.ts");
    d(0.5);
    assert.equal(m.counts.softplusForward, 1);
    assert.equal(m.counts.smoothAbsForward, 1);
  });

  test("the entry only imports the function; the rule's file is imported for its registration", async () => {
    const m = await loadProgram<Record<string, (x: number) => number>>({
      "main.ts": `import { gradient, derivative } from "nabla";
import { cube } from "./cube.ts";
import "./cube-rule.ts";
export const g = gradient((x: number) => 2 * cube(x));
export const d = derivative((x: number) => 2 * cube(x));
`,
      "cube.ts": `export function cube(x: number): number {
  return x * x * x;
}
`,
      // A rule that is off by a factor of 10, so that the test sees it was used.
      "cube-rule.ts": `import { registerDerivative } from "nabla";
import { cube } from "./cube.ts";
registerDerivative(cube, {
  forward: (x, dx) => ({ value: cube(x), tangent: 30 * x * x * dx }),
  reverse: (x) => ({ value: cube(x), pullback: (dy) => 30 * x * x * dy }),
});
`,
    });
    assertClose(m.g!(2), 2 * 30 * 4, 1e-15);
    assertClose(m.d!(2), 2 * 30 * 4, 1e-15);
  });

  test("a rule registered through an aliased import and a namespace import of nabla", async () => {
    const m = await loadProgram<Record<string, (x: number) => number>>({
      "main.ts": `import * as nabla from "nabla";
import { registerDerivative as rule, gradient, derivative } from "nabla";
import { act as tanhAct } from "./act.ts";
function atanAct(x: number): number {
  return Math.atan(x);
}
nabla.registerDerivative(tanhAct, {
  reverse: (x) => ({ value: tanhAct(x), pullback: (dy) => 10 * dy * (1 - Math.tanh(x) ** 2) }),
  forward: (x, dx) => ({ value: tanhAct(x), tangent: 10 * dx * (1 - Math.tanh(x) ** 2) }),
});
rule(atanAct, {
  reverse: (x) => ({ value: atanAct(x), pullback: (dy) => (100 * dy) / (1 + x * x) }),
  forward: (x, dx) => ({ value: atanAct(x), tangent: (100 * dx) / (1 + x * x) }),
});
export const g = gradient((x: number) => tanhAct(x) + atanAct(x));
export const d = derivative((x: number) => tanhAct(x) + atanAct(x));
`,
      "act.ts": `export function act(x: number): number {
  return Math.tanh(x);
}
`,
    });
    const x = 0.5;
    const expected = 10 * (1 - Math.tanh(x) ** 2) + 100 / (1 + x * x);
    assertClose(m.g!(x), expected, 1e-14);
    assertClose(m.d!(x), expected, 1e-14);
  });
});

// ---------------------------------------------------------------------------------------------
// Several parameters, objects, loops, typed arrays

describe("rules with several parameters, objects, loops and typed arrays", () => {
  test("a number and an array: the pullback's tuple, and one argument at a time (wrt)", async () => {
    const m = await program();
    const f = await get<(k: number, xs: number[]) => number>("weighted");
    const [k, xs] = [0.7, [0.5, -1.2, 2]];
    const [gk, gxs] = (await get("g_weighted"))(k, xs) as [number, number[]];
    const sig = 1 / (1 + Math.exp(-k));
    const q = xs.reduce((s, x) => s + x * x, 0);
    assertClose(gk, q * sig + k * q * sig * (1 - sig), 1e-14, "∂/∂k");
    assertAllClose(
      gxs,
      xs.map((x) => 2 * k * x * sig + 4 * x),
      1e-14,
      "∂/∂xs",
    );
    assertAllClose((await get("gWeightedXs"))(k, xs), gxs, 1e-15, "wrt: 1");
    assertClose((await get("gWeightedK"))(k, xs) as number, gk, 1e-15, "wrt: [0]");
    // Forward mode with one argument differentiated: the rule gets a zero tangent for the other.
    const dXs = (await get<AnyFn>("dWeightedXs"))(k, xs) as (v: number[]) => number;
    const dK = (await get<AnyFn>("dWeightedK"))(k, xs) as (v: number) => number;
    assertClose(dXs([1, 0, 0]), gxs[0]!, 1e-14, "differential wrt: 1");
    assertClose(dXs([0, 0.5, -1]), 0.5 * gxs[1]! - gxs[2]!, 1e-14, "differential wrt: 1");
    assertClose(dK(2), 2 * gk, 1e-14, "differential wrt: [0]");
    assertClose(
      gk,
      centralDifference((t) => f(t, xs), k),
      1e-7,
      "∂/∂k against differences",
    );
    m.resetCounts();
    dK(1);
    assert.equal(m.counts.weightedReverse, 0, "forward mode uses no reverse rule");
  });

  test("a pullback through an array rule, called twice: the rule's pullback runs each time, the rule only once", async () => {
    const m = await program();
    m.resetCounts();
    const { value, pullback } = (await get("vpWeighted"))(0.3, [1, 2]) as {
      value: number;
      pullback: (w: number) => [number, number[]];
    };
    assertClose(value, (await get("weighted"))(0.3, [1, 2]) as number, 1e-15);
    const reverseRuns = m.counts.weightedReverse;
    assert.equal(reverseRuns, 2, "weightedSquares is called twice by weighted");
    const first = pullback(1);
    const second = pullback(-1);
    assert.equal(m.counts.weightedReverse, reverseRuns, "making the pullback ran the rules");
    assert.equal(m.counts.weightedPullback, 4);
    assertClose(second[0], -first[0], 1e-15);
    assertAllClose(second[1], scaled(first[1], -1), 1e-15, "second call");
  });

  test("two numbers: the pullback returns a pair; derivatives with respect to each", async () => {
    const gHypot = await get<(a: number, b: number) => [number, number]>("gHypot");
    const dHypot =
      await get<(a: number, b: number) => (da: number, db: number) => number>("dHypot");
    const [ga, gb] = gHypot(3, 4);
    assert.deepEqual([ga, gb], [3 / 5, 4 / 5]);
    assert.equal(dHypot(3, 4)(1, 0), 3 / 5);
    assert.equal(dHypot(3, 4)(0, 2), 8 / 5);
    const f = await get<(a: number, b: number) => number>("twoNumbers");
    const [a, b] = [1.3, -0.6];
    const gb2 = (await get<(a: number, b: number) => number>("gTwoB"))(a, b);
    assertClose(
      gb2,
      centralDifference((t) => f(a, t), b),
      1e-7,
      "gradient wrt: 1",
    );
    const da = (await get<AnyFn>("dTwoA"))(a, b) as (v: number) => number;
    assertClose(
      da(1),
      centralDifference((t) => f(t, b), a),
      1e-7,
      "differential wrt: 0",
    );
    const { value, differential } = (await get("vdTwo"))(a, b) as {
      value: number;
      differential: (da: number, db: number) => number;
    };
    assertClose(value, f(a, b), 1e-15);
    assertClose(differential(0, 1), gb2, 1e-14);
  });

  test("an object parameter: its adjoint is an object with the parameter's keys", async () => {
    const g = await get<(s: object, t: number) => [Record<string, number>, number]>("g_spring");
    const s = { k: 2, x: 0.75, rest: 0.25 };
    const [gs, gt] = g(s, 1.5);
    assert.deepEqual(Object.keys(gs).sort(), ["k", "rest", "x"]);
    // E = ½k(x − rest)²·t + ½t(x − 0.5)².
    assertClose(gs.k!, 0.5 * 0.25 * 1.5, 1e-15, "∂/∂k");
    assertClose(gs.x!, 2 * 0.5 * 1.5 + 1.5 * 0.25, 1e-15, "∂/∂x");
    assertClose(gs.rest!, -2 * 0.5 * 1.5, 1e-15, "∂/∂rest");
    assertClose(gt, 0.5 * 2 * 0.25 + 0.5 * 0.0625, 1e-15, "∂/∂t");
    assert.deepEqual(s, { k: 2, x: 0.75, rest: 0.25 }, "the argument is left alone");
    // The rule's function itself, given to gradient: its adjoint object as is.
    const direct = (await get("gSpringDirect"))(s) as Record<string, number>;
    assert.deepEqual(direct, { k: 0.5 * 0.25, x: 2 * 0.5, rest: -2 * 0.5 });
  });

  test("a rule used in a loop: one rule call per iteration, and a pullback called twice", async () => {
    const m = await program();
    const loop = await get<(x: number, w: number[]) => number>("loop");
    const w = [0.5, -0.3, 0.8, 1.1];
    m.resetCounts();
    const { value, pullback } = (await get("vpLoop"))(0.2, w) as {
      value: number;
      pullback: (a: number) => [number, number[]];
    };
    assert.equal(m.counts.sigmoidReverse, w.length, "sigmoid's reverse rule in each iteration");
    assert.equal(m.counts.lseReverse, w.length, "logSumExp's reverse rule in each iteration");
    assert.equal(m.counts.basisReverse, 3, "basis: three calls after the loop");
    assertClose(value, loop(0.2, w), 1e-15);
    const [gx, gw] = pullback(1);
    const [gx2, gw2] = pullback(1);
    assert.equal(m.counts.sigmoidPullback, 2 * w.length);
    assert.equal(gx2, gx);
    assert.deepEqual(gw2, gw);
    assertClose(
      gx,
      centralDifference((t) => loop(t, w), 0.2),
      1e-6,
      "∂/∂x",
    );
    w.forEach((wi, i) => {
      const fd = centralDifference(
        (t) =>
          loop(
            0.2,
            w.map((v, j) => (i === j ? t : v)),
          ),
        wi,
      );
      assertClose(gw[i]!, fd, 1e-6, `∂/∂w${i}`);
    });
  });

  test("a typed array in and out: the adjoint is a Float64Array", async () => {
    const g = (await get("g_typed"))(new Float64Array([0.5, -1, 2]), 0.3) as [Float64Array, number];
    assert.ok(g[0] instanceof Float64Array, "a Float64Array");
    assert.equal(g[0].length, 3);
  });

  test("the body of a function with a rule is never differentiated: a construct nabla rejects is fine", async () => {
    const basis = `import { registerDerivative, gradient } from "nabla";
function basis(x: number, kind: string): number {
  const tag = String.raw\`\${kind}\`;
  if (tag === "sin") return Math.sin(x);
  return x;
}
`;
    const use = `export const g = gradient((x: number) => basis(x, "sin"));\n`;
    const rule = `registerDerivative(basis, {
  reverse: (x, kind) => ({
    value: basis(x, kind),
    pullback: (dy) => (kind === "sin" ? Math.cos(x) : 1) * dy,
  }),
});
`;
    const without = diagnosticsText(compileFiles({ "main.ts": basis + use }));
    assert.match(without, /NABLA101: a tagged template is not supported/);
    assert.equal(diagnosticsText(compileFiles({ "main.ts": basis + rule + use })), "");
    const m = await loadProgram<{ g: (x: number) => number }>({ "main.ts": basis + rule + use });
    assertClose(m.g(0.4), Math.cos(0.4), 1e-15);
  });
});

test("gradient, valueWithGradient and pullback given a function with a rule and an array parameter", async () => {
  // The rule's function is the root: the operator builds the array's shadow from the
  // function's signature, as its body is not lowered.
  const m = await loadProgram<Record<string, AnyFn>>({
    "main.ts": `import { registerDerivative, gradient, valueWithGradient, pullback } from "nabla";
export function total(k: number, xs: number[]): number {
  let s = 0;
  for (const x of xs) s += k * x;
  return s;
}
registerDerivative(total, {
  reverse: (k, xs) => ({
    value: total(k, xs),
    pullback: (dy) => [dy * xs.reduce((a, b) => a + b, 0), xs.map(() => dy * k)],
  }),
});
export const g = gradient(total);
export const vg = valueWithGradient(total);
export const p = pullback(total);
`,
  });
  assert.deepEqual(m.g!(2, [1, 2]), [3, [2, 2]]);
  assert.deepEqual(m.vg!(2, [1, 2]), { value: 6, gradient: [3, [2, 2]] });
  assert.deepEqual((m.p!(2, [1, 2]) as (w: number) => unknown)(1), [3, [2, 2]]);
  const lse = (await get<(xs: number[]) => number[]>("gLogSumExp"))([1000, 1001, 999]);
  assertAllClose(lse, softmax([1000, 1001, 999]), 1e-14, "gradient(logSumExp)");
  const d = (await get<(xs: number[]) => (v: number[]) => number>("dLogSumExp"))([1, 2, 3]);
  assertClose(d([0, 1, 0]), softmax([1, 2, 3])[1]!, 1e-14, "differential(logSumExp)");
});

// ---------------------------------------------------------------------------------------------
// Run-time checks

test("a pullback that returns an adjoint of the wrong length is a clear error", async () => {
  const m = await loadProgram<Record<string, (xs: number[]) => unknown>>({
    "main.ts": `import { registerDerivative, gradient } from "nabla";
function total(xs: number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s;
}
registerDerivative(total, {
  reverse: (xs) => ({ value: total(xs), pullback: (dy) => [dy] }),
});
export const g = gradient((xs: number[]) => 2 * total(xs));
`,
  });
  assert.throws(() => m.g!([1, 2, 3]), {
    name: "TypeError",
    message: /registered derivative returned a tangent of length 1 for an array of length 3/,
  });
});

// ---------------------------------------------------------------------------------------------
// Bugs found by these tests, fixed: each states what a user should get (`todo` while open).

test("derivative and gradient given a package function with a rule directly", async () => {
  const m = await loadProgram<Record<string, (x: number) => number>>({
    ...fakeSpecial(),
    "main.ts": `import { registerDerivative, derivative, gradient } from "nabla";
import { besselJ0, besselJ1 } from "fake-special";
registerDerivative(besselJ0, {
  forward: (x, dx) => ({ value: besselJ0(x), tangent: -besselJ1(x) * dx }),
  reverse: (x) => ({ value: besselJ0(x), pullback: (dy) => -besselJ1(x) * dy }),
});
export { besselJ1 };
export const d = derivative(besselJ0);
export const g = gradient(besselJ0);
`,
  });
  assert.equal(m.d!(1.2), -m.besselJ1!(1.2));
  assert.equal(m.g!(1.2), -m.besselJ1!(1.2));
});

test("a pullback through a rule with an array result, called twice, gives the same adjoints", async () => {
  const m = await loadProgram<Record<string, AnyFn>>({
    "main.ts": `import { registerDerivative, valueWithPullback } from "nabla";
function squares(xs: number[]): number[] {
  return xs.map((x) => x * x);
}
registerDerivative(squares, {
  reverse: (xs) => ({ value: squares(xs), pullback: (dy) => xs.map((x, i) => 2 * x * dy[i]!) }),
});
function f(xs: number[]): number {
  const y = squares(xs);
  return y[0]! + y[1]!;
}
export const vp = valueWithPullback(f);
`,
  });
  const { pullback } = m.vp!([1, 2]) as { pullback: (w: number) => number[] };
  assert.deepEqual(pullback(1), [2, 4]);
  assert.deepEqual(pullback(1), [2, 4]);
});

test("two functions of the same name from different files, both with rules in one module", async () => {
  const files = {
    "main.ts": `import { registerDerivative, gradient } from "nabla";
import { act as tanhAct } from "./a.ts";
import { act as atanAct } from "./b.ts";
registerDerivative(tanhAct, {
  reverse: (x) => ({ value: tanhAct(x), pullback: (dy) => dy * (1 - Math.tanh(x) ** 2) }),
});
registerDerivative(atanAct, {
  reverse: (x) => ({ value: atanAct(x), pullback: (dy) => dy / (1 + x * x) }),
});
export const g = gradient((x: number) => tanhAct(x) + atanAct(x));
`,
    "a.ts": `export function act(x: number): number {
  return Math.tanh(x);
}
`,
    "b.ts": `export function act(x: number): number {
  return Math.atan(x);
}
`,
  };
  const m = await loadProgram<Record<string, (x: number) => number>>(files);
  assertClose(m.g!(0.5), 1 - Math.tanh(0.5) ** 2 + 1 / 1.25, 1e-14);
});

test("a package whose .d.ts re-exports from './cube.js' (as tsc writes them)", async () => {
  const m = await loadProgram<Record<string, (x: number) => number>>({
    "node_modules/cubes/package.json": `{ "name": "cubes", "type": "module", "main": "dist/index.js", "types": "dist/index.d.ts" }\n`,
    "node_modules/cubes/dist/index.d.ts": `export { cube } from "./cube.js";\n`,
    "node_modules/cubes/dist/cube.d.ts": `export declare function cube(x: number): number;\n`,
    "node_modules/cubes/dist/index.js": `export { cube } from "./cube.js";\n`,
    "node_modules/cubes/dist/cube.js": `export function cube(x) {\n  return x * x * x;\n}\n`,
    "main.ts": `import { registerDerivative, gradient } from "nabla";
import { cube } from "cubes";
registerDerivative(cube, {
  reverse: (x) => ({ value: cube(x), pullback: (dy) => 3 * x * x * dy }),
});
export const g = gradient((x: number) => cube(x));
`,
  });
  assert.equal(m.g!(2), 12);
});

test("a rule used at load time by a module the registering module imports: a clear error", async () => {
  const dir = writeProgram({
    "lib.ts": `export function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}
`,
    "other.ts": `import { gradient } from "nabla";
import { sigmoid } from "./lib.ts";
export const atLoad = gradient((x: number) => sigmoid(x))(0.5);
`,
    "main.ts": `import { registerDerivative } from "nabla";
import { sigmoid } from "./lib.ts";
import { atLoad } from "./other.ts";
registerDerivative(sigmoid, {
  reverse: (x) => ({ value: sigmoid(x), pullback: (dy) => 100 * dy }),
});
export { atLoad };
`,
  });
  // other.ts runs before main.ts reaches its registration: the error says so and what to do.
  await assert.rejects(importCompiled(join(dir, "main.ts")), {
    message:
      /the derivative of 'sigmoid' is registered in main\.ts, which had not run its 'registerDerivative' yet.*Register the derivative before that code runs/,
  });
});

test("'forward: undefined' is not a forward rule", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { registerDerivative, derivative } from "nabla";
function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}
registerDerivative(sigmoid, {
  forward: undefined,
  reverse: (x) => ({ value: sigmoid(x), pullback: (dy) => dy }),
});
export const d = derivative(sigmoid);
`,
    }),
  );
  assert.match(text, /NABLA115/);
});

test("a duplicate registration in another file names that file relative to the program", () => {
  const result = compileFiles({
    "main.ts": `import { registerDerivative } from "nabla";
import { sigmoid } from "./lib.ts";
registerDerivative(sigmoid, {
  forward: (x, dx) => ({ value: sigmoid(x), tangent: dx }),
});
`,
    "lib.ts": `import { registerDerivative } from "nabla";
export function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}
registerDerivative(sigmoid, {
  reverse: (x) => ({ value: sigmoid(x), pullback: (dy) => dy }),
});
`,
  });
  const text = diagnosticsText(result);
  assert.match(text, /NABLA115: 'sigmoid' already has a registered derivative/);
  assert.ok(!text.includes(result.dir), text);
});

// ---------------------------------------------------------------------------------------------
// Review regressions: a rule sees its arguments and its result as they were when it ran.

/** Σ x² over number[] and Float64Array, with reverse rules whose pullbacks read `xs`. */
const SUM_SQ_RULES = `function sumSq(xs: number[]): number {
  let s = 0;
  for (const x of xs) s += x * x;
  return s;
}
registerDerivative(sumSq, {
  reverse: (xs) => ({ value: sumSq(xs), pullback: (dy) => xs.map((x) => 2 * x * dy) }),
});
function sumSqTyped(xs: Float64Array): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i] * xs[i];
  return s;
}
registerDerivative(sumSqTyped, {
  reverse: (xs) => ({ value: sumSqTyped(xs), pullback: (dy) => xs.map((x) => 2 * x * dy) }),
});`;

describe("review regressions", () => {
  test("a reverse rule's pullback does not see later writes to its array argument", async () => {
    const m = await loadProgram<Record<string, (x: number) => number>>({
      "main.ts": `import { gradient, registerDerivative } from "nabla";
${SUM_SQ_RULES}
export function f(x: number): number {
  const xs = [x, 1];
  const a = sumSq(xs);
  xs[0] = 3 * x; // after the call: the pullback must use x, not 3x
  return a + xs[0];
}
export function fTyped(x: number): number {
  const xs = new Float64Array([x, 1]);
  const a = sumSqTyped(xs);
  xs[0] = 3 * x;
  return a + xs[0];
}
export const g = gradient(f);
export const gTyped = gradient(fTyped);
`,
    });
    // f = x² + 1 + 3x: f' = 2x + 3.
    for (const name of ["", "Typed"]) {
      const f = m[`f${name}`]!;
      const g = m[`g${name}`]!;
      assert.equal(g(1), 5, `g${name}(1)`);
      for (const x of [0.7, -1.3]) {
        assertClose(g(x), 2 * x + 3, 1e-15, `g${name}(${x})`);
        assertClose(g(x), centralDifference(f, x), 1e-8, `g${name}(${x}) vs differences`);
      }
    }
  });

  test("a reverse rule's pullback does not see the caller's writes to the array it returned", async () => {
    const m = await loadProgram<Record<string, (x: number) => number>>({
      "main.ts": `import { gradient, derivative, registerDerivative } from "nabla";
function scale2(xs: number[]): number[] {
  return xs.map((x) => 2 * x);
}
// Both rules compute 2·(the seed) through the result y: y[i] / xs[i] = 2.
registerDerivative(scale2, {
  forward: (xs, dxs) => {
    const y = scale2(xs);
    return { value: y, tangent: dxs.map((d, i) => (d * y[i]) / xs[i]) };
  },
  reverse: (xs) => {
    const y = scale2(xs);
    return { value: y, pullback: (a) => a.map((ai, i) => (ai * y[i]) / xs[i]) };
  },
});
export function f(x: number): number {
  const y = scale2([x, 1]);
  y[0] += 10; // the caller writes into the result
  return y[0];
}
export function f2(x: number): number {
  const y = scale2([x, 1]);
  y[0] += 10;
  y[0] *= x;
  return y[0] + y[1];
}
export const g = gradient(f);
export const g2 = gradient(f2);
export const d2 = derivative(f2);
`,
    });
    assert.equal(m.f!(1), 12);
    assert.equal(m.g!(1), 2);
    assertClose(m.g!(0.7), centralDifference(m.f!, 0.7), 1e-8, "g vs differences");
    // f2 = (2x + 10)·x + 2: f2' = 4x + 10.
    for (const x of [0.7, -1.3]) {
      assertClose(m.g2!(x), 4 * x + 10, 1e-14, `g2(${x})`);
      assertClose(m.d2!(x), 4 * x + 10, 1e-14, `d2(${x})`);
      assertClose(m.g2!(x), centralDifference(m.f2!, x), 1e-8, `g2(${x}) vs differences`);
    }
  });

  test("pullback(f)(arr), then a write to arr: the pullback is at the arr it was given", async () => {
    const m = await loadProgram<Record<string, AnyFn>>({
      "main.ts": `import { pullback, valueWithPullback, registerDerivative } from "nabla";
${SUM_SQ_RULES}
function scale2(xs: number[]): number[] {
  return xs.map((x) => 2 * x);
}
registerDerivative(scale2, {
  reverse: (xs) => {
    const y = scale2(xs);
    return { value: y, pullback: (a) => a.map((ai, i) => (ai * y[i]) / xs[i]) };
  },
});
export const pb = pullback(sumSq);
export const pbTyped = pullback(sumSqTyped);
export const pbCaller = pullback((xs: number[]) => 3 * sumSq(xs));
export const vpScale = valueWithPullback(scale2);
`,
    });
    const arr = [1, 2];
    const back = m.pb!(arr) as (w: number) => number[];
    arr[0] = 100;
    assert.deepEqual(back(1), [2, 4]);
    const typed = f64([1, 2]);
    const backTyped = m.pbTyped!(typed) as (w: number) => Float64Array;
    typed[0] = 100;
    assert.deepEqual(Array.from(backTyped(1)), [2, 4]);
    const arr2 = [1, 2];
    const backCaller = m.pbCaller!(arr2) as (w: number) => number[];
    arr2[0] = 100;
    arr2[1] = -5;
    assert.deepEqual(backCaller(1), [6, 12]);
    assert.deepEqual(backCaller(2), [12, 24]);
    // The value handed back and the argument are both written before the pullback runs.
    const xs = [1, 2];
    const { value, pullback } = m.vpScale!(xs) as {
      value: number[];
      pullback: (w: number[]) => number[];
    };
    assert.deepEqual(value, [2, 4]);
    value[0] = 100;
    xs[1] = 7;
    assert.deepEqual(pullback([1, 1]), [2, 2]);
  });

  test("a forward rule returning its input tangent as the tangent of a copy", async () => {
    const m = await loadProgram<Record<string, AnyFn>>({
      "main.ts": `import { derivative, gradient, differential, registerDerivative } from "nabla";
function copyOf(a: number[]): number[] {
  return a.slice();
}
registerDerivative(copyOf, {
  forward: (a, da) => ({ value: a.slice(), tangent: da }), // the tangent of a copy is da
  reverse: (a) => ({ value: a.slice(), pullback: (d) => d }),
});
function copyOfTyped(a: Float64Array): Float64Array {
  return a.slice();
}
registerDerivative(copyOfTyped, {
  forward: (a, da) => ({ value: a.slice(), tangent: da }),
  reverse: (a) => ({ value: a.slice(), pullback: (d) => d }),
});
export function f(x: number): number {
  const a = [x, x];
  const b = copyOf(a);
  b[0] *= 3; // the caller writes its copy
  return a[0] + b[0];
}
export function f2(x: number): number {
  const a = [x, x];
  const b = copyOf(a);
  b[0] *= 3;
  a[1] *= 5; // and the original
  return a[0] + b[0] + a[1] * b[1];
}
export function f2Typed(x: number): number {
  const a = new Float64Array([x, x]);
  const b = copyOfTyped(a);
  b[0] *= 3;
  a[1] *= 5;
  return a[0] + b[0] + a[1] * b[1];
}
export function k(xs: number[]): number[] {
  const b = copyOf(xs);
  b[0] *= 3;
  return [xs[0] + b[0], b[1]];
}
export const d = derivative(f);
export const d2 = derivative(f2);
export const g2 = gradient(f2);
export const d2Typed = derivative(f2Typed);
export const g2Typed = gradient(f2Typed);
export const dk = differential(k);
`,
    });
    const num = (name: string) => m[name] as (x: number) => number;
    // f = 4x; f2 = 4x + 5x².
    assert.equal(num("d")(2), 4);
    assertClose(num("d")(2), centralDifference(num("f"), 2), 1e-8, "d vs differences");
    for (const x of [0.7, -1.3]) {
      for (const name of ["d2", "g2", "d2Typed", "g2Typed"]) {
        assertClose(num(name)(x), 4 + 10 * x, 1e-14, `${name}(${x})`);
        const f = num(name.endsWith("Typed") ? "f2Typed" : "f2");
        assertClose(num(name)(x), centralDifference(f, x), 1e-8, `${name}(${x}) vs differences`);
      }
    }
    // k = [4·xs[0], xs[1]]: its differential along [1, 1] is [4, 1].
    const dk = m.dk!([1, 2]) as (v: number[]) => number[];
    assert.deepEqual(dk([1, 1]), [4, 1]);
  });
});
