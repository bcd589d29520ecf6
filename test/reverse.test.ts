import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import fc from "fast-check";
import {
  assertClose,
  compileFiles,
  diagnosticsText,
  finiteGradient,
  importCompiled,
  loadProgram,
} from "./support/harness.js";

// The reverse-mode operators — gradient, valueWithGradient, pullback, valueWithPullback — on
// their own: known values, `wrt` orders and result shapes, what a pullback may be asked to do
// (run later, twice, out of order), a balanced tape, and the control flow reverse mode has to
// replay backwards. Every program of test/programs.test.ts is checked in reverse mode there.

type Fn = (...xs: number[]) => number;
type Gradient = (...xs: number[]) => number | number[];
type ValueWithGradient = (...xs: number[]) => { value: number; gradient: number | number[] };
type Pullback = (...xs: number[]) => (adjoint: number) => number | number[];
type ValueWithPullback = (...xs: number[]) => {
  value: number;
  pullback: (adjoint: number) => number | number[];
};
type Differential = (...xs: number[]) => (...tangents: number[]) => number;

fc.configureGlobal({ includeErrorInReport: true });

const RUNS = 100;

const uniform = (min: number, max: number) =>
  fc.integer({ min: 0, max: 2 ** 30 }).map((k) => min + ((max - min) * k) / 2 ** 30);
const points = (...ranges: [number, number][]) =>
  fc.tuple(...ranges.map(([min, max]) => uniform(min, max)));
const withCount = (min: number, max: number, countMax: number) =>
  fc.tuple(uniform(min, max), fc.integer({ min: 0, max: countMax }));

