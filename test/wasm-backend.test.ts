import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { build as esbuild } from "esbuild";
import nabla from "../src/plugin/index.js";
import { launchChromium, SKIP_WITHOUT_BROWSER } from "./support/chromium.js";
import { compileFiles, diagnosticsText, loadProgram, writeProgram } from "./support/harness.js";

// The WebAssembly backend (`backend: "wasm"`), on numeric functions as people write them: its
// values and derivatives equal the JavaScript backend's within 1e-12 relative (in fact to the
// bit: same operations in the same order, and Math functions the engine's own), its gradient
// agrees with central differences and with its forward mode (two ways), every call really
// runs in wasm, and what it does not cover falls back to JavaScript with a warning saying why.

import {
  assertRelative,
  checkBackends,
  f64,
  kmeansCostSource,
  OFFSET_PRODUCTS,
  SQUARED_DISTANCE,
  type Stats,
} from "./support/wasm-backends.js";

test("a dot product of two Float64Arrays", async () => {
  await checkBackends(
    `export function f(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}`,
    [
      [f64(1, 2, 3), f64(4, -5, 6)],
      [f64(0.5, -0.25, 3.5, 7, 1e-3), f64(2, 2, -1, 0.125, 9)],
    ],
  );
});

test("a polynomial of powers (`**`) and a Horner loop over a number[] running down", async () => {
  await checkBackends(
    `function horner(c: number[], x: number): number {
  let acc = 0;
  for (let i = c.length - 1; i >= 0; i--) acc = acc * x + c[i];
  return acc;
}
export function f(c: number[], x: number): number {
  let s = 0;
  for (let i = 0; i < c.length; i++) s += c[i] * x ** i;
  return s + 0.5 * horner(c, x / 2);
}`,
    [
      [[1, -2, 0.5, 3], 0.7],
      [[0.25, 4, -1, 2, 1.5, -0.75], -1.3],
    ],
  );
});

test("log-sum-exp: Math.max, Math.exp and Math.log over a Float64Array", async () => {
  await checkBackends(
    `export function f(x: Float64Array): number {
  let m = -Infinity;
  for (let i = 0; i < x.length; i++) m = Math.max(m, x[i]);
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.exp(x[i] - m);
  return Math.log(s) + m;
}`,
    [[f64(0.3, -1.2, 2.5, 0.7)], [f64(10, 11, 9.5, -3, 10.25, 0)]],
  );
});

test("kmeans' cost: arrays of Float64Array rows, a nested loop, a function calling another", async () => {
  await checkBackends(
    `${SQUARED_DISTANCE}
${kmeansCostSource("f")}`,
    [
      [
        [f64(1, 2), f64(3, 4), f64(0, 1), f64(-2, 0.5)],
        [f64(1.1, 1.3), f64(2.2, 3.1), f64(-1, 0)],
      ],
    ],
  );
});

test("calls that stay calls (a callee calling another), branches, Math instructions", async () => {
  await checkBackends(
    `function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
function norm(a: Float64Array): number {
  return Math.sqrt(dot(a, a));
}
export function f(x: Float64Array, t: number): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    const v = x[i] * t;
    if (v > 1) s += Math.sqrt(v);
    else if (v < -1) s -= Math.abs(v) * 0.5;
    else s += v > 0 ? v * v : Math.min(v, -v * v, 0.25) + Math.max(v, 0.1 * v);
  }
  return s * norm(x) + Math.floor(t) + Math.trunc(t * 3) * t;
}`,
    [
      [f64(0.3, -1.2, 2.5, 0.7, -4), 0.9],
      [f64(3, 0.05, -0.4, 1.25), -1.7],
    ],
  );
});

test("early returns, before a loop and from inside it", async () => {
  const source = `export function f(x: Float64Array, s: number): number {
  if (s < 0) return -s * x[0] * x[1];
  let acc = 1;
  for (let i = 0; i < x.length; i++) {
    if (x[i] > 3) return acc * s + x[i];
    acc *= 1 + x[i] * s;
  }
  return acc;
}`;
  await checkBackends(source, [
    [f64(0.5, 2, 1.5), -0.7],
    [f64(0.5, 2, 1.5), 0.7],
    [f64(0.5, 4, 1.5), 0.3],
  ]);
});

