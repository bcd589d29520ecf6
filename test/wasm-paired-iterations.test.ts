import { test } from "node:test";
import assert from "node:assert/strict";
import { loadProgram } from "./support/harness.js";
import { jvpOf, lower, sweepsOf } from "./support/ir.js";
import {
  checkBackends,
  f64,
  kmeansCostSource,
  SQUARED_DISTANCE,
  type Stats,
} from "./support/wasm-backends.js";
import { integerBounds } from "../src/compiler/emit/wasm/integer-bounds.js";
import { integerValues } from "../src/compiler/emit/wasm/integers.js";
import { pairedIterations } from "../src/compiler/emit/wasm/paired-iterations.js";
import type { IRFunction, Op } from "../src/compiler/ir/types.js";
import { forEachOp } from "../src/compiler/ir/walk.js";

// Two iterations of an outer loop at once in the lanes of f64x2s (emit/wasm/paired-iterations.ts):
// kmeans' distances to two centroids computed together, each lane doing the scalar code's
// operations in its order, so every result must be JavaScript's to the bit.

/** Per loop of `fn` that the emitter pairs: the arrays its inner loop reads, by hint. */
function pairedLoops(fn: IRFunction): string[][] {
  const ints = integerValues(fn, integerBounds(fn, integerValues(fn)).nonNegative);
  const definitions = new Map<number, Op>();
  forEachOp(fn.body, (op) => op.results.forEach((r) => definitions.set(r.id, op)));
  const paired: string[][] = [];
  forEachOp(fn.body, (op) => {
    const plan = op.opcode === "loop" ? pairedIterations(op, definitions, ints) : undefined;
    if (plan) paired.push(plan.arrays.map((a) => a.hint));
  });
  return paired;
}

/**
 * kmeans' cost with the distance written in the loop, as many write it, as function `name`;
 * the distance's loop runs to the point's length or to each centroid's.
 */
function nearestCost(name: string, boundOf: "point" | "centroid"): string {
  return `export function ${name}(points: Float64Array[], centroids: Float64Array[]): number {
  let total = 0;
  for (let p = 0; p < points.length; p++) {
    const point = points[p];
    let nearest = Infinity;
    for (let j = 0; j < centroids.length; j++) {
      const centroid = centroids[j];
      let dist = 0;
      for (let i = 0; i < ${boundOf}.length; i++) {
        const diff = point[i] - centroid[i];
        dist += diff * diff;
      }
      if (dist < nearest) nearest = dist;
    }
    total += nearest;
  }
  return total;
}`;
}
const NEAREST = nearestCost("cost", "point");

test("kmeans' loop over centroids is paired in the primal and the JVP", () => {
  assert.deepEqual(pairedLoops(lower(NEAREST, "cost")), [["point", "centroid"]]);
  // Forward mode adds the tangent of each distance: a second sum, reading the centroid's tangent.
  assert.deepEqual(pairedLoops(jvpOf(NEAREST, "cost", [1])), [["point", "centroid", "dcentroid"]]);
  // Reverse mode's forward sweep tapes each difference (a push in the inner loop), and the
  // backward sweep adds into the centroids' adjoints: neither is paired.
  for (const sweep of sweepsOf(NEAREST, "cost", [1])) assert.deepEqual(pairedLoops(sweep), []);
});