const PROGRAM = `
import {
  gradient,
  valueWithGradient,
  pullback,
  valueWithPullback,
  differential,
  withoutDerivative,
  tapeStats,
  resetTapePeak,
} from "nabla";

export function tapeSize(): number {
  return tapeStats().size;
}
export function tapePeak(): number {
  return tapeStats().peak;
}

// ---- the classic cases ----

export function branchy(x: number): number {
  return x > 0 ? x * x : x + x;
}
export const gBranchy = gradient(branchy);

export function cubeLoop(x: number): number {
  let result = x;
  for (let i = 0; i < 2; i++) {
    result *= x;
  }
  return result;
}
export const vgCubeLoop = valueWithGradient(cubeLoop);

export function factorial(x: number): number {
  return x <= 1 ? 1 : x * factorial(x - 1);
}
export const gFactorial = gradient(factorial);

// ---- wrt orders and result shapes ----

export function three(a: number, b: number, c: number): number {
  return a * a * b + Math.sin(c) * b + c / a;
}
export const g3 = gradient(three);
export const g3_012 = gradient(three, { wrt: [0, 1, 2] });
export const g3_1 = gradient(three, { wrt: 1 });
export const g3_1list = gradient(three, { wrt: [1] });
export const g3_20 = gradient(three, { wrt: [2, 0] });
export const g3_210 = gradient(three, { wrt: [2, 1, 0] });
export const g3_12 = gradient(three, { wrt: [1, 2] });
export const vg3 = valueWithGradient(three);
export const vg3_1 = valueWithGradient(three, { wrt: 1 });
export const vg3_20 = valueWithGradient(three, { wrt: [2, 0] });
export const p3 = pullback(three);
export const p3_1 = pullback(three, { wrt: [1] });
export const p3_20 = pullback(three, { wrt: [2, 0] });
export const vp3 = valueWithPullback(three);
export const vp3_1 = valueWithPullback(three, { wrt: 1 });
export const vp3_20 = valueWithPullback(three, { wrt: [2, 0] });

export function cube(x: number): number {
  return x * x * x;
}
export const gCube = gradient(cube);
export const vgCube = valueWithGradient(cube);
export const pCube = pullback(cube);
export const vpCube = valueWithPullback(cube);

// ---- pullbacks: a loop, a branch and recursion ----

export function mixed(x: number, y: number, n: number): number {
  let s = x;
  for (let i = 0; i < n; i++) {
    s = s > 1 ? Math.sqrt(s) * y : s * y + x;
  }
  return n > 0 ? mixed(s * 0.5, y, n - 1) + s : s * y;
}
export const gMixed = gradient(mixed, { wrt: [0, 1] });
export const vgMixed = valueWithGradient(mixed, { wrt: [0, 1] });
export const pMixed = pullback(mixed, { wrt: [0, 1] });
export const vpMixed = valueWithPullback(mixed, { wrt: [0, 1] });
export const pMixedY = pullback(mixed, { wrt: [1] });

// ---- loops and exits ----

export function breakContinue(x: number, y: number): number {
  let s = 0;
  for (let i = 0; i < 10; i++) {
    if (i % 3 === 1) continue;
    s += Math.sin(x * i) * y;
    if (s > 2) break;
  }
  return s;
}

export function labeledExits(x: number, y: number): number {
  let s = 0;
  rows: for (let i = 0; i < 4; i++) {
    columns: for (let j = 0; j < 4; j++) {
      if (j === 3) continue rows;
      for (let k = 0; k < 3; k++) {
        if (k === 2) continue columns;
        s += x * i + y * j * k;
        if (s > 20) break rows;
      }
    }
  }
  return s * x;
}

export function returnFromNestedLoops(x: number, y: number): number {
  let s = x;
  for (let i = 0; i < 4; i++) {
    for (let j = 0; j < 4; j++) {
      s = s * 0.9 + y * j;
      if (s > 3) return s * x;
    }
  }
  return s + y;
}

export function returnFromWhileTrue(x: number): number {
  let s = x;
  while (true) {
    s = s * 1.3;
    if (s > 10) return s;
    if (s < -10) return -s * x;
  }
}

export function returnFromDoWhile(x: number, y: number): number {
  let s = x;
  let i = 0;
  do {
    i++;
    let j = 0;
    while (j < i) {
      s = s * y + 0.1;
      if (s > 8) return s + i * x;
      j++;
    }
  } while (i < 5);
  return -s;
}

export function doContinue(x: number, y: number): number {
  let s = x;
  let k = 0;
  do {
    k++;
    if (k % 2 === 0) continue;
    s = s * y + x;
  } while (k < 5);
  return s;
}

/** The trip count depends on x: x / 2^k, the derivative 1 / 2^k. */
export function halve(x: number): number {
  let m = x;
  while (m >= 2) m /= 2;
  return m;
}

export function untilLarge(x: number): number {
  let v = x;
  let n = 0;
  while (v < 100) {
    v = v * v + 1;
    n++;
  }
  return v / n;
}

export function zeroTrips(x: number, n: number): number {
  let s = x * x;
  for (let i = 0; i < n; i++) s = s * x;
  let k = 0;
  while (k < 0) {
    s += x;
    k++;
  }
  return s;
}

/** Bounds the loop carries and changes: two pointers meeting, a bound lowered inside. */
export function twoPointers(x: number, y: number): number {
  const xs = [x, y, x * y, x - y, 2 * x, y * y];
  let s = 0;
  for (let i = 0, j = xs.length - 1; i < j; i++, j--) s += xs[i] * xs[j];
  let lo = 0;
  let hi = 5;
  while (lo < hi) {
    s += x * lo * Math.sin(y);
    lo++;
    hi--;
  }
  let n = 6;
  for (let k = 0; k < n; k++) {
    s += Math.cos(x * k) * y;
    if (s > 3) n = 4;
  }
  return s;
}

export function nestedLoops(x: number, y: number): number {
  let s = 0;
  for (let i = 0; i < 5; i++) {
    let j = 0;
    let t = x;
    while (t < i * y + 1) {
      t = t * 1.5 + 0.1;
      j++;
    }
    s += t * j;
  }
  return s;
}

export function ternariesInLoop(x: number, y: number): number {
  let s = 0;
  for (let i = 0; i < 6; i++) {
    s = i % 3 === 0 ? s + x : i % 3 === 1 ? s * y : s > 1 ? s - x * y : s + y;
    s += (i > 2 ? x : 0) || y;
    s += (s && x) * 0.5;
    s = s > 10 ? 10 : s;
  }
  return s;
}

function settle(x: number, n: number): number {
  return n <= 0 ? x : Math.sin(settle(x, n - 1)) + x;
}
export function breakAfterRecursion(x: number, y: number): number {
  let s = 0;
  for (let i = 0; i < 10; i++) {
    s += settle(x * y, i);
    if (s > 2) break;
  }
  return s;
}

function grows(s: number, x: number): number {
  return s * s + x;
}
export function callsInCondition(x: number): number {
  let s = x;
  let n = 0;
  while (grows(s, x) < 10 && n < 20) {
    s = grows(s, x) * 0.5 + 1;
    n++;
  }
  return s;
}

/** x + x² + … + xⁿ by a loop, called from straight-line code and from a loop. */
function sumPowers(x: number, n: number): number {
  let s = 0;
  let p = 1;
  for (let k = 1; k <= n; k++) {
    p *= x;
    s += p;
  }
  return s;
}
export function loopInCallee(x: number, y: number): number {
  let total = sumPowers(x, 3) * y + sumPowers(y, 2);
  for (let i = 0; i < 2; i++) total += sumPowers(x * y, i + 1);
  return total;
}

// ---- one function, several derivative configurations ----

function inner(a: number, b: number): number {
  let s = 0;
  for (let i = 1; i <= 3; i++) {
    s += a * b * i;
    if (s > 50) break;
  }
  return s;
}
export function twoPlaces(x: number, y: number): number {
  return inner(x, 2) + inner(3, y) + inner(x, y) + inner(1, 1);
}
export const gTwoPlaces = gradient(twoPlaces);
export const pTwoPlaces = pullback(twoPlaces);

// ---- inactive arguments and withoutDerivative ----

export function repeat(x: number, square: boolean, times: number): number {
  let r = x;
  for (let i = 0; i < times; i++) r = square ? r * r : r + 1;
  return r;
}
export const gRepeat = gradient(repeat, { wrt: [0, 2] });
export const pRepeat = pullback(repeat, { wrt: [2, 0] });

export function stopped(x: number, y: number): number {
  return withoutDerivative(x * y) * x + y;
}
export const gStopped = gradient(stopped);

export function heldInLoop(x: number, y: number): number {
  let s = x;
  for (let i = 0; i < 3; i++) s = withoutDerivative(s) * y + s + withoutDerivative(y);
  return s;
}
export const gHeldInLoop = gradient(heldInLoop);

// ---- lambdas reading variables of the enclosing function ----

export function fitGradient(a: number, b: number, x: number, y: number): number[] {
  const loss = gradient((p: number, q: number) => (p * x + q - y) ** 2);
  return loss(a, b);
}

export function slopes(x: number): number {
  let total = 0;
  for (let k = 1; k <= 3; k++) {
    const g = gradient((t: number) => t * t * k);
    total += g(x);
  }
  return total;
}

function residual(E: number, e: number, M: number): number {
  return E - e * Math.sin(E) - M;
}
export function eccentricAnomaly(M: number, e: number): number {
  const slope = gradient((E: number) => residual(E, e, M));
  let E = M;
  for (let i = 0; i < 50; i++) {
    const step = residual(E, e, M) / slope(E);
    E -= step;
    if (Math.abs(step) < 1e-14) break;
  }
  return E;
}

export function capturedPullback(x: number, w: number): number[] {
  const result = valueWithPullback((t: number) => Math.sin(t * w) * x)(x);
  return [result.value, result.pullback(1), result.pullback(2)];
}

// ---- kinks and powers ----

export function kinks(x: number, y: number): number {
  return Math.max(x, y) + Math.abs(x - y) + Math.min(x * y, 1) + Math.abs(x);
}
export const gKinks = gradient(kinks);
export const dKinksX = differential(kinks, { wrt: 0 });
export const dKinksY = differential(kinks, { wrt: 1 });

export function power(x: number, y: number): number {
  return x ** y;
}
export const gPower = gradient(power);
export const dPowerX = differential(power, { wrt: 0 });
export const dPowerY = differential(power, { wrt: 1 });

// ---- the peak of the tape ----

export function longLoop(x: number): number {
  let s = x;
  for (let i = 0; i < 1000; i++) s = Math.sin(s) * x;
  return s;
}
export const gLongLoop = gradient(longLoop);
export const pLongLoop = pullback(longLoop);
/** How much higher the tape's peak went while \`run\` ran. */
export function peakGrowth(run: () => unknown): number {
  resetTapePeak();
  const before = tapeStats().peak;
  run();
  return tapeStats().peak - before;
}

// ---- ten parameters ----

export function tenParams(
  a: number, b: number, c: number, d: number, e: number,
  f: number, g: number, h: number, i: number, j: number,
): number {
  let s = a * b + Math.sin(c) * d;
  for (let k = 0; k < 4; k++) {
    s += Math.exp(-e * k) * f;
    if (s > g * 10) break;
  }
  const t = h > 0 ? Math.sqrt(h) * i : i * i;
  return s * t + Math.hypot(j, a) + c ** 2 * j;
}
export const gTenParams = gradient(tenParams);
export const gTenParams_905 = gradient(tenParams, { wrt: [9, 0, 5] });
export const pTenParams = pullback(tenParams);
export const dTenParams = differential(tenParams);
`;

