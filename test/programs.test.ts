import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import fc from "fast-check";
import {
  FIXTURES,
  assertClose,
  importCompiled,
  loadProgram,
  type Derivative,
  type Differential,
  type Fn,
  type ValueWithDerivative,
  type ValueWithDifferential,
} from "./support/harness.js";

// Realistic programs — branches, logical operators, loops with early exits, recursion,
// several files — differentiated by nabla and checked against finite differences at random
// points (fast-check) and against closed forms where one exists. Most programs live in one
// source below, compiled once; the multi-file program lives in test/fixtures/programs.

// Show the failing assertion's message along with the counterexample.
fc.configureGlobal({ includeErrorInReport: true });

const RUNS = 200;

// ---------------------------------------------------------------------------------------------
// Finite differences on piecewise programs

/**
 * Central difference of f in coordinate i at xs; undefined where f is not smooth within the
 * step, where there is no derivative to compare with. With steps h and h/4, a smooth f has
 * central differences that agree and a second difference that scales by 4; a jump or a kink
 * of any size that matters breaks one or the other (a kink right at x, the second).
 */
function smoothPartial(f: Fn, xs: number[], i: number): number | undefined {
  const x = xs[i]!;
  const h = 1e-6 * Math.max(1, Math.abs(x));
  const at = (t: number) => f(...xs.map((v, j) => (j === i ? t : v)));
  const [hi, lo, hi4, lo4] = [x + h, x - h, x + h / 4, x - h / 4];
  const [f0, fHi, fLo, fHi4, fLo4] = [at(x), at(hi), at(lo), at(hi4), at(lo4)];
  const central = (fHi - fLo) / (hi - lo);
  const central4 = (fHi4 - fLo4) / (hi4 - lo4);
  const curvature = (fHi - f0) / (hi - x) - (f0 - fLo) / (x - lo);
  const curvature4 = (fHi4 - f0) / (hi4 - x) - (f0 - fLo4) / (x - lo4);
  // Rounding: a few ulps of f, divided by the step, amplified a little by the combinations.
  const noise = (100 * Number.EPSILON * Math.max(...[f0, fHi, fLo].map(Math.abs))) / h;
  const allowed = 1e-7 * Math.max(1, Math.abs(central)) + noise;
  if (!(Math.abs(central - central4) <= allowed)) return undefined;
  if (!(Math.abs(curvature - 4 * curvature4) <= allowed)) return undefined;
  return central;
}

/** Checks ∂f/∂x_i for each i in wrt at random points where f is smooth. */
function checkPartials(
  what: string,
  f: Fn,
  partial: (xs: number[], i: number) => number,
  points: fc.Arbitrary<number[]>,
  wrt: number[],
  { runs = RUNS, tolerance = 1e-5 } = {},
): void {
  fc.assert(
    fc.property(points, (xs) => {
      for (const i of wrt) {
        const fd = smoothPartial(f, xs, i);
        fc.pre(fd !== undefined);
        assertClose(partial(xs, i), fd!, tolerance, `${what}: ∂${i} at (${xs.join(", ")})`);
      }
    }),
    { numRuns: runs },
  );
}

/** The partials of a `derivative` (one argument). */
const viaDerivative = (d: Derivative) => (xs: number[]) => d(xs[0]!);

/** The partials of a `differential` whose tangents come in `wrt` order. */
const viaDifferential = (d: Differential, wrt: number[]) => (xs: number[], i: number) =>
  d(...xs)(...wrt.map((j) => (j === i ? 1 : 0)));

/**
 * Uniform on [min, max]. fc.double alone is uniform over representable doubles, so most of its
 * values are tiny; it is mixed in for its special values (0, -0, bounds, subnormals).
 */
const uniform = (min: number, max: number) =>
  fc.integer({ min: 0, max: 2 ** 30 }).map((k) => min + ((max - min) * k) / 2 ** 30);
const range = (min: number, max: number) =>
  fc.oneof(
    { arbitrary: uniform(min, max), weight: 4 },
    { arbitrary: fc.double({ min, max, noNaN: true }), weight: 1 },
  );
const points = (...ranges: [number, number][]) =>
  fc.tuple(...ranges.map(([min, max]) => range(min, max)));
/** A number and an integer (an inactive count). */
const withCount = (min: number, max: number, countMin: number, countMax: number) =>
  fc.tuple(range(min, max), fc.integer({ min: countMin, max: countMax }));

function assertZero(v: number, what: string): void {
  assert.ok(v === 0, `${what}: expected 0, got ${v}`);
}

/** Exact comparison of number lists, with 0 and -0 equal (assert.deepEqual tells them apart). */
function assertValues(actual: number[], expected: number[], what = "values"): void {
  const same = actual.length === expected.length && actual.every((a, i) => a === expected[i]);
  assert.ok(same, `${what}: expected [${expected.join(", ")}], got [${actual.join(", ")}]`);
}

// ---------------------------------------------------------------------------------------------
// The program