test("loops whose iterations depend on each other are not paired", () => {
  const cases = {
    // The suffix writes an array the inner loop reads (the next row).
    writesWhatIsRead: `export function f(rows: Float64Array[]): number {
  let total = 0;
  for (let j = 0; j < rows.length; j++) {
    const row = rows[j];
    let s = 0;
    for (let i = 0; i < row.length; i++) s += row[i] * row[i];
    if (j + 1 < rows.length) rows[j + 1][0] = s;
    total += s;
  }
  return total;
}`,
    // The inner sum starts from what the previous iteration left.
    carriedStart: `export function f(rows: Float64Array[]): number {
  let carry = 0;
  for (let j = 0; j < rows.length; j++) {
    const row = rows[j];
    let s = carry;
    for (let i = 0; i < row.length; i++) s += row[i];
    carry = s * 0.5;
  }
  return carry;
}`,
    // The inner loop reads what the outer loop carries.
    readsCarried: `export function f(rows: Float64Array[]): number {
  let best = 1;
  for (let j = 0; j < rows.length; j++) {
    const row = rows[j];
    let s = 0;
    for (let i = 0; i < row.length; i++) s += row[i] * best;
    if (s > best) best = s;
  }
  return best;
}`,
    // A call in the inner loop.
    calls: `export function f(rows: Float64Array[]): number {
  let total = 0;
  for (let j = 0; j < rows.length; j++) {
    const row = rows[j];
    let s = 0;
    for (let i = 0; i < row.length; i++) s += Math.exp(row[i]);
    total += s;
  }
  return total;
}`,
  };
  for (const [name, source] of Object.entries(cases))
    assert.deepEqual(pairedLoops(lower(source, "f")), [], name);
});

/** Centroids and points with pseudo-random coordinates; `ties` repeats the first centroid. */
function kmeansData(k: number, n: number, d: number, seed: number, ties = false) {
  let s = seed;
  const next = () => ((s = (s * 16807) % 2147483647) / 2147483647) * 4 - 2;
  const rows = (m: number) =>
    Array.from({ length: m }, () => Float64Array.from({ length: d }, next));
  const centroids = rows(k);
  if (ties && k > 2) centroids[2] = Float64Array.from(centroids[0]!);
  return { points: rows(n), centroids };
}

test("kmeans: gradient and differential equal JavaScript's, for every count of centroids", async () => {
  const points = [];
  for (const [k, n, d] of [
    [1, 3, 4],
    [2, 4, 1],
    [3, 5, 8],
    [5, 6, 3],
    [4, 2, 0],
  ] as const) {
    const { points: ps, centroids } = kmeansData(k, n, d, 7 + k * 31 + d);
    points.push([ps, centroids]);
  }
  const tied = kmeansData(5, 4, 3, 99, true);
  points.push([tied.points, tied.centroids]);
  await checkBackends(`${SQUARED_DISTANCE}\n${kmeansCostSource("f")}`, points);
});

test("paired sums with a start of 1, a division, a negation, a number of each row and of the call", async () => {
  const source = `export function f(rows: Float64Array[], x: Float64Array, scale: number): number {
  let best = -Infinity;
  let total = 0;
  for (let j = 0; j < rows.length; j++) {
    const row = rows[j];
    const w = row[0];
    let dot = 0;
    let norm = 1;
    for (let i = 1; i < x.length; i++) {
      dot += (row[i] * x[i]) / scale;
      norm = norm + -(row[i] * row[i]) * w;
    }
    total += dot / norm;
    if (dot > best) best = dot;
  }
  return total + best;
}`;
  assert.equal(pairedLoops(lower(source, "f")).length, 1, "the loop over rows is paired");
  const rows = (k: number) =>
    Array.from({ length: k }, (_, j) =>
      f64(...[0.1 * (j + 1), 0.5, -0.25, 0.75, 1.5].map((v) => v + 0.01 * j)),
    );
  await checkBackends(source, [
    [rows(5), f64(2, 1, -1, 0.5, 0.25), 1.5],
    [rows(2), f64(2, 1, 3, -0.5, 2), -0.75],
    [rows(1), f64(2, 1, 3, -0.5, 2), 2],
  ]);
});

interface Primal {
  js: (points: Float64Array[], centroids: Float64Array[]) => number;
  wasm: (points: Float64Array[], centroids: Float64Array[]) => number;
  wasmStats: Stats;
}

