import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, loadProgram } from "./support/harness.js";
import {
  checkBackends,
  f64,
  kmeansCostSource,
  OFFSET_PRODUCTS,
  SQUARED_DISTANCE,
  type Stats,
  type Value,
} from "./support/wasm-backends.js";

// `wasmArrays`: data in a WebAssembly memory of their own, which wasm derivatives read in
// place instead of copying them in at every call. The results must be the JavaScript
// backend's (the two-way check), every call reading such data must run in place, and no
// call may read stale data: arrays changed, rows replaced or added, parts of arrays
// (`subarray`), a memory too small for the call, arrays from two memories, a call that falls
// back to JavaScript.

interface Memory {
  float64Array(length: number): Float64Array;
  from(values: ArrayLike<number>): Float64Array;
  rows(rows: ArrayLike<ArrayLike<number>>): Float64Array[];
  bytes: number;
  bytesUsed: number;
}

type MakeMemory = (options?: { megabytes?: number }) => Memory;

/** Pseudo-random rows of `d` numbers in [-1, 1). */
function randomRows(n: number, d: number, seed: number): Float64Array[] {
  let s = seed;
  const next = () => ((s = (s * 16807) % 2147483647) / 2147483647) * 2 - 1;
  return Array.from({ length: n }, () => Float64Array.from({ length: d }, next));
}

test("kmeans' cost with its points in wasmArrays: read in place, the JavaScript backend's results, two ways", async () => {
  const source = `export { wasmArrays } from "nabla";
${SQUARED_DISTANCE}
${kmeansCostSource("f")}`;
  const counts = await checkBackends(source, (m) => {
    const memory = (m.wasmArrays as MakeMemory)({ megabytes: 4 });
    return [
      [memory.rows(randomRows(40, 3, 7)), randomRows(4, 3, 8)],
      [memory.rows(randomRows(25, 5, 9)), memory.rows(randomRows(3, 5, 10))],
    ];
  });
  // A differential reads a copy of the points taken with it (the caller may change them
  // before applying it); every other call reads them in place.
  assert.equal(counts.inPlace, counts.wasm - 2, "every other wasm call read its points in place");
});

test("an object whose fields are in wasmArrays (a Float64Array and rows) is read in place", async () => {
  const source = `export { wasmArrays } from "nabla";
interface Mixture {
  weights: Float64Array;
  means: Float64Array[];
}
export function f(model: Mixture, x: Float64Array): number {
  let total = 0;
  for (let k = 0; k < model.means.length; k++) {
    let d = 0;
    for (let j = 0; j < x.length; j++) d += (x[j] - model.means[k][j]) ** 2;
    total += model.weights[k] * Math.exp(-d);
  }
  return Math.log(total);
}`;
  const counts = await checkBackends(source, (m) => {
    const memory = (m.wasmArrays as MakeMemory)();
    const model = {
      weights: memory.from([0.2, 0.5, 0.3]),
      means: memory.rows(randomRows(3, 4, 3)),
    };
    return [[model as unknown as Value, f64(0.1, -0.3, 0.4, 0.2)]];
  });
  assert.equal(counts.inPlace, counts.wasm - 1, "all but the differential's call");
});

interface Lse {
  wasmArrays: MakeMemory;
  js: (x: Float64Array) => { value: number; gradient: Float64Array };
  wasm: (x: Float64Array) => { value: number; gradient: Float64Array };
  wasmStats: Stats;
}

const LSE = {
  "main.ts": `import { valueWithGradient } from "nabla";
export { wasmArrays, wasmStats } from "nabla";
function lse(x: Float64Array): number {
  let max = -Infinity;
  for (let i = 0; i < x.length; i++) if (x[i] > max) max = x[i];
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += Math.exp(x[i] - max);
  return max + Math.log(sum);
}
export const js = valueWithGradient(lse);
export const wasm = valueWithGradient(lse, { backend: "wasm" });
`,
};

