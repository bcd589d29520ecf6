import { test } from "node:test";
import assert from "node:assert/strict";
import { checkAt, compile, type Program } from "./support/hole-programs.js";

// Writes outside an array, as a TypeScript developer writes them by mistake or on purpose. A
// typed array ignores a write past its end (or at -1, or 1.5): both modes, and the wasm
// backend, give the derivative of what the program computed, checked against central
// differences and forward against reverse. A plain array written past its end gets holes,
// which forEach, map, reduce… skip: derivative code cannot skip them, and stops with a
// RangeError naming the call, in both modes and both backends. Writes at the end (an append)
// or at -1 (a property, which the methods ignore) are right.

/** What the derivative code says when `.method` at main.ts:line:column meets a hole. */
function holeMessage(method: string, line: number, column: number): string {
  return (
    `nabla: '.${method}' at main.ts:${line}:${column} met a hole (an element never written, ` +
    `left by a write past the array's end); JavaScript skips holes, nabla's derivative code ` +
    `does not. Write every element before the call, e.g. with push or fill.`
  );
}

/** Every mode and backend stops at (x, k) with `message`, where the program gives a number. */
function checkRefusedAt(m: Program, x: number, k: number, message: string): void {
  assert.ok(Number.isFinite(m.f(x, k)), "the program itself gives a number");
  const error = { name: "RangeError", message };
  assert.throws(() => m.reverse(x, k), error);
  assert.throws(() => m.forward(x, k)(1), error);
  assert.throws(() => m.reverseWasm(x, k), error);
  assert.throws(() => m.forwardWasm(x, k)(1), error);
}

test("a Float64Array written past its end: the write is ignored, in both modes", async () => {
  const m = await compile(`export function f(x: number, k: number): number {
  const buf = new Float64Array(3);
  buf[0] = x;
  buf[5] = x * 100;
  return buf.reduce((s, v) => s + v * v, 0) + buf.length + k;
}`);
  for (const x of [1.5, -0.7]) checkAt(m, x);
});

test("a typed array filled by a loop one past its end (i <= length)", async () => {
  const m = await compile(`export function f(x: number, k: number): number {
  const buf = new Float64Array(4);
  for (let i = 0; i <= buf.length; i++) buf[i] = x * (i + 1) + k;
  let s = 0;
  for (let i = 0; i < buf.length; i++) s += buf[i] * buf[i];
  return s;
}`);
  for (const x of [1.5, -0.7]) checkAt(m, x, 0.25);
});

test("a typed array written at its length, at -1 and at 0.5", async () => {
  const m = await compile(`export function f(x: number, k: number): number {
  const buf = new Float64Array([x, 2 * x]);
  buf[buf.length] = 7 * x;
  buf[-1] = 5 * x;
  buf[0.5] = 3 * x;
  return buf[0] * buf[1] + buf.length * k;
}`);
  for (const x of [1.5, -0.7]) checkAt(m, x, 2);
});

test("a typed array written at a computed index, in range or not", async () => {
  const m = await compile(`export function f(x: number, k: number): number {
  const buf = new Float64Array(3);
  buf[k] = x * x;
  buf[1] = x;
  return buf[0] + buf[1] * buf[1] + buf[2];
}`);
  for (const k of [0, 2, 3, 5, -1, 1.5]) checkAt(m, 1.5, k);
});

test("a typed array updated in place past its end (buf[k] += v, buf[k] *= x)", async () => {
  const m = await compile(`export function f(x: number, k: number): number {
  const buf = new Float64Array([x, 1, 2]);
  buf[k] += x * x;
  buf[k] *= x;
  return buf[0] * buf[1] + buf[2];
}`);
  for (const k of [0, 1, 2, 3, 7, -1]) checkAt(m, 1.5, k);
});

