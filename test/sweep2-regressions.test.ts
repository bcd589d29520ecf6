import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText } from "./support/harness.js";
import { checkProgram } from "./support/number-programs.js";

// Ordinary TypeScript a sweep of realistic programs found nabla refusing or getting wrong.
// Each function takes numbers; its gradient is checked against central differences and
// against forward mode along each coordinate.

test("a generic helper whose type parameter only its function argument's result gives", async () => {
  await checkProgram(
    `
function zipWith<A, B, C>(a: readonly A[], b: readonly B[], fn: (x: A, y: B) => C): C[] {
  const n = Math.min(a.length, b.length);
  const out: C[] = [];
  for (let i = 0; i < n; i++) out.push(fn(a[i], b[i]));
  return out;
}
function sampleCurve<T>(n: number, fn: (t: number) => T): T[] {
  return Array.from({ length: n + 1 }, (_, i) => fn(i / n));
}
export function f(x: number, y: number, z: number): number {
  const products = zipWith([x, y], [y, z], (a, b) => a * b * b);
  const points = sampleCurve(3, (t) => ({ px: x * t, py: Math.sin(y * t) }));
  return products.reduce((s, p) => s + p, 0) + points.reduce((s, p) => s + p.px * p.py, 0);
}
`,
    [
      [0.7, -0.4, 1.3],
      [1.1, 0.9, -0.2],
    ],
  );
});

test("an array spread into arguments after a tuple type assertion", async () => {
  await checkProgram(
    `
function blend(a: number, b: number, c: number, t: number): number {
  return a * (1 - t) * (1 - t) + 2 * b * t * (1 - t) + c * t * t;
}
export function f(x: number, y: number, z: number): number {
  const weights = [x, y * x, z].map((v) => v * 2);
  return blend(...(weights as [number, number, number]), 0.3) +
    blend(...(weights.slice(1) as readonly [number, number]), x, y);
}
`,
    [
      [0.7, -0.4, 1.3],
      [1.1, 0.9, -0.2],
    ],
  );
});

test("keys of a Set or Map read back keep no derivative: refused where they are read", () => {
  const result = compileFiles({
    "main.ts": `import { gradient } from "nabla";
function sumKeys(m: Map<number, number>): number {
  let t = 0;
  for (const k of m.keys()) t += k * k;
  return t;
}
export function distinct(xs: number[]): number {
  return [...new Set(xs)].reduce((s, x) => s + x * x, 0);
}
export function viaHelper(xs: number[]): number {
  const m = new Map<number, number>();
  xs.forEach((x) => m.set(x + 1, 0));
  return sumKeys(m);
}
export const g1 = gradient(distinct);
export const g2 = gradient(viaHelper);
`,
  });
  assert.equal(
    diagnosticsText(result),
    `main.ts:8:14: error NABLA104: the keys of this Set are read here, but some depend on the differentiated arguments; keys carry no derivative, so theirs would be lost
  7 | export function distinct(xs: number[]): number {
> 8 |   return [...new Set(xs)].reduce((s, x) => s + x * x, 0);
    |              ^^^^^^^^^^^
help: keep the values in an array ('xs.filter((x, i) => xs.indexOf(x) === i)' for distinct ones), or store 'withoutDerivative(…)' as the key if the derivative should be dropped
main.ts:15:19: note: when differentiating 'distinct' for 'gradient'
> 15 | export const g1 = gradient(distinct);
     |                   ^^^^^^^^^^^^^^^^^^

main.ts:13:10: error NABLA104: this call is given a Map whose keys depend on the differentiated arguments; keys carry no derivative, so theirs would be lost where the call reads them
  12 |   xs.forEach((x) => m.set(x + 1, 0));
> 13 |   return sumKeys(m);
     |          ^^^^^^^^^^
help: keep the values in an array, or store 'withoutDerivative(…)' as the key if the derivative should be dropped
main.ts:16:19: note: when differentiating 'viaHelper' for 'gradient'
> 16 | export const g2 = gradient(viaHelper);
     |                   ^^^^^^^^^^^^^^^^^^^

2 errors`,
  );
});

test("keys rounded into buckets, keys only looked up, and distinct values kept in an array", async () => {
  await checkProgram(
    `
export function f(x: number, y: number, z: number): number {
  const xs = [x, y, z, x];
  const buckets = new Map<number, number>();
  for (const v of xs) buckets.set(Math.floor(v * 2) + 1, (buckets.get(Math.floor(v * 2) + 1) ?? 0) + v * v);
  let total = 0;
  for (const [bucket, sum] of buckets) total += bucket * sum;
  const seen = new Set<number>();
  for (const v of xs) {
    if (!seen.has(v)) total += Math.sin(v);
    seen.add(v);
  }
  const distinct = xs.filter((v, i) => xs.indexOf(v) === i);
  return total + distinct.reduce((s, v) => s + v * v * v, 0);
}
`,
    [
      [0.7, -0.4, 1.3],
      [1.1, 0.9, -0.2],
    ],
  );
});

