import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText } from "./support/harness.js";
import { checkBackends, f64 } from "./support/wasm-backends.js";

// undefined and null in the WebAssembly backend (emit/wasm/absent-values.ts): default
// parameters and optional parameters of small helpers, inlined where their argument is left
// out, so their tests settle; what no test settles keeps the function JavaScript, saying why.

test("default and optional parameters of helpers, with the argument given and left out", async () => {
  await checkBackends(
    `function huber(r: number, delta = 1.5): number {
  const a = Math.abs(r);
  return a <= delta ? 0.5 * r * r : delta * (a - 0.5 * delta);
}
function scaled(x: number, scale?: number): number {
  return x * (scale ?? 2);
}
function shifted(x: number, by?: number): number {
  if (by === undefined) return x + 1;
  return x + by;
}
export function f(x: Float64Array, y: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    s += huber(x[i] - y[i]) + huber(x[i], 0.25) + scaled(x[i]) + scaled(y[i], 3);
    s += shifted(x[i]) * shifted(y[i], x[i]);
  }
  return s;
}`,
    [
      [f64(0.5, -2, 3, 0.1), f64(1, 1, -1, 0.2)],
      [f64(0.05, 4), f64(-0.3, 2.5)],
    ],
  );
});

/** The NABLA202 warnings of `source`'s gradient with backend "wasm". */
function fallback(source: string): string {
  const compiled = compileFiles({
    "main.ts": `import { gradient } from "nabla";
${source}
export const g = gradient(f, { backend: "wasm" });
`,
  });
  return diagnosticsText(compiled);
}

test("what no test settles stays JavaScript, and says so", () => {
  // A value that is a number at some iterations and undefined at others.
  const best = fallback(`export function f(x: Float64Array): number {
  let best: number | undefined = undefined;
  for (let i = 0; i < x.length; i++) if (best === undefined || x[i] < best) best = x[i];
  return best ?? 0;
}`);
  assert.match(best, /NABLA202/);
  assert.match(best, /undefined \(a default parameter value, an optional parameter or field/);
  // Set at some iterations only, then given a default with ??: a loop carrying undefined.
  const last = fallback(`export function f(x: Float64Array): number {
  let last: number | undefined = undefined;
  for (let i = 0; i < x.length; i++) if (x[i] > 0) last = x[i];
  return (last ?? -1) * 2;
}`);
  assert.match(last, /NABLA202/);
  // A recursive helper, which is not inlined, its argument left out: the call would pass
  // undefined.
  const large = fallback(`function power(x: number, n = 3): number {
  return n <= 0 ? 1 : x * power(x, n - 1);
}
export function f(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += power(x[i]) + power(x[i], 2);
  return s;
}`);
  assert.match(large, /NABLA202/);
  assert.match(large, /undefined \(a default parameter value/);
  // null as a default, which reverse mode saves on its tape: wasm would save 0 there.
  const saved = fallback(`function orSquare(x: number, w: number | null = null): number {
  return w === null ? x * x : x * w;
}
export function f(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += orSquare(x[i]) + orSquare(x[i], 0.5);
  return s;
}`);
  assert.match(saved, /NABLA202/);
});