/** Functions of the program with loops, exits and calls, and where to check them. */
const LOOPS: [name: string, points: fc.Arbitrary<number[]>][] = [
  ["breakContinue", points([-2, 2], [-2, 2])],
  ["labeledExits", points([-2, 3], [-2, 3])],
  ["returnFromNestedLoops", points([-2, 4], [-1, 1])],
  ["returnFromWhileTrue", points([-8, 8]).filter(([x]) => Math.abs(x) > 0.01)],
  ["returnFromDoWhile", points([-2, 3], [-1.5, 3])],
  ["doContinue", points([-2, 2], [-2, 2])],
  ["halve", points([0.1, 1e4])],
  ["untilLarge", points([0.1, 50])],
  ["nestedLoops", points([0.1, 3], [0, 2])],
  ["ternariesInLoop", points([-2, 2], [-2, 3])],
  ["breakAfterRecursion", points([-1, 1.5], [-1, 1.5])],
  ["callsInCondition", points([0.1, 2])],
  ["loopInCallee", points([-2, 2], [-2, 2])],
  ["zeroTrips", withCount(-3, 3, 4)],
  ["twoPointers", points([-2, 2], [-2, 2])],
];

type Exports = Record<string, unknown>;

let loaded: Promise<Exports> | undefined;
function program(): Promise<Exports> {
  loaded ??= loadProgram<Exports>({ "main.ts": PROGRAM + loopExports() });
  return loaded;
}

async function get<T>(name: string): Promise<T> {
  const value = (await program())[name];
  assert.equal(typeof value, "function", `the program exports '${name}'`);
  return value as T;
}

/** Gradients, pullbacks and differentials of the LOOPS functions (`g_f`, `p_f`, `d_f`). */
function loopExports(): string {
  return LOOPS.map(
    ([name]) =>
      `export const g_${name} = gradient(${name});\n` +
      `export const p_${name} = pullback(${name});\n` +
      `export const d_${name} = differential(${name});\n`,
  ).join("");
}

/** Asserts that `run` leaves the tape at the height it found it. */
async function balanced<T>(run: () => T, what: string): Promise<T> {
  const size = await get<() => number>("tapeSize");
  const before = size();
  const result = run();
  assert.equal(size(), before, `${what}: the tape is back to its height`);
  return result;
}

function list(result: number | number[]): number[] {
  return typeof result === "number" ? [result] : result;
}

/** Exact comparison of number lists, 0 and -0 equal, NaN equal to NaN. */
function assertValues(actual: number[], expected: number[], what = "values"): void {
  const same =
    actual.length === expected.length &&
    actual.every((a, i) => a === expected[i] || (Number.isNaN(a) && Number.isNaN(expected[i])));
  assert.ok(same, `${what}: expected [${expected.join(", ")}], got [${actual.join(", ")}]`);
}

/**
 * Agreement of number lists to rounding, for results of different generated code (a gradient
 * and a pullback, two `wrt` lists, forward and reverse mode); NaN agrees with NaN.
 */
function assertNear(actual: number[], expected: number[], what = "values"): void {
  assert.equal(actual.length, expected.length, `${what}: length`);
  actual.forEach((a, i) => assertClose(a, expected[i]!, 1e-12, `${what} [${i}]`));
}

/**
 * Central differences of f in each coordinate at xs; undefined for a coordinate in which f is
 * not smooth within the step (a branch boundary, a kink, an integer count). With steps h and
 * h/4, a smooth f has central differences that agree and a second difference that scales by 4;
 * a jump or a kink breaks one or the other (a kink right at x, the second).
 */
function smoothGradient(f: Fn, xs: number[]): (number | undefined)[] {
  return xs.map((x, i) => {
    const at = (t: number) => f(...xs.map((v, j) => (j === i ? t : v)));
    const h = 1e-6 * Math.max(1, Math.abs(x));
    const [f0, fHi, fLo, fHi4, fLo4] = [x, x + h, x - h, x + h / 4, x - h / 4].map(at);
    const central = (fHi! - fLo!) / (2 * h);
    const central4 = (fHi4! - fLo4!) / (h / 2);
    const curvature = (fHi! - 2 * f0! + fLo!) / h;
    const curvature4 = (fHi4! - 2 * f0! + fLo4!) / (h / 4);
    const noise = (100 * Number.EPSILON * Math.max(1, Math.abs(f0!), Math.abs(fHi!))) / h;
    const allowed = 1e-7 * Math.max(1, Math.abs(central)) + noise;
    const smooth =
      Math.abs(central - central4) <= allowed && Math.abs(curvature - 4 * curvature4) <= allowed;
    return smooth ? central : undefined;
  });
}

test("the program compiles", async () => {
  await program();
});

// ---------------------------------------------------------------------------------------------

describe("the classic cases", () => {
  test("x > 0 ? x * x : x + x has gradient 8 at 4 and 2 at -10", async () => {
    const g = await get<(x: number) => number>("gBranchy");
    assert.equal(await balanced(() => g(4), "gradient at 4"), 8);
    assert.equal(await balanced(() => g(-10), "gradient at -10"), 2);
  });

  test("result = x, then result *= x twice in a loop: value 8 and gradient 12 at 2", async () => {
    const vg = await get<ValueWithGradient>("vgCubeLoop");
    assert.deepEqual(await balanced(() => vg(2), "valueWithGradient"), { value: 8, gradient: 12 });
  });

  test("factorial on numbers by recursion: gradients 0, 1, 5, 26, 154 at 1…5", async () => {
    const g = await get<(x: number) => number>("gFactorial");
    const gradients = await balanced(() => [1, 2, 3, 4, 5].map((x) => g(x)), "gradients");
    assertValues(gradients, [0, 1, 5, 26, 154]);
  });
});

