import { test } from "node:test";
import assert from "node:assert/strict";
import { assertClose, compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";
import { checkTwoWays } from "./support/two-ways.js";

// Helpers written to take any array of numbers (`v: number[] | Float64Array`,
// `ArrayLike<number>`, `readonly number[]`), as numeric libraries write them: each call is
// given its own version for the arrays it passes (lower/generic-calls.ts), as a generic
// function's is. And `Float64Array.of`, `Float32Array.of`, `Array.of`. Every case: the value is
// the plain function's, the gradient matches central differences and forward mode.

test("a norm and a dot product taking number[] | Float64Array and ArrayLike<number>, given plain and typed arrays", async () => {
  await checkTwoWays(`function norm(v: number[] | Float64Array): number {
  let s = 0;
  for (const x of v) s += x * x;
  return Math.sqrt(s);
}
function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
function sumOfSquares(v: readonly number[] | Float32Array): number {
  return dot(v, v);
}
export function f(x: number, y: number): number {
  const plain = [x, 2 * y, x * y];
  const typed = new Float64Array([y, x, 1]);
  return norm(plain) + norm(typed) * dot(plain, typed) + sumOfSquares([x, y]);
}`);
});

test("a helper over several kinds of array that writes into the one it is given, and one calling another", async () => {
  await checkTwoWays(`function scaleInPlace(v: number[] | Float64Array, k: number): void {
  for (let i = 0; i < v.length; i++) v[i] *= k;
}
function total(v: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i];
  return s;
}
function scaledTotal(v: number[] | Float64Array, k: number): number {
  scaleInPlace(v, k);
  return total(v);
}
export function f(x: number, y: number): number {
  const a = [x, y, x * x];
  const b = Float64Array.from([Math.sin(x), y]);
  return scaledTotal(a, y) + scaledTotal(b, x) * a[2];
}`);
});

test("Float64Array.of, Array.of with one number, and of a spread", async () => {
  await checkTwoWays(`export function f(x: number, y: number): number {
  const v = Float64Array.of(x, y, x * y);
  const one = Array.of(3 * x);
  const parts = [y, 2];
  const w = Float64Array.of(...parts, x);
  return v[0] * v[2] + one[0] * one.length + w[1] * w[2] + w.length;
}`);
});

test("Float32Array.of rounds its numbers as JavaScript does; the rounding's derivative is 1", async () => {
  const m = await loadProgram<{
    f: (x: number, y: number) => number;
    vg: (x: number, y: number) => { value: number; gradient: [number, number] };
    d: (x: number, y: number) => (dx: number, dy: number) => number;
  }>({
    "main.ts": `import { differential, valueWithGradient } from "nabla";
export function f(x: number, y: number): number {
  const low = Float32Array.of(x / 3, y);
  return low[0] * low[1] + low.length;
}
export const vg = valueWithGradient(f);
export const d = differential(f);
`,
  });
  const [x, y] = [0.7, -0.4];
  const { value, gradient } = m.vg(x, y);
  assert.equal(value, m.f(x, y));
  assert.equal(value, Math.fround(x / 3) * Math.fround(y) + 2);
  assertClose(gradient[0], Math.fround(y) / 3, 1e-15, "∂f/∂x");
  assertClose(gradient[1], Math.fround(x / 3), 1e-15, "∂f/∂y");
  // A Float32Array's tangent is a Float32Array: forward mode stores dx/3 rounded to float32.
  assertClose(m.d(x, y)(1, 0), gradient[0], 1e-7, "∂f/∂x, forward mode");
  assertClose(m.d(x, y)(0, 1), gradient[1], 1e-7, "∂f/∂y, forward mode");
});

test("the gradient with respect to an array passed to a helper over several kinds of array has the argument's kind", async () => {
  const m = await loadProgram<{
    g: (v: Float64Array) => Float64Array;
    h: (v: number[]) => number[];
  }>({
    "main.ts": `import { gradient } from "nabla";
function norm(v: number[] | Float64Array): number {
  let s = 0;
  for (const x of v) s += x * x;
  return Math.sqrt(s);
}
function viaTyped(v: Float64Array): number {
  return norm(v);
}
function viaPlain(v: number[]): number {
  return norm(v) * v.length;
}
export const g = gradient(viaTyped);
export const h = gradient(viaPlain);
`,
  });
  const typed = m.g(Float64Array.of(3, 4));
  assert.ok(typed instanceof Float64Array, "a Float64Array's gradient is a Float64Array");
  assertClose(typed[0]!, 0.6, 1e-15, "∂/∂v0");
  assertClose(typed[1]!, 0.8, 1e-15, "∂/∂v1");
  const plain = m.h([3, 4]);
  assert.ok(Array.isArray(plain), "a number[]'s gradient is a number[]");
  assertClose(plain[0]!, 1.2, 1e-15, "∂/∂v0");
  assertClose(plain[1]!, 1.6, 1e-15, "∂/∂v1");
});

test("an operator's own function taking several kinds of array: NABLA106 says to declare the one it is given", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { gradient } from "nabla";
function norm(v: number[] | Float64Array): number {
  let s = 0;
  for (const x of v) s += x * x;
  return Math.sqrt(s);
}
export const g = gradient(norm);
`,
    }),
  );
  assert.match(
    text,
    /main\.ts:2:15: error NABLA106: parameter 'v' of 'norm' has type 'number\[\] \| Float64Array', which admits several kinds of array; a function an operator differentiates takes one, which its derivative's type follows/,
  );
  assert.match(
    text,
    /help: declare the one it is given \('v: number\[\]' or 'v: Float64Array'\); functions it calls may keep 'number\[\] \| Float64Array': each call is given its own version, for the arrays it passes/,
  );
  assert.match(text, /main\.ts:7:18: note: when differentiating 'norm' for 'gradient'/);
});