test("arrays the function makes: prefix sums in a new Float64Array, sin, cos, tanh, log1p", async () => {
  await checkBackends(
    `export function f(x: Float64Array, w: number[]): number {
  const prefix = new Float64Array(x.length + 1);
  for (let i = 0; i < x.length; i++) prefix[i + 1] = prefix[i] + x[i] * w[i % w.length];
  let s = 0;
  for (let i = 1; i < prefix.length; i++)
    s += Math.sin(prefix[i]) * Math.cos(x[i - 1]) + Math.tanh(prefix[i] / i) + Math.log1p(x[i - 1] * x[i - 1]);
  const pair = [s, prefix[x.length]];
  return pair[0] * pair[1];
}`,
    [[f64(0.3, -1.2, 2.5, 0.7), [0.5, 2, -1]]],
  );
});

test("a number[][] matrix: a quadratic form", async () => {
  await checkBackends(
    `export function f(m: number[][], v: number[]): number {
  let s = 0;
  for (let i = 0; i < m.length; i++) {
    let row = 0;
    for (let j = 0; j < v.length; j++) row += m[i][j] * v[j];
    s += v[i] * row;
  }
  return s;
}`,
    [
      [
        [
          [1, 2, 0.5],
          [0, -1, 3],
          [2, 1, 1],
        ],
        [0.3, -0.4, 1.1],
      ],
    ],
  );
});

test("derivative and differential of functions returning numbers and Float64Arrays", async () => {
  const files = {
    "main.ts": `import { derivative, valueWithDerivative, differential } from "nabla";
export { wasmStats } from "nabla";
function wave(x: number): number {
  let s = 0;
  for (let k = 1; k <= 20; k++) s += Math.sin(k * x) / k;
  return s;
}
function scaled(x: Float64Array, s: number): Float64Array {
  const y = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) y[i] = Math.exp(s * x[i]) - x[i];
  return y;
}
export const dJs = derivative(wave);
export const dWasm = derivative(wave, { backend: "wasm" });
export const vdJs = valueWithDerivative(wave);
export const vdWasm = valueWithDerivative(wave, { backend: "wasm" });
export const sJs = differential(scaled);
export const sWasm = differential(scaled, { backend: "wasm" });
`,
  };
  const m = await loadProgram<{
    dJs: (x: number) => number;
    dWasm: (x: number) => number;
    vdJs: (x: number) => { value: number; derivative: number };
    vdWasm: (x: number) => { value: number; derivative: number };
    sJs: (x: Float64Array, s: number) => (dx: Float64Array, ds: number) => Float64Array;
    sWasm: (x: Float64Array, s: number) => (dx: Float64Array, ds: number) => Float64Array;
    wasmStats: Stats;
  }>(files);
  const before = { ...m.wasmStats };
  for (const x of [0.3, -1.7, 2.2]) {
    assert.equal(m.dWasm(x), m.dJs(x));
    assert.deepEqual(m.vdWasm(x), m.vdJs(x));
  }
  const x = f64(0.5, -1, 2);
  const dx = f64(1, 0.5, -0.25);
  const tWasm = m.sWasm(x, 0.7)(dx, 0.3);
  assert.ok(tWasm instanceof Float64Array);
  assertRelative([...tWasm], [...m.sJs(x, 0.7)(dx, 0.3)], 1e-12, "tangent of an array result");
  assert.equal(m.wasmStats.wasm - before.wasm, 7);
  assert.equal(m.wasmStats.javascript - before.javascript, 0);
});