const PROGRAM = `
import { derivative, valueWithDerivative, differential, valueWithDifferential, withoutDerivative, gradient, pullback, tapeStats } from "nabla";

const GRAVITY = 9.81;
const HALF: number = 0.5;
const STEPS = 4;
const ENABLED = true;
const LIMIT = 1e3;
const TURN = 2 * Math.PI;
const HALF_TURN = TURN / 2;

// ---- branches ----

export function piecewise(x: number): number {
  if (x < -2) {
    return -x * x;
  } else if (x < 0) {
    return 3 * Math.sin(x) + 4 * Math.sin(-2);
  } else if (x < 2) {
    let y = x * x;
    if (y > 1) {
      y = y * x;
    } else {
      y -= x;
    }
    return y;
  }
  return Math.exp(x / 4);
}
export const dPiecewise = derivative(piecewise);

export function nested(x: number, y: number): number {
  let r = 0;
  if (x > 0) {
    if (y > 0) r = x * y;
    else if (y > -1) r = x - y * y;
    else r = Math.log(x) * y;
  } else {
    if (y > x) {
      r = Math.sin(x + y);
    }
    r += x;
  }
  return r;
}
export const dNested = differential(nested);

export const clamp = (x: number, lo: number, hi: number): number => (x < lo ? lo : x > hi ? hi : x);
export const dClamp = differential(clamp);

export function sigmoid(x: number): number {
  const s = x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
  return x > 40 ? 1 : s;
}
export const dSigmoid = derivative(sigmoid);

export function partialReturn(x: number): number {
  if (x > 0) {
    if (x > 1) return 1 / x;
  } else return 2 * x;
  return x * x;
}
export const dPartialReturn = derivative(partialReturn);

// ---- logical operators ----

export function orDefault(x: number, y: number): number {
  return (x || y) * 2;
}
export const dOrDefault = differential(orDefault);

export function andThen(x: number, y: number): number {
  return (x && y) + x;
}
export const dAndThen = differential(andThen);

export function nullish(x: number, y: number): number {
  return (x ?? y) * y;
}
export const dNullish = differential(nullish);

export function notZero(x: number, y: number): number {
  return !x ? y * y : x * y;
}
export const dNotZero = differential(notZero);

export function regions(x: number, y: number): number {
  const big = x > 1;
  const positive = y > 0;
  if (big && positive) return x * y;
  if (big || positive) return x + y;
  if (!big && !(x < -1 || y < -1)) return x * x;
  return y * y * y;
}
export const dRegions = differential(regions);

export function equalities(x: number, y: number): number {
  const a = x > 0;
  const b = y > 0;
  if (a == b) return x * y;
  if (a != b && x !== y) return x - y;
  return 0;
}
export const dEqualities = differential(equalities);

export function declaredLater(x: number, y: number): number {
  let z: number;
  if (x > y) z = x - y;
  else z = y * y;
  let flag: boolean = z > 1;
  flag = flag === x > 0;
  return flag ? z : -z;
}
export const dDeclaredLater = differential(declaredLater);

// ---- loops and early exits ----

export function firstAbove(x: number, threshold: number): number {
  let s = x;
  for (let i = 0; i < 100; i++) {
    s = s * 1.5 + 0.1;
    if (s > threshold) return s * i;
  }
  return -s;
}
export const dFirstAbove = differential(firstAbove);

export function coshSeries(x: number, n: number): number {
  let term = 1;
  let sum = 0;
  for (let k = 0; k < n; k++) {
    if (k > 0) term = (term * x) / k;
    if (k % 2 === 1) continue;
    sum += term;
    if (Math.abs(term) < 1e-300) break;
  }
  return sum;
}
export const dCoshSeries = differential(coshSeries, { wrt: [0] });

export function newtonSqrt(a: number): number {
  let x = a > 1 ? a : 1;
  let iterations = 0;
  while (Math.abs(x * x - a) > 1e-15 * a && iterations < 100) {
    x = 0.5 * (x + a / x);
    iterations++;
  }
  return x;
}
export const dNewtonSqrt = derivative(newtonSqrt);

export function grow(x: number, target: number): number {
  let v = x;
  let steps = 0;
  do {
    steps++;
    if (steps % 3 === 0) continue;
    v *= 1.1;
    v += 0.01 * x;
  } while (v < target && steps < 50);
  return v + steps;
}
export const dGrow = differential(grow, { wrt: [0] });

export function grid(x: number, n: number): number {
  let acc = 0;
  outer: for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (j > i) continue outer;
      if (i * j > 12) break outer;
      acc += Math.sin(x * i + j);
    }
  }
  return acc;
}
export const dGrid = differential(grid, { wrt: [0] });

export function searchReturn(x: number, limit: number): number {
  let total = 0;
  outer: for (let i = 1; i <= 5; i++) {
    let j = 0;
    while (true) {
      j++;
      if (j > i) continue outer;
      total += x * j;
      if (total > limit) return total * 2;
      if (total < -limit) break outer;
    }
  }
  const scaled = total / 3;
  return scaled + x;
}
export const dSearchReturn = differential(searchReturn, { wrt: [0] });

export function mantissa(x: number): number {
  let m = x;
  while (m >= 2) m /= 2;
  while (m < 1) m *= 2;
  return m;
}
export const dMantissa = derivative(mantissa);

export function forever(x: number): number {
  let y = x;
  let n = 0;
  for (;;) {
    y = Math.sin(y) + x;
    n++;
    if (n >= 5) break;
  }
  return y;
}
export const dForever = derivative(forever);

export function skipAhead(x: number, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) {
    if (i % 3 === 0) {
      i += 1;
      continue;
    }
    s += Math.cos(x * i);
  }
  return s;
}
export const dSkipAhead = differential(skipAhead, { wrt: [0] });

export function doBreak(x: number): number {
  let s = x;
  let k = 0;
  do {
    s = s * s * 0.5 + 0.1;
    k += 1;
    if (s > 5) break;
  } while (k < 6);
  return s * k;
}
export const dDoBreak = derivative(doBreak);

export function doReturn(x: number): number {
  let v = x;
  do {
    v = v * 0.5 + 1;
    if (v < 0.5) return v * v;
  } while (v > 2.1);
  return v;
}
export const dDoReturn = derivative(doReturn);

export function oddPowers(x: number, n: number): number {
  let i = 0;
  let acc = 0;
  while (i < n) {
    i++;
    if (i % 2 === 0) continue;
    acc += x ** i;
    if (acc > LIMIT) return acc;
  }
  return -acc;
}
export const dOddPowers = differential(oddPowers, { wrt: [0] });

export function incrementInTest(x: number, n: number): number {
  let i = 0;
  let s = x;
  while (i++ < n) s = s * x + i;
  return s + i;
}
export const dIncrementInTest = differential(incrementInTest, { wrt: [0] });

function step(x: number, i: number): number {
  return x * i;
}
export function callInTest(x: number): number {
  let i = 0;
  let s = 0;
  while (step(x, i) < 10 && i < 50) {
    s += step(x, i) * x;
    i++;
  }
  return s;
}
export const dCallInTest = derivative(callInTest);

export function minOverLoop(x: number): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) best = Math.min(best, (x - i) * (x - i));
  return best;
}
export const dMinOverLoop = derivative(minOverLoop);

// ---- assignments ----

export function compound(x: number, y: number): number {
  let a = x;
  a += y;
  a *= x;
  a -= 2 * y;
  a /= 1 + y * y;
  a **= 2;
  let b = a;
  b %= 3;
  let k = x;
  k++;
  ++k;
  k--;
  const j = k++ * y;
  return a + b + k + j + --k;
}
export const dCompound = differential(compound);

export function remainder(x: number, y: number): number {
  return x % y;
}
export const dRemainder = differential(remainder);

export function paramWrites(x: number, y: number): number {
  x *= 2;
  y = x + y;
  x++;
  const z = (x = x * y) + 1;
  return x + z + y;
}
export const dParamWrites = differential(paramWrites);

export function chained(x: number): number {
  let a = 0;
  let b = 0;
  a = b = x * 3;
  b += a;
  return a * b;
}
export const dChained = derivative(chained);

export function assignInCondition(x: number, y: number): number {
  let z = 0;
  if (x > 0 && (z = x * y) > 1) return z * z;
  return z + x;
}
export const dAssignInCondition = differential(assignInCondition);

export function assignInTernary(x: number, y: number): number {
  let a = 1;
  let b = 1;
  const c = x > y ? (a = x * 2) : (b = y * 3);
  return a * b + c;
}
export const dAssignInTernary = differential(assignInTernary);

export function shadowing(x: number, y: number): number {
  let total = x;
  {
    const x = 2 * y;
    total += x;
  }
  for (let i = 0; i < 2; i++) {
    const doubled = total * 2;
    let y = doubled + x;
    total = y;
  }
  return total * y;
}
export const dShadowing = differential(shadowing);

export function generatedLookingNames(x: number, dx: number, t: number): number {
  const dt = x * 2;
  let result = dt * t;
  const returned = result + dx;
  for (let i = 0; i < 3; i++) {
    const i_next = i * x;
    result += i_next;
  }
  return result * returned + Math.exp(t * x);
}
export const dGeneratedLookingNames = differential(generatedLookingNames, { wrt: [0, 2] });

// ---- recursion ----

export function factorialScaled(x: number, n: number): number {
  return n <= 1 ? x : n * factorialScaled(x, n - 1);
}
export const dFactorialScaled = differential(factorialScaled, { wrt: [0] });

export function powBySquaring(x: number, n: number): number {
  if (n < 0) return 1 / powBySquaring(x, -n);
  if (n === 0) return 1;
  if (n % 2 === 0) {
    const h = powBySquaring(x, n / 2);
    return h * h;
  }
  return x * powBySquaring(x, n - 1);
}
export const dPowBySquaring = differential(powBySquaring, { wrt: [0] });

export function evenPart(x: number, n: number): number {
  return n <= 0 ? x : oddPart(Math.sin(x), n - 1);
}
export function oddPart(x: number, n: number): number {
  return n <= 0 ? x : evenPart(x * x + 0.5, n - 1);
}
export const dEvenPart = differential(evenPart, { wrt: [0] });

export function swapper(x: number, y: number, n: number): number {
  return n <= 0 ? x * 2 + y : swapper(y * y, x, n - 1);
}
export const dSwapper = differential((a: number, b: number) => swapper(a, b, 5), { wrt: [0] });

export function recursiveSearch(x: number, depth: number): number {
  for (let i = 0; i < 3; i++) {
    if (x * i > 2) return depth <= 0 ? x * i : recursiveSearch(x * 0.7, depth - 1) + x;
  }
  return x * x;
}
export const dRecursiveSearch = differential(recursiveSearch, { wrt: [0] });

// ---- constants, inactive arguments, withoutDerivative ----

export function fall(t: number, v0: number): number {
  return v0 * t - HALF * GRAVITY * t * t;
}
export const dFall = differential(fall);

export function arc(r: number, fraction: number): number {
  return fraction < 0.5 ? TURN * r * fraction : HALF_TURN * r + TURN * r * (fraction - 0.5);
}
export const dArc = differential(arc);

export function repeated(x: number, square: boolean, times: number): number {
  let r = x;
  for (let i = 0; i < times && ENABLED; i++) r = square ? r * r : r + 1;
  return r;
}
export const dRepeated = differential(repeated, { wrt: [0] });
export const dRepeatedConstants = derivative((x: number) => repeated(x, true, STEPS) + repeated(x, false, 3));

export function isBig(x: number): boolean {
  return x > 10 || x < -10;
}
export function scaled(x: number, k: number): number {
  return isBig(x) ? x / k : x * k;
}
export function usesPredicates(x: number, c: number): number {
  return scaled(x, c) + scaled(c, x) + scaled(2, 3) * x + withoutDerivative(scaled(x, x));
}
export const dUsesPredicates = differential(usesPredicates, { wrt: [0] });

export function stopped(x: number, y: number): number {
  return withoutDerivative(x * y) * x + y;
}
export const dStopped = differential(stopped);
export const dDetachedIdentity = derivative((x: number) => withoutDerivative(x));
export const dDetachedSquare = derivative((x: number) => withoutDerivative(x) * x);

export function detachInLoop(x: number): number {
  let s = x;
  for (let i = 0; i < 3; i++) s = withoutDerivative(s) * x + s;
  return s;
}
export const dDetachInLoop = derivative(detachInLoop);

// ---- operators and wrt orders ----

export function three(a: number, b: number, c: number): number {
  return a * a * b + Math.sin(c) * b + c / a;
}
export const d3_20 = differential(three, { wrt: [2, 0] });
export const d3_1 = differential(three, { wrt: 1 });
export const d3_all = differential(three);
export const d3_210 = differential(three, { wrt: [2, 1, 0] });
export const d3_12 = differential(three, { wrt: [1, 2] });
export const v3_12 = valueWithDifferential(three, { wrt: [1, 2] });
export const v3_20 = valueWithDifferential(three, { wrt: [2, 0] });
export const v3_all = valueWithDifferential(three);
export const vSigmoid = valueWithDerivative(sigmoid);

export const cube = derivative((x: number) => x * x * x);
export const cubeUnannotated = derivative((x) => x * x * x);
export const cubeValue = valueWithDerivative((x: number) => x * x * x);
export const cubeBlock = derivative((x: number) => {
  let y = 1;
  for (let i = 0; i < 3; i++) y *= x;
  return y;
});
export const cubeFunctionExpression = derivative(function (x: number) {
  return x * x * x;
});

export const ratio = function (x: number, y: number): number {
  return x / y + y / x;
};
export const dRatio = differential(ratio, { wrt: [1, 0] });

export function literals(x: number): number {
  return 1e3 * x + 0x10 * x + 1_000 * x + 0.5 * x + .25 * x + 0b11 * x;
}
export const dLiterals = derivative(literals);

/** The tape height, to check that reverse mode leaves the tape as it found it. */
export function tapeSize(): number {
  return tapeStats().size;
}
`;

// ---------------------------------------------------------------------------------------------
// Reverse mode on the same program

/**
 * A function of the program differentiated in reverse mode too. The program gets
 * `g_<key> = gradient(f, { wrt })`, `p_<key> = pullback(f, { wrt })` and
 * `j_<key> = differential(f, { wrt })` for it (see `reverseExports`).
 */
