import assert from "node:assert/strict";
import { test } from "node:test";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";
import { checkTwoWays } from "./support/two-ways.js";

// `.sort(cmp)` and `.toSorted(cmp)` in differentiated code (lower/array-sort.ts): the engine's
// sort choosing the order, or a merge sort with the comparator inlined, moving each value, with
// its derivative, where JavaScript's sort puts it. Programs as TypeScript developers write
// them, checked two ways.

test("sorting copies of numbers and arrays of objects, by arrows and by a named comparator, in place and into a new array", async () => {
  await checkTwoWays(`interface Item {
  name: string;
  score: number;
  weight: number;
}
const orders = { lightFirst: (p: Item, q: Item) => p.weight - q.weight };
function byScore(a: Item, b: Item): number {
  return b.score - a.score;
}
function topK(values: number[], k: number): number[] {
  return [...values].sort((a, b) => b - a).slice(0, k);
}
export function f(x: number, y: number): number {
  const items: Item[] = [
    { name: "a", score: x, weight: 1 },
    { name: "b", score: y * y, weight: 2 },
    { name: "c", score: Math.sin(x + y), weight: 3 },
    { name: "d", score: 0.3, weight: 4 },
  ];
  const ranked = items.toSorted(byScore);
  items.sort(orders.lightFirst);
  items.sort((p, q) => p.weight * p.score - q.weight * q.score);
  let s = 0;
  ranked.forEach((it, i) => (s += it.score * (i + 1)));
  items.forEach((it, i) => (s += it.score * it.weight * (i + 2)));
  const best = topK([x, y, x * y, Math.cos(y), 0.5], 3);
  return s + best.reduce((a, b, i) => a + b * (i + 1), 0);
}`);
});

test("a median and a trimmed mean of a Float64Array, sorted by a comparator with a block body", async () => {
  await checkTwoWays(`function median(xs: Float64Array): number {
  const sorted = xs.slice().sort((a, b) => {
    if (a < b) return -1;
    return a > b ? 1 : 0;
  });
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
function trimmedMean(xs: number[], trim = 1): number {
  const kept = xs.toSorted((a, b) => a - b).slice(trim, xs.length - trim);
  return kept.reduce((a, b) => a + b, 0) / kept.length;
}
export function f(x: number, y: number): number {
  const samples = new Float64Array([x, y, x * y, 0.25, Math.exp(-x), y - x]);
  return median(samples) + trimmedMean([x * 2, y, 1, -y, x + y]);
}`);
});

test("the sort is stable: elements the comparator calls equal keep their order, as JavaScript's", async () => {
  const m = await loadProgram<{
    order: (x: number) => number[];
    plain: (x: number) => number[];
  }>({
    "main.ts": `import { valueWithGradient } from "nabla";
function ranks(x: number): number[] {
  const rows = [0, 1, 2, 3, 4, 5, 6, 7].map((id) => ({ id, key: Math.floor(id / 3) * x }));
  rows.sort((a, b) => a.key - b.key);
  return rows.map((r) => r.id + r.key);
}
export const order = (x: number) => {
  const { value } = valueWithGradient((t: number) => ranks(t).reduce((a, b, i) => a + b * (i + 1), 0))(x);
  return [value];
};
export const plain = (x: number) => [ranks(x).reduce((a, b, i) => a + b * (i + 1), 0)];
`,
  });
  for (const x of [1, -1, 0]) assert.deepEqual(m.order(x), m.plain(x));
});