test("Math functions in wasm are the engine's: exp, log, sin, cos, tanh, pow (and x ** 2 as x·x), atan2 to the bit", async () => {
  const files = {
    "main.ts": `import { valueWithDifferential } from "nabla";
function all(x: Float64Array): Float64Array {
  const y = new Float64Array(x.length * 11);
  for (let i = 0; i < x.length; i++) {
    const v = x[i];
    y[11 * i] = Math.exp(v);
    y[11 * i + 1] = Math.log(Math.abs(v));
    y[11 * i + 2] = Math.sin(v);
    y[11 * i + 3] = Math.cos(v);
    y[11 * i + 4] = Math.tanh(v);
    y[11 * i + 5] = Math.pow(Math.abs(v), 0.37) + v ** 3;
    y[11 * i + 6] = Math.atan2(v, 1.5) + Math.cbrt(v) + Math.expm1(v / 100);
    y[11 * i + 7] = Math.round(v) + Math.sign(v) + Math.hypot(v, 2, 3) + Math.fround(v);
    // Exponents 2, 1 and 0 are wasm instructions, not calls: the same bits as Math.pow's.
    y[11 * i + 8] = v ** 2;
    y[11 * i + 9] = Math.pow(v, 1);
    y[11 * i + 10] = (3 * v) ** 0;
  }
  return y;
}
export const js = valueWithDifferential(all);
export const wasm = valueWithDifferential(all, { backend: "wasm" });
export { wasmStats } from "nabla";
`,
  };
  const m = await loadProgram<{
    js: (x: Float64Array) => { value: Float64Array };
    wasm: (x: Float64Array) => { value: Float64Array };
    wasmStats: Stats;
  }>(files);
  let seed = 7;
  const next = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  // Small, moderate and large arguments, both signs, and the exact cases.
  const x = Float64Array.from({ length: 20000 }, (_, i) => {
    const scale = [1e-8, 1, 10, 700, 1e6][i % 5]!;
    return (next() * 2 - 1) * scale;
  });
  x.set([0, -0, 1, -1, 0.5, 2.5, -2.5, Infinity, -Infinity, NaN], 0);
  const before = { ...m.wasmStats };
  const a = m.wasm(x).value;
  const b = m.js(x).value;
  assert.equal(m.wasmStats.wasm - before.wasm, 1);
  let differing = 0;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) differing++;
  assert.equal(differing, 0, "results that differ from JavaScript's");
});

test("an index out of range, or not an integer, reruns the call as JavaScript: JavaScript's answer", async () => {
  const files = {
    "main.ts": `${OFFSET_PRODUCTS}export { wasmStats } from "nabla";\n`,
  };
  const m = await loadProgram<{
    js: (x: Float64Array, k: number) => { value: number; gradient: Float64Array };
    wasm: (x: Float64Array, k: number) => { value: number; gradient: Float64Array };
    wasmStats: Stats;
  }>(files);
  const x = f64(1, 2, 3);
  let before = { ...m.wasmStats };
  assert.deepEqual(m.wasm(x, 0), m.js(x, 0));
  assert.equal(m.wasmStats.wasm - before.wasm, 1);
  for (const k of [1, 0.5, -1]) {
    before = { ...m.wasmStats };
    const got = m.wasm(x, k);
    assert.deepEqual(got, m.js(x, k));
    assert.ok(Number.isNaN(got.value));
    assert.equal(m.wasmStats.javascript - before.javascript, 1, `k = ${k}: ran as JavaScript`);
  }
});

test("a call whose tape outgrows the memory runs again on a larger instance, never growing one", async () => {
  const files = {
    "main.ts": `import { gradient } from "nabla";
export { wasmStats } from "nabla";
function f(x: Float64Array): number {
  let m = -Infinity;
  for (let i = 0; i < x.length; i++) m = Math.max(m, x[i]);
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.exp(x[i] - m);
  return Math.log(s) + m;
}
export const js = gradient(f);
export const wasm = gradient(f, { backend: "wasm" });
`,
  };
  const m = await loadProgram<{
    js: (x: Float64Array) => Float64Array;
    wasm: (x: Float64Array) => Float64Array;
    wasmStats: Stats;
  }>(files);
  const small = Float64Array.from({ length: 10 }, (_, i) => Math.sin(i));
  const large = Float64Array.from({ length: 200_000 }, (_, i) => Math.sin(i));
  assert.deepEqual(m.wasm(small), m.js(small));
  const before = { ...m.wasmStats };
  assert.deepEqual(m.wasm(large), m.js(large));
  assert.ok(m.wasmStats.instances > before.instances, "a new instance");
  assert.equal(m.wasmStats.wasm - before.wasm, 1);
  // The sizes that sufficed are kept: the next call needs no new instance.
  const after = { ...m.wasmStats };
  assert.deepEqual(m.wasm(large), m.js(large));
  assert.equal(m.wasmStats.instances, after.instances);
});