interface ReverseCase {
  /** Names the generated exports. */
  key: string;
  /** The exported function (for a lambda, the name it is also exported under). */
  f: string;
  /** A lambda written inside the operator calls instead of the name. */
  lambda?: string;
  wrt: number[];
  points: fc.Arbitrary<number[]>;
  /**
   * What finite differences are compared with: `f` by default; false where a value is held by
   * `withoutDerivative` (known values check those instead).
   */
  reference?: ((m: Exports) => Fn) | false;
}

const reverseCase = (
  f: string,
  wrt: number[],
  points: fc.Arbitrary<number[]>,
  more: Partial<ReverseCase> = {},
): ReverseCase => ({ key: `${f}_${wrt.join("")}`, f, wrt, points, ...more });

/** A number, a boolean passed where a number is expected by the test types, and a count. */
const withFlag = fc.tuple(
  range(-1.5, 1.5),
  fc.boolean().map((b) => b as unknown as number),
  fc.integer({ min: 0, max: 5 }),
);

/** Every function of PROGRAM, with the `wrt` lists of the forward tests (and some more). */
const REVERSE_CASES: ReverseCase[] = [
  // branches
  reverseCase("piecewise", [0], points([-6, 6])),
  reverseCase("nested", [0, 1], points([-3, 3], [-3, 3])),
  reverseCase("clamp", [0, 1, 2], points([-5, 5], [-3, -0.1], [0.1, 3])),
  reverseCase("clamp", [2, 0], points([-5, 5], [-3, -0.1], [0.1, 3])),
  reverseCase("sigmoid", [0], points([-30, 30])),
  reverseCase("partialReturn", [0], points([-4, 4])),
  // logical operators
  reverseCase(
    "orDefault",
    [0, 1],
    points([-3, 3], [-3, 3]).filter(([x]) => x !== 0),
  ),
  reverseCase(
    "andThen",
    [0, 1],
    points([-3, 3], [-3, 3]).filter(([x]) => x !== 0),
  ),
  reverseCase("nullish", [0, 1], points([-5, 5], [-5, 5])),
  reverseCase("notZero", [0, 1], points([-3, 3], [-3, 3])),
  reverseCase("regions", [0, 1], points([-3, 3], [-3, 3])),
  reverseCase("equalities", [0, 1], points([-3, 3], [-3, 3])),
  reverseCase("declaredLater", [0, 1], points([-3, 3], [-3, 3])),
  // loops and early exits
  reverseCase("firstAbove", [0, 1], points([-2, 5], [-10, 100])),
  reverseCase("coshSeries", [0], withCount(-4, 4, 0, 30)),
  reverseCase("newtonSqrt", [0], points([1e-3, 1e6])),
  reverseCase("grow", [0, 1], points([0.1, 10], [0, 50])),
  reverseCase("grid", [0], withCount(-3, 3, 0, 8)),
  reverseCase("searchReturn", [0, 1], points([-3, 3], [0, 30])),
  reverseCase("mantissa", [0], points([1e-3, 1e6])),
  reverseCase("forever", [0], points([-3, 3])),
  reverseCase("skipAhead", [0], withCount(-3, 3, 0, 12)),
  reverseCase("doBreak", [0], points([-2, 3])),
  reverseCase("doReturn", [0], points([-10, 100])),
  reverseCase("oddPowers", [0], withCount(-3, 5, 0, 12)),
  reverseCase("incrementInTest", [0], withCount(-2, 2, 0, 8)),
  reverseCase("callInTest", [0], points([0.1, 3])),
  reverseCase("minOverLoop", [0], points([-2, 4])),
  // assignments
  reverseCase("compound", [0, 1], points([-3, 3], [-3, 3])),
  reverseCase("remainder", [0, 1], points([-50, 50], [0.5, 10])),
  reverseCase("paramWrites", [0, 1], points([-3, 3], [-3, 3])),
  reverseCase("chained", [0], points([-10, 10])),
  reverseCase("assignInCondition", [0, 1], points([-3, 3], [-3, 3])),
  reverseCase("assignInTernary", [0, 1], points([-3, 3], [-3, 3])),
  reverseCase("shadowing", [0, 1], points([-3, 3], [-3, 3])),
  reverseCase("generatedLookingNames", [0, 2], points([-2, 2], [-2, 2], [-2, 2])),
  reverseCase("generatedLookingNames", [0, 1, 2], points([-2, 2], [-2, 2], [-2, 2])),
  // recursion
  reverseCase("factorialScaled", [0], withCount(-2, 2, 0, 15)),
  reverseCase("powBySquaring", [0], withCount(-3, 3, 0, 12)),
  reverseCase("powBySquaring", [0], withCount(0.2, 3, -12, 12), { key: "powBySquaringNegative" }),
  reverseCase("evenPart", [0], withCount(-3, 3, 0, 9)),
  reverseCase("oddPart", [0], withCount(-3, 3, 0, 9)),
  reverseCase("swapper", [0, 1], fc.tuple(range(-1.5, 1.5), range(-1.5, 1.5), fc.nat(6))),
  reverseCase("swapperOf5", [0], points([-1.5, 1.5], [-1.5, 1.5]), {
    lambda: "(a: number, b: number) => swapper(a, b, 5)",
  }),
  reverseCase("recursiveSearch", [0], withCount(-2, 8, 0, 5)),
  // constants, inactive arguments and withoutDerivative
  reverseCase("fall", [0, 1], points([0, 10], [-20, 20])),
  reverseCase("arc", [0, 1], points([0, 10], [0, 1])),
  reverseCase("repeated", [0], withFlag),
  reverseCase("repeatedConstants", [0], points([-1.2, 1.2]), {
    lambda: "(x: number) => repeated(x, true, STEPS) + repeated(x, false, 3)",
  }),
  reverseCase("scaled", [0, 1], points([-20, 20], [0.5, 20])),
  reverseCase("usesPredicates", [0], points([-20, 20], [0.5, 20]), {
    // withoutDerivative(scaled(x, x)) is held at its value: left out of the reference.
    reference: (m) => {
      const scaled = m.scaled as Fn;
      return (x, c) => scaled(x!, c!) + scaled(c!, x!) + scaled(2, 3) * x!;
    },
  }),
  reverseCase("stopped", [0, 1], points([-5, 5], [-5, 5]), { reference: false }),
  reverseCase("detachedIdentity", [0], points([-5, 5]), {
    lambda: "(x: number) => withoutDerivative(x)",
    reference: false,
  }),
  reverseCase("detachedSquare", [0], points([-5, 5]), {
    lambda: "(x: number) => withoutDerivative(x) * x",
    reference: false,
  }),
  reverseCase("detachInLoop", [0], points([-3, 3]), { reference: false }),
  // operators and wrt orders
  reverseCase("three", [2, 0], points([0.5, 3], [-3, 3], [-3, 3])),
  reverseCase("three", [1], points([0.5, 3], [-3, 3], [-3, 3])),
  reverseCase("three", [0, 1, 2], points([0.5, 3], [-3, 3], [-3, 3])),
  reverseCase("three", [2, 1, 0], points([0.5, 3], [-3, 3], [-3, 3])),
  reverseCase("three", [1, 2], points([0.5, 3], [-3, 3], [-3, 3])),
  reverseCase("cubeLambda", [0], points([-5, 5]), { lambda: "(x: number) => x * x * x" }),
  reverseCase("cubeBlockLambda", [0], points([-5, 5]), {
    lambda: "(x: number) => {\n  let y = 1;\n  for (let i = 0; i < 3; i++) y *= x;\n  return y;\n}",
  }),
  reverseCase("cubeFunctionExpressionLambda", [0], points([-5, 5]), {
    lambda: "function (x: number) {\n  return x * x * x;\n}",
  }),
  reverseCase("ratio", [1, 0], points([0.5, 5], [0.5, 5])),
  reverseCase("literals", [0], points([-5, 5])),
];

/** The reverse-mode exports of the cases: operators written like a user would. */
function reverseExports(cases: ReverseCase[]): string {
  const lines = ["", "// ---- reverse mode ----", ""];
  for (const c of cases) {
    if (c.lambda && !lines.includes(`export const ${c.f} = ${c.lambda};`))
      lines.push(`export const ${c.f} = ${c.lambda};`);
    const target = c.lambda ?? c.f;
    const wrt = `{ wrt: [${c.wrt.join(", ")}] }`;
    lines.push(`export const g_${c.key} = gradient(${target}, ${wrt});`);
    lines.push(`export const p_${c.key} = pullback(${target}, ${wrt});`);
    lines.push(`export const j_${c.key} = differential(${target}, ${wrt});`);
  }
  return lines.join("\n") + "\n";
}

type Exports = Record<string, unknown>;

let loaded: Promise<Exports> | undefined;
function program(): Promise<Exports> {
  loaded ??= loadProgram<Exports>({ "main.ts": PROGRAM + reverseExports(REVERSE_CASES) });
  return loaded;
}

async function get<T>(name: string, from: () => Promise<Exports> = program): Promise<T> {
  const value = (await from())[name];
  assert.equal(typeof value, "function", `the program exports '${name}'`);
  return value as T;
}

test("the program of realistic functions compiles", async () => {
  await program();
});

// ---------------------------------------------------------------------------------------------