test("kmeans' cost in wasm is JavaScript's to the bit, on 200 random problems", async () => {
  const m = await loadProgram<Primal>({
    "main.ts": `export { wasmStats } from "nabla";
${nearestCost("js", "point")}
/** @backend wasm */
export function wasm(points: Float64Array[], centroids: Float64Array[]): number {
  return js(points, centroids);
}
`,
  });
  const before = { ...m.wasmStats };
  for (let trial = 0; trial < 200; trial++) {
    const k = trial % 9;
    const d = (trial * 7) % 13;
    const { points, centroids } = kmeansData(k, 1 + (trial % 5), d, 1000 + trial, trial % 4 === 0);
    const expected = m.js(points, centroids);
    const actual = m.wasm(points, centroids);
    assert.ok(
      Object.is(actual, expected),
      `k=${k}, d=${d}: wasm ${actual}, JavaScript ${expected}`,
    );
  }
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "calls that fell back");
  // A centroid shorter than the points: JavaScript reads undefined there (a NaN distance,
  // never the nearest); wasm traps and reruns the call as JavaScript.
  const { points, centroids } = kmeansData(4, 3, 5, 5);
  centroids[1] = centroids[1]!.subarray(0, 3);
  assert.ok(Object.is(m.wasm(points, centroids), m.js(points, centroids)));
  assert.equal(m.wasmStats.javascript - before.javascript, 1, "the call with the short centroid");
});

test("a bound that is the length of each row: paired where the rows' lengths agree", async () => {
  const source = nearestCost("js", "centroid");
  assert.deepEqual(pairedLoops(lower(source, "js")), [["point", "centroid"]]);
  const m = await loadProgram<Primal>({
    "main.ts": `export { wasmStats } from "nabla";
${source}
/** @backend wasm */
export function wasm(points: Float64Array[], centroids: Float64Array[]): number {
  return js(points, centroids);
}
`,
  });
  const before = { ...m.wasmStats };
  for (let trial = 0; trial < 60; trial++) {
    const { points, centroids } = kmeansData(1 + (trial % 7), 3, 2 + (trial % 5), 500 + trial);
    // Some rows shorter than the others (the points are long enough for every row).
    if (trial % 3 === 0 && centroids.length > 1) centroids[1] = centroids[1]!.subarray(0, 1);
    const expected = m.js(points, centroids);
    const actual = m.wasm(points, centroids);
    assert.ok(
      Object.is(actual, expected),
      `trial ${trial}: wasm ${actual}, JavaScript ${expected}`,
    );
  }
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "calls that fell back");
});

interface NewtonStep {
  js: Step;
  wasm: Step;
  wasmStats: Stats;
}
type Step = (
  points: Float64Array[],
  centroids: Float64Array[],
  ones: Float64Array[],
) => { gradient: Float64Array[]; hessianVectorProduct: Float64Array[] };

test("kmeans' gradient and Hessian-vector product (GradBench's Newton step) are JavaScript's to the bit", async () => {
  // Reverse over forward mode: the forward sweep computes each distance again, paired.
  const m = await loadProgram<NewtonStep>({
    "main.ts": `import { gradientAndHessianVectorProduct } from "nabla";
export { wasmStats } from "nabla";
${SQUARED_DISTANCE}
${kmeansCostSource("cost")}
export const js = gradientAndHessianVectorProduct(cost, { wrt: 1 });
export const wasm = gradientAndHessianVectorProduct(cost, { wrt: 1, backend: "wasm" });
`,
  });
  const before = { ...m.wasmStats };
  for (const [k, d] of [
    [1, 3],
    [2, 8],
    [7, 5],
    [10, 8],
  ] as const) {
    const { points, centroids } = kmeansData(k, 40, d, 77 + k, true);
    const ones = centroids.map((c) => new Float64Array(c.length).fill(1));
    const expected = m.js(points, centroids, ones);
    const actual = m.wasm(points, centroids, ones);
    for (const part of ["gradient", "hessianVectorProduct"] as const)
      actual[part].forEach((row, j) =>
        row.forEach((x, i) =>
          assert.ok(Object.is(x, expected[part][j]![i]), `k=${k}, d=${d}: ${part}[${j}][${i}]`),
        ),
      );
  }
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "calls that fell back");
  assert.equal(m.wasmStats.wasm - before.wasm, 4, "calls run in wasm");
});