describe("wrt orders and result shapes", () => {
  /** ∂three/∂a, ∂b, ∂c. */
  const exact = (a: number, b: number, c: number) => [
    2 * a * b - c / (a * a),
    a * a + Math.sin(c),
    b * Math.cos(c) + 1 / a,
  ];
  const triples = points([0.5, 3], [-3, 3], [-3, 3]);
  /** The result in the order of `wrt`, after checking it has the shape `wrt` asks for. */
  const shaped = (result: number | number[], wrt: number[], what: string): number[] => {
    if (wrt.length === 1) {
      assert.equal(typeof result, "number", `${what}: one differentiated argument, a number`);
      return [result as number];
    }
    assert.ok(Array.isArray(result), `${what}: several differentiated arguments, an array`);
    assert.equal(result.length, wrt.length, `${what}: one entry per differentiated argument`);
    return result;
  };
  const WRTS: [suffix: string, wrt: number[]][] = [
    ["", [0, 1, 2]],
    ["_1", [1]],
    ["_20", [2, 0]],
  ];

  test("gradient: no wrt, [0, 1, 2], 1, [1], [2, 0], [2, 1, 0], [1, 2]", async () => {
    const cases: [string, number[]][] = [
      ["g3", [0, 1, 2]],
      ["g3_012", [0, 1, 2]],
      ["g3_1", [1]],
      ["g3_1list", [1]],
      ["g3_20", [2, 0]],
      ["g3_210", [2, 1, 0]],
      ["g3_12", [1, 2]],
    ];
    const gradients = await Promise.all(cases.map(([name]) => get<Gradient>(name)));
    fc.assert(
      fc.property(triples, ([a, b, c]) => {
        const full = exact(a, b, c);
        cases.forEach(([name, wrt], k) => {
          const result = shaped(gradients[k]!(a, b, c), wrt, name);
          wrt.forEach((i, n) => assertClose(result[n]!, full[i]!, 1e-12, `${name}: ∂${i}`));
        });
        // The same adjoints whatever the order they are asked in.
        const [gc, ga] = gradients[4]!(a, b, c) as number[];
        const all = gradients[0]!(a, b, c) as number[];
        assertNear([ga!, gc!], [all[0]!, all[2]!], "wrt [2, 0] against no wrt");
      }),
      { numRuns: RUNS },
    );
  });

  test("valueWithGradient: the primal value, and the gradient shaped by wrt", async () => {
    const three = await get<Fn>("three");
    for (const [suffix, wrt] of WRTS) {
      const vg = await get<ValueWithGradient>(`vg3${suffix}`);
      const g = await get<Gradient>(`g3${suffix}`);
      fc.assert(
        fc.property(triples, ([a, b, c]) => {
          const { value, gradient } = vg(a, b, c);
          assert.equal(value, three(a, b, c));
          assertNear(shaped(gradient, wrt, `vg3${suffix}`), list(g(a, b, c)));
        }),
        { numRuns: RUNS },
      );
    }
  });

  test("pullback and valueWithPullback: adjoints shaped by wrt, scaled by the seed", async () => {
    const three = await get<Fn>("three");
    for (const [suffix, wrt] of WRTS) {
      const p = await get<Pullback>(`p3${suffix}`);
      const vp = await get<ValueWithPullback>(`vp3${suffix}`);
      fc.assert(
        fc.property(triples, uniform(-3, 3), ([a, b, c], seed) => {
          const full = exact(a, b, c);
          const fromPullback = shaped(p(a, b, c)(seed), wrt, `p3${suffix}`);
          const { value, pullback } = vp(a, b, c);
          assert.equal(value, three(a, b, c));
          const fromValue = shaped(pullback(seed), wrt, `vp3${suffix}`);
          assertNear(fromValue, fromPullback);
          wrt.forEach((i, n) =>
            assertClose(fromPullback[n]!, seed * full[i]!, 1e-12, `p3${suffix}: ∂${i}`),
          );
        }),
        { numRuns: RUNS },
      );
    }
  });

  test("a function of one parameter: a number from all four operators", async () => {
    const g = await get<(x: number) => number>("gCube");
    const vg = await get<(x: number) => { value: number; gradient: number }>("vgCube");
    const p = await get<(x: number) => (s: number) => number>("pCube");
    const vp =
      await get<(x: number) => { value: number; pullback: (s: number) => number }>("vpCube");
    assert.equal(g(4), 48);
    assert.deepEqual(vg(4), { value: 64, gradient: 48 });
    assert.equal(p(4)(0.5), 24);
    const { value, pullback } = vp(-2);
    assert.equal(value, -8);
    assert.equal(pullback(1), 12);
    assert.equal(pullback(-1), -12);
  });
});