/** wasm's value and gradient against JavaScript's on a copy of `x`, to the bit. */
function sameAsJs(m: Lse, x: Float64Array, what: string) {
  const before = Float64Array.from(x);
  const wasm = m.wasm(x);
  const js = m.js(Float64Array.from(x));
  assert.ok(Object.is(wasm.value, js.value), `${what}: value ${wasm.value} against ${js.value}`);
  assert.deepEqual([...wasm.gradient], [...js.gradient], `${what}: gradient`);
  assert.deepEqual([...x], [...before], `${what}: the argument is unchanged`);
}

test("the module's comment on a wasm call says which arguments wasmArrays' arrays are read in place", () => {
  const code = [...compileFiles(LSE).outputs.values()][0]!.code;
  assert.match(
    code,
    /\/\/ valueWithGradient\(lse\) at main\.ts:\d+:\d+: WebAssembly \(\d+ bytes\); per call it copies in parameters 0, 1, copies back parameters 1; the Float64Arrays of parameter 0 made by wasmArrays are read in place\n/,
  );
});

test("an array in wasmArrays changed between calls: each call reads its current elements", async () => {
  const m = await loadProgram<Lse>(LSE);
  const memory = m.wasmArrays({ megabytes: 2 });
  const x = memory.from([0.5, -1, 2, 0.25, 3]);
  const before = { ...m.wasmStats };
  sameAsJs(m, x, "first call");
  x[2] = 7;
  sameAsJs(m, x, "after x[2] = 7");
  x.set([1, 1, 1, 1, 1]);
  sameAsJs(m, x, "after x.set(…)");
  assert.equal(m.wasmStats.inPlace - before.inPlace, 3);
  assert.equal(m.wasmStats.javascript - before.javascript, 0);
});

test("a part of an array in wasmArrays (subarray) is copied, not read past its ends", async () => {
  const m = await loadProgram<Lse>(LSE);
  const memory = m.wasmArrays({ megabytes: 2 });
  const x = memory.from([9, 0.5, -1, 2, 9]);
  const before = { ...m.wasmStats };
  sameAsJs(m, x.subarray(1, 4), "subarray(1, 4)");
  sameAsJs(m, x.subarray(0, 2), "subarray(0, 2)");
  assert.equal(m.wasmStats.inPlace - before.inPlace, 0);
  assert.equal(m.wasmStats.wasm - before.wasm, 2);
});

test("a memory too small for a call's tape: the call copies into the function's own memory", async () => {
  const m = await loadProgram<Lse>(LSE);
  const memory = m.wasmArrays({ megabytes: 1 });
  // 100,000 numbers take 800 KB of the 1 MB; the gradient's tape needs as much again (its
  // region starts at 64 KB and doubles until it is large enough or no longer fits).
  const x = memory.from(Float64Array.from({ length: 100_000 }, (_, i) => Math.sin(i)));
  const before = { ...m.wasmStats };
  sameAsJs(m, x, "100,000 numbers");
  assert.equal(m.wasmStats.inPlace - before.inPlace, 0);
  assert.equal(m.wasmStats.wasm - before.wasm, 1);
  assert.equal(m.wasmStats.javascript - before.javascript, 0);
});