describe("branches", () => {
  test("if/else-if chain: closed form in every region and finite differences", async () => {
    const f = await get<Derivative>("piecewise");
    const d = await get<Derivative>("dPiecewise");
    const exact = (x: number) =>
      x < -2
        ? -2 * x
        : x < 0
          ? 3 * Math.cos(x)
          : x < 2
            ? x > 1
              ? 3 * x * x
              : 2 * x - 1
            : Math.exp(x / 4) / 4;
    fc.assert(
      fc.property(range(-6, 6), (x) => assertClose(d(x), exact(x), 1e-12, `piecewise' at ${x}`)),
      { numRuns: RUNS },
    );
    checkPartials("piecewise", f, viaDerivative(d), points([-6, 6]), [0]);
    assert.equal(d(-3), 6);
    assert.equal(d(0.5), 0);
    assert.equal(d(1.5), 6.75);
  });

  test("nested if/else in both branches: each partial and random directions", async () => {
    const f = await get<Fn>("nested");
    const d = await get<Differential>("dNested");
    checkPartials("nested", f, viaDifferential(d, [0, 1]), points([-3, 3], [-3, 3]), [0, 1]);
    assertValues([d(2, 3)(1, 0), d(2, 3)(0, 1)], [3, 2]);
    assertValues([d(2, -0.5)(1, 0), d(2, -0.5)(0, 1)], [1, 1]);
    assertValues([d(-1, -2)(1, 0), d(-1, -2)(0, 1)], [1, 0]);
    // The differential is linear in its tangents.
    fc.assert(
      fc.property(points([-3, 3], [-3, 3]), points([-2, 2], [-2, 2]), ([x, y], [u, v]) => {
        // Not where log(x)·y has an infinite partial.
        fc.pre(Math.abs(x) > 1e-200);
        const expected = u * d(x, y)(1, 0) + v * d(x, y)(0, 1);
        assertClose(d(x, y)(u, v), expected, 1e-12, `direction (${u}, ${v}) at (${x}, ${y})`);
      }),
      { numRuns: RUNS },
    );
  });

  test("nested ternaries: clamp passes the tangent of the selected argument", async () => {
    const f = await get<Fn>("clamp");
    const d = await get<Differential>("dClamp");
    const gradient = (x: number, lo: number, hi: number) =>
      [0, 1, 2].map((i) => d(x, lo, hi)(...[0, 1, 2].map((j) => (j === i ? 1 : 0))));
    assertValues(gradient(0.5, 0, 1), [1, 0, 0]);
    assertValues(gradient(-3, 0, 1), [0, 1, 0]);
    assertValues(gradient(7, 0, 1), [0, 0, 1]);
    checkPartials(
      "clamp",
      f,
      viaDifferential(d, [0, 1, 2]),
      // lo < hi: at lo = hi = x, clamp is constant but the taken branch is x.
      points([-5, 5], [-3, -0.1], [0.1, 3]),
      [0, 1, 2],
    );
  });

  test("ternary between two formulas (stable sigmoid): derivative is s(1 - s)", async () => {
    const f = await get<Derivative>("sigmoid");
    const d = await get<Derivative>("dSigmoid");
    fc.assert(
      fc.property(range(-30, 30), (x) => {
        const s = f(x);
        assertClose(d(x), s * (1 - s), 1e-12, `sigmoid' at ${x}`);
      }),
      { numRuns: RUNS },
    );
    assertClose(d(0), 0.25, 1e-15);
    assertZero(d(50), "sigmoid' where the ternary returns the constant 1");
    checkPartials("sigmoid", f, viaDerivative(d), points([-30, 30]), [0]);
  });

  test("an if whose then-branch may return and whose else-branch always returns", async () => {
    const f = await get<Derivative>("partialReturn");
    const d = await get<Derivative>("dPartialReturn");
    assertClose(d(0.5), 1, 1e-15);
    assertClose(d(2), -0.25, 1e-15);
    assert.equal(d(-2), 2);
    checkPartials("partialReturn", f, viaDerivative(d), points([-4, 4]), [0]);
  });
});

describe("logical operators", () => {
  test("x || y takes the tangent of the operand it returns", async () => {
    const d = await get<Differential>("dOrDefault");
    assertValues([d(3, 5)(1, 0), d(3, 5)(0, 1)], [2, 0]);
    assertValues([d(0, 5)(1, 0), d(0, 5)(0, 1)], [0, 2]);
    assertValues([d(NaN, 5)(1, 0), d(NaN, 5)(0, 1)], [0, 2]);
    checkPartials(
      "orDefault",
      await get<Fn>("orDefault"),
      viaDifferential(d, [0, 1]),
      // At x = 0 exactly the branch taken is not the one around it (checked above).
      points([-3, 3], [-3, 3]).filter(([x]) => x !== 0),
      [0, 1],
    );
  });

  test("x && y takes the tangent of the operand it returns", async () => {
    const d = await get<Differential>("dAndThen");
    assertValues([d(3, 5)(1, 0), d(3, 5)(0, 1)], [1, 1]);
    // At x = 0, (x && y) is x itself: the tangent of x, counted twice with the "+ x".
    assertValues([d(0, 5)(1, 0), d(0, 5)(0, 1)], [2, 0]);
    checkPartials(
      "andThen",
      await get<Fn>("andThen"),
      viaDifferential(d, [0, 1]),
      // At x = 0 exactly the branch taken is not the one around it (checked above).
      points([-3, 3], [-3, 3]).filter(([x]) => x !== 0),
      [0, 1],
    );
  });

  test("x ?? y on numbers is x: y's tangent only enters through the product", async () => {
    const d = await get<Differential>("dNullish");
    fc.assert(
      fc.property(points([-5, 5], [-5, 5]), ([x, y]) => {
        assertValues([d(x, y)(1, 0), d(x, y)(0, 1)], [y, x], `at (${x}, ${y})`);
      }),
      { numRuns: RUNS },
    );
    assertValues([d(0, 4)(1, 0), d(0, 4)(0, 1)], [4, 0]);
  });

  test("!x on a number chooses the branch", async () => {
    const d = await get<Differential>("dNotZero");
    assertValues([d(0, 3)(1, 0), d(0, 3)(0, 1)], [0, 6]);
    assertValues([d(2, 3)(1, 0), d(2, 3)(0, 1)], [3, 2]);
    checkPartials(
      "notZero",
      await get<Fn>("notZero"),
      viaDifferential(d, [0, 1]),
      points([-3, 3], [-3, 3]),
      [0, 1],
    );
  });

  test("&&, || and ! on booleans select the region", async () => {
    const d = await get<Differential>("dRegions");
    const gradient = (x: number, y: number) => [d(x, y)(1, 0), d(x, y)(0, 1)];
    assertValues(gradient(2, 3), [3, 2]);
    assertValues(gradient(2, -3), [1, 1]);
    assertValues(gradient(0.5, 3), [1, 1]);
    assertValues(gradient(0.5, -0.5), [1, 0]);
    assertValues(gradient(-2, -0.5), [0, 0.75]);
    checkPartials(
      "regions",
      await get<Fn>("regions"),
      viaDifferential(d, [0, 1]),
      points([-3, 3], [-3, 3]),
      [0, 1],
    );
  });

  test("== and != on booleans, !== on numbers", async () => {
    const d = await get<Differential>("dEqualities");
    assertValues([d(2, 3)(1, 0), d(2, 3)(0, 1)], [3, 2]);
    assertValues([d(-2, -3)(1, 0), d(-2, -3)(0, 1)], [-3, -2]);
    assertValues([d(2, -3)(1, 0), d(2, -3)(0, 1)], [1, -1]);
    checkPartials(
      "equalities",
      await get<Fn>("equalities"),
      viaDifferential(d, [0, 1]),
      points([-3, 3], [-3, 3]),
      [0, 1],
    );
  });

  test("a let declared without initializer and a reassigned boolean", async () => {
    const d = await get<Differential>("dDeclaredLater");
    checkPartials(
      "declaredLater",
      await get<Fn>("declaredLater"),
      viaDifferential(d, [0, 1]),
      points([-3, 3], [-3, 3]),
      [0, 1],
    );
    assertValues([d(3, 1)(1, 0), d(3, 1)(0, 1)], [1, -1]);
    assertValues([d(1, 3)(1, 0), d(1, 3)(0, 1)], [0, 6]);
  });
});