test("a function of numbers only takes the short way once it has an instance: a heap it outgrows, an argument of another type, the value and derivative both", async () => {
  const files = {
    "main.ts": `import { valueWithDerivative } from "nabla";
export { wasmStats } from "nabla";
function f(x: number, n: number): number {
  const xs: number[] = new Array(n).fill(0);
  for (let i = 0; i < n; i++) xs[i] = Math.sin(x * i);
  let s = 0;
  for (const v of xs) s += v * v;
  return s + x * n;
}
export const js = (x: number, n: number) => valueWithDerivative((t: number) => f(t, n))(x);
export const wasm = (x: number, n: number) =>
  valueWithDerivative((t: number) => f(t, n), { backend: "wasm" })(x);
`,
  };
  assert.doesNotMatch(diagnosticsText(compileFiles(files)), /NABLA202/);
  const m = await loadProgram<{
    js: (x: number, n: unknown) => { value: number; derivative: number };
    wasm: (x: number, n: unknown) => { value: number; derivative: number };
    wasmStats: Stats;
  }>(files);
  assert.deepEqual(m.wasm(0.3, 5), m.js(0.3, 5));
  const before = { ...m.wasmStats };
  for (const x of [0.7, -1.1, 2.5]) assert.deepEqual(m.wasm(x, 7), m.js(x, 7));
  assert.equal(m.wasmStats.wasm - before.wasm, 3);
  assert.equal(m.wasmStats.instances, before.instances, "the same instance");
  // 200,000 cells outgrow the heap: the call traps and runs again with a larger heap (on a
  // new instance if the thread's memory was too small for it).
  const large = { ...m.wasmStats };
  assert.deepEqual(m.wasm(0.2, 200_000), m.js(0.2, 200_000));
  assert.equal(m.wasmStats.wasm - large.wasm, 1);
  // A string where a number is declared: JavaScript's answer, whatever it is.
  const other = { ...m.wasmStats };
  const answer = (g: typeof m.js) => {
    try {
      return g(0.4, "3");
    } catch (error) {
      return String(error);
    }
  };
  assert.deepEqual(answer(m.wasm), answer(m.js));
  assert.equal(m.wasmStats.javascript - other.javascript, 1);
});

test("what wasm does not cover stays JavaScript: a warning (NABLA202) and a comment say why", () => {
  const compiled = compileFiles({
    "main.ts": `import { gradient, derivative } from "nabla";
// A parameter of a record: not carried.
function obj(p: number[], names: Record<string, number>): number {
  return p[0] * p[1] * names.scale;
}
function logs(x: number): number {
  console.log(x);
  return x * x;
}
function scalar(x: number): number {
  return x * x;
}
export const g = gradient(obj, { backend: "wasm" });
export const d = derivative(logs, { backend: "wasm" });
export const a = derivative(scalar, { backend: "auto" });
`,
  });
  assert.equal(
    diagnosticsText(compiled),
    `main.ts:13:18: warning NABLA202: 'gradient' runs as JavaScript, not WebAssembly: parameter names in 'obj' is of type Record<string, number>
  12 | }
> 13 | export const g = gradient(obj, { backend: "wasm" });
     |                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: the WebAssembly backend covers functions of numbers, booleans, strings compared for equality, arrays of numbers (Float64Array, Float32Array, number[], arrays of them), integer typed arrays (Int32Array, Uint8Array…), arrays it makes and grows, and objects of them (with fields of other types, such as functions, only where the function does not use them); 'backend: "auto"' picks it only where it applies, without this warning

main.ts:14:18: warning NABLA202: 'derivative' runs as JavaScript, not WebAssembly: a call of console.log in 'logs'
  13 | export const g = gradient(obj, { backend: "wasm" });
> 14 | export const d = derivative(logs, { backend: "wasm" });
     |                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: the WebAssembly backend covers functions of numbers, booleans, strings compared for equality, arrays of numbers (Float64Array, Float32Array, number[], arrays of them), integer typed arrays (Int32Array, Uint8Array…), arrays it makes and grows, and objects of them (with fields of other types, such as functions, only where the function does not use them); 'backend: "auto"' picks it only where it applies, without this warning

2 warnings`,
  );
  const code = [...compiled.outputs.values()][0]!.code;
  assert.match(
    code,
    /\/\/ gradient\(obj\) at main\.ts:13:18: JavaScript, not WebAssembly: parameter names in 'obj' is of type Record<string, number>/,
  );
  assert.match(
    code,
    /\/\/ derivative\(scalar\) at main\.ts:15:18: JavaScript, not WebAssembly: it has no loop over array elements/,
  );
  assert.doesNotMatch(code, /wasmFunction/);
});