test("'.sort()' without a comparator of objects, and a comparator that is neither written at the call nor a named function, are clear diagnostics", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { gradient } from "nabla";
const pick = (up: boolean) => (up ? (a: number, b: number) => a - b : (a: number, b: number) => b - a);
export function f(x: number): number {
  const a = [{ v: x }, { v: 2 }].sort();
  const b = [x, 3].sort(pick(true));
  return a[0]!.v + b[0]!;
}
export const g = gradient(f);
`,
    }),
  );
  assert.match(
    text,
    /main\.ts:4:13: error NABLA101: '\.sort\(\)' without a comparator is supported for arrays of numbers, booleans and strings: JavaScript orders other elements by their text \('\[object Object\]' for every object\)/,
  );
  assert.match(
    text,
    /help: pass the order you mean, such as '\.sort\(\(a, b\) => a\.cost - b\.cost\)'/,
  );
  assert.match(
    text,
    /main\.ts:5:25: error NABLA101: this comparator of '\.sort' is not supported in differentiable code/,
  );
});

test("sorting the array a call returns, directly: `squares(xs).sort(cmp)`, `.toSorted(byName)`, after a filter", async () => {
  // The merge sort's own nodes sit at the call's position, where TypeScript sees the called
  // function: its `n = sorted.length` was once taken for a function value (NABLA112 naming 'n').
  await checkTwoWays(`function squares(xs: number[]): number[] {
  return xs.map((v) => v * v);
}
function descending(a: number, b: number): number {
  return b - a;
}
export function f(x: number, y: number): number {
  const largest = squares([x, y, x * y, 0.5]).sort((a, b) => b - a)[0];
  const ordered = squares([y, x + 1, 2]).toSorted(descending);
  const positive = squares([x - y, y, -0.3]).filter((v) => v > 0.01).sort((a, b) => a - b);
  return largest + ordered[0] * 2 + ordered[2] + positive[0] * 3;
}`);
});

test("a comparator inconsistent on ties, or returning NaN, places each element where JavaScript's sort does", async () => {
  // Before, nabla's own merge sort placed them another way than V8 (binary insertion, TimSort),
  // so values and gradients were wrong: 343.7 for 286.9 for the first order below. Now the
  // engine's sort chooses the order (runtime/sort-order.ts): every form of comparator here,
  // short arrays and long ones (TimSort's merges), in place and into a new array, typed too.
  await checkTwoWays(`interface Item { group: number; v: number }
const orders = { byGroup: (a: Item, b: Item) => (a.group > b.group ? 1 : -1) };
function loosely(a: number, b: number): number {
  return a > b ? 1 : 0;
}
function weigh<T>(sorted: T[], value: (t: T) => number): number {
  let s = 0;
  sorted.forEach((t, i) => (s += value(t) * (i + 1) ** 1.5));
  return s;
}
export function f(x: number, y: number): number {
  const xs = Array.from({ length: 70 }, (_, i) => Math.sin(i * 1.7 + x) * (i + 1) + y * (i % 5));
  const items = xs.map((v, i) => ({ group: i % 3, v }));
  const scale = x * x + 1;
  const local = (a: Item, b: Item) => (a.group * scale > b.group * scale ? 1 : -1);
  const short = items.slice(0, 8);
  let s = weigh(short.toSorted((a, b) => (a.group > b.group ? 1 : -1)), (t) => t.v);
  s += weigh(items.toSorted(local), (t) => t.v);
  s += weigh(items.slice().sort(orders.byGroup), (t) => t.v);
  s += weigh(xs.toSorted(loosely), (v) => v);
  s += weigh(xs.slice(0, 9).sort((a, b) => (a > b ? NaN : -1)), (v) => v);
  s += weigh([...Float64Array.from(xs).sort((a, b) => (a > b ? 1 : 0))], (v) => v);
  return s;
}`);
});

test("the order a sort takes from the engine is the engine's own, for comparators consistent or not, Arrays and typed arrays", async () => {
  const { sortOrder } = await import("../src/runtime/sort-order.js");
  let seed = 7;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  for (let n = 0; n < 120; n += 1 + Math.floor(n / 10)) {
    // A comparator answering each pair at random (-1, 0, 1 or NaN), fixed per pair.
    const table = Array.from({ length: n * n }, () => [-1, 0, 1, NaN][Math.floor(random() * 4)]!);
    const compare = (a: number, b: number) => table[a * n + b]!;
    const ids = Array.from({ length: n }, (_, i) => i);
    const order = sortOrder(ids, compare as (a: unknown, b: unknown) => number);
    assert.deepEqual([...order], ids.slice().sort(compare), `Array of ${n}`);
    const typed = Float64Array.from(ids);
    assert.deepEqual([...sortOrder(typed, compare as never)], [...typed.slice().sort(compare)]);
  }
  const withUndefined = [3, undefined, 1, undefined, 2];
  const order = sortOrder(withUndefined, (a, b) => (a as number) - (b as number));
  assert.deepEqual([...order], [2, 4, 0, 1, 3]);
});

test("a sort by a comparator runs as JavaScript under the WebAssembly backend, which says so; one without a comparator stays in WebAssembly", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { valueWithGradient } from "nabla";
export function f(xs: number[]): number {
  const sorted = xs.toSorted((a, b) => (a > b ? 1 : -1));
  return sorted[0]! * 2 + sorted[1]!;
}
export function g(xs: Float64Array): number {
  const sorted = xs.slice().sort();
  return sorted[0]! * 2 + sorted[1]!;
}
export const vf = valueWithGradient(f, { backend: "wasm" });
export const vg = valueWithGradient(g, { backend: "wasm" });
`,
    }),
  );
  assert.match(
    text,
    /main\.ts:10:19: warning NABLA202: 'valueWithGradient' runs as JavaScript, not WebAssembly: a sort by a comparator \(JavaScript's own sort calls it\) in 'f'/,
  );
  assert.doesNotMatch(text, /main\.ts:11:/);
});