test("a helper filling a typed array it was given, for more elements than it has", async () => {
  const m = await compile(`function fillScaled(out: Float64Array, x: number, n: number): void {
  for (let i = 0; i < n; i++) out[i] = x * (i + 1);
}
export function f(x: number, k: number): number {
  const out = new Float64Array(2);
  fillScaled(out, x, k);
  return out[0] * out[1] + Math.sin(out[1]);
}`);
  for (const k of [2, 3, 6]) checkAt(m, 0.8, k);
});

test("a plain array written at -1: a property, which reduce ignores and a read finds", async () => {
  const m = await compile(`export function f(x: number, k: number): number {
  const arr = [x, 2];
  arr[-1] = 100 * x;
  return arr.reduce((s, v) => s + v * x, 0) + arr.length + arr[-1] * k;
}`);
  for (const k of [0, 1.5]) checkAt(m, 1.5, k);
});

test("a plain array grown by arr[arr.length] = v", async () => {
  const m = await compile(`export function f(x: number, k: number): number {
  const arr = [x, 2 * x];
  arr[arr.length] = x * x;
  arr[arr.length] = 3 * x + k;
  let s = 0;
  for (let i = 0; i < arr.length; i++) s += arr[i] * (i + 1);
  return s + arr.reduce((a, v) => a + v * v, 0);
}`);
  for (const x of [1.5, -0.7]) checkAt(m, x, 1);
});

test("a plain array filled from its last element, then reduced: no hole is left", async () => {
  const m = await compile(`export function f(x: number, k: number): number {
  const ys: number[] = [];
  for (let i = 3; i >= 0; i--) ys[i] = x * (i + k);
  return ys.map((y) => y * y).reduce((s, y) => s + y, 0);
}`);
  for (const x of [1.5, -0.7]) checkAt(m, x, 1);
});

test("a plain array written past its end: holes, which reduce skips, refused at run time", async () => {
  const m = await compile(`export function f(x: number, k: number): number {
  const arr = [x, 2 * x, 3];
  arr[5] = x * x;
  return arr.reduce((s, v) => s + v, 0) + arr.length + k;
}`);
  checkRefusedAt(m, 1.5, 0, holeMessage("reduce", 5, 10));
});

test("a plain array written at a computed index: right within it and at its end, refused past it", async () => {
  const m = await compile(`export function f(x: number, k: number): number {
  const arr = [x, 2 * x, 3];
  arr[k] = x * x;
  let s = 0;
  arr.forEach((v) => (s += v * x));
  return s;
}`);
  for (const k of [0, 2, 3, -1, 1.5]) checkAt(m, 1.5, k);
  checkRefusedAt(m, 1.5, 5, holeMessage("forEach", 6, 3));
});

test("a plain array given its length by arr.length = n: right when shorter, refused when longer", async () => {
  const m = await compile(`export function f(x: number, k: number): number {
  const arr = [x, x * x, 3 * x];
  arr.length = k;
  return arr.map((v) => v * 2).reduce((s, v) => s + v * v, 0);
}`);
  for (const k of [1, 2, 3]) checkAt(m, 1.5, k);
  checkRefusedAt(m, 1.5, 5, holeMessage("map", 5, 10));
});

test("a helper writing past the end of a plain array it was given: refused at the write", async () => {
  const m = await compile(`function put(a: number[], k: number, v: number): void {
  a[k] = v;
}
export function f(x: number, k: number): number {
  const arr = [x, 2 * x, 3];
  put(arr, k, x * x);
  return arr.reduce((s, v) => s + v * x, 0);
}`);
  for (const k of [0, 3]) checkAt(m, 1.5, k);
  // A write into an array the function was given is checked as it runs (hole-checks.ts).
  checkRefusedAt(
    m,
    1.5,
    5,
    "nabla: the write at main.ts:3:3 in 'put' would leave a hole: index 5 is past the end of " +
      "the array (length 3), so an element before it is never written. JavaScript's array " +
      "methods skip holes and reading one gives undefined, nabla's derivative code does " +
      "neither. Write the elements in order, e.g. with push, or fill the array first.",
  );
});
