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
          assert.deepEqual(back(1), g(x, n));
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
          assert.deepEqual(p(x, k)(1), g(x, k));
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
        assert.deepEqual(p(x)(1), g(x));
      }),
      { seed: SEED, numRuns: RUNS },
    );
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