test("backend: 'auto' picks wasm for a loop over array elements; 'js' and no option keep JavaScript", async () => {
  const source = (option: string) => ({
    "main.ts": `import { gradient } from "nabla";
export { wasmStats } from "nabla";
function f(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.sin(x[i]) * x[i];
  return s;
}
export const g = gradient(f${option});
`,
  });
  for (const [option, wasm] of [
    [`, { backend: "auto" }`, true],
    [`, { backend: "js" }`, false],
    ["", false],
  ] as const) {
    const code = [...compileFiles(source(option)).outputs.values()][0]!.code;
    assert.equal(/wasmFunction/.test(code), wasm, option);
  }
  const m = await loadProgram<{ g: (x: Float64Array) => Float64Array; wasmStats: Stats }>(
    source(`, { backend: "auto" }`),
  );
  const before = m.wasmStats.wasm;
  const x = f64(0.1, 0.2, 0.3);
  assertRelative(
    [...m.g(x)],
    [...x].map((v) => Math.cos(v) * v + Math.sin(v)),
    1e-15,
    "gradient",
  );
  assert.equal(m.wasmStats.wasm - before, 1);
});

test("the backend option must be a literal the compiler can read", () => {
  const compiled = compileFiles({
    "main.ts": `import { gradient } from "nabla";
const which = "wasm";
function f(x: number): number {
  return x * x;
}
export const g = gradient(f, { backend: which });
export const h = gradient(f, { backend: "simd" });
`,
  });
  const text = diagnosticsText(compiled);
  assert.match(
    text,
    /main\.ts:6:41: error NABLA108: 'backend' must be written as "wasm", "js" or "auto": nabla reads it from the source/,
  );
  assert.match(text, /main\.ts:7:41: error NABLA108: 'backend' must be written as "wasm"/);
});

test("a function tagged @backend wasm runs as WebAssembly itself; its derivatives stay JavaScript", async () => {
  const files = {
    "main.ts": `import { gradient } from "nabla";
export { wasmStats } from "nabla";
${SQUARED_DISTANCE}
${kmeansCostSource("cost", "/** Σ over points of the squared distance to the nearest centroid. @backend wasm */\n")}
/** @backend wasm */
export function shifted(x: Float64Array, k: number): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i + k] * 2;
  return s;
}
${kmeansCostSource("plainCost")}
export const g = gradient(cost, { wrt: 1 });
export const gPlain = gradient(plainCost, { wrt: 1 });
`,
  };
  const compiled = compileFiles(files);
  assert.equal(diagnosticsText(compiled), "");
  const m = await loadProgram<{
    cost: (p: Float64Array[], c: Float64Array[]) => number;
    plainCost: (p: Float64Array[], c: Float64Array[]) => number;
    shifted: (x: Float64Array, k: number) => number;
    g: (p: Float64Array[], c: Float64Array[]) => Float64Array[];
    gPlain: (p: Float64Array[], c: Float64Array[]) => Float64Array[];
    wasmStats: Stats;
  }>(files);
  const points = [f64(1, 2), f64(3, 4), f64(0, 1), f64(-2, 0.5)];
  const centroids = [f64(1.1, 1.3), f64(2.2, 3.1), f64(-1, 0)];
  const before = { ...m.wasmStats };
  assert.equal(m.cost(points, centroids), m.plainCost(points, centroids));
  assert.deepEqual(m.g(points, centroids), m.gPlain(points, centroids));
  assert.equal(m.shifted(f64(1, 2, 3), 0), 12);
  assert.equal(m.wasmStats.wasm - before.wasm, 2);
  assert.ok(Number.isNaN(m.shifted(f64(1, 2, 3), 1)), "JavaScript's NaN for x[3]");
  assert.equal(m.wasmStats.javascript - before.javascript, 1);
});