describe("pullbacks", () => {
  const at = fc.tuple(uniform(0.1, 3), uniform(-2, 2), fc.integer({ min: 0, max: 4 }));

  test("valueWithGradient and valueWithPullback give the primal value", async () => {
    const mixed = await get<Fn>("mixed");
    const vg = await get<ValueWithGradient>("vgMixed");
    const vp = await get<ValueWithPullback>("vpMixed");
    const g = await get<Gradient>("gMixed");
    fc.assert(
      fc.property(at, ([x, y, n]) => {
        const { value, gradient } = vg(x, y, n);
        assert.equal(value, mixed(x, y, n));
        assertNear(list(gradient), list(g(x, y, n)));
        assert.equal(vp(x, y, n).value, mixed(x, y, n));
      }),
      { numRuns: RUNS },
    );
  });

  test("linear in the seed: pb(a·s) = a·pb(s); pb(1) is the gradient", async () => {
    const p = await get<Pullback>("pMixed");
    const g = await get<Gradient>("gMixed");
    fc.assert(
      fc.property(at, uniform(-5, 5), uniform(-5, 5), ([x, y, n], a, s) => {
        const pb = p(x, y, n);
        const scaled = list(pb(a * s));
        const [gx, gy] = list(pb(s)).map((v) => a * v);
        assertClose(scaled[0]!, gx!, 1e-12, "∂x");
        assertClose(scaled[1]!, gy!, 1e-12, "∂y");
        assertNear(list(pb(1)), list(g(x, y, n)), "pb(1) against the gradient");
        assertValues(list(pb(0)), [0, 0], "pb(0)");
      }),
      { numRuns: RUNS },
    );
  });

  test("called twice, two pullbacks called in reverse order, one called after other gradients", async () => {
    const p = await get<Pullback>("pMixed");
    const py = await get<Pullback>("pMixedY");
    const g = await get<Gradient>("gMixed");
    const g3 = await get<Gradient>("g3");
    const size = await get<() => number>("tapeSize");
    const before = size();
    const first = p(1.3, 0.7, 3);
    const second = p(0.4, -1.2, 4);
    const onlyY = py(2.5, 1.1, 2);
    const [g1, g2, gOnlyY] = [g(1.3, 0.7, 3), g(0.4, -1.2, 4), list(g(2.5, 1.1, 2))[1]!];
    assert.equal(size(), before, "creating pullbacks leaves the tape as it was");
    // Twice in a row: the same adjoints.
    const once = list(first(1));
    assertValues(list(first(1)), once, "the second call");
    assertNear(once, list(g1));
    // The second before the first.
    assertNear(
      list(second(2)),
      list(g2).map((v) => 2 * v),
    );
    assertNear(
      list(first(2)),
      list(g1).map((v) => 2 * v),
    );
    // After other gradients and pullbacks ran, at other points.
    for (let k = 0; k < 5; k++) {
      g(0.2 * k + 0.1, 1, k);
      g3(1, 2, 3);
      p(2, 2, 2)(1);
    }
    assertNear(list(onlyY(1)), [gOnlyY]);
    assertNear(list(second(1)), list(g2));
    assertNear(list(first(1)), list(g1));
    assert.equal(size(), before, "calling pullbacks leaves the tape as it was");
  });

  test("many pullbacks of a recursive function, called in a shuffled order", async () => {
    const p = await get<Pullback>("pMixed");
    const g = await get<Gradient>("gMixed");
    const size = await get<() => number>("tapeSize");
    fc.assert(
      fc.property(fc.array(at, { minLength: 1, maxLength: 8 }), fc.nat(), (xs, seed) => {
        const before = size();
        const pullbacks = xs.map(([x, y, n]) => p(x, y, n));
        const order = xs
          .map((_, i) => i)
          .sort((i, j) => ((i * 7919 + seed) % 13) - ((j * 7919 + seed) % 13));
        for (const i of order) {
          const [x, y, n] = xs[i]!;
          assertNear(list(pullbacks[i]!(1)), list(g(x, y, n)), `pullback ${i}`);
        }
        assert.equal(size(), before);
      }),
      { numRuns: RUNS },
    );
  });
});

describe("the tape", () => {
  test("is balanced after gradient, valueWithGradient and pullbacks, through loops, branches and recursion", async () => {
    const size = await get<() => number>("tapeSize");
    const peak = await get<() => number>("tapePeak");
    const operators: [string, (...xs: number[]) => unknown][] = [];
    for (const name of ["gMixed", "vgMixed", "gFactorial", "gBranchy", "vgCubeLoop", "g3_20"])
      operators.push([name, await get<Gradient>(name)]);
    for (const name of ["pMixed", "pMixedY", "p3_20"]) {
      const p = await get<Pullback>(name);
      operators.push([`${name}, created`, (...xs) => p(...xs)]);
      operators.push([`${name}, called`, (...xs) => p(...xs)(1)]);
    }
    const vp = await get<ValueWithPullback>("vpMixed");
    operators.push(["vpMixed, called twice", (...xs) => [1, 2].map(vp(...xs).pullback)]);
    const before = size();
    for (const [name, run] of operators) {
      for (const xs of [
        [1.5, 0.5, 3],
        [0.5, 2, 4],
        [-1, 1, 0],
      ]) {
        run(...xs);
        assert.equal(size(), before, `${name}(${xs.join(", ")})`);
      }
    }
    for (const [name, at] of LOOPS) {
      const g = await get<Gradient>(`g_${name}`);
      const p = await get<Pullback>(`p_${name}`);
      for (const xs of fc.sample(at, { numRuns: 5, seed: 1 })) {
        g(...xs);
        const pullback = p(...xs);
        assert.equal(size(), before, `p_${name}(${xs.join(", ")}), created`);
        pullback(1);
        pullback(-1);
        assert.equal(size(), before, `${name}(${xs.join(", ")})`);
      }
    }
    assert.ok(peak() > before + 10, "the forward sweeps did save residuals");
  });

  test("tapeStats().peak counts what gradient and pullback saved", async () => {
    const growth = await get<(run: () => unknown) => number>("peakGrowth");
    const g = await get<(x: number) => number>("gLongLoop");
    const p = await get<(x: number) => (s: number) => number>("pLongLoop");
    assert.ok(growth(() => g(0.5)) >= 1000, "gradient");
    assert.ok(growth(() => p(0.5)) >= 1000, "pullback, created");
    const pullback = p(0.5);
    assert.ok(growth(() => pullback(1)) >= 1000, "pullback, called");
  });
});

