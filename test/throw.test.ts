import { test } from "node:test";
import assert from "node:assert/strict";
import { assertClose, finiteGradient, loadProgram } from "./support/harness.js";

// `throw new Error(…)` in differentiated code: the guard runs in every derivative, the message
// is the primal's (template literals and `+` with values), the derivative of the path that does
// not throw is right, and an operator call that threw leaves nothing behind for the next one.

const PROGRAM = `
import { gradient, valueWithGradient, derivative, differential, pullback } from "nabla";

function norm(v: number[]): number {
  if (v.length === 0) throw new Error("empty vector");
  let s = 0;
  for (const x of v) s += x * x;
  return Math.sqrt(s);
}

function safeLog(x: number): number {
  if (!(x > 0)) throw new RangeError(\`safeLog needs x > 0, got \${x}\`);
  return Math.log(x);
}

export function guarded(a: number, b: number): number {
  let total = 0;
  for (let i = 1; i <= 3; i++) {
    if (i * a > 100) throw new Error("too large at step " + i + ": " + i * a);
    total += safeLog(a * i + b * b) * norm([a, b, i]);
  }
  return total;
}

function firstAbove(xs: Float64Array, level: number): number {
  for (let i = 0; i < xs.length; i++) {
    if (xs[i] > level) return xs[i] * xs[i];
  }
  throw new Error(\`nothing above \${level}\`);
}

export const g = gradient(guarded);
export const vg = valueWithGradient(guarded);
export const d = differential(guarded);
export const dNorm = gradient(norm);
export const dLog = derivative(safeLog);
export const gFirst = gradient(firstAbove, { wrt: 0 });
export const pFirst = pullback(firstAbove, { wrt: 0 });
`;

type M = {
  guarded: (a: number, b: number) => number;
  g: (a: number, b: number) => number[];
  vg: (a: number, b: number) => { value: number; gradient: number[] };
  d: (a: number, b: number) => (da: number, db: number) => number;
  dNorm: (v: number[]) => number[];
  dLog: (x: number) => number;
  gFirst: (xs: Float64Array, level: number) => Float64Array;
  pFirst: (xs: Float64Array, level: number) => (seed: number) => Float64Array;
};

test("throw: derivatives of the path that does not throw agree with finite differences and forward mode", async () => {
  const m = await loadProgram<M>({ "main.ts": PROGRAM });
  for (const [a, b] of [
    [0.7, 1.3],
    [2.5, -0.4],
  ] as const) {
    const expected = finiteGradient(m.guarded, [a, b]);
    const gradient = m.g(a, b);
    gradient.forEach((gi, i) => assertClose(gi, expected[i]!, 1e-6, `∂/∂x${i} at ${a}, ${b}`));
    assertClose(m.d(a, b)(1, 0), gradient[0]!, 1e-12, "forward ∂a");
    assertClose(m.d(a, b)(0, 1), gradient[1]!, 1e-12, "forward ∂b");
  }
  assert.deepEqual(
    m.dNorm([3, 4]).map((x) => Math.round(x * 1e12) / 1e12),
    [0.6, 0.8],
  );
  assertClose(m.dLog(4), 0.25, 1e-15);
  assert.deepEqual([...m.gFirst(new Float64Array([1, 3, 5]), 2)], [0, 6, 0]);
});

test("throw: every derivative raises the primal's error, with its message, and the tape is left clean", async () => {
  const m = await loadProgram<M>({ "main.ts": PROGRAM });
  assert.throws(() => m.dNorm([]), { name: "Error", message: "empty vector" });
  assert.throws(() => m.dLog(-2), { name: "RangeError", message: "safeLog needs x > 0, got -2" });
  assert.throws(() => m.g(40, 1), { message: "too large at step 3: 120" });
  assert.throws(() => m.d(40, 1)(1, 0), { message: "too large at step 3: 120" });
  assert.throws(() => m.gFirst(new Float64Array([1, 2]), 5), { message: "nothing above 5" });
  assert.throws(() => m.pFirst(new Float64Array([1, 2]), 5), { message: "nothing above 5" });
  // After the throws, derivatives still come out right (nothing was left on the tape).
  const { value, gradient } = m.vg(0.7, 1.3);
  assertClose(value, m.guarded(0.7, 1.3), 1e-15);
  assertClose(gradient[0]!, m.g(0.7, 1.3)[0]!, 1e-15);
  const back = m.pFirst(new Float64Array([1, 3, 5]), 2);
  assert.deepEqual([...back(2)], [0, 12, 0]);
});
