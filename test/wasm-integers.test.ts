import { test } from "node:test";
import assert from "node:assert/strict";
import { loadProgram } from "./support/harness.js";
import { checkBackends, f64, type Stats } from "./support/wasm-backends.js";

// Integer index arithmetic in the WebAssembly backend (emit/wasm/integers.ts): products by a
// constant above 0 (`2 * layer`) and numbers the forward sweep saved that lead to an index
// (the running index of a packed triangular matrix) are i32s; a product that leaves the i32
// range traps and the call gives JavaScript's answer.

test("rows picked by 2 * layer and 2 * layer + 1, as lstm's parameters are", async () => {
  await checkBackends(
    `export function f(params: Float64Array[], x: Float64Array): number {
  let h = x.slice();
  const layers = params.length / 2;
  for (let layer = 0; layer < layers; layer++) {
    const weight = params[2 * layer];
    const bias = params[2 * layer + 1];
    for (let i = 0; i < h.length; i++) h[i] = Math.tanh(weight[i] * h[i] + bias[i]);
  }
  let s = 0;
  for (let i = 0; i < h.length; i++) s += h[i] * (i + 1);
  return s;
}`,
    [
      [
        [f64(0.5, -0.2, 0.9), f64(0.1, 0.0, -0.3), f64(1.2, 0.7, -0.4), f64(0.05, 0.2, 0.1)],
        f64(0.3, -1.1, 0.8),
      ],
    ],
  );
});

test("a packed lower-triangular matrix times a vector: its running index saved and popped", async () => {
  await checkBackends(
    `export function f(packed: Float64Array, x: Float64Array): number {
  const n = x.length;
  const y = new Float64Array(n);
  let k = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      y[i] += packed[k] * x[j];
      k++;
    }
  }
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.sin(y[i]);
  return s;
}`,
    [
      [f64(1, 0.5, 2, -1, 0.25, 3), f64(0.2, -0.7, 1.3)],
      [f64(0.3, 1.1, -0.4, 0.8, 0.6, -1.2, 0.9, 0.1, 0.5, -0.3), f64(1, 2, -1, 0.5)],
    ],
  );
});

test("index products out of range (1e9, and 3e9 past 2³¹) trap in wasm; the call gives JavaScript's NaN", async () => {
  const m = await loadProgram<{
    js: (x: Float64Array) => number;
    wasm: (x: Float64Array) => number;
    wasmStats: Stats;
  }>({
    "main.ts": `import { derivative } from "nabla";
export { wasmStats } from "nabla";
function spread(x: Float64Array, t: number): number {
  let s = 0;
  for (let i = 0; i < 4; i++) s += x[1000000000 * i] * t;
  return s;
}
export const js = (x: Float64Array) => derivative((t: number) => spread(x, t))(2);
export const wasm = (x: Float64Array) => derivative((t: number) => spread(x, t), { backend: "wasm" })(2);
`,
  });
  const x = f64(1, 2, 3);
  const before = { ...m.wasmStats };
  assert.ok(Number.isNaN(m.js(x)));
  assert.ok(Number.isNaN(m.wasm(x)));
  assert.equal(m.wasmStats.javascript - before.javascript, 1, "the wasm call trapped and reran");
});