describe("loops, exits and calls", () => {
  for (const [name, at] of LOOPS) {
    test(`${name}: the gradient against finite differences, the pullback against forward mode`, async () => {
      const f = await get<Fn>(name);
      const g = await get<Gradient>(`g_${name}`);
      const p = await get<Pullback>(`p_${name}`);
      const d = await get<Differential>(`d_${name}`);
      const size = await get<() => number>("tapeSize");
      let smooth = 0;
      fc.assert(
        fc.property(at, uniform(-1, 1), (xs, w) => {
          const before = size();
          const gradient = list(g(...xs));
          const adjoints = list(p(...xs)(w));
          assert.equal(size(), before, "the tape is back to its height");
          const unit = (i: number) => xs.map((_, j) => (j === i ? 1 : 0));
          // ⟨J·eᵢ, w⟩ = ⟨eᵢ, Jᵀ·w⟩ for each coordinate.
          xs.forEach((_, i) => {
            const forward = d(...xs)(...unit(i)) * w;
            if (Number.isFinite(forward))
              assertClose(adjoints[i]!, forward, 1e-10, `∂${i}: pullback against forward`);
          });
          smoothGradient(f, xs).forEach((e, i) => {
            if (e === undefined) return;
            smooth++;
            assertClose(gradient[i]!, e, 1e-5, `∂${i} at (${xs.join(", ")})`);
          });
        }),
        { numRuns: RUNS },
      );
      assert.ok(smooth > RUNS / 4, `only ${smooth} smooth points`);
    });
  }

  test("known values: halving, powers summed in a callee, a loop that runs zero times", async () => {
    const halve = await get<Fn>("halve");
    const gHalve = await get<(x: number) => number>("g_halve");
    for (const x of [0.5, 3, 12, 1000, 1e4]) assert.equal(gHalve(x), halve(x) / x, `at ${x}`);
    const gLoop = await get<(x: number, y: number) => number[]>("g_loopInCallee");
    // (x + x² + x³)·y + y + y² + xy + xy + x²y².
    const [x, y] = [0.7, -1.3];
    const expected = [
      (1 + 2 * x + 3 * x * x) * y + 2 * y + 2 * x * y * y,
      x + x * x + x * x * x + 1 + 2 * y + 2 * x + 2 * x * x * y,
    ];
    gLoop(x, y).forEach((v, i) => assertClose(v, expected[i]!, 1e-14));
    const gZero = await get<(x: number, n: number) => number[]>("g_zeroTrips");
    assertValues(gZero(1.5, 0), [3, 0]);
    assertValues(gZero(1.5, 2), [4 * 1.5 ** 3, 0]);
    const gReturn = await get<(x: number) => number>("g_returnFromWhileTrue");
    // Returned s = 1.3ᵏ·x once s > 10: derivative 1.3ᵏ.
    assertClose(gReturn(7), 1.3 ** 2, 1e-15);
  });

  test("one function called with different active arguments gets a derivative for each", async () => {
    const g = await get<(x: number, y: number) => number[]>("gTwoPlaces");
    const p = await get<(x: number, y: number) => (s: number) => number[]>("pTwoPlaces");
    // inner(a, b) = 6ab below the break: 12x + 18y + 6xy + 6.
    fc.assert(
      fc.property(points([-1, 1], [-1, 1]), ([x, y]) => {
        const [gx, gy] = g(x, y);
        assertClose(gx!, 12 + 6 * y, 1e-14);
        assertClose(gy!, 18 + 6 * x, 1e-14);
        assertNear(p(x, y)(-1), [-gx!, -gy!]);
      }),
      { numRuns: RUNS },
    );
    // Three configurations of `inner`: (a), (b) and (a, b); inner(1, 1) runs as it is.
    const forwardSweeps = Object.keys(await program()).filter((k) => /^inner\$fwd/.test(k));
    assert.equal(forwardSweeps.length, 3, forwardSweeps.join(", "));
  });
});

describe("inactive arguments and withoutDerivative", () => {
  test("a loop count and a boolean flag contribute zero", async () => {
    const g = await get<(x: number, square: boolean, times: number) => number[]>("gRepeat");
    const p =
      await get<(x: number, square: boolean, times: number) => (s: number) => number[]>("pRepeat");
    assertValues(g(1.5, true, 3), [8 * 1.5 ** 7, 0]);
    assertValues(g(1.5, false, 3), [1, 0]);
    assertValues(g(1.5, true, 0), [1, 0]);
    // wrt [2, 0]: the count first.
    assertValues(p(1.5, true, 2)(2), [0, 2 * 4 * 1.5 ** 3]);
  });

  test("withoutDerivative holds a value: zero through it", async () => {
    const stopped = await get<(x: number, y: number) => number[]>("gStopped");
    fc.assert(
      fc.property(points([-5, 5], [-5, 5]), ([x, y]) => {
        const [gx, gy] = stopped(x, y);
        assertClose(gx!, x * y, 1e-15);
        assert.equal(gy, 1);
      }),
      { numRuns: RUNS },
    );
    // s ← held(s)·y + s + held(y): ds/dx ← ds/dx, ds/dy ← s_old + ds/dy.
    const inLoop = await get<(x: number, y: number) => number[]>("gHeldInLoop");
    const exact = (x: number, y: number) => {
      let [s, dy] = [x, 0];
      for (let i = 0; i < 3; i++) [s, dy] = [s * y + s + y, s + dy];
      return [1, dy];
    };
    for (const [x, y] of [
      [0.5, 2],
      [-1.3, 0.4],
    ])
      inLoop(x!, y!).forEach((v, i) => assertClose(v, exact(x!, y!)[i]!, 1e-14));
  });
});

describe("lambdas that read variables of the enclosing function", () => {
  test("a gradient of a lambda over captured data", async () => {
    const fit = await get<(a: number, b: number, x: number, y: number) => number[]>("fitGradient");
    fc.assert(
      fc.property(points([-3, 3], [-3, 3], [-3, 3], [-3, 3]), ([a, b, x, y]) => {
        const r = a * x + b - y;
        const [ga, gb] = fit(a, b, x, y);
        assertClose(ga!, 2 * r * x, 1e-12);
        assertClose(gb!, 2 * r, 1e-12);
      }),
      { numRuns: RUNS },
    );
  });

  test("a lambda created in a loop captures the loop variable", async () => {
    const slopes = await get<(x: number) => number>("slopes");
    // Σ_{k ≤ 3} 2kx.
    for (const x of [0.5, -2, 3]) assertClose(slopes(x), 12 * x, 1e-15);
  });

  test("Newton's method on Kepler's equation with the slope from gradient", async () => {
    const solve = await get<(M: number, e: number) => number>("eccentricAnomaly");
    fc.assert(
      fc.property(points([0, 6], [0, 0.9]), ([M, e]) => {
        const E = solve(M, e);
        assertClose(E - e * Math.sin(E), M, 1e-12, `E at M = ${M}, e = ${e}`);
      }),
      { numRuns: RUNS },
    );
  });

  test("valueWithPullback of a lambda reading two variables", async () => {
    const run = await get<(x: number, w: number) => number[]>("capturedPullback");
    const [x, w] = [1.7, 0.6];
    const [value, once, twice] = run(x, w);
    // f(t) = sin(t·w)·x at t = x.
    assertClose(value!, Math.sin(x * w) * x, 1e-15);
    assertClose(once!, Math.cos(x * w) * w * x, 1e-15);
    assertClose(twice!, 2 * once!, 1e-15);
  });
});

