import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { assertClose, centralDifference, compileFiles, loadProgram } from "./support/harness.js";

// What reverse mode does to be fast, checked for being right and for happening: loop-carried
// values recomputed in the backward sweep instead of taped (recurrences). Every derivative is
// checked against central differences of the primal and against forward mode (the
// dot-product identity), at seeded random inputs, including the edge cases of each
// optimization; the generated code is inspected to see that the optimization took place.

fc.configureGlobal({ includeErrorInReport: true });

const SEED = 20_261_123;
const RUNS = 30;

type ArrayFn = (x: Float64Array, ...rest: never[]) => number;
type Gradient = (x: Float64Array, ...rest: never[]) => Float64Array;
type Pullback = (x: Float64Array, ...rest: never[]) => (seed: number) => Float64Array;
type Differential = (x: Float64Array, ...rest: never[]) => (dx: Float64Array) => number;

const RECURRENCES = `
import { gradient, pullback, differential } from "nabla";

// Powers of an inactive sample point as coefficients (GradBench llsq): the backward loop
// recomputes them instead of reading one per iteration from the tape.
export function polyFit(x: Float64Array, n: number): number {
  const m = x.length;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const t = -1 + (2 * i) / Math.max(1, n - 1);
    let r = Math.sign(t) + 0.25;
    let power = 1;
    for (let j = 0; j < m; j++) {
      r -= x[j] * power;
      power *= t;
    }
    sum += r * r;
  }
  return sum / 2;
}
export const gPolyFit = gradient(polyFit, { wrt: 0 });
export const pPolyFit = pullback(polyFit, { wrt: 0 });
export const dPolyFit = differential(polyFit, { wrt: 0 });

// Two recurrences feeding each other, the loop counter, and an array of data: read again in
// the backward sweep under gradient (nothing writes it), taped under pullback (the caller may
// change it before running the pullback).
export function coupled(x: Float64Array, c: Float64Array, t: number): number {
  let a = 1;
  let b = t;
  let s = 0;
  for (let j = 0; j < x.length; j++) {
    s += x[j] * a + 0.001 * x[j] * x[j] * b;
    const next = a * 0.5 + b * c[j];
    a = b;
    b = next / (1 + j);
  }
  return s;
}
export const gCoupled = gradient(coupled, { wrt: 0 });
export const pCoupled = pullback(coupled, { wrt: 0 });
export const dCoupled = differential(coupled, { wrt: 0 });

// A carried value that is inactive until iteration k, where it becomes active: its adjoint
// changes from iteration to iteration, so the backward loop cannot ascend, and it is taped.
export function turnsActive(x: Float64Array, k: number): number {
  let w = 1;
  let s = 0;
  for (let j = 0; j < x.length; j++) {
    s += x[j] * w;
    w = j === k ? w * x[0] : w * 0.9;
  }
  return s + w * w;
}
export const gTurnsActive = gradient(turnsActive, { wrt: 0 });
export const pTurnsActive = pullback(turnsActive, { wrt: 0 });
export const dTurnsActive = differential(turnsActive, { wrt: 0 });

// The recurrence's final value is used after the loop; with t differentiated too, it is
// active all along.
export function usedAfter(x: Float64Array, t: number): number {
  let p = 1;
  let s = 0;
  for (let j = 0; j < x.length; j++) {
    s += x[j] * p;
    p *= t;
  }
  return s * p + x[0] * p;
}
export const gUsedAfter = gradient(usedAfter, { wrt: 0 });
export const gUsedAfterBoth = gradient(usedAfter, { wrt: [0, 1] });
export const dUsedAfter = differential(usedAfter, { wrt: 0 });

// An inner loop whose trip count changes with the outer one; the recurrence reads the
// inner loop's counter.
export function triangular(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    let p = 1;
    let acc = 0;
    for (let j = 0; j <= i; j++) {
      acc += x[j] * p;
      p = p * 0.5 + j;
    }
    s += acc * acc;
  }
  return s;
}
export const gTriangular = gradient(triangular);
export const pTriangular = pullback(triangular);
export const dTriangular = differential(triangular);

// The array the recurrence reads is written after the loop: the backward sweep must not read
// it again.
export function writtenAfter(x: Float64Array, c: Float64Array): number {
  let p = 1;
  let s = 0;
  for (let j = 0; j < x.length; j++) {
    s += x[j] * p;
    p = p * c[j];
  }
  c[0] = 100;
  return s * s;
}
export const gWrittenAfter = gradient(writtenAfter, { wrt: 0 });
export const dWrittenAfter = differential(writtenAfter, { wrt: 0 });

// Loops whose trip count follows from their bound (not counted, not taped): from 2, up to a
// bound that may be fractional, negative or NaN; inclusive; and one with a break, which is
// counted.
export function bounded(x: Float64Array, n: number): number {
  let s = 0;
  for (let i = 2; i < n; i++) s += x[i % x.length] * x[(i + 1) % x.length] * i;
  for (let j = 0; j <= n; j++) s += Math.sin(x[j % x.length]) * s;
  for (let k = 0; k < n + 3; k++) {
    if (k * k > 4 * n + 1) break;
    s += x[0] * x[0] * k;
  }
  return s;
}
export const gBounded = gradient(bounded, { wrt: 0 });
export const pBounded = pullback(bounded, { wrt: 0 });
export const dBounded = differential(bounded, { wrt: 0 });
`;

const uniform = (min: number, max: number) =>
  fc.integer({ min: 0, max: 2 ** 30 }).map((k) => min + ((max - min) * k) / 2 ** 30);