describe("loops and early exits", () => {
  test("early return inside a for loop", async () => {
    const f = await get<Fn>("firstAbove");
    const d = await get<Differential>("dFirstAbove");
    checkPartials("firstAbove", f, viaDifferential(d, [0, 1]), points([-2, 5], [-10, 100]), [0, 1]);
    // Returned at i = 0 with s = 1.5x + 0.1: derivative 0 (times i = 0); never returned: -1.5^100.
    assertZero(d(10, 1)(1, 0), "returns at the first iteration");
    assertClose(d(-1, 1e9)(1, 0), -(1.5 ** 100), 1e-12);
  });

  test("for loop with continue and break: the Taylor series of cosh differentiates to sinh", async () => {
    const f = await get<Fn>("coshSeries");
    const d = await get<Differential>("dCoshSeries");
    fc.assert(
      fc.property(range(-4, 4), (x) => {
        assertClose(d(x, 60)(1), Math.sinh(x), 1e-12, `series' at ${x}`);
        assertClose(f(x, 60), Math.cosh(x), 1e-12, `series at ${x}`);
      }),
      { numRuns: RUNS },
    );
    // Fewer terms: the derivative of the truncated series, 1 + x²/2 → x.
    assertClose(d(0.7, 3)(1), 0.7, 1e-15);
    checkPartials("coshSeries", f, viaDifferential(d, [0]), withCount(-4, 4, 0, 30), [0]);
  });

  test("while loop with a data-dependent trip count: Newton's √a differentiates to 1/(2√a)", async () => {
    const f = await get<Derivative>("newtonSqrt");
    const d = await get<Derivative>("dNewtonSqrt");
    fc.assert(
      fc.property(range(1e-3, 1e6), (a) => {
        assertClose(f(a), Math.sqrt(a), 1e-14, `√${a}`);
        assertClose(d(a), 0.5 / Math.sqrt(a), 1e-9, `√' at ${a}`);
      }),
      { numRuns: RUNS },
    );
    assertClose(d(4), 0.25, 1e-12);
  });

  test("do…while with continue", async () => {
    const d = await get<Differential>("dGrow");
    checkPartials(
      "grow",
      await get<Fn>("grow"),
      viaDifferential(d, [0]),
      points([0.1, 10], [0, 50]),
      [0],
    );
    // One pass when the target is already reached: v = 1.1x + 0.01x.
    assertClose(d(5, 1)(1), 1.11, 1e-15);
  });

  test("labeled continue and break out of nested loops", async () => {
    const f = await get<Fn>("grid");
    const d = await get<Differential>("dGrid");
    /** The same loops, summing the derivative of each term. */
    const exact = (x: number, n: number) => {
      let sum = 0;
      outer: for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          if (j > i) continue outer;
          if (i * j > 12) break outer;
          sum += i * Math.cos(x * i + j);
        }
      }
      return sum;
    };
    fc.assert(
      fc.property(withCount(-3, 3, 0, 8), ([x, n]) => {
        assertClose(d(x, n)(1), exact(x, n), 1e-12, `grid' at ${x}, n = ${n}`);
      }),
      { numRuns: RUNS },
    );
    checkPartials("grid", f, viaDifferential(d, [0]), withCount(-3, 3, 0, 8), [0]);
  });

  test("labeled continue, return and labeled break from inside a nested while(true)", async () => {
    const f = await get<Fn>("searchReturn");
    const d = await get<Differential>("dSearchReturn");
    // No exit: total = x·Σ_{i ≤ 5} Σ_{j ≤ i} j = 35x, result 35x/3 + x.
    assertClose(d(0.1, 100)(1), 35 / 3 + 1, 1e-15);
    // Returns 2·total when total = x·(1) > limit on the first step.
    assert.equal(d(5, 1)(1), 2);
    checkPartials("searchReturn", f, viaDifferential(d, [0]), points([-3, 3], [0, 30]), [0]);
  });

  test("while loops with data-dependent trip counts: mantissa(x)' = mantissa(x) / x", async () => {
    const f = await get<Derivative>("mantissa");
    const d = await get<Derivative>("dMantissa");
    fc.assert(
      fc.property(range(1e-6, 1e6), (x) => {
        assert.equal(d(x), f(x) / x, `mantissa' at ${x}`);
      }),
      { numRuns: RUNS },
    );
    assert.equal(d(12), 1 / 8);
  });

  test("for (;;) with break, a loop counter changed in the body, do…while with break or return", async () => {
    for (const [name, derivative, lo, hi] of [
      ["forever", "dForever", -3, 3],
      ["doBreak", "dDoBreak", -2, 3],
      ["doReturn", "dDoReturn", -10, 100],
      ["callInTest", "dCallInTest", 0.1, 3],
      ["minOverLoop", "dMinOverLoop", -2, 4],
    ] as const) {
      const f = await get<Derivative>(name);
      const d = await get<Derivative>(derivative);
      checkPartials(name, f, viaDerivative(d), points([lo, hi]), [0]);
    }
    const skip = await get<Differential>("dSkipAhead");
    checkPartials(
      "skipAhead",
      await get<Fn>("skipAhead"),
      viaDifferential(skip, [0]),
      withCount(-3, 3, 0, 12),
      [0],
    );
    // n = 6: i = 0 and 3 skip to 2 and 5, the only terms: Σ -i·sin(x·i).
    const x = 0.3;
    assertClose(skip(x, 6)(1), -(2 * Math.sin(2 * x) + 5 * Math.sin(5 * x)), 1e-14);
    // minOverLoop is (x - i)² for the nearest i of 0, 1, 2.
    const minOverLoop = await get<Derivative>("dMinOverLoop");
    assertClose(minOverLoop(1.2), 0.4, 1e-12);
    assertClose(minOverLoop(-1), -2, 1e-12);
  });

  test("continue and an early return inside while; i++ in the loop test", async () => {
    const odd = await get<Differential>("dOddPowers");
    checkPartials(
      "oddPowers",
      await get<Fn>("oddPowers"),
      viaDifferential(odd, [0]),
      withCount(-3, 5, 0, 12),
      [0],
    );
    // Small x never returns early: -(x + x³ + x⁵) → -(1 + 3x² + 5x⁴).
    assertClose(odd(0.5, 6)(1), -(1 + 3 * 0.25 + 5 * 0.0625), 1e-14);
    const inc = await get<Differential>("dIncrementInTest");
    checkPartials(
      "incrementInTest",
      await get<Fn>("incrementInTest"),
      viaDifferential(inc, [0]),
      withCount(-2, 2, 0, 8),
      [0],
    );
  });
});

describe("assignments", () => {
  test("compound assignments and ++/-- on locals", async () => {
    const d = await get<Differential>("dCompound");
    checkPartials(
      "compound",
      await get<Fn>("compound"),
      viaDifferential(d, [0, 1]),
      points([-3, 3], [-3, 3]),
      [0, 1],
    );
  });

  test("x % y: partials 1 and -trunc(x / y)", async () => {
    const d = await get<Differential>("dRemainder");
    fc.assert(
      fc.property(points([-50, 50], [-10, 10]), ([x, y]) => {
        fc.pre(Math.abs(y) > 1e-3);
        assertValues([d(x, y)(1, 0), d(x, y)(0, 1)], [1, -Math.trunc(x / y)], `at (${x}, ${y})`);
      }),
      { numRuns: RUNS },
    );
    checkPartials(
      "remainder",
      await get<Fn>("remainder"),
      viaDifferential(d, [0, 1]),
      points([-50, 50], [0.5, 10]),
      [0, 1],
    );
  });

  test("writes to parameters, chained assignment, assignments inside conditions and ternaries", async () => {
    for (const [name, derivative] of [
      ["paramWrites", "dParamWrites"],
      ["assignInCondition", "dAssignInCondition"],
      ["assignInTernary", "dAssignInTernary"],
      ["shadowing", "dShadowing"],
    ] as const) {
      const d = await get<Differential>(derivative);
      checkPartials(
        name,
        await get<Fn>(name),
        viaDifferential(d, [0, 1]),
        points([-3, 3], [-3, 3]),
        [0, 1],
      );
    }
    const chained = await get<Derivative>("dChained");
    // a = 3x, b = 6x: (18x²)' = 36x.
    fc.assert(
      fc.property(range(-10, 10), (x) => assertClose(chained(x), 36 * x, 1e-14)),
      { numRuns: RUNS },
    );
    // z = x·y > 1: z², else z + x with z = x·y, or z = 0 when x ≤ 0.
    const cond = await get<Differential>("dAssignInCondition");
    assertValues([cond(2, 3)(1, 0), cond(2, 3)(0, 1)], [36, 24]);
    assertValues([cond(-1, 3)(1, 0), cond(-1, 3)(0, 1)], [1, 0]);
  });

  test("locals and parameters named like generated code (dx, t, dt, result, i_next)", async () => {
    const d = await get<Differential>("dGeneratedLookingNames");
    const f = await get<Fn>("generatedLookingNames");
    checkPartials(
      "generatedLookingNames",
      f,
      viaDifferential(d, [0, 2]),
      points([-2, 2], [-2, 2], [-2, 2]),
      [0, 2],
    );
    // dx (parameter 1) is not differentiated: the tangents are for x and t.
    const [x, dx, t] = [0.3, 2, 0.5];
    const result = 2 * x * t + 3 * x;
    const returned = 2 * x * t + dx;
    const exact = (2 * t + 3) * returned + result * (2 * t) + t * Math.exp(t * x);
    assertClose(d(x, dx, t)(1, 0), exact, 1e-14);
  });
});

describe("recursion", () => {
  test("factorial-like recursion: d/dx of n!·x is n!", async () => {
    const d = await get<Differential>("dFactorialScaled");
    let factorial = 1;
    for (let n = 1; n <= 15; n++) {
      factorial *= n;
      assert.equal(d(0.37, n)(1), factorial, `n = ${n}`);
    }
  });

  test("power by squaring: n·x^(n-1), negative n too", async () => {
    const f = await get<Fn>("powBySquaring");
    const d = await get<Differential>("dPowBySquaring");
    assert.equal(d(3, 5)(1), 405);
    assert.equal(d(2, 10)(1), 5120);
    assertZero(d(7, 0)(1), "(x⁰)'");
    assert.equal(d(2, -1)(1), -0.25);
    fc.assert(
      fc.property(withCount(0.2, 3, -12, 12), ([x, n]) => {
        assertClose(d(x, n)(1), n * x ** (n - 1), 1e-12, `(x^${n})' at ${x}`);
      }),
      { numRuns: RUNS },
    );
    checkPartials("powBySquaring", f, viaDifferential(d, [0]), withCount(-3, 3, 0, 12), [0]);
  });

  test("mutual recursion", async () => {
    const f = await get<Fn>("evenPart");
    const d = await get<Differential>("dEvenPart");
    checkPartials("evenPart", f, viaDifferential(d, [0]), withCount(-3, 3, 0, 9), [0]);
    // n = 2: sin(x)² + 0.5 → 2 sin x cos x.
    assertClose(d(0.4, 2)(1), Math.sin(0.8), 1e-14);
  });

  test("recursion that moves the differentiated argument to another position", async () => {
    const swapper = await get<Fn>("swapper");
    const d = await get<Differential>("dSwapper");
    checkPartials(
      "swapper",
      (a, b) => swapper(a!, b!, 5),
      viaDifferential(d, [0]),
      points([-1.5, 1.5], [-1.5, 1.5]),
      [0],
    );
  });

  test("recursive call inside a loop, behind an early return", async () => {
    const d = await get<Differential>("dRecursiveSearch");
    checkPartials(
      "recursiveSearch",
      await get<Fn>("recursiveSearch"),
      viaDifferential(d, [0]),
      withCount(-2, 8, 0, 5),
      [0],
    );
  });
});

