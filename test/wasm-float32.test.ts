import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";
import type { Stats } from "./support/wasm-backends.js";

// Float32Array in the WebAssembly backend: wasm holds its elements as f64s and rounds every
// store into one to float32, as JavaScript does, so values, gradients (Float32Array shadows,
// rounded at each +=) and tangents equal the JavaScript backend's to the bit. Central
// differences mean little through float32 rounding, so the second check is forward mode
// against reverse mode (to float32 accuracy, since both round what they store).

type F32 = Float32Array;

interface Program {
  gradientJs: (x: F32, w: Float64Array) => [F32, Float64Array];
  gradientWasm: (x: F32, w: Float64Array) => [F32, Float64Array];
  differentialJs: (x: F32, w: Float64Array) => (dx: F32, dw: Float64Array) => unknown;
  differentialWasm: (x: F32, w: Float64Array) => (dx: F32, dw: Float64Array) => unknown;
  wasmStats: Stats;
}

/** The operators of `f`; gradients only for a function returning a number. */
const program = (source: string, gradients = true) => ({
  "main.ts": `import { differential, gradient } from "nabla";
export { wasmStats } from "nabla";
${source}
${
  gradients
    ? `export const gradientJs = gradient(f, { wrt: [0, 1] });
export const gradientWasm = gradient(f, { wrt: [0, 1], backend: "wasm" });`
    : ""
}
export const differentialJs = differential(f, { wrt: [0, 1] });
export const differentialWasm = differential(f, { wrt: [0, 1], backend: "wasm" });
`,
});

const numbers = (v: unknown): number[] =>
  typeof v === "number" ? [v] : Array.from(v as ArrayLike<number>);

function sameBits(actual: number[], expected: number[], what: string) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  actual.forEach((a, i) =>
    assert.ok(Object.is(a, expected[i]), `${what}[${i}]: ${a} against ${expected[i]}`),
  );
}

async function checkFloat32(source: string, x: F32, w: Float64Array, resultIsArray: boolean) {
  const files = program(source, !resultIsArray);
  const compiled = compileFiles(files);
  assert.doesNotMatch(diagnosticsText(compiled), /NABLA202/, diagnosticsText(compiled));
  const m = await loadProgram<Program>(files);
  const before = { ...m.wasmStats };
  const dx = x.map((_, i) => Math.sin(i + 1));
  const dw = w.map((_, i) => Math.cos(i + 2));
  const tJs = m.differentialJs(x, w)(dx, dw);
  const tWasm = m.differentialWasm(x, w)(dx, dw);
  if (resultIsArray) assert.ok(tWasm instanceof Float32Array, "a Float32Array result's tangent");
  sameBits(numbers(tWasm), numbers(tJs), "tangent");
  if (resultIsArray) {
    assert.equal(m.wasmStats.wasm - before.wasm, 1, "the differential ran in wasm");
    return;
  }
  const [gx, gw] = m.gradientWasm(x, w);
  const [jx, jw] = m.gradientJs(x, w);
  assert.ok(gx instanceof Float32Array, "the gradient with respect to a Float32Array is one");
  sameBits([...gx], [...jx], "gradient wrt x");
  sameBits([...gw], [...jw], "gradient wrt w");
  // Forward mode against reverse mode: ∇f · (dx, dw) = the tangent, to float32 accuracy.
  const along =
    [...gx].reduce((s, g, i) => s + g * dx[i]!, 0) + [...gw].reduce((s, g, i) => s + g * dw[i]!, 0);
  const scale =
    [...gx].reduce((s, g, i) => s + Math.abs(g * dx[i]!), 0) +
    [...gw].reduce((s, g, i) => s + Math.abs(g * dw[i]!), 0);
  assert.ok(
    Math.abs((tWasm as number) - along) <= 1e-6 * scale,
    `forward ${tWasm as number} against reverse ${along}`,
  );
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "calls that fell back");
  assert.equal(m.wasmStats.wasm - before.wasm, 2, "the differential and the gradient in wasm");
}

const pixels = Float32Array.from({ length: 37 }, (_, i) => Math.abs(Math.sin(i * 0.7)) * 3 + 0.01);
const weights = Float64Array.from([0.3, -0.2, 0.7, 1.1, 0.05]);

test("a Float32Array argument read in a loop: gradient (a Float32Array) and tangent to the bit", async () => {
  await checkFloat32(
    `function f(pixels: Float32Array, weights: Float64Array): number {
  let total = 0;
  for (let i = 0; i < pixels.length; i++) {
    const w = weights[i % weights.length];
    total += Math.sqrt(pixels[i] * pixels[(i + 1) % pixels.length] + 1) * w;
  }
  return total;
}`,
    pixels,
    weights,
    false,
  );
});

test("a Float32Array the function fills: every store rounds to float32, as in JavaScript", async () => {
  await checkFloat32(
    `function f(x: Float32Array, w: Float64Array): number {
  const hidden = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) hidden[i] = Math.tanh(x[i] * w[0] + w[1] / 3);
  let energy = 0;
  for (let i = 0; i < hidden.length; i++) energy += hidden[i] * hidden[i] * w[2];
  return energy / 7;
}`,
    pixels,
    weights,
    false,
  );
});

test("a function returning a Float32Array: its tangent is a Float32Array, to the bit", async () => {
  await checkFloat32(
    `function f(x: Float32Array, w: Float64Array): Float32Array {
  const out = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = x[i] / 3 + w[i % w.length] * 0.1;
  return out;
}`,
    pixels,
    weights,
    true,
  );
});

test("a Float64Array passed where the function takes a Float32Array runs as JavaScript", async () => {
  const files = program(`function f(x: Float32Array, w: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i] * w[0];
  return s;
}`);
  const m = await loadProgram<Program>(files);
  const before = { ...m.wasmStats };
  const wrong = Float64Array.from([0.1, 0.2]) as unknown as F32;
  const [gx] = m.gradientWasm(wrong, weights);
  const [jx] = m.gradientJs(wrong, weights);
  assert.deepEqual([...gx], [...jx]);
  assert.equal(
    m.wasmStats.javascript - before.javascript,
    1,
    "not of the declared type: JavaScript",
  );
});