const vector = (min: number, max: number, minLength: number, maxLength: number) =>
  fc.array(uniform(min, max), { minLength, maxLength }).map((xs) => Float64Array.from(xs));

/** The gradient of f at x by central differences (x is copied for every evaluation). */
function finiteDifferences(f: (x: Float64Array) => number, x: Float64Array): number[] {
  return Array.from(x, (xi, i) =>
    centralDifference((t) => {
      const y = x.slice();
      y[i] = t;
      return f(y);
    }, xi),
  );
}

/** Element by element, to a relative 1e-12 (sums in another order round differently). */
function assertAllClose(actual: ArrayLike<number>, expected: ArrayLike<number>): void {
  assert.equal(actual.length, expected.length, "length");
  for (let i = 0; i < actual.length; i++)
    assertClose(actual[i]!, expected[i]!, 1e-12, `element ${i}`);
}

/** Checks a gradient against differences of `f` and, along `dx`, against forward mode. */
function checkGradient(
  g: Float64Array,
  f: (x: Float64Array) => number,
  forward: (dx: Float64Array) => number,
  x: Float64Array,
  dx: Float64Array,
  tolerance = 1e-5,
): void {
  const fd = finiteDifferences(f, x);
  g.forEach((gi, i) => assertClose(gi, fd[i]!, tolerance, `gradient[${i}]`));
  const dot = g.reduce((s, gi, i) => s + gi * dx[i]!, 0);
  assertClose(dot, forward(dx), 1e-9, "<gradient, dx> against forward mode");
}