test("Number(x) of a number is the number itself, derivative included", async () => {
  await checkProgram(
    `
export function f(x: number, y: number, z: number): number {
  const values = [x, y * z].map((v) => Number(v));
  return Number(x * y) * values[1] + Math.sin(Number(z));
}
`,
    [
      [0.7, -0.4, 1.3],
      [1.1, 0.9, -0.2],
    ],
  );
});

test("text made from a differentiated number and parsed back through keys or split: NABLA104", () => {
  const result = compileFiles({
    "main.ts": `import { gradient } from "nabla";
export function viaKeys(xs: number[]): number {
  const r: Record<string, number> = {};
  for (const x of xs) r[\`\${x}\`] = x;
  let t = 0;
  for (const k in r) t += parseFloat(k) * r[k];
  return t;
}
export function viaJoin(xs: number[]): number {
  const parts = xs.join(",").split(",");
  return parts.reduce((s, p) => s + Number(p) ** 2, 0);
}
export const g1 = gradient(viaKeys);
export const g2 = gradient(viaJoin);
`,
  });
  assert.equal(
    diagnosticsText(result),
    `main.ts:6:27: error NABLA104: 'parseFloat' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result
  5 |   let t = 0;
> 6 |   for (const k in r) t += parseFloat(k) * r[k];
    |                           ^^^^^^^^^^^^^
help: use 'withoutDerivative(…)' if the derivative through this operation should be zero
main.ts:13:19: note: when differentiating 'viaKeys' for 'gradient'
> 13 | export const g1 = gradient(viaKeys);
     |                   ^^^^^^^^^^^^^^^^^

main.ts:11:37: error NABLA104: 'Number' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result
  10 |   const parts = xs.join(",").split(",");
> 11 |   return parts.reduce((s, p) => s + Number(p) ** 2, 0);
     |                                     ^^^^^^^^^
help: use 'withoutDerivative(…)' if the derivative through this operation should be zero
main.ts:14:19: note: when differentiating 'viaJoin' for 'gradient'
> 14 | export const g2 = gradient(viaJoin);
     |                   ^^^^^^^^^^^^^^^^^

2 errors`,
  );
});

test("text keys from rounded numbers or indices, parsed back, keep their (zero) derivative", async () => {
  await checkProgram(
    `
export function f(x: number, y: number, z: number): number {
  const xs = [x, y, z];
  const counts: Record<string, number> = {};
  for (const v of xs) {
    const key = String(Math.floor(v * 2));
    counts[key] = (counts[key] ?? 0) + v * v;
  }
  let total = 0;
  for (const k in counts) total += parseFloat(k) * counts[k];
  const byIndex: Record<string, number> = {};
  xs.forEach((v, i) => (byIndex[String(i)] = v));
  for (const k of Object.keys(byIndex)) total += Number(k) * byIndex[k];
  return total + xs.map((_, i) => \`bin\${i}\`).join(",").length;
}
`,
    [
      [0.3, 1.2, 0.4],
      [1.1, -0.9, 2.2],
    ],
  );
});

test("a sort comparator with destructured parameters", async () => {
  await checkProgram(
    `
interface Item { score: number; cost: number }
export function f(x: number, y: number, z: number): number {
  const weights: Record<string, number> = { a: x * x, b: y * y, c: z * z };
  const top = Object.entries(weights).sort(([, p], [, q]) => q - p);
  const items: Item[] = [x, y, z].map((v, i) => ({ score: Math.sin(v), cost: i }));
  items.sort(({ score: p }, { score: q }) => p - q);
  const pairs: [number, number][] = [[x, 0], [y, 1], [z, 2]];
  const ranked = pairs.toSorted(([p], [q]) => q - p);
  return top[0][1] * 2 + top[1][1] + items[0].score * 3 + ranked[0][0] * 5;
}
`,
    [
      [0.7, -0.4, 1.3],
      [1.1, 0.9, -0.2],
    ],
  );
});

test("a local closure declared with a named function type may assign what it captures", async () => {
  await checkProgram(
    `
type Fn = (v: number) => number;
export function f(x: number, y: number, z: number): number {
  let calls = 0;
  const square: Fn = (v) => {
    calls++;
    return v * v;
  };
  const wave = (v: number) => Math.sin(square(y * v));
  return (wave(x) + wave(z / 2)) * calls + square(z);
}
`,
    [
      [0.7, -0.4, 1.3],
      [1.1, 0.9, -0.2],
    ],
  );
});