describe("constants, inactive arguments and withoutDerivative", () => {
  test("module-level const numbers in a formula: fall(t, v0)", async () => {
    const d = await get<Differential>("dFall");
    fc.assert(
      fc.property(points([0, 10], [-20, 20]), ([t, v0]) => {
        assertClose(d(t, v0)(1, 0), v0 - 9.81 * t, 1e-13, `∂t at ${t}, ${v0}`);
        assertClose(d(t, v0)(0, 1), t, 1e-15, `∂v0 at ${t}, ${v0}`);
      }),
      { numRuns: RUNS },
    );
    checkPartials(
      "fall",
      await get<Fn>("fall"),
      viaDifferential(d, [0, 1]),
      points([0, 10], [-20, 20]),
      [0, 1],
    );
  });

  test("module-level consts computed from Math.PI and from each other", async () => {
    const d = await get<Differential>("dArc");
    fc.assert(
      fc.property(points([0, 10], [0, 1]), ([r, fraction]) => {
        assertClose(d(r, fraction)(1, 0), 2 * Math.PI * fraction, 1e-14, `∂r at ${r}, ${fraction}`);
        assertClose(d(r, fraction)(0, 1), 2 * Math.PI * r, 1e-14, `∂fraction at ${r}, ${fraction}`);
      }),
      { numRuns: RUNS },
    );
  });

  test("boolean flag and loop count parameters are inactive", async () => {
    const d = await get<Differential>("dRepeated");
    const f = await get<(x: number, square: boolean, times: number) => number>("repeated");
    // Squaring n times: x^(2^n) → 2^n x^(2^n - 1). Adding 1 n times: 1.
    assert.equal(d(1.5, true as unknown as number, 3)(1), 8 * 1.5 ** 7);
    assert.equal(d(1.5, false as unknown as number, 3)(1), 1);
    fc.assert(
      fc.property(
        range(-1.5, 1.5),
        fc.boolean(),
        fc.integer({ min: 0, max: 5 }),
        (x, square, times) => {
          const fd = smoothPartial((t) => f(t!, square, times), [x], 0);
          fc.pre(fd !== undefined);
          assertClose(
            d(x, square as unknown as number, times)(1),
            fd!,
            1e-5,
            `at ${x}, ${square}, ${times}`,
          );
        },
      ),
      { numRuns: RUNS },
    );
    // Called from another function with constant arguments (a module const count).
    const both = await get<Derivative>("dRepeatedConstants");
    assertClose(both(1.1), 16 * 1.1 ** 15 + 1, 1e-14);
  });

  test("boolean-returning helpers; one function with active arguments in different positions", async () => {
    const d = await get<Differential>("dUsesPredicates");
    const scaled = await get<Fn>("scaled");
    // withoutDerivative(scaled(x, x)) is held at its value: leave it out of the reference.
    const reference = (x: number, c: number) => scaled(x, c) + scaled(c, x) + scaled(2, 3) * x;
    checkPartials(
      "usesPredicates",
      reference,
      viaDifferential(d, [0]),
      points([-20, 20], [0.5, 20]),
      [0],
    );
    assert.equal(d(0.5, 4)(1), 4 + 4 + 6);
    assert.equal(d(12, 4)(1), 0.25 + 4 + 6);
  });

  test("withoutDerivative: the derivative through it is zero", async () => {
    const stopped = await get<Differential>("dStopped");
    fc.assert(
      fc.property(points([-5, 5], [-5, 5]), ([x, y]) => {
        // withoutDerivative(x·y)·x + y: the held factor x·y, and 1.
        assertClose(stopped(x, y)(1, 0), x * y, 1e-15);
        assert.equal(stopped(x, y)(0, 1), 1);
      }),
      { numRuns: RUNS },
    );
    assertZero((await get<Derivative>("dDetachedIdentity"))(3), "withoutDerivative(x)'");
    assert.equal((await get<Derivative>("dDetachedSquare"))(3), 3);
    // s ← held(s)·x + s, three times: ds ← s_old + ds.
    const inLoop = await get<Derivative>("dDetachInLoop");
    const exact = (x: number) => {
      let [s, ds] = [x, 1];
      for (let i = 0; i < 3; i++) [s, ds] = [s * x + s, s + ds];
      return ds;
    };
    for (const x of [0.5, -1.3, 2]) assertClose(inLoop(x), exact(x), 1e-14, `at ${x}`);
  });
});

describe("operators and wrt orders", () => {
  const gradient = (a: number, b: number, c: number) => [
    2 * a * b - c / (a * a),
    a * a + Math.sin(c),
    b * Math.cos(c) + 1 / a,
  ];
  const triples = points([0.5, 3], [-3, 3], [-3, 3]);

  test("differential({ wrt: [2, 0] }) takes the tangent of c first, then of a", async () => {
    const d = await get<Differential>("d3_20");
    fc.assert(
      fc.property(triples, points([-2, 2], [-2, 2]), ([a, b, c], [dc, da]) => {
        const [ga, , gc] = gradient(a, b, c);
        assertClose(d(a, b, c)(dc, da), gc! * dc + ga! * da, 1e-12);
        assertClose(d(a, b, c)(1, 0), gc!, 1e-12);
        assertClose(d(a, b, c)(0, 1), ga!, 1e-12);
      }),
      { numRuns: RUNS },
    );
    checkPartials("three", await get<Fn>("three"), viaDifferential(d, [2, 0]), triples, [2, 0]);
  });

  test("wrt as a single number, as [1, 2], and reversed [2, 1, 0]", async () => {
    const single = await get<Differential>("d3_1");
    const pair = await get<Differential>("d3_12");
    const reversed = await get<Differential>("d3_210");
    const all = await get<Differential>("d3_all");
    fc.assert(
      fc.property(triples, points([-2, 2], [-2, 2], [-2, 2]), ([a, b, c], [u, v, w]) => {
        const [ga, gb, gc] = gradient(a, b, c);
        assertClose(single(a, b, c)(v), gb! * v, 1e-12);
        assertClose(pair(a, b, c)(v, w), gb! * v + gc! * w, 1e-12);
        assertClose(all(a, b, c)(u, v, w), ga! * u + gb! * v + gc! * w, 1e-12);
        assertClose(reversed(a, b, c)(w, v, u), all(a, b, c)(u, v, w), 1e-14);
      }),
      { numRuns: RUNS },
    );
  });

  test("valueWithDifferential: the primal value and a differential in wrt order", async () => {
    const three = await get<Fn>("three");
    const v12 = await get<ValueWithDifferential>("v3_12");
    const v20 = await get<ValueWithDifferential>("v3_20");
    const vAll = await get<ValueWithDifferential>("v3_all");
    fc.assert(
      fc.property(triples, points([-2, 2], [-2, 2], [-2, 2]), ([a, b, c], [u, v, w]) => {
        const [ga, gb, gc] = gradient(a, b, c);
        const value = three(a, b, c);
        for (const r of [v12(a, b, c), v20(a, b, c), vAll(a, b, c)]) assert.equal(r.value, value);
        assertClose(v12(a, b, c).differential(v, w), gb! * v + gc! * w, 1e-12);
        assertClose(v20(a, b, c).differential(w, u), gc! * w + ga! * u, 1e-12);
        assertClose(vAll(a, b, c).differential(u, v, w), ga! * u + gb! * v + gc! * w, 1e-12);
      }),
      { numRuns: RUNS },
    );
  });

  test("valueWithDerivative gives the primal value and the derivative", async () => {
    const sigmoid = await get<Derivative>("sigmoid");
    const d = await get<Derivative>("dSigmoid");
    const vd = await get<ValueWithDerivative>("vSigmoid");
    for (const x of [-3, 0, 0.5, 7, 45]) {
      assert.deepEqual(vd(x), { value: sigmoid(x), derivative: d(x) });
    }
    assert.deepEqual((await get<ValueWithDerivative>("cubeValue"))(4), {
      value: 64,
      derivative: 48,
    });
  });

  test("a new user's first program: derivative((x: number) => x * x * x)(4) === 48", async () => {
    assert.equal((await get<Derivative>("cube"))(4), 48);
    assert.equal((await get<Derivative>("cubeUnannotated"))(4), 48);
    assert.equal((await get<Derivative>("cubeBlock"))(4), 48);
    assert.equal((await get<Derivative>("cubeFunctionExpression"))(4), 48);
    const m = await loadProgram<{ d: Derivative }>({
      "main.ts": `import { derivative } from "nabla";\nexport const d = derivative((x: number) => x * x * x);\n`,
    });
    assert.equal(m.d(4), 48);
    assert.equal(m.d(-1), 3);
  });

  test("a function expression differentiated with wrt [1, 0]; numeric literal forms", async () => {
    const d = await get<Differential>("dRatio");
    fc.assert(
      fc.property(points([0.5, 5], [0.5, 5]), ([x, y]) => {
        assertClose(d(x, y)(1, 0), -x / (y * y) + 1 / x, 1e-12, `∂y at ${x}, ${y}`);
        assertClose(d(x, y)(0, 1), 1 / y - y / (x * x), 1e-12, `∂x at ${x}, ${y}`);
      }),
      { numRuns: RUNS },
    );
    assert.equal((await get<Derivative>("dLiterals"))(1), 1000 + 16 + 1000 + 0.5 + 0.25 + 3);
  });
});

// ---------------------------------------------------------------------------------------------
// Reverse mode: every program again

type Gradient = (...xs: number[]) => number | number[];
type Pullback = (...xs: number[]) => (adjoint: number) => number | number[];

const REVERSE_RUNS = 100;