describe("kinks and powers", () => {
  test("Math.max, Math.min and Math.abs: reverse follows forward mode's conventions at the kink", async () => {
    const g = await get<(x: number, y: number) => number[]>("gKinks");
    const dx = await get<Differential>("dKinksX");
    const dy = await get<Differential>("dKinksY");
    const kinks = await get<Fn>("kinks");
    for (const [x, y] of [
      [0, 0],
      [1, 1],
      [-2, -2],
      [0, 3],
      [2, 0.5],
      [-1, -1],
      [0.5, 2],
    ]) {
      assertNear(g(x!, y!), [dx(x!, y!)(1), dy(x!, y!)(1)], `at (${x}, ${y})`);
    }
    fc.assert(
      fc.property(points([-3, 3], [-3, 3]), ([x, y]) => {
        const fd = smoothGradient(kinks, [x, y]);
        g(x, y).forEach((v, i) => fd[i] === undefined || assertClose(v, fd[i], 1e-5));
      }),
      { numRuns: RUNS },
    );
  });

  test("x ** y with both active: closed form, and forward mode's values at 0 and negative bases", async () => {
    const g = await get<(x: number, y: number) => number[]>("gPower");
    const dx = await get<Differential>("dPowerX");
    const dy = await get<Differential>("dPowerY");
    fc.assert(
      fc.property(points([0.1, 4], [-3, 3]), ([x, y]) => {
        const [gx, gy] = g(x, y);
        assertClose(gx!, y * x ** (y - 1), 1e-12);
        assertClose(gy!, x ** y * Math.log(x), 1e-12);
      }),
      { numRuns: RUNS },
    );
    for (const [x, y] of [
      [0, 0],
      [0, 1],
      [0, 2],
      [0, -1],
      [0, 0.5],
      [-2, 3],
      [-2, 0.5],
      [-1, -1],
      [1, 0],
    ]) {
      assertNear(g(x!, y!), [dx(x!, y!)(1), dy(x!, y!)(1)], `at (${x}, ${y})`);
    }
  });
});

test("ten parameters: the gradient against finite differences and forward mode", async () => {
  const f = await get<Fn>("tenParams");
  const g = await get<(...xs: number[]) => number[]>("gTenParams");
  const g905 = await get<(...xs: number[]) => number[]>("gTenParams_905");
  const p = await get<(...xs: number[]) => (s: number) => number[]>("pTenParams");
  const d = await get<Differential>("dTenParams");
  const ten = fc.tuple(...Array.from({ length: 10 }, () => uniform(-2, 2)));
  let smooth = 0;
  fc.assert(
    fc.property(ten, ten, uniform(-1, 1), (xs, v, w) => {
      const gradient = g(...xs);
      assert.equal(gradient.length, 10);
      assertNear(g905(...xs), [gradient[9]!, gradient[0]!, gradient[5]!], "wrt [9, 0, 5]");
      const reverse = p(...xs)(w).reduce((sum, a, i) => sum + a * v[i]!, 0);
      const forward = d(...xs)(...v) * w;
      assertClose(reverse, forward, 1e-10, "⟨J·v, w⟩ = ⟨v, Jᵀ·w⟩");
      // Not where a coordinate sits within a step of a kink or branch.
      if (smoothGradient(f, xs).includes(undefined)) return;
      smooth++;
      const fd = finiteGradient(f, xs);
      gradient.forEach((v, i) => assertClose(v, fd[i]!, 1e-5, `∂${i}`));
    }),
    { numRuns: RUNS },
  );
  assert.ok(smooth > RUNS / 2, `only ${smooth} smooth points`);
});

// ---------------------------------------------------------------------------------------------
// Programs of their own

describe("a function that ignores its argument", () => {
  test("compiles with warning NABLA201, and its gradient and pullback are 0", async () => {
    const files = {
      "main.ts": `import { gradient, valueWithGradient, pullback } from "nabla";
export function ignores(x: number): number {
  return 3;
}
export const g = gradient(ignores);
export const vg = valueWithGradient(ignores);
export const p = pullback(ignores);
`,
    };
    const result = compileFiles(files);
    const codes = result.diagnostics.map((d) => `${d.severity} ${d.code}`);
    assert.ok(
      codes.length > 0 && codes.every((c) => c === "warning NABLA201"),
      diagnosticsText(result),
    );
    const m = await importCompiled<{
      g: (x: number) => number;
      vg: (x: number) => { value: number; gradient: number };
      p: (x: number) => (s: number) => number;
    }>(join(result.dir, "main.ts"));
    assert.equal(m.g(5), 0);
    assert.deepEqual(m.vg(5), { value: 3, gradient: 0 });
    assert.equal(m.p(5)(2), 0);
  });
});

// ---------------------------------------------------------------------------------------------
// Regressions: each test asserts the correct behavior for a case that was wrong once.