test("rows of wasmArrays replaced or added, and arrays from two memories: the current data", async () => {
  const files = {
    "main.ts": `import { gradient } from "nabla";
export { wasmArrays, wasmStats } from "nabla";
${SQUARED_DISTANCE}
${kmeansCostSource("cost")}
export const js = gradient(cost, { wrt: 1 });
export const wasm = gradient(cost, { wrt: 1, backend: "wasm" });
`,
  };
  type Rows = Float64Array[];
  const m = await loadProgram<{
    wasmArrays: MakeMemory;
    js: (p: Rows, c: Rows) => Rows;
    wasm: (p: Rows, c: Rows) => Rows;
    wasmStats: Stats;
  }>(files);
  const memory = m.wasmArrays({ megabytes: 2 });
  const other = m.wasmArrays({ megabytes: 1 });
  const points = memory.rows(randomRows(30, 4, 21));
  const centroids = other.rows(randomRows(3, 4, 22));
  const check = (what: string) => {
    const copies = (rows: Rows) => rows.map((r) => Float64Array.from(r));
    const wasm = m.wasm(points, centroids).map((r) => [...r]);
    const js = m.js(copies(points), copies(centroids)).map((r) => [...r]);
    assert.deepEqual(wasm, js, what);
  };
  const before = { ...m.wasmStats };
  check("as made");
  points[4] = memory.from([5, 5, 5, 5]);
  check("a row replaced by another of the memory");
  points[5] = Float64Array.from([-5, 5, -5, 5]);
  check("a row replaced by an ordinary Float64Array");
  points.push(memory.from([3, -3, 3, -3]), Float64Array.from([0, 9, 0, 9]));
  check("rows added");
  points[6]![2] = 40;
  check("an element of a row changed");
  assert.equal(m.wasmStats.wasm - before.wasm, 5);
  assert.equal(m.wasmStats.inPlace - before.inPlace, 5);
  assert.equal(m.wasmStats.javascript - before.javascript, 0);
});

test("an index out of range with data in wasmArrays: JavaScript's answer", async () => {
  const files = {
    "main.ts": `${OFFSET_PRODUCTS}export { wasmArrays, wasmStats } from "nabla";\n`,
  };
  type Result = { value: number; gradient: Float64Array };
  const m = await loadProgram<{
    wasmArrays: MakeMemory;
    js: (x: Float64Array, k: number) => Result;
    wasm: (x: Float64Array, k: number) => Result;
    wasmStats: Stats;
  }>(files);
  const memory = m.wasmArrays({ megabytes: 2 });
  const x = memory.from([1, 2, 3]);
  const next = memory.from([4, 5, 6]);
  const before = { ...m.wasmStats };
  const wasm = m.wasm(x, 1);
  assert.ok(Number.isNaN(wasm.value), "x[3] is undefined in JavaScript: the sum is NaN");
  assert.ok(Number.isNaN(m.js(Float64Array.from(x), 1).value));
  assert.equal(m.wasmStats.javascript - before.javascript, 1, "the call reran as JavaScript");
  assert.deepEqual([...next], [4, 5, 6], "the array after it in memory is untouched");
  assert.equal(m.wasm(x, 0).value, 14);
  assert.equal(m.wasmStats.inPlace - before.inPlace, 1);
});

test("wasmArrays: arrays are ordinary Float64Arrays, and bad requests get clear errors", async () => {
  const m = await loadProgram<{ wasmArrays: MakeMemory }>({
    "main.ts": `export { wasmArrays } from "nabla";\n`,
  });
  const memory = m.wasmArrays({ megabytes: 1 });
  assert.equal(memory.bytes, 1 << 20);
  const zeros = memory.float64Array(3);
  assert.ok(zeros instanceof Float64Array);
  assert.deepEqual([...zeros], [0, 0, 0]);
  const rows = memory.rows([[1, 2], new Float64Array([3, 4])]);
  assert.ok(Array.isArray(rows) && rows.every((r) => r instanceof Float64Array));
  assert.deepEqual(
    rows.map((r) => [...r]),
    [
      [1, 2],
      [3, 4],
    ],
  );
  assert.equal(memory.bytesUsed, 8 + 24 + 2 * (8 + 16) + (8 + 16), "headers and a row table");
  assert.throws(
    () => m.wasmArrays({ megabytes: 0 }),
    /^RangeError: wasmArrays: megabytes must be a whole number from 1 to 2048, not 0$/,
  );
  assert.throws(
    () => m.wasmArrays({ megabytes: 1.5 }),
    /megabytes must be a whole number from 1 to 2048, not 1\.5/,
  );
  assert.throws(
    () => memory.float64Array(-1),
    /^RangeError: wasmArrays: an array's length must be a whole number ≥ 0, not -1$/,
  );
  assert.throws(
    () => memory.float64Array(200_000),
    /^RangeError: wasmArrays: no room for 200000 numbers: 104 of 1048576 bytes are taken \(ask for more with wasmArrays\(\{ megabytes \}\)\)$/,
  );
});
