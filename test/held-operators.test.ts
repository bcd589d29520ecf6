import { test } from "node:test";
import assert from "node:assert/strict";
import {
  assertClose,
  centralDifference,
  compileFiles,
  diagnosticsText,
  loadProgram,
} from "./support/harness.js";
import type { Stats } from "./support/wasm-backends.js";

// `const g = gradient(f)` made once inside differentiable code (or a function run as
// WebAssembly) and called later, as code outside does: each call is the nested operator call
// (lower/held-operators.ts). Derivatives checked against central differences and forward mode
// against reverse mode.

test("a derivative made once and called twice inside differentiated code", async () => {
  const m = await loadProgram<{
    f: (x: number) => number;
    df: (x: number) => number;
    gf: (x: number) => number;
  }>({
    "main.ts": `import { derivative, gradient } from "nabla";
function cube(t: number): number {
  return t * t * t;
}
export function f(x: number): number {
  const slope = derivative(cube);
  return slope(x) * x + slope(2 * x);
}
export const df = derivative(f);
export const gf = gradient(f);
`,
  });
  // f = 3x³ + 12x², f' = 9x² + 24x
  for (const x of [-1.5, 0, 0.75, 2]) {
    assertClose(m.f(x), 3 * x ** 3 + 12 * x ** 2, 1e-12);
    assertClose(m.df(x), 9 * x * x + 24 * x, 1e-12);
    assertClose(m.gf(x), m.df(x), 1e-12); // reverse mode against forward mode
    assertClose(m.df(x), centralDifference(m.f, x), 1e-6);
  }
});

test("a gradient with respect to an array, made before a loop, in a function run as WebAssembly", async () => {
  const files = {
    "main.ts": `import { derivative, gradient } from "nabla";
export { wasmStats } from "nabla";
export function energy(x: Float64Array): number {
  let e = 0;
  for (let i = 0; i < x.length; i++) e += Math.sin(x[i]!) * x[i]! * x[i]!;
  return e;
}
/** @backend wasm */
export function steepest(x: Float64Array, steps: number, rate: number): Float64Array {
  const grad = gradient(energy);
  const at = Float64Array.from(x);
  for (let s = 0; s < steps; s++) {
    const g = grad(at);
    for (let i = 0; i < at.length; i++) at[i] -= rate * g[i]!;
  }
  return at;
}
/** @backend wasm */
export function slope(x: Float64Array): Float64Array {
  const grad = gradient(energy);
  return grad(x);
}
export const along = (x: Float64Array, k: number) =>
  derivative((t: number) => {
    const y = Float64Array.from(x);
    y[k] = t;
    return energy(y);
  })(x[k]!);
`,
  };
  const compiled = compileFiles(files);
  assert.equal(diagnosticsText(compiled), "");
  assert.match(
    [...compiled.outputs.values()][0]!.code,
    /steepest \(@backend wasm\).*: WebAssembly/,
  );
  const m = await loadProgram<{
    steepest: (x: Float64Array, steps: number, rate: number) => Float64Array;
    slope: (x: Float64Array) => Float64Array;
    energy: (x: Float64Array) => number;
    along: (x: Float64Array, k: number) => number;
    wasmStats: Stats;
  }>(files);
  const x = Float64Array.from({ length: 9 }, (_, i) => Math.cos(1.3 * i) * 2);
  const before = m.wasmStats.wasm;
  const descended = m.steepest(x, 20, 0.05);
  const g = m.slope(x);
  assert.equal(m.wasmStats.wasm - before, 2, "ran in wasm");
  assert.ok(m.energy(descended) < m.energy(x));
  g.forEach((d, k) => {
    assertClose(d, m.along(x, k), 1e-12);
    const h = 1e-6;
    const plus = Float64Array.from(x);
    const minus = Float64Array.from(x);
    plus[k]! += h;
    minus[k]! -= h;
    assertClose(d, (m.energy(plus) - m.energy(minus)) / (2 * h), 1e-6);
  });
});

test("a held operator whose function's name means something else where it is called", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { derivative } from "nabla";
function g(t: number): number {
  return t * t;
}
export function f(x: number): number {
  const slope = derivative(g);
  {
    const g = (t: number) => t + 1;
    return slope(x) + g(x);
  }
}
export const df = derivative(f);
`,
    }),
  );
  assert.equal(
    text,
    `main.ts:9:12: error NABLA116: 'slope' was made from 'g', which means something else here: call the operator where 'g' is the function it was given
  8 |     const g = (t: number) => t + 1;
> 9 |     return slope(x) + g(x);
    |            ^^^^^
main.ts:12:19: note: when differentiating 'f' for 'derivative'
> 12 | export const df = derivative(f);
     |                   ^^^^^^^^^^^^^

1 error`,
  );
});
