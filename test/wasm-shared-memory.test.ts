import { test } from "node:test";
import assert from "node:assert/strict";
import { loadProgram } from "./support/harness.js";
import { f64, type Stats } from "./support/wasm-backends.js";

// The instances of every function compiled to wasm share the thread's memory
// (runtime/wasm-memory.ts): V8 reserves about 10 GB of address space per memory, and a memory
// per function made a process of a few hundred of them run out of address space on some
// machines (the wasm suites' run of the random idiom programs did, at ~1 TB). Results stay
// JavaScript's when functions take turns on it, and when one needs a larger memory than the
// others were made on.

/** `count` functions of a Float64Array, each its own formula, and their gradients both ways. */
function manyFunctions(count: number): string {
  const lines = [`import { gradient } from "nabla";`, `export { wasmStats } from "nabla";`];
  for (let k = 0; k < count; k++) {
    lines.push(`function energy${k}(x: Float64Array): number {
  let total = 0;
  for (let i = 0; i < x.length; i++) total += Math.sin(${k + 1} * x[i]) * x[i] + ${k} * x[i] * x[i];
  return total;
}
export const wasm${k} = gradient(energy${k}, { backend: "wasm" });
export const js${k} = gradient(energy${k});`);
  }
  return lines.join("\n");
}

type Gradient = (x: Float64Array) => Float64Array;

test("forty functions' instances share one memory, each giving JavaScript's gradient", async () => {
  const count = 40;
  const m = await loadProgram<Record<string, Gradient> & { wasmStats: Stats }>({
    "main.ts": manyFunctions(count),
  });
  const x = f64(0.3, -1.2, 2.5, 0.01, -0.7);
  const before = { ...m.wasmStats };
  for (let round = 0; round < 2; round++)
    for (let k = 0; k < count; k++)
      assert.deepEqual(m[`wasm${k}`]!(x), m[`js${k}`]!(x), `energy${k}`);
  assert.equal(m.wasmStats.wasm - before.wasm, 2 * count, "every call in wasm");
  assert.ok(m.wasmStats.instances - before.instances >= count, "an instance per function");
  assert.ok(
    m.wasmStats.memories - before.memories <= 1,
    `${m.wasmStats.memories - before.memories} memories made for ${count} functions`,
  );
});

test("a function needing a larger memory than the others were made on: all still JavaScript's results", async () => {
  const m = await loadProgram<{
    wasmSum: Gradient;
    jsSum: Gradient;
    wasmSpread: (x: Float64Array) => number;
    jsSpread: (x: Float64Array) => number;
    wasmStats: Stats;
  }>({
    "main.ts": `import { gradient, valueWithGradient } from "nabla";
export { wasmStats } from "nabla";
function softSum(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.log(1 + Math.exp(x[i]));
  return s;
}
function spread(x: Float64Array): number {
  const centred: number[] = [];
  let mean = 0;
  for (let i = 0; i < x.length; i++) mean += x[i] / x.length;
  for (let i = 0; i < x.length; i++) centred.push(x[i] - mean);
  let s = 0;
  for (const c of centred) s += c * c;
  return Math.sqrt(s);
}
export const wasmSum = gradient(softSum, { backend: "wasm" });
export const jsSum = gradient(softSum);
export const wasmSpread = (x: Float64Array) => valueWithGradient(spread, { backend: "wasm" })(x).gradient[1];
export const jsSpread = (x: Float64Array) => valueWithGradient(spread)(x).gradient[1];
`,
  });
  const small = f64(0.5, -2, 1.25);
  const large = new Float64Array(400_000).map((_, i) => Math.sin(i) * 3);
  const before = { ...m.wasmStats };
  // Small calls of both, then each in turn on an array that needs a larger memory, then small
  // ones again: the functions' instances sit on memories of different sizes along the way.
  assert.deepEqual(m.wasmSum(small), m.jsSum(small));
  assert.equal(m.wasmSpread(small), m.jsSpread(small));
  assert.equal(m.wasmSpread(large), m.jsSpread(large));
  assert.deepEqual(m.wasmSum(small), m.jsSum(small));
  assert.deepEqual(m.wasmSum(large), m.jsSum(large));
  assert.equal(m.wasmSpread(small), m.jsSpread(small));
  assert.deepEqual(m.wasmSum(small), m.jsSum(small));
  assert.equal(m.wasmStats.wasm - before.wasm, 7, "every call in wasm");
  assert.equal(m.wasmStats.javascript, before.javascript);
  // A few: the calls on the large array rerun with their regions doubled, and each memory
  // made is at least twice the last.
  assert.ok(
    m.wasmStats.memories - before.memories <= 6,
    `${m.wasmStats.memories - before.memories} memories made`,
  );
});
