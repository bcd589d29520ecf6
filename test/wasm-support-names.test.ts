import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";
import type { Stats } from "./support/wasm-backends.js";

// A wasm module holds support functions of its own (allocation, the regions' overflow, `%`…).
// Program functions named like them (`alloc`, `overflow`, `remainder`) used to clash with
// them at assembly, which kept the function JavaScript with wabt's message.

const PROGRAM = `export { wasmStats } from "nabla";
function alloc(n: number, xs: Float64Array): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += n * xs[i] * xs[i];
  return s;
}
function overflow(xs: Float64Array): number {
  let s = 1;
  for (let i = 0; i < xs.length; i++) s += Math.sin(xs[i]);
  return s;
}
function toLength(xs: Float64Array): number {
  let n = 0;
  for (const x of xs) if (x > 1) n++;
  return n;
}
/** @backend wasm */
export function remainder(xs: Float64Array): number {
  let s = 0;
  for (let k = 0; k < 3; k++) s += alloc(k, xs) + overflow(xs) + toLength(xs) + (k % 2);
  return s;
}
`;

test("program functions named like the module's support functions run as WebAssembly", async () => {
  const files = { "main.ts": PROGRAM };
  assert.equal(diagnosticsText(compileFiles(files)), "");
  const m = await loadProgram<{ remainder: (xs: Float64Array) => number; wasmStats: Stats }>(files);
  const xs = Float64Array.of(1, 2, 3);
  const before = { ...m.wasmStats };
  const expected =
    [0, 1, 2].reduce((s, k) => s + k * 14 + 1 + Math.sin(1) + Math.sin(2) + Math.sin(3) + 2, 0) + 1;
  assert.ok(Math.abs(m.remainder(xs) - expected) < 1e-12);
  assert.equal(m.wasmStats.wasm - before.wasm, 1);
  assert.equal(m.wasmStats.javascript - before.javascript, 0);
});