describe("recurrences: loop-carried values the backward loop recomputes", () => {
  const program = loadProgram<Record<string, (...args: never[]) => unknown>>({
    "main.ts": RECURRENCES,
  });
  const get = async <T>(name: string) => (await program)[name] as T;
  const code = compileFiles({ "main.ts": RECURRENCES });
  const emitted = [...code.outputs.values()][0]!.code;
  /** The emitted text of a generated function. */
  const functionText = (name: string) => {
    const start = emitted.indexOf(`export function ${name}(`);
    assert.ok(start >= 0, `no function ${name} in the output`);
    return emitted.slice(start, emitted.indexOf("\n}\n", start));
  };

  test("the powers of an inactive point are recomputed, not taped (llsq)", async () => {
    assert.deepEqual(code.diagnostics, []);
    const forward = functionText("polyFit$fwd_0$r0");
    // Per outer iteration: the inner trip count, t and the residual; nothing per inner one.
    assert.doesNotMatch(forward, /\$tape\[\$top\+\+\] = power/);
    assert.match(functionText("polyFit$bwd_0$r0"), /power = power \* t/);
    const f = await get<(x: Float64Array, n: number) => number>("polyFit");
    const g = await get<(x: Float64Array, n: number) => Float64Array>("gPolyFit");
    const p = await get<(x: Float64Array, n: number) => (s: number) => Float64Array>("pPolyFit");
    const d = await get<(x: Float64Array, n: number) => (dx: Float64Array) => number>("dPolyFit");
    fc.assert(
      fc.property(
        vector(-1, 1, 0, 7),
        vector(-1, 1, 7, 7),
        fc.integer({ min: 0, max: 6 }),
        (x, v, n) => {
          const dx = v.subarray(0, x.length);
          checkGradient(g(x, n), (y) => f(y, n), d(x, n), x, dx);
          const back = p(x, n);
          assertAllClose(back(1), g(x, n));
          const twice = back(2);
          g(x, n).forEach((gi, i) => assertClose(twice[i]!, 2 * gi, 1e-12));
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  test("coupled recurrences reading the loop counter and a data array", async () => {
    const f = await get<(x: Float64Array, c: Float64Array, t: number) => number>("coupled");
    const g = await get<(x: Float64Array, c: Float64Array, t: number) => Float64Array>("gCoupled");
    const p =
      await get<(x: Float64Array, c: Float64Array, t: number) => (s: number) => Float64Array>(
        "pCoupled",
      );
    const d =
      await get<(x: Float64Array, c: Float64Array, t: number) => (dx: Float64Array) => number>(
        "dCoupled",
      );
    assert.doesNotMatch(functionText("coupled$fwd_0$r0_1"), /\$tape\[\$top\+\+\] = [ab];/);
    fc.assert(
      fc.property(
        vector(-2, 2, 0, 6),
        vector(-1, 1, 6, 6),
        vector(-1, 1, 6, 6),
        uniform(-2, 2),
        (x, cs, v, t) => {
          const c = cs.subarray(0, x.length).slice();
          const dx = v.subarray(0, x.length);
          const grad = g(x, c, t);
          checkGradient(grad, (y) => f(y, c, t), d(x, c, t), x, dx);
          // A pullback taped what it read of c: changing c before running it changes nothing.
          const back = p(x, c, t);
          c.fill(7);
          const late = back(1);
          grad.forEach((gi, i) => assertClose(late[i]!, gi, 1e-12));
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  test("a carried value that becomes active on the way is taped, and right", async () => {
    const f = await get<(x: Float64Array, k: number) => number>("turnsActive");
    const g = await get<(x: Float64Array, k: number) => Float64Array>("gTurnsActive");
    const p =
      await get<(x: Float64Array, k: number) => (s: number) => Float64Array>("pTurnsActive");
    const d =
      await get<(x: Float64Array, k: number) => (dx: Float64Array) => number>("dTurnsActive");
    fc.assert(
      fc.property(
        vector(-2, 2, 1, 6),
        vector(-1, 1, 6, 6),
        fc.integer({ min: -1, max: 6 }),
        (x, v, k) => {
          const dx = v.subarray(0, x.length);
          checkGradient(g(x, k), (y) => f(y, k), d(x, k), x, dx);
          assertAllClose(p(x, k)(1), g(x, k));
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  test("a recurrence used after its loop, inactive and active", async () => {
    const f = await get<(x: Float64Array, t: number) => number>("usedAfter");
    const g = await get<(x: Float64Array, t: number) => Float64Array>("gUsedAfter");
    const both =
      await get<(x: Float64Array, t: number) => [Float64Array, number]>("gUsedAfterBoth");
    const d = await get<(x: Float64Array, t: number) => (dx: Float64Array) => number>("dUsedAfter");
    fc.assert(
      fc.property(vector(-2, 2, 1, 6), vector(-1, 1, 6, 6), uniform(-1.5, 1.5), (x, v, t) => {
        const dx = v.subarray(0, x.length);
        checkGradient(g(x, t), (y) => f(y, t), d(x, t), x, dx);
        const [gx, gt] = both(x, t);
        gx.forEach((gi, i) => assertClose(gi, g(x, t)[i]!, 1e-12));
        assertClose(
          gt,
          centralDifference((s) => f(x, s), t),
          1e-5,
          "d/dt",
        );
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  test("an inner loop of varying length, its recurrence reading its counter", async () => {
    assert.doesNotMatch(functionText("triangular$fwd$r0"), /\$tape\[\$top\+\+\] = p;/);
    const f = await get<ArrayFn>("triangular");
    const g = await get<Gradient>("gTriangular");
    const p = await get<Pullback>("pTriangular");
    const d = await get<Differential>("dTriangular");
    fc.assert(
      fc.property(vector(-2, 2, 0, 6), vector(-1, 1, 6, 6), (x, v) => {
        const dx = v.subarray(0, x.length);
        checkGradient(g(x), f, d(x), x, dx);
        assertAllClose(p(x)(1), g(x));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  test("trip counts computed from loop bounds, fractional, negative and NaN", async () => {
    // The first two loops are not counted; the one with a break is (in the k loop's variable).
    const forward = functionText("bounded$fwd_0$r0");
    assert.equal(forward.match(/trips\w* = trips\w* \+ 1/g)?.length, 1, forward);
    const f = await get<(x: Float64Array, n: number) => number>("bounded");
    const g = await get<(x: Float64Array, n: number) => Float64Array>("gBounded");
    const p = await get<(x: Float64Array, n: number) => (s: number) => Float64Array>("pBounded");
    const d = await get<(x: Float64Array, n: number) => (dx: Float64Array) => number>("dBounded");
    for (const n of [-1, 0, 0.5, 1, 2, 2.5, 3, 4.0000001, 7.2, NaN]) {
      fc.assert(
        fc.property(vector(-1, 1, 1, 5), vector(-1, 1, 5, 5), (x, v) => {
          const dx = v.subarray(0, x.length);
          checkGradient(g(x, n), (y) => f(y, n), d(x, n), x, dx);
          assertAllClose(p(x, n)(1), g(x, n));
        }),
        { seed: SEED, numRuns: 10 },
      );
    }
  });

  test("an array written after the loop is not read again by the backward sweep", async () => {
    const f = await get<(x: Float64Array, c: Float64Array) => number>("writtenAfter");
    const g = await get<(x: Float64Array, c: Float64Array) => Float64Array>("gWrittenAfter");
    const d =
      await get<(x: Float64Array, c: Float64Array) => (dx: Float64Array) => number>(
        "dWrittenAfter",
      );
    fc.assert(
      fc.property(vector(-2, 2, 1, 6), vector(-1, 1, 6, 6), vector(-1, 1, 6, 6), (x, cs, v) => {
        const c = cs.subarray(0, x.length);
        const dx = v.subarray(0, x.length);
        const fresh = () => c.slice();
        const grad = g(x, fresh());
        checkGradient(grad, (y) => f(y, fresh()), d(x, fresh()), x, dx);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Last writes: a carried tangent an iteration keeps or replaces, computed after the loop

const LAST_WRITES = `
import { gradient, pullback, differential } from "nabla";

// GradBench lse: the backward sweep hands the largest element's adjoint to the element that
// won, with no branch flag per element.
export function logSumExp(x: Float64Array): number {
  let max = -Infinity;
  for (let i = 0; i < x.length; i++) {
    if (x[i] > max) max = x[i];
  }
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += Math.exp(x[i] - max);
  return max + Math.log(sum);
}
export const gLse = gradient(logSumExp);
export const pLse = pullback(logSumExp);
export const dLse = differential(logSumExp);

// The largest element itself: its whole adjoint goes to the first index attaining it.
export function maxSquared(x: Float64Array): number {
  let max = -Infinity;
  for (let i = 0; i < x.length; i++) {
    if (x[i] > max) max = x[i];
  }
  return max * max;
}
export const gMax = gradient(maxSquared);
export const pMax = pullback(maxSquared);
export const dMax = differential(maxSquared);

// Two places that replace v, reading an array the loop then overwrites, next to an
// accumulation (the loop keeps tangent work of its own).
export function choose(x: Float64Array, c: Float64Array): number {
  let m = 0;
  let s = 0;
  let v = 1;
  for (let i = 0; i < x.length; i++) {
    s += x[i] * c[i];
    if (c[i] > m) {
      m = c[i];
      v = x[i] * c[i];
    } else if (c[i] < -0.5) v = 2 * x[i] * x[i];
    c[i] = -c[i];
  }
  return s * v;
}
export const gChoose = gradient(choose, { wrt: 0 });
export const pChoose = pullback(choose, { wrt: 0 });
export const dChoose = differential(choose, { wrt: 0 });

// Nested ifs whose condition reads the value the loop replaces, a replacement reading a
// differentiated number from outside the loop (and t's tangent when never replaced), and a
// value replaced in every iteration.
export function nested(x: Float64Array, t: number): number {
  let v = t;
  let last = 0;
  for (let i = 0; i < x.length; i++) {
    if (x[i] > 0) {
      if (x[i] * v < 1) v = x[i] * t;
    }
    last = x[i] * x[i];
  }
  return v * last + v;
}
export const gNested = gradient(nested);
export const dNested = differential(nested);

// The largest row maximum of a matrix: an inner loop's last write, chosen again by the outer
// loop; and the sum of squared row maxima (only the inner loop's).
export function bestRow(x: Float64Array, n: number): number {
  let best = -1;
  for (let r = 0; r * n < x.length; r++) {
    let m = -Infinity;
    for (let c = 0; c < n && r * n + c < x.length; c++) if (x[r * n + c] > m) m = x[r * n + c];
    if (m > best) best = m;
  }
  return best * best;
}
export const gBestRow = gradient(bestRow, { wrt: 0 });
export const dBestRow = differential(bestRow, { wrt: 0 });
export function rowMaxima(x: Float64Array, n: number): number {
  let s = 0;
  for (let r = 0; r * n < x.length; r++) {
    let m = -Infinity;
    for (let c = 0; c < n && r * n + c < x.length; c++) if (x[r * n + c] > m) m = x[r * n + c];
    s += m * m;
  }
  return s;
}
export const gRowMaxima = gradient(rowMaxima, { wrt: 0 });
export const dRowMaxima = differential(rowMaxima, { wrt: 0 });

// A loop that writes a shadow is left as it is.
export function scaledMax(x: Float64Array, k: number): number {
  const a = new Float64Array(x.length);
  let m = -Infinity;
  for (let i = 0; i < x.length; i++) {
    a[i] = x[i] * k;
    if (a[i] > m) m = a[i];
  }
  return m * a[0];
}
export const gScaledMax = gradient(scaledMax);
export const dScaledMax = differential(scaledMax);
`;

/** Equal numbers, both NaN, or within a relative 1e-12. */
function assertSameNumber(actual: number, expected: number, label: string): void {
  if (Number.isNaN(expected) || !Number.isFinite(expected))
    assert.ok(Object.is(actual, expected), `${label}: ${actual}, expected ${expected}`);
  else assertClose(actual, expected, 1e-12, label);
}

/** The gradient of a function of an array by forward mode, one basis vector per element. */
function forwardGradient(d: (dx: Float64Array) => number, n: number): number[] {
  return Array.from({ length: n }, (_, j) => {
    const e = new Float64Array(n);
    e[j] = 1;
    return d(e);
  });
}

/** What gradient(maxSquared) must be: 2·max at the first index attaining it (x[i] > max). */
function maxSquaredGradient(x: Float64Array): number[] {
  let max = -Infinity;
  let at = -1;
  for (let i = 0; i < x.length; i++)
    if (x[i]! > max) {
      max = x[i]!;
      at = i;
    }
  return Array.from(x, (_, i) => (i === at ? 2 * max : 0));
}

describe("last writes: a carried tangent computed after the loop from its last replacement", () => {
  const program = loadProgram<Record<string, (...args: never[]) => unknown>>({
    "main.ts": LAST_WRITES,
  });
  const get = async <T>(name: string) => (await program)[name] as T;
  const code = compileFiles({ "main.ts": LAST_WRITES });
  const emitted = [...code.outputs.values()][0]!.code;
  const functionText = (name: string) => {
    const start = emitted.indexOf(`export function ${name}(`);
    assert.ok(start >= 0, `no function ${name} in the output`);
    return emitted.slice(start, emitted.indexOf("\n}\n", start));
  };
  const loops = (text: string) => text.match(/while \(/g)?.length ?? 0;
  /**
   * Elements on a grid of 0.01 plus a different offset each (i/1000 + 0.0005), so no two are
   * within a difference step of each other or of a grid point: the maxima and branches do not
   * change under central differences.
   */
  const spread = (min: number, max: number, minLength: number, maxLength: number) =>
    vector(min, max, minLength, maxLength).map((x) =>
      x.map((v, i) => Math.round(v * 100) / 100 + i / 1000 + 0.0005),
    );
  /** Values with ties, NaN and infinities among ordinary numbers. */
  const awkward = (values: number[], maxLength: number) =>
    fc
      .array(fc.oneof(fc.constantFrom(...values), uniform(-2, 2)), { maxLength })
      .map((xs) => Float64Array.from(xs));

  test("lse and the largest element: no flag per element, the adjoint to the one that won", async () => {
    assert.deepEqual(code.diagnostics, []);
    // The max loop tapes nothing; the backward sweep has only the loop of exponentials.
    const forward = functionText("logSumExp$fwd$r0");
    const first = forward.indexOf("while (");
    assert.doesNotMatch(forward.slice(first, forward.indexOf("\n  }\n", first)), /\$tape/);
    assert.equal(loops(functionText("logSumExp$bwd$r0")), 1);
    // The loop of exponentials makes room for all its residuals before it starts (its trip
    // count is known), not once per iteration.
    const second = forward.indexOf("while (", first + 1);
    assert.match(forward.slice(0, second), /growTape\(\$top, t\w* > 0 \? t\w* : 0\)/);
    assert.doesNotMatch(forward.slice(second, forward.indexOf("\n  }\n", second)), /growTape/);
    assert.equal(loops(functionText("maxSquared$bwd$r0")), 0);
    // With no tangent loop left, gradient fuses the sweeps.
    assert.match(emitted, /export function maxSquared\$grad\$r0\(/);
    const lse = await get<ArrayFn>("logSumExp");
    const gLse = await get<Gradient>("gLse");
    const pLse = await get<Pullback>("pLse");
    const dLse = await get<Differential>("dLse");
    const max = await get<ArrayFn>("maxSquared");
    const gMax = await get<Gradient>("gMax");
    const pMax = await get<Pullback>("pMax");
    const dMax = await get<Differential>("dMax");
    fc.assert(
      fc.property(spread(-3, 3, 1, 8), vector(-1, 1, 8, 8), (x, v) => {
        const dx = v.subarray(0, x.length);
        checkGradient(gLse(x), lse, dLse(x), x, dx);
        checkGradient(gMax(x), max, dMax(x), x, dx);
        assertAllClose(pLse(x)(1), gLse(x));
        const back = pMax(x);
        assertAllClose(back(1), gMax(x));
        assertAllClose(
          back(-2),
          gMax(x).map((gi) => -2 * gi),
        );
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // Ties (the first wins: the comparison is strict), NaN (never wins), infinities, no
    // elements at all: exactly the derivative of the code as written, in both modes.
    const cases = [
      [],
      [3],
      [1, 3, 3, 2],
      [2, 2, 2],
      [NaN],
      [NaN, 1, NaN, 1],
      [1, NaN],
      [-Infinity],
      [-Infinity, -Infinity],
      [-Infinity, 2, -Infinity, 2],
      [Infinity, 1, Infinity],
    ].map((xs) => Float64Array.from(xs));
    const check = (x: Float64Array) => {
      const expected = maxSquaredGradient(x);
      gMax(x).forEach((gi, i) => assertSameNumber(gi, expected[i]!, `maxSquared [${x}] [${i}]`));
      pMax(x)(1).forEach((gi, i) => assertSameNumber(gi, expected[i]!, `pullback [${x}] [${i}]`));
      // Forward mode adds 0·x[i] terms where reverse mode adds nothing: compare where finite.
      if (x.every(Number.isFinite)) {
        forwardGradient(dMax(x), x.length).forEach((di, i) =>
          assertSameNumber(gMax(x)[i]!, di, `maxSquared forward [${x}] [${i}]`),
        );
        forwardGradient(dLse(x), x.length).forEach((di, i) =>
          assertClose(gLse(x)[i]!, di, 1e-12, `lse [${x}] [${i}]`),
        );
      } else {
        const g = gLse(x);
        forwardGradient(dLse(x), x.length).forEach((di, i) => {
          if (Number.isNaN(di)) assert.ok(Number.isNaN(g[i]!), `lse [${x}] [${i}]: ${g[i]}`);
          else assertSameNumber(g[i]!, di, `lse [${x}] [${i}]`);
        });
      }
    };
    cases.forEach(check);
    // Far past the tape's first 4096 numbers, made room for at once: the softmax.
    const big = Float64Array.from({ length: 50_000 }, (_, i) => Math.sin(i) * 5);
    const softmax = big.map((xi) => Math.exp(xi - 5));
    const total = softmax.reduce((a, b) => a + b, 0);
    const gBig = gLse(big);
    for (let i = 0; i < big.length; i += 997) assertClose(gBig[i]!, softmax[i]! / total, 1e-9);
    fc.assert(
      fc.property(awkward([-1, 0, 2, 2, NaN, -Infinity, Infinity], 8), (x) => check(x)),
      {
        seed: SEED,
        numRuns: 100,
      },
    );
  });

  test("two places that replace, reading an array the loop overwrites, next to a sum", async () => {
    const forward = functionText("choose$fwd_0$r0_s1");
    assert.match(forward, /which/);
    const f = await get<(x: Float64Array, c: Float64Array) => number>("choose");
    const g = await get<(x: Float64Array, c: Float64Array) => Float64Array>("gChoose");
    const p =
      await get<(x: Float64Array, c: Float64Array) => (s: number) => Float64Array>("pChoose");
    const d =
      await get<(x: Float64Array, c: Float64Array) => (dx: Float64Array) => number>("dChoose");
    fc.assert(
      fc.property(vector(-2, 2, 0, 7), vector(-1, 1, 7, 7), vector(-1, 1, 7, 7), (x, cs, v) => {
        const c = () => cs.subarray(0, x.length).slice();
        const dx = v.subarray(0, x.length);
        const grad = g(x, c());
        checkGradient(grad, (y) => f(y, c()), d(x, c()), x, dx);
        // The pullback carried what it read of c before the loop overwrote it.
        const back = p(x, c());
        assertAllClose(back(1), grad);
        assertAllClose(back(1), grad);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  test("nested ifs, a condition on the value replaced, a value replaced every time", async () => {
    const f = await get<(x: Float64Array, t: number) => number>("nested");
    const g = await get<(x: Float64Array, t: number) => [Float64Array, number]>("gNested");
    const d =
      await get<(x: Float64Array, t: number) => (dx: Float64Array, dt: number) => number>(
        "dNested",
      );
    // Nothing taped in the loop.
    const forward = functionText("nested$fwd$r0");
    const loop = forward.indexOf("while (");
    assert.doesNotMatch(forward.slice(loop, forward.indexOf("\n  }\n", loop)), /\$tape/);
    fc.assert(
      fc.property(
        spread(-2, 2, 0, 7),
        vector(-1, 1, 7, 7),
        uniform(-2, 2),
        uniform(-1, 1),
        (x, v, t, dt) => {
          const dx = v.subarray(0, x.length);
          const [gx, gt] = g(x, t);
          const fd = finiteDifferences((y) => f(y, t), x);
          gx.forEach((gi, i) => assertClose(gi, fd[i]!, 1e-5, `d/dx[${i}]`));
          assertClose(
            gt,
            centralDifference((s) => f(x, s), t),
            1e-5,
            "d/dt",
          );
          const dot = gx.reduce((s, gi, i) => s + gi * dx[i]!, gt * dt);
          assertClose(dot, d(x, t)(dx, dt), 1e-9, "against forward mode");
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  test("an inner loop's last write, chosen again by the outer loop, with ties", async () => {
    // The outer loop of bestRow keeps no tangent work either; rowMaxima's backward sweep has
    // only the outer loop.
    assert.equal(loops(functionText("bestRow$bwd_0$r0")), 0);
    assert.equal(loops(functionText("rowMaxima$bwd_0$r0")), 1);
    for (const name of ["bestRow", "rowMaxima"]) {
      const f = await get<(x: Float64Array, n: number) => number>(name);
      const g = await get<(x: Float64Array, n: number) => Float64Array>(
        `g${name[0]!.toUpperCase()}${name.slice(1)}`,
      );
      const d = await get<(x: Float64Array, n: number) => (dx: Float64Array) => number>(
        `d${name[0]!.toUpperCase()}${name.slice(1)}`,
      );
      fc.assert(
        fc.property(
          spread(-3, 3, 0, 9),
          vector(-1, 1, 9, 9),
          fc.integer({ min: 1, max: 4 }),
          (x, v, n) => {
            const dx = v.subarray(0, x.length);
            checkGradient(g(x, n), (y) => f(y, n), d(x, n), x, dx);
          },
        ),
        { seed: SEED, numRuns: RUNS },
      );
      fc.assert(
        fc.property(awkward([-1, 0, 2, 2], 9), fc.integer({ min: 1, max: 4 }), (x, n) => {
          const grad = g(x, n);
          forwardGradient(d(x, n), x.length).forEach((di, i) =>
            assertSameNumber(grad[i]!, di, `${name} [${x}] n=${n} [${i}]`),
          );
        }),
        { seed: SEED, numRuns: 100 },
      );
    }
  });

  test("a loop that writes a shadow keeps its flags, and is right", async () => {
    assert.doesNotMatch(functionText("scaledMax$fwd$r0"), /which/);
    const f = await get<(x: Float64Array, k: number) => number>("scaledMax");
    const g = await get<(x: Float64Array, k: number) => [Float64Array, number]>("gScaledMax");
    const d =
      await get<(x: Float64Array, k: number) => (dx: Float64Array, dk: number) => number>(
        "dScaledMax",
      );
    fc.assert(
      fc.property(spread(-2, 2, 1, 7), vector(-1, 1, 7, 7), uniform(0.5, 2), (x, v, k) => {
        const dx = v.subarray(0, x.length);
        const [gx, gk] = g(x, k);
        const fd = finiteDifferences((y) => f(y, k), x);
        gx.forEach((gi, i) => assertClose(gi, fd[i]!, 1e-5, `d/dx[${i}]`));
        assertClose(
          gk,
          centralDifference((s) => f(x, s), k),
          1e-5,
          "d/dk",
        );
        assertClose(
          gx.reduce((s, gi, i) => s + gi * dx[i]!, gk * 0.3),
          d(x, k)(dx, 0.3),
          1e-9,
          "forward",
        );
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Inlining, scalar replacement, and pullbacks without the tape

const INLINED = `
import { gradient, pullback, valueWithPullback, differential } from "nabla";

export type Vec3 = [number, number, number];

function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

/** Returns a different literal in each branch (an if whose results are triples). */
function rotate(r: Vec3, p: Vec3): Vec3 {
  const t2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
  if (t2 > 0.01) {
    const t = Math.sqrt(t2);
    const w: Vec3 = [r[0] / t, r[1] / t, r[2] / t];
    const c = cross(w, p);
    const d = (w[0] * p[0] + w[1] * p[1] + w[2] * p[2]) * (1 - Math.cos(t));
    return [
      p[0] * Math.cos(t) + c[0] * Math.sin(t) + w[0] * d,
      p[1] * Math.cos(t) + c[1] * Math.sin(t) + w[1] * d,
      p[2] * Math.cos(t) + c[2] * Math.sin(t) + w[2] * d,
    ];
  }
  const c = cross(r, p);
  return [p[0] + c[0], p[1] + c[1], p[2] + c[2]];
}

/** Writes into its argument and returns nothing. */
function scaleFirst(a: Float64Array, s: number): void {
  a[0] *= s;
}

/** Returns its argument: the caller's writes through the result change the argument. */
function same(a: Float64Array): Float64Array {
  return a;
}

function factorialish(x: number, n: number): number {
  return n <= 1 ? x : x * factorialish(x * 0.9, n - 1);
}

function withLoop(x: number, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.sin(x * i);
  return s;
}

/**
 * Two residuals from a camera-like parameter array, a point and a weight (as in ba); with
 * \`k\` > 0, also through a recursive and a looping callee, which stay calls (so the pullback
 * uses the tape).
 */
export function residuals(cam: Float64Array, x: Float64Array, w: number, k: number): [number, number] {
  const r: Vec3 = [cam[0], cam[1], cam[2]];
  const p: Vec3 = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
  const q = rotate(r, p);
  const u = q[0] / q[2];
  const v = q[1] / q[2];
  const scale = same(cam);
  const f = 1 + scale[6] * (u * u + v * v);
  return [w * (u * f - 1), w * v * f];
}
export function residualsCalling(cam: Float64Array, x: Float64Array, w: number, k: number): [number, number] {
  const r = residuals(cam, x, w, k);
  return [r[0] + factorialish(w, k), r[1] + withLoop(w, k)];
}
export const pCalling = pullback(residualsCalling, { wrt: [0, 1, 2] });
export const dCalling = differential(residualsCalling, { wrt: [0, 1, 2] });
export const pResiduals = pullback(residuals, { wrt: [0, 1, 2] });
export const pResidualsReordered = pullback(residuals, { wrt: [2, 0] });
export const vpResiduals = valueWithPullback(residuals, { wrt: [1] });
export const dResiduals = differential(residuals, { wrt: [0, 1, 2] });

/** Literals that are written, read at a run-time index, nested; an object literal. */
export function literals(x: Float64Array, i: number): number {
  const v = [x[0], x[1]];
  v[0] = v[0] * x[2];
  const m = [[x[0], x[1]], [x[2], x[0] * x[1]]];
  const o = { a: x[1] * 2, b: x[2] };
  const copy = new Float64Array(x);
  scaleFirst(copy, o.a);
  return v[0] * v[1] + v[i % 2] + m[1][1] * o.b + m[i % 2][0] + copy[0];
}
export const gLiterals = gradient(literals, { wrt: 0 });
export const pLiterals = pullback(literals, { wrt: 0 });
export const dLiterals = differential(literals, { wrt: 0 });

/** An object result read where the caller puts the seed; a number result; a returned array. */
export function polar(x: Float64Array): { r: number; a: number } {
  return { r: Math.hypot(x[0], x[1]), a: Math.atan2(x[1], x[0]) };
}
export const pPolar = pullback(polar);
export const dPolar = differential(polar);

export function norm32(x: Float32Array, y: number): number {
  return x[0] * x[0] + x[1] * x[1] * y + x[19] * y;
}
export const pNorm32 = pullback(norm32);

export function grown(x: Float64Array): Float64Array {
  const out = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = x[i] * x[i];
  return out;
}
export const pGrown = pullback(grown);

export function mapped(x: Float64Array): number[] {
  const a = x[0] * x[1];
  return [a, a * x[2]];
}
export const pMapped = pullback(mapped);
`;

describe("inlining, scalar replacement and pullbacks without the tape", () => {
  const program = loadProgram<Record<string, (...args: never[]) => unknown>>({
    "main.ts": INLINED,
  });
  const get = async <T>(name: string) => (await program)[name] as T;
  const code = compileFiles({ "main.ts": INLINED });
  const emitted = [...code.outputs.values()][0]!.code;
  const rng = fc.sample(uniform(-1, 1), { seed: SEED, numRuns: 400 });
  let at = 0;
  const random = () => rng[at++ % rng.length]!;
  const randomArray = (n: number) => Float64Array.from({ length: n }, random);

  test("small callees are inlined and their triples become numbers", () => {
    assert.deepEqual(code.diagnostics, []);
    const text = (name: string) => {
      const start = emitted.indexOf(`export function ${name}(`);
      assert.ok(start >= 0, `no ${name}`);
      return emitted.slice(start, emitted.indexOf("\n}\n", start));
    };
    assert.doesNotMatch(text("residuals$vjp_0_1_2"), /cross|rotate|same|\$nabla\.tape/);
    // The recursive and the looping callees are called, not inlined; residuals is inlined.
    const calling = text("residualsCalling$fwd_0_1_2");
    assert.match(calling, /factorialish\$fwd/);
    assert.match(calling, /withLoop\$fwd/);
    assert.doesNotMatch(calling, /residuals\$fwd|rotate|cross/);
  });

  for (const [name, pName, dName] of [
    ["residuals", "pResiduals", "dResiduals"],
    ["residualsCalling", "pCalling", "dCalling"],
  ] as const)
    test(`pullbacks of ${name} against forward mode and differences`, async () => {
      type Res = (cam: Float64Array, x: Float64Array, w: number, k: number) => [number, number];
      const f = await get<Res>(name);
      const p =
        await get<
          (
            cam: Float64Array,
            x: Float64Array,
            w: number,
            k: number,
          ) => (s: [number, number]) => [Float64Array, Float64Array, number]
        >(pName);
      const reordered =
        await get<
          (
            cam: Float64Array,
            x: Float64Array,
            w: number,
            k: number,
          ) => (s: [number, number]) => [number, Float64Array]
        >("pResidualsReordered");
      const vp =
        await get<
          (
            cam: Float64Array,
            x: Float64Array,
            w: number,
            k: number,
          ) => { value: [number, number]; pullback: (s: [number, number]) => Float64Array }
        >("vpResiduals");
      const d =
        await get<
          (
            cam: Float64Array,
            x: Float64Array,
            w: number,
            k: number,
          ) => (dc: Float64Array, dx: Float64Array, dw: number) => [number, number]
        >(dName);
      for (let run = 0; run < 40; run++) {
        const cam = randomArray(7);
        // Both branches of rotate: a rotation vector of length 0 and one of length ~1.
        if (run % 3 === 0) cam.fill(0, 0, 3);
        const x = randomArray(3);
        x[2] += 3;
        const w = random() + 1.5;
        const k = run % 4;
        const seed: [number, number] = [random(), random()];
        const back = p(cam, x, w, k);
        const [gc, gx, gw] = back(seed);
        // The dot-product identity against forward mode.
        const dc = randomArray(7);
        const dx = randomArray(3);
        const dw = random();
        const jv = d(cam, x, w, k)(dc, dx, dw);
        const lhs = jv[0] * seed[0] + jv[1] * seed[1];
        const rhs =
          gc.reduce((s, g, i) => s + g * dc[i]!, 0) +
          gx.reduce((s, g, i) => s + g * dx[i]!, 0) +
          gw * dw;
        assertClose(rhs, lhs, 1e-10, "<Jv, s> = <v, Jᵀs>");
        // Against central differences, one coordinate of cam.
        const i = run % 7;
        const fd = centralDifference((t) => {
          const c = cam.slice();
          c[i] = t;
          const r = f(c, x, w, k);
          return r[0] * seed[0] + r[1] * seed[1];
        }, cam[i]!);
        assertClose(gc[i]!, fd, 1e-5, `d/dcam[${i}]`);
        // A second run gives the same adjoints in fresh arrays, even after the arguments changed.
        const camBefore = cam.slice();
        cam.fill(5);
        x.fill(5);
        const [gc2, gx2, gw2] = back(seed);
        assert.deepEqual([gc2, gx2, gw2], [gc, gx, gw]);
        assert.notEqual(gc2, gc);
        const doubled = back([2 * seed[0], 2 * seed[1]]);
        doubled[0].forEach((g, j) => assertClose(g, 2 * gc[j]!, 1e-12));
        // wrt [2, 0]: the weight's adjoint first.
        if (name !== "residuals") continue;
        const x2 = Float64Array.of(0.3, -0.2, 3.1);
        const [rw, rc] = reordered(camBefore, x2, w, k)(seed);
        const [gcB, gxB, gwB] = p(camBefore, x2, w, k)(seed);
        assertClose(rw, gwB, 1e-12, "reordered weight");
        rc.forEach((g, j) => assertClose(g, gcB[j]!, 1e-12, "reordered camera"));
        // valueWithPullback: the value, and the adjoint of x alone.
        const withValue = vp(camBefore, x2, w, k);
        assertAllClose(withValue.value, f(camBefore, x2, w, k));
        assertAllClose(withValue.pullback(seed), gxB);
      }
    });

  test("literals that are written, indexed at run time or nested keep their meaning", async () => {
    const f = await get<(x: Float64Array, i: number) => number>("literals");
    const g = await get<(x: Float64Array, i: number) => Float64Array>("gLiterals");
    const p = await get<(x: Float64Array, i: number) => (s: number) => Float64Array>("pLiterals");
    const d = await get<(x: Float64Array, i: number) => (dx: Float64Array) => number>("dLiterals");
    for (let run = 0; run < 20; run++) {
      const x = randomArray(3);
      const before = x.slice();
      const i = run % 3;
      const grad = g(x, i);
      assert.deepEqual(x, before, "the argument is left alone");
      checkGradient(grad, (y) => f(y, i), d(x, i), x, randomArray(3));
      assertAllClose(p(x, i)(1), grad);
    }
  });

  test("object, Float32Array, computed and fresh array results", async () => {
    const polar = await get<(x: Float64Array) => { r: number; a: number }>("polar");
    const pPolar =
      await get<(x: Float64Array) => (s: { r: number; a: number }) => Float64Array>("pPolar");
    const dPolar =
      await get<(x: Float64Array) => (dx: Float64Array) => { r: number; a: number }>("dPolar");
    const x = Float64Array.of(0.6, -0.8);
    const seed = { r: 0.7, a: -1.3 };
    const g = pPolar(x)(seed);
    const v = Float64Array.of(0.2, 0.9);
    const jv = dPolar(x)(v);
    assertClose(g[0]! * v[0]! + g[1]! * v[1]!, jv.r * seed.r + jv.a * seed.a, 1e-12);
    assert.deepEqual(seed, { r: 0.7, a: -1.3 }, "the seed is left alone");
    assertClose(polar(x).r, 1, 1e-15);

    const pNorm32 =
      await get<(x: Float32Array, y: number) => (s: number) => [Float32Array, number]>("pNorm32");
    const x32 = new Float32Array(20).map((_, i) => i / 7);
    const [g32, gy] = pNorm32(x32, 1.5)(2);
    assert.ok(g32 instanceof Float32Array && g32.length === 20);
    assertClose(g32[0]!, 0, 0);
    assertClose(g32[1]!, 2 * 2 * x32[1]! * 1.5, 1e-6);
    assertClose(g32[19]!, 2 * 1.5, 1e-6);
    assertClose(gy, 2 * (x32[1]! * x32[1]! + x32[19]!), 1e-6);

    const pGrown = await get<(x: Float64Array) => (s: Float64Array) => Float64Array>("pGrown");
    const xs = Float64Array.from({ length: 200 }, (_, i) => i / 50);
    const seedGrown = Float64Array.from({ length: 200 }, (_, i) => (i % 3) - 1);
    const back = pGrown(xs);
    const gg = back(seedGrown);
    gg.forEach((gi, i) => assertClose(gi, 2 * xs[i]! * seedGrown[i]!, 1e-12));
    assert.deepEqual(back(seedGrown), gg);

    const pMapped = await get<(x: Float64Array) => (s: number[]) => Float64Array>("pMapped");
    const xm = Float64Array.of(0.5, -2, 3);
    const gm = pMapped(xm)([1, 10]);
    // a = x0 x1, result [a, a x2]: Jᵀ[1, 10] = [x1 + 10 x1 x2, x0 + 10 x0 x2, 10 x0 x1].
    assertClose(gm[0]!, -2 + 10 * -2 * 3, 1e-12);
    assertClose(gm[1]!, 0.5 + 10 * 0.5 * 3, 1e-12);
    assertClose(gm[2]!, 10 * 0.5 * -2, 1e-12);
  });
});