/** A matrix-vector product storing each row's sum, as written without nabla in mind. */
const MAT_VEC = `function matVec(m: Float64Array[], x: Float64Array, out: Float64Array): void {
  for (let i = 0; i < m.length; i++) {
    const row = m[i];
    let s = 0;
    for (let j = 0; j < x.length; j++) s += row[j] * x[j];
    out[i] = s;
  }
}`;

interface Products {
  js: (m: Float64Array[], x: Float64Array) => Float64Array;
  wasm: (m: Float64Array[], x: Float64Array) => Float64Array;
  inPlaceJs: (m: Float64Array[], x: Float64Array) => Float64Array;
  inPlaceWasm: (m: Float64Array[], x: Float64Array) => Float64Array;
  intoRowJs: (m: Float64Array[], x: Float64Array) => Float64Array;
  intoRowWasm: (m: Float64Array[], x: Float64Array) => Float64Array;
  wasmStats: Stats;
}

test("a matrix-vector product storing each row's sum: paired unless the result is an array it reads", async () => {
  const [plan] = pairedLoops(lower(MAT_VEC, "matVec"));
  assert.deepEqual(plan, ["row", "x"]);
  const both = (
    name: string,
    body: string,
  ) => `export function ${name}Js(m: Float64Array[], x: Float64Array): Float64Array {
${body}
}
/** @backend wasm */
export function ${name}Wasm(m: Float64Array[], x: Float64Array): Float64Array {
  return ${name}Js(m, x);
}`;
  const m = await loadProgram<Products>({
    "main.ts": `export { wasmStats } from "nabla";
${MAT_VEC}
export function js(m: Float64Array[], x: Float64Array): Float64Array {
  const out = new Float64Array(m.length);
  matVec(m, x, out);
  return out;
}
/** @backend wasm */
export function wasm(m: Float64Array[], x: Float64Array): Float64Array {
  return js(m, x);
}
${both("inPlace", "  const y = Float64Array.from(x);\n  matVec(m, y, y);\n  return y;")}
${both("intoRow", "  const rows = m.map((r) => Float64Array.from(r));\n  matVec(rows, x, rows[rows.length - 1]);\n  return rows[rows.length - 1];")}
`,
  });
  const before = { ...m.wasmStats };
  for (let trial = 0; trial < 40; trial++) {
    const n = 1 + (trial % 9);
    const { centroids: rows, points } = kmeansData(n, 1, n, 300 + trial);
    const x = points[0]!;
    for (const [name, js, wasm] of [
      ["out", m.js, m.wasm],
      ["out === x", m.inPlaceJs, m.inPlaceWasm],
      ["out === the last row", m.intoRowJs, m.intoRowWasm],
    ] as const) {
      const expected = js(rows, x);
      const actual = wasm(rows, x);
      actual.forEach((v, i) =>
        assert.ok(
          Object.is(v, expected[i]),
          `${name}, n=${n}: [${i}] wasm ${v}, JavaScript ${expected[i]}`,
        ),
      );
    }
  }
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "calls that fell back");
  await checkBackends(
    `${MAT_VEC}
export function f(m: Float64Array[], x: Float64Array): number {
  const y = new Float64Array(m.length);
  matVec(m, x, y);
  let s = 0;
  for (let i = 0; i < y.length; i++) s += y[i] * y[i];
  return s;
}`,
    [
      [
        [f64(1, 2, 3), f64(-1, 0.5, 2), f64(0.25, 1, -2), f64(3, -1, 1), f64(2, 2, -0.5)],
        f64(0.5, -1, 2),
      ],
      [[f64(1, 2)], f64(0.5, -1)],
    ],
  );
});