/** A gradient or pullback result as a list in `wrt` order, after checking its shape. */
function adjoints(result: number | number[], wrt: number[], what: string): number[] {
  if (wrt.length === 1) {
    assert.equal(typeof result, "number", `${what}: one differentiated argument gives a number`);
    return [result as number];
  }
  assert.ok(Array.isArray(result), `${what}: several differentiated arguments give an array`);
  assert.equal(result.length, wrt.length, `${what}: one adjoint per differentiated argument`);
  return result;
}

/** The exports a reverse-mode check reads: the function, its gradient, pullback and differential. */
interface ReverseExports {
  f: string;
  gradient: string;
  pullback: string;
  differential: string;
  wrt: number[];
  points: fc.Arbitrary<number[]>;
  reference?: ((m: Exports) => Fn) | false;
}

/**
 * The gradient against finite differences wherever the function is smooth; the pullback
 * against the differential by the dot-product identity ⟨J·v, w⟩ = ⟨v, Jᵀ·w⟩ at random points
 * and directions v, w (for a number-valued f, J·v·w = Σ vᵢ·(Jᵀ·w)ᵢ); the tape as it was after
 * each gradient and after creating and calling each pullback.
 */
async function checkReverse(
  c: ReverseExports,
  from: () => Promise<Exports> = program,
): Promise<void> {
  const m = await from();
  const tapeSize = await get<() => number>("tapeSize", from);
  const g = await get<Gradient>(c.gradient, from);
  const p = await get<Pullback>(c.pullback, from);
  const j = await get<Differential>(c.differential, from);
  const what = `${c.f} wrt [${c.wrt.join(", ")}]`;
  if (c.reference !== false) {
    const reference = c.reference ? c.reference(m) : await get<Fn>(c.f, from);
    checkPartials(
      `${what}, reverse mode`,
      reference,
      (xs, i) => {
        const before = tapeSize();
        const gradient = adjoints(g(...xs), c.wrt, what);
        assert.equal(tapeSize(), before, `${what}: the gradient leaves the tape as it found it`);
        return gradient[c.wrt.indexOf(i)]!;
      },
      c.points,
      c.wrt,
    );
  }
  const direction = fc.tuple(...c.wrt.map(() => range(-1, 1)));
  fc.assert(
    fc.property(c.points, direction, range(-1, 1), (xs, v, w) => {
      const before = tapeSize();
      const forward = j(...xs)(...v) * w;
      const pullback = p(...xs);
      const adjoint = adjoints(pullback(w), c.wrt, what);
      assert.equal(tapeSize(), before, `${what}: the pullback leaves the tape as it found it`);
      const terms = v.map((vi, k) => vi * adjoint[k]!);
      const reverse = terms.reduce((a, b) => a + b, 0);
      // Where an intermediate is NaN or infinite, 0·NaN makes the modes differ: not compared.
      if (!Number.isFinite(forward) || !Number.isFinite(reverse)) return;
      const scale = Math.max(1, Math.abs(forward), ...terms.map(Math.abs));
      assert.ok(
        Math.abs(forward - reverse) <= 1e-9 * scale,
        `${what} at (${xs.join(", ")}), v = (${v.join(", ")}), w = ${w}: ` +
          `⟨J·v, w⟩ = ${forward} but ⟨v, Jᵀ·w⟩ = ${reverse}`,
      );
    }),
    { numRuns: REVERSE_RUNS },
  );
}

describe("reverse mode: every program against finite differences and against forward mode", () => {
  for (const c of REVERSE_CASES) {
    test(`${c.f} wrt [${c.wrt.join(", ")}]`, () =>
      checkReverse({
        ...c,
        gradient: `g_${c.key}`,
        pullback: `p_${c.key}`,
        differential: `j_${c.key}`,
      }));
  }
});

describe("reverse mode: known values", () => {
  const gradientOf = (key: string) => get<Gradient>(`g_${key}`);

  test("clamp passes the adjoint to the selected argument; wrt [2, 0] reorders", async () => {
    const g = await gradientOf("clamp_012");
    assertValues(g(0.5, 0, 1) as number[], [1, 0, 0]);
    assertValues(g(-3, 0, 1) as number[], [0, 1, 0]);
    assertValues(g(7, 0, 1) as number[], [0, 0, 1]);
    assertValues((await gradientOf("clamp_20"))(7, 0, 1) as number[], [1, 0]);
  });

  test("early returns and exits inside loops", async () => {
    const first = await gradientOf("firstAbove_01");
    assertValues(first(10, 1) as number[], [0, 0]);
    assertClose((first(-1, 1e9) as number[])[0]!, -(1.5 ** 100), 1e-12);
    const search = await gradientOf("searchReturn_01");
    assertValues(search(0.1, 100) as number[], [35 / 3 + 1, 0]);
    assertValues(search(5, 1) as number[], [2, 0]);
    assertClose((await gradientOf("coshSeries_0"))(0.7, 60) as number, Math.sinh(0.7), 1e-12);
    assertClose((await gradientOf("newtonSqrt_0"))(4) as number, 0.25, 1e-12);
    assert.equal((await gradientOf("mantissa_0"))(12), 1 / 8);
  });

  test("recursion: n!·x, x^n by squaring, mutual recursion", async () => {
    const factorial = await gradientOf("factorialScaled_0");
    let product = 1;
    for (let n = 1; n <= 15; n++) {
      product *= n;
      assert.equal(factorial(0.37, n), product, `n = ${n}`);
    }
    const power = await gradientOf("powBySquaring_0");
    assert.equal(power(3, 5), 405);
    assert.equal(power(2, 10), 5120);
    assertZero(power(7, 0) as number, "(x⁰)'");
    assert.equal(power(2, -1), -0.25);
    assertClose((await gradientOf("evenPart_0"))(0.4, 2) as number, Math.sin(0.8), 1e-14);
  });

  test("inactive arguments, boolean helpers and withoutDerivative", async () => {
    const repeated = await gradientOf("repeated_0");
    assert.equal(repeated(1.5, true as unknown as number, 3), 8 * 1.5 ** 7);
    assert.equal(repeated(1.5, false as unknown as number, 3), 1);
    assertClose(
      (await gradientOf("repeatedConstants_0"))(1.1) as number,
      16 * 1.1 ** 15 + 1,
      1e-14,
    );
    const predicates = await gradientOf("usesPredicates_0");
    assert.equal(predicates(0.5, 4), 4 + 4 + 6);
    assert.equal(predicates(12, 4), 0.25 + 4 + 6);
    const stopped = await gradientOf("stopped_01");
    fc.assert(
      fc.property(points([-5, 5], [-5, 5]), ([x, y]) => {
        const [gx, gy] = stopped(x, y) as number[];
        assertClose(gx!, x * y, 1e-15);
        assert.equal(gy, 1);
      }),
      { numRuns: RUNS },
    );
    assertZero((await gradientOf("detachedIdentity_0"))(3) as number, "withoutDerivative(x)'");
    assert.equal((await gradientOf("detachedSquare_0"))(3), 3);
    const inLoop = await gradientOf("detachInLoop_0");
    const exact = (x: number) => {
      let [s, ds] = [x, 1];
      for (let i = 0; i < 3; i++) [s, ds] = [s * x + s, s + ds];
      return ds;
    };
    for (const x of [0.5, -1.3, 2]) assertClose(inLoop(x) as number, exact(x), 1e-14, `at ${x}`);
  });

  test("the cube lambdas: 48 at 4", async () => {
    for (const name of ["cube", "cubeBlock", "cubeFunctionExpression"]) {
      assert.equal((await gradientOf(`${name}Lambda_0`))(4), 48, name);
    }
    assert.equal((await gradientOf("literals_0"))(1), 1000 + 16 + 1000 + 0.5 + 0.25 + 3);
  });
});

// ---------------------------------------------------------------------------------------------
// Several files

let crossFile: Promise<Exports> | undefined;
const crossFileProgram = () =>
  (crossFile ??= importCompiled<Exports>(join(FIXTURES, "programs/cross-file/main.ts")));