describe("known bugs", () => {
  test("a helper that runs reverse mode, called inside a loop of a differentiated function", async () => {
    const m = await loadProgram<{
      g: Fn;
      p: (x: number) => (s: number) => number;
      d: Differential;
      gLong: Fn;
      dLong: Differential;
      tapeSize: () => number;
    }>({
      "main.ts": `import { gradient, pullback, differential, tapeStats } from "nabla";
function cube(t: number): number {
  let s = 1;
  for (let i = 0; i < 3; i++) s *= t;
  return s;
}
/** 3k², by reverse mode. */
function slope(k: number): number {
  return gradient(cube)(k);
}
export function f(x: number): number {
  let s = x;
  for (let i = 1; i <= 2; i++) s = Math.sin(s) * slope(i);
  return s;
}
export const g = gradient(f);
export const p = pullback(f);
export const d = differential(f);

/** Saves 5000 values: more than the tape holds at first. */
function long(t: number): number {
  let s = t;
  for (let i = 0; i < 5000; i++) s = Math.sin(s) * 0.5 + t * 0.5;
  return s;
}
function longSlope(k: number): number {
  return gradient(long)(k);
}
export function withLong(x: number): number {
  let s = x;
  for (let i = 1; i <= 2; i++) s = Math.sin(s) * longSlope(i) * 2;
  return s;
}
export const gLong = gradient(withLong);
export const dLong = differential(withLong);
export function tapeSize(): number {
  return tapeStats().size;
}
`,
    });
    // s = 12·sin(3·sin x): 36·cos(3·sin x)·cos x.
    const x = 0.7;
    const exact = 36 * Math.cos(3 * Math.sin(x)) * Math.cos(x);
    assertClose(m.d(x)(1), exact, 1e-12, "forward mode");
    assertClose(m.g(x), exact, 1e-12, "gradient");
    assertClose(m.p(x)(1), exact, 1e-12, "pullback");
    const before = m.tapeSize();
    assertClose(m.gLong(x), m.dLong(x)(1), 1e-12, "gradient, the helper growing the tape");
    assert.equal(m.tapeSize(), before, "the tape is back to its height");
  });

  test("the tape after a forward sweep that throws", async () => {
    const m = await loadProgram<{
      g: (x: number, n: number) => number;
      p: (x: number, n: number) => (s: number) => number;
      tapeSize: () => number;
    }>({
      "main.ts": `import { gradient, pullback, tapeStats } from "nabla";
function deep(x: number, n: number): number {
  return n <= 0 ? x : deep(Math.sin(x), n - 1) * 1.0001;
}
export function f(x: number, n: number): number {
  let s = 0;
  for (let i = 0; i < 3; i++) s += s * x + Math.sin(x);
  return s + deep(x, n);
}
export const g = gradient(f, { wrt: 0 });
export const p = pullback(f, { wrt: 0 });
export function tapeSize(): number {
  return tapeStats().size;
}
`,
    });
    const before = m.tapeSize();
    assert.throws(() => m.g(0.5, 1e6), RangeError);
    assert.equal(m.tapeSize(), before, "after gradient");
    assert.throws(() => m.p(0.5, 1e6), RangeError);
    assert.equal(m.tapeSize(), before, "after pullback");
  });

  test("gradient of a function of no parameters", () => {
    let result: ReturnType<typeof compileFiles> | undefined;
    assert.doesNotThrow(() => {
      result = compileFiles({
        "main.ts": `import { gradient, valueWithGradient, pullback, valueWithPullback } from "nabla";
export const g = gradient(() => 3);
export const vg = valueWithGradient(() => 3);
export const p = pullback(() => 3);
export const vp = valueWithPullback(() => 3);
`,
      });
    });
    const internal = result!.diagnostics.filter((d) => d.code === "NABLA900");
    assert.equal(internal.length, 0, diagnosticsText(result!));
  });

  test("parameters named $nabla and arg0", () => {
    const result = compileFiles({
      "main.ts": `import { gradient } from "nabla";
export function f($nabla: number, arg0: number): number {
  return $nabla * arg0;
}
export const g = gradient(f);
`,
    });
    assert.equal(result.diagnostics.length, 0, diagnosticsText(result));
  });

  test("a local named like an imported operator: const { value, pullback } = valueWithPullback(f)(x)", () => {
    const result = compileFiles({
      "main.ts": `import { valueWithPullback, pullback, valueWithDifferential, differential } from "nabla";
function f(x: number): number {
  return x * x;
}
export const p = pullback(f);
export const d = differential(f);
export function reverse(x: number): number {
  const { value, pullback } = valueWithPullback(f)(x);
  return value + pullback(1);
}
export function forward(x: number): number {
  const { value, differential } = valueWithDifferential(f)(x);
  return value + differential(1);
}
`,
    });
    assert.equal(result.diagnostics.length, 0, diagnosticsText(result));
  });

  test("a lambda with unannotated parameters given to gradient, as TypeScript accepts", async () => {
    const files = {
      "main.ts": `import { gradient, pullback } from "nabla";
export const g = gradient((x) => x * x * x);
export const p = pullback((x, y) => x * y);
`,
    };
    const result = compileFiles(files);
    assert.equal(result.diagnostics.length, 0, diagnosticsText(result));
    const m = await importCompiled<{
      g: (x: number) => number;
      p: (x: number, y: number) => (s: number) => number[];
    }>(join(result.dir, "main.ts"));
    assert.equal(m.g(4), 48);
    assert.deepEqual(m.p(2, 3)(1), [3, 2]);
  });

  test("gradient(f)(x) inside differentiable code is differentiated again", async () => {
    const m = await loadProgram<{ g: Fn; d: Differential }>({
      "main.ts": `import { gradient, differential } from "nabla";
export function h(x: number): number {
  return gradient((t: number) => t * t * x)(x);
}
export const g = gradient(h);
export const d = differential(h);
`,
    });
    // h(x) = 2x·x, so h'(x) = 4x.
    assertClose(m.g(1.5), 6, 1e-12, "reverse over the inner gradient");
    assertClose(m.d(1.5)(1), 6, 1e-12, "forward over the inner gradient");
  });
});

test("every reverse operator of one function, with and without loops, agrees", async () => {
  const m = await loadProgram<Record<string, (...xs: number[]) => unknown>>({
    "main.ts": `import { gradient, valueWithGradient, pullback, valueWithPullback } from "nabla";
function straight(x: number, y: number): number {
  return Math.sin(x) * y + x * x;
}
function looped(x: number, y: number): number {
  let s = y;
  for (let i = 0; i < 4; i++) s = s * x + Math.cos(s);
  return s;
}
export const gs = gradient(straight);
export const vgs = valueWithGradient(straight);
export const ps = pullback(straight);
export const vps = valueWithPullback(straight);
export const gl = gradient(looped);
export const vgl = valueWithGradient(looped);
export const pl = pullback(looped);
export const vpl = valueWithPullback(looped);
`,
  });
  for (const [g, vg, p, vp] of [
    [m.gs, m.vgs, m.ps, m.vps],
    [m.gl, m.vgl, m.pl, m.vpl],
  ] as const) {
    const at = [0.7, -1.3];
    const gradient = g!(...at) as number[];
    const withValue = vg!(...at) as { value: number; gradient: number[] };
    const fromPullback = (p!(...at) as (s: number) => number[])(1);
    const valuePullback = vp!(...at) as { value: number; pullback: (s: number) => number[] };
    assert.deepEqual(withValue.gradient, gradient);
    assert.deepEqual(fromPullback, gradient);
    assert.deepEqual(valuePullback.pullback(1), gradient);
    assert.equal(withValue.value, valuePullback.value);
  }
});
