import { test } from "node:test";
import assert from "node:assert/strict";
import { checkBackends, f64 } from "./support/wasm-backends.js";

// Reverse mode's backward sweep takes the arguments, then the shadows of the differentiated
// arrays; it names each by its position among the arguments and then among *all* the
// differentiated parameters, numbers included. The WebAssembly entry (and its JavaScript
// stand-in) take the shadows of the arrays alone: a number differentiated before an array,
// `f(a: number, x: Float64Array)`, put every later shadow one place off, and the module did
// not assemble (NABLA202, JavaScript instead). Each order, against the JavaScript backend,
// central differences and forward mode (checkBackends), run in wasm.

test("numbers and arrays differentiated in any order run in wasm, with the JavaScript backend's results", async () => {
  const cases: [string, Parameters<typeof checkBackends>[1]][] = [
    [
      `export function f(a: number, x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += a * x[i] * x[i];
  return s;
}`,
      [[0.7, f64(1, -2, 0.5)]],
    ],
    [
      `export function f(a: number, x: Float64Array, b: number, y: Float64Array): number {
  let s = b * b;
  for (let i = 0; i < x.length; i++) s += Math.sin(a * x[i]) * y[i] + b * y[i];
  return s;
}`,
      [[0.3, f64(1, 2, -1), -0.4, f64(0.5, 0.25, 2)]],
    ],
    [
      `export function f(x: Float64Array, a: number, y: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.exp(a * x[i]) * y[i] * y[i];
  return s;
}`,
      [[f64(0.2, -0.1), 0.9, f64(1.5, -0.5)]],
    ],
  ];
  for (const [source, points] of cases) {
    const counts = await checkBackends(source, points);
    assert.equal(counts.wasm, 3 * (points as unknown[]).length);
  }
});
