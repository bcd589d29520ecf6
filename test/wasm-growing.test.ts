import { test } from "node:test";
import assert from "node:assert/strict";
import { checkBackends, f64, wasmFallback } from "./support/wasm-backends.js";
import { MAT_MUL } from "./support/matrix-source.js";

// Arrays a function lengthens, in the WebAssembly backend (emit/wasm/growing-arrays.ts):
// `push`, spreads into `[]`, `filter` and `flat` onto arrays the function makes, which move to
// a larger block when full. Each program is written as a TypeScript developer would, and
// checked by checkBackends: wasm against JavaScript within 1e-12, central differences,
// forward mode against reverse mode, and every call run in wasm.

test("rows built by push, as a matrix product is usually written", async () => {
  await checkBackends(
    `${MAT_MUL}
export function f(a: number[][], b: number[][]): number {
  const c = matMul(matMul(a, b), b.map((r) => r.slice(0, 2)));
  let total = 0;
  for (const row of c) for (const x of row) total += x * x;
  return total;
}`,
    [
      [
        [
          [1, 2],
          [0.3, 0.4],
          [0.5, -1],
        ],
        [
          [0.1, 0.7, 1],
          [2, -0.3, 0.2],
        ],
      ],
      [
        [[0.2, -0.1]],
        [
          [1.5, 0.25],
          [-2, 0.125],
        ],
      ],
    ],
  );
});

test("flat, a spread into [], filter and push past the first block's room", async () => {
  await checkBackends(
    `export function f(xs: number[][], extra: number[]): number {
  const all = [...xs.flat(), ...extra];
  const big = all.filter((x) => Math.abs(x) > 0.5);
  const squares: number[] = [];
  for (const x of big) squares.push(x * x, x);
  for (let k = 0; k < 20; k++) squares.push(k * 0.01 * all[k % all.length]);
  let s = 0;
  for (let i = 0; i < squares.length; i++) s += squares[i] * (i + 1);
  return s + big.length;
}`,
    [
      [
        [[1, 0.2, -3], [0.7]],
        [0.1, -0.9, 2],
      ],
      [[[0.4]], [0.6, 0.3]],
    ],
  );
});

test("two arrays growing in turn, so neither is the heap's last block every time", async () => {
  await checkBackends(
    `export function f(x: Float64Array): number {
  const evens: number[] = [];
  const odds: number[] = [];
  for (let i = 0; i < x.length; i++) {
    if (i % 2 === 0) evens.push(Math.sin(x[i]));
    else odds.push(x[i] * x[i]);
    evens.push(x[i]);
  }
  let s = 0;
  for (let i = 0; i < evens.length; i++) s += evens[i] * (i < odds.length ? odds[i] : 1);
  return s;
}`,
    [[f64(0.5, -2, 3, 0.1, 1.5, 0.25, -0.75, 2, 0.3, 0.9, -1.1)], [f64(0.2)]],
  );
});

test("a list of objects built by push, then read", async () => {
  await checkBackends(
    `interface Segment { from: number; to: number }
function segments(xs: Float64Array): Segment[] {
  const out: Segment[] = [];
  for (let i = 1; i < xs.length; i++) out.push({ from: xs[i - 1], to: xs[i] });
  return out;
}
export function f(xs: Float64Array): number {
  let length = 0;
  for (const s of segments(xs)) length += Math.hypot(s.to - s.from, 1);
  return length;
}`,
    [[f64(0, 0.5, 2, 1.5, 3, -1, 0.25, 4, 4.5)]],
  );
});

test("read by an inlined helper between appends: no address handed on", async () => {
  await checkBackends(
    `function mean(xs: number[]): number {
  let s = 0;
  for (const v of xs) s += v;
  return s / xs.length;
}
export function f(x: Float64Array): number {
  const seen: number[] = [];
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    seen.push(x[i]);
    s += mean(seen) * x[i];
  }
  return s;
}`,
    [[f64(0.5, -2, 3, 0.1, 1.5, 0.25, -0.75)]],
  );
});

test("an array grown after something else took its address stays JavaScript, saying why", () => {
  // Stored in the list, then grown past its first block: the list's cell would keep the old
  // address (letting it through gives 5847 where JavaScript gives 25194 at x = 1..8).
  const stored = wasmFallback(`export function f(x: Float64Array): number {
  const rows: number[][] = [];
  for (let i = 0; i < x.length; i++) {
    const row: number[] = [];
    rows.push(row);
    for (let k = 0; k <= i; k++) row.push(x[k] * (i + 1));
  }
  let s = 0;
  for (const row of rows) for (const v of row) s += v * v;
  return s;
}`);
  assert.match(stored, /NABLA202/);
  assert.match(
    stored,
    /lengthens \(push, a spread into \[\]\) after handing it on \(storing it in another array or object\)/,
  );
  // Handed to a helper (recursive: not inlined) in a loop that also grows it: the next
  // iteration grows it after.
  const passed = wasmFallback(`function total(xs: number[], from = 0): number {
  return from >= xs.length ? 0 : xs[from] + total(xs, from + 1);
}
export function f(x: Float64Array): number {
  const seen: number[] = [];
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    seen.push(x[i]);
    s += total(seen);
  }
  return s;
}`);
  assert.match(passed, /after handing it on \(passing it to a call\)/);
  // An argument grown: the caller's array would not learn its new length.
  const argument = wasmFallback(`export function f(x: number[]): number {
  x.push(1);
  return x[0] * x[x.length - 1];
}`);
  assert.match(argument, /it may write its argument 'x'/);
  // Grown where an object holds it: the object's field would keep the old address.
  const held = wasmFallback(`interface Bag { items: number[]; scale: number }
export function f(x: Float64Array): number {
  const bag: Bag = { items: [], scale: 2 };
  for (let i = 0; i < x.length; i++) bag.items.push(x[i] * bag.scale);
  let s = 0;
  for (const v of bag.items) s += v * v;
  return s;
}`);
  assert.match(
    held,
    /lengthens \(push, a spread into \[\]\) that is not one array it made: an argument, a field, or a variable assigned several arrays/,
  );
});