describe("programs of several files (test/fixtures/programs/cross-file)", () => {
  const fromFixture = <T>(name: string) => get<T>(name, crossFileProgram);
  const GRAVITY = 9.81;
  const DRAG = 0.47;
  const AIR_DENSITY = 1.225;

  test("named imports through an index file that re-exports", async () => {
    const ring = await fromFixture<Differential>("dRingArea");
    const width = await fromFixture<Differential>("dRingAreaWidth");
    fc.assert(
      fc.property(points([0, 5], [0, 2]), ([r, w]) => {
        assertClose(ring(r, w)(1, 0), 2 * Math.PI * w, 1e-9, `∂r at ${r}, ${w}`);
        assertClose(ring(r, w)(0, 1), 2 * Math.PI * (r + w), 1e-12, `∂w at ${r}, ${w}`);
        assertClose(width(r, w)(1), 2 * Math.PI * (r + w), 1e-12, `wrt [1] at ${r}, ${w}`);
      }),
      { numRuns: RUNS },
    );
    assertClose((await fromFixture<Derivative>("dCircleArea"))(2), 4 * Math.PI, 1e-15);
    assertClose((await fromFixture<Derivative>("dCircumference"))(7), 2 * Math.PI, 1e-15);
  });

  test("a './b.js' specifier for b.ts in a subfolder, importing constants from '../constants.js'", async () => {
    const height = await fromFixture<Differential>("dHeight");
    // wrt [1, 0]: the tangent of t first, then of v.
    assertClose(height(10, 2)(1, 0), 10 - GRAVITY * 2, 1e-14);
    assert.equal(height(10, 2)(0, 1), 2);
    const terminal = await fromFixture<ValueWithDifferential>("vdTerminalSpeed");
    // The fixed point of v = (√(mg / (½ρ·C·πr²)) + v) / 2.
    const speed = (r: number, m: number) =>
      Math.sqrt((m * GRAVITY) / (0.5 * AIR_DENSITY * DRAG * Math.PI * r * r));
    fc.assert(
      fc.property(points([0.05, 1], [0.1, 10]), ([r, m]) => {
        const { value, differential } = terminal(r, m);
        assertClose(value, speed(r, m), 1e-12, `speed at ${r}, ${m}`);
        assertClose(differential(1, 0), speed(r, m) / (2 * m), 1e-9, `∂m at ${r}, ${m}`);
        assertClose(differential(0, 1), -speed(r, m) / r, 1e-9, `∂r at ${r}, ${m}`);
      }),
      { numRuns: RUNS },
    );
  });

  test("namespace imports: calls through geometry.f, and derivative(geometry.circleArea)", async () => {
    const ratio = await fromFixture<Derivative>("dSphereSurfaceRatio");
    // DRAG·πr²/πr² + 2π r / r is constant.
    fc.assert(
      fc.property(range(0.1, 10), (r) => assertClose(ratio(r), 0, 1e-9, `at ${r}`)),
      { numRuns: RUNS },
    );
    assertClose((await fromFixture<Derivative>("dNamespaceTarget"))(3), 6 * Math.PI, 1e-15);
  });

  test("imported module-level constants, a nabla namespace import, default and renamed imports", async () => {
    const weight = await fromFixture<Derivative>("dWeight");
    fc.assert(
      fc.property(range(0, 100), (m) => assertClose(weight(m), GRAVITY + 2 * DRAG * m, 1e-14)),
      { numRuns: RUNS },
    );
    const volumeAndDrag = await fromFixture<Differential>("dVolumeAndDrag");
    const volumeAndDragFn = await fromFixture<Fn>("volumeAndDrag");
    checkPartials(
      "volumeAndDrag",
      volumeAndDragFn,
      viaDifferential(volumeAndDrag, [0, 1]),
      points([0.1, 3], [-20, 20]),
      [0, 1],
    );
    const [r, v] = [0.5, 3];
    const dragCoefficient = 0.5 * AIR_DENSITY * DRAG * Math.PI;
    assertClose(
      volumeAndDrag(r, v)(1, 0),
      4 * Math.PI * r * r + 2 * dragCoefficient * r * v * v,
      1e-12,
    );
    assertClose(volumeAndDrag(r, v)(0, 1), 2 * dragCoefficient * r * r * v, 1e-12);
  });

  test("reverse mode: every function of the program, against finite differences and forward mode", async () => {
    // The fixture exports g<key>, p<key> and j<key> for each key.
    const cases: [f: string, key: string, wrt: number[], fc.Arbitrary<number[]>][] = [
      ["ringArea", "RingArea", [0, 1], points([0, 5], [0, 2])],
      ["ringArea", "RingAreaWidth", [1], points([0, 5], [0, 2])],
      ["circleArea", "CircleArea", [0], points([-5, 5])],
      ["circumference", "Circumference", [0], points([-5, 5])],
      ["height", "Height", [1, 0], points([-20, 20], [0, 10])],
      ["sphereSurfaceRatio", "SphereSurfaceRatio", [0], points([0.1, 10])],
      ["namespaceCircleArea", "NamespaceTarget", [0], points([-5, 5])],
      ["weight", "Weight", [0], points([0, 100])],
      ["volumeAndDrag", "VolumeAndDrag", [0, 1], points([0.1, 3], [-20, 20])],
      ["terminalSpeed", "TerminalSpeed", [1, 0], points([0.05, 1], [0.1, 10])],
    ];
    for (const [f, key, wrt, at] of cases) {
      const names = { gradient: `g${key}`, pullback: `p${key}`, differential: `j${key}` };
      await checkReverse({ f, ...names, wrt, points: at }, crossFileProgram);
    }
    const weight = await fromFixture<(m: number) => number>("gWeight");
    assertClose(weight(3), GRAVITY + 2 * DRAG * 3, 1e-14);
    const ring = await fromFixture<(r: number, w: number) => number[]>("gRingArea");
    assertClose(ring(1, 0.5)[0]!, 2 * Math.PI * 0.5, 1e-12);
    assertClose(ring(1, 0.5)[1]!, 2 * Math.PI * 1.5, 1e-12);
    const terminal = await fromFixture<(r: number, m: number) => number[]>("gTerminalSpeed");
    const speed = Math.sqrt((2 * GRAVITY) / (0.5 * AIR_DENSITY * DRAG * Math.PI * 0.25));
    // wrt [1, 0]: ∂m first, then ∂r.
    assertClose(terminal(0.5, 2)[0]!, speed / 4, 1e-9);
    assertClose(terminal(0.5, 2)[1]!, -speed / 0.5, 1e-9);
  });

  test("mutual recursion between two files that import each other", async () => {
    const m = await loadProgram<{ up: Fn; dUp: Differential }>({
      "a.ts": `import { down } from "./b.js";
export function up(x: number, n: number): number {
  return n <= 0 ? x : down(x * 1.5, n - 1) + x;
}
`,
      "b.ts": `import { up } from "./a.js";
export function down(x: number, n: number): number {
  return n <= 0 ? x : up(Math.sin(x), n - 1) * 0.5;
}
`,
      "main.ts": `import { differential, gradient, pullback, tapeStats } from "nabla";
import { up } from "./a.js";
import { down } from "./b.js";
export { up, down };
export const dUp = differential(up, { wrt: [0] });
export const gUp = gradient(up, { wrt: [0] });
export const pUp = pullback(up, { wrt: [0] });
export const dDown = differential(down, { wrt: [0] });
export const gDown = gradient(down, { wrt: [0] });
export const pDown = pullback(down, { wrt: [0] });
export function tapeSize(): number {
  return tapeStats().size;
}
`,
    });
    checkPartials("up", m.up, viaDifferential(m.dUp, [0]), withCount(-2, 2, 0, 8), [0]);
    // n = 2: sin(1.5x)·0.5 + x.
    assertClose(m.dUp(0.4, 2)(1), 0.75 * Math.cos(0.6) + 1, 1e-14);
    // Reverse mode, from either file.
    const loaded = () => Promise.resolve(m as unknown as Exports);
    for (const f of ["up", "down"] as const) {
      const key = f === "up" ? "Up" : "Down";
      const names = { gradient: `g${key}`, pullback: `p${key}`, differential: `d${key}` };
      await checkReverse({ f, ...names, wrt: [0], points: withCount(-2, 2, 0, 8) }, loaded);
    }
    const gradientOfUp = (m as unknown as { gUp: (x: number, n: number) => number }).gUp;
    assertClose(gradientOfUp(0.4, 2), 0.75 * Math.cos(0.6) + 1, 1e-14);
  });
});

// ---------------------------------------------------------------------------------------------
// Regressions: cases that were wrong once, each in a program of its own.

const GEOMETRY = `export const K = 3;
export function area(r: number): number {
  return Math.PI * r * r * K;
}
`;

describe("known bugs", () => {
  test("re-export with `export { f } from './geometry.js'` in an index file", async () => {
    const m = await loadProgram<{ d: Derivative }>({
      "geometry.ts": GEOMETRY,
      "index.ts": `export { area } from "./geometry.js";\n`,
      "main.ts": `import { derivative } from "nabla";
import { area } from "./index.js";
export const d = derivative((r: number) => area(r));
`,
    });
    assertClose(m.d(2), 12 * Math.PI, 1e-15);
  });

  test("re-export with `export * from './geometry.js'` in an index file", async () => {
    const m = await loadProgram<{ d: Derivative }>({
      "geometry.ts": GEOMETRY,
      "index.ts": `export * from "./geometry.js";\n`,
      "main.ts": `import { derivative } from "nabla";
import { area } from "./index.js";
export const d = derivative((r: number) => area(r));
`,
    });
    assertClose(m.d(2), 12 * Math.PI, 1e-15);
  });

  test("a module-level constant imported through a re-exporting index file", async () => {
    const m = await loadProgram<{ d: Derivative }>({
      "geometry.ts": GEOMETRY,
      "index.ts": `import { K } from "./geometry.js";\nexport { K };\n`,
      "main.ts": `import { derivative } from "nabla";
import { K } from "./index.js";
export const d = derivative((r: number) => K * r * r);
`,
    });
    assert.equal(m.d(2), 12);
  });

  test("a module-level constant read through a namespace import (geometry.K)", async () => {
    const m = await loadProgram<{ d: Derivative }>({
      "geometry.ts": GEOMETRY,
      "main.ts": `import { derivative } from "nabla";
import * as geometry from "./geometry.js";
export const d = derivative((r: number) => geometry.K * geometry.area(r));
`,
    });
    assertClose(m.d(2), 36 * Math.PI, 1e-15);
  });

  test("valueWithDifferential of a function with a parameter named `value`", async () => {
    const m = await loadProgram<{ vd: ValueWithDifferential }>({
      "main.ts": `import { valueWithDifferential } from "nabla";
export function scale(value: number, factor: number): number {
  return value * factor;
}
export const vd = valueWithDifferential(scale);
`,
    });
    const { value, differential } = m.vd(3, 4);
    assert.equal(value, 12);
    assert.equal(differential(1, 0), 4);
    assert.equal(differential(0, 1), 3);
  });

  test("valueWithDerivative of a lambda with a parameter named `derivative`", async () => {
    const m = await loadProgram<{ vd: ValueWithDerivative }>({
      "main.ts": `import { valueWithDerivative } from "nabla";
export const vd = valueWithDerivative((derivative: number) => derivative * 3);
`,
    });
    assert.deepEqual(m.vd(2), { value: 6, derivative: 3 });
  });
});