test(
  "in a browser (headless Chromium, bundled by esbuild with nabla's plugin): wasm, with JavaScript's results",
  { skip: SKIP_WITHOUT_BROWSER },
  async () => {
    const dir = writeProgram({
      "main.ts": `import { gradient, differential, wasmStats } from "nabla";
${SQUARED_DISTANCE}
function cost(points: Float64Array[], centroids: Float64Array[]): number {
  let total = 0;
  for (const point of points) {
    let nearest = Infinity;
    for (const centroid of centroids) {
      const dist = squaredDistance(point, centroid);
      if (dist < nearest) nearest = dist;
    }
    total += nearest;
  }
  return total + Math.log1p(Math.exp(-total));
}
const points = Array.from({ length: 50 }, (_, i) => Float64Array.from([Math.sin(i), Math.cos(3 * i), i / 50]));
const centroids = [Float64Array.from([0.1, 0.2, 0.3]), Float64Array.from([-0.5, 0.5, 0.9])];
const direction = centroids.map((c) => c.map((_, j) => j - 1));
const js = gradient(cost, { wrt: 1 })(points, centroids).map((r) => [...r]);
const wasm = gradient(cost, { wrt: 1, backend: "wasm" })(points, centroids).map((r) => [...r]);
const forwardJs = differential(cost, { wrt: 1 })(points, centroids)(direction);
const forwardWasm = differential(cost, { wrt: 1, backend: "wasm" })(points, centroids)(direction);
(globalThis as unknown as { result: unknown }).result = { js, wasm, forwardJs, forwardWasm, stats: { ...wasmStats } };
`,
    });
    const out = join(dir, "bundle.js");
    await esbuild({
      entryPoints: [join(dir, "main.ts")],
      bundle: true,
      format: "esm",
      platform: "browser",
      outfile: out,
      logLevel: "silent",
      plugins: [nabla.esbuild()],
    });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.setContent("<!doctype html><html><body></body></html>");
      await page.addScriptTag({ content: readFileSync(out, "utf8"), type: "module" });
      await page.waitForFunction(() => "result" in globalThis, undefined, { timeout: 30_000 });
      const result = (await page.evaluate(() => (globalThis as { result?: unknown }).result)) as {
        js: number[][];
        wasm: number[][];
        forwardJs: number;
        forwardWasm: number;
        stats: Stats;
      };
      assert.deepEqual(result.wasm, result.js);
      assert.equal(result.forwardWasm, result.forwardJs);
      assert.deepEqual(result.stats, {
        wasm: 2,
        javascript: 0,
        instances: 2,
        inPlace: 0,
        // The two instances share the page's one memory.
        memories: 1,
        ownExp: 2,
        ownTrig: 0,
      });
    } finally {
      await browser.close();
    }
  },
);

test("a lambda calling a function parameter: one wasm twin per function it is given", async () => {
  const m = await loadProgram<{ run: () => number[]; wasmStats: Stats }>({
    "main.ts": `import { derivative } from "nabla";
export { wasmStats } from "nabla";
function slope(f: (x: number) => number, x: number): number {
  return derivative((t: number) => f(t) * 2, { backend: "wasm" })(x);
}
function cube(x: number): number {
  let p = 1;
  for (let i = 0; i < 3; i++) p *= x;
  return p;
}
export function run(): number[] {
  return [slope(cube, 2), slope((x: number) => Math.sin(x) * x, 0.5)];
}
`,
  });
  const before = m.wasmStats.wasm;
  const [a, b] = m.run();
  assert.equal(a, 24);
  assert.equal(b, 2 * (Math.cos(0.5) * 0.5 + Math.sin(0.5)));
  assert.equal(m.wasmStats.wasm - before, 2);
});

test(
  "a deeply nested array type (Array<Array<…>> 40 deep) is classified once per level",
  { timeout: 30_000 },
  () => {
    // Each level's element kind was computed twice: 2⁴⁰ steps here, a hang.
    const type = `${"Array<".repeat(40)}number${">".repeat(40)}`;
    const compiled = compileFiles({
      "main.ts": `import { derivative } from "nabla";
function f(x: number): number {
  const a: ${type} = [];
  return x * x + a.length;
}
export const d = derivative(f, { backend: "wasm" });
`,
    });
    assert.equal(compiled.diagnostics.filter((d) => d.severity === "error").length, 0);
  },
);
