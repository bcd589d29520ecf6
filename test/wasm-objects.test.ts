import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { compileFiles, diagnosticsText, loadProgram, REPO_ROOT } from "./support/harness.js";
import { gmmInput } from "./support/gradbench-inputs.js";

// The WebAssembly backend on objects (interfaces, inline object types, class instances) whose
// fields are numbers, booleans, arrays of numbers and such objects, as parameters of the
// differentiated function and of its callees: values, gradients (objects of the fields'
// gradients, written by wasm and copied back) and tangents (objects of the fields' tangents)
// equal to the JavaScript backend's within 1e-12 relative, the gradient against central
// differences and against forward mode; an argument whose shape is not its type's at run time
// runs as JavaScript, with JavaScript's answer.

import {
  assertRelative,
  checkBackends,
  f64,
  flat,
  withNumber,
  type Stats,
  type Value,
} from "./support/wasm-backends.js";

test("an interface of numbers and a Float64Array: a Gaussian's log-likelihood", async () => {
  await checkBackends(
    `interface Gaussian {
  mean: number;
  logScale: number;
  samples: Float64Array;
}
export function f(g: Gaussian): number {
  const scale = Math.exp(g.logScale);
  let total = 0;
  for (let i = 0; i < g.samples.length; i++) {
    const z = (g.samples[i] - g.mean) / scale;
    total += -0.5 * z * z - g.logScale;
  }
  return total;
}`,
    [
      [{ mean: 0.3, logScale: -0.2, samples: f64(1, -0.5, 2, 0.25) }],
      [{ mean: -1.5, logScale: 0.7, samples: f64(3, 1e-3) }],
    ],
  );
});

test("nested objects, a boolean field, an object passed to callees, with other arguments", async () => {
  await checkBackends(
    `interface Prior {
  alpha: number;
  beta: number;
}
interface Model {
  prior: Prior;
  weights: number[];
  robust: boolean;
}
function penalty(p: Prior, w: number[]): number {
  let s = 0;
  for (const x of w) s += p.alpha * x * x + p.beta * Math.abs(x);
  return s;
}
function loss(m: Model, r: number): number {
  return m.robust ? Math.log(1 + r * r) : r * r;
}
export function f(model: Model, xs: Float64Array[], ys: Float64Array): number {
  let total = penalty(model.prior, model.weights);
  for (let i = 0; i < xs.length; i++) {
    let y = 0;
    for (let j = 0; j < model.weights.length; j++) y += model.weights[j] * xs[i][j];
    total += loss(model, y - ys[i]);
  }
  return total;
}`,
    [
      [
        { prior: { alpha: 0.5, beta: 0.1 }, weights: [1, -2, 0.5], robust: false },
        [f64(1, 2, 3), f64(-1, 0.5, 2)],
        f64(0.3, -0.7),
      ],
      [
        { prior: { alpha: 1.5, beta: 0.2 }, weights: [0.25, 3, -1], robust: true },
        [f64(0.5, 2, -3), f64(1, 1, 1), f64(2, 0, -1)],
        f64(1, 2, 3),
      ],
    ],
  );
});

test("an array of objects: points with x and y, a fitted line's squared error", async () => {
  await checkBackends(
    `type Point = { x: number; y: number };
export function f(points: Point[], line: { slope: number; intercept: number }): number {
  let s = 0;
  for (const p of points) {
    const r = line.slope * p.x + line.intercept - p.y;
    s += r * r;
  }
  return s;
}`,
    [
      [
        [
          { x: 1, y: 2 },
          { x: 2, y: 3.5 },
          { x: -1, y: 0.25 },
        ],
        { slope: 1.2, intercept: 0.3 },
      ],
    ],
  );
});

test("class instances with fields of numbers and arrays, and objects the function makes", async () => {
  await checkBackends(
    `class Layer {
  constructor(
    public weights: Float64Array[],
    public bias: Float64Array,
  ) {}
}
function moments(v: Float64Array): { mean: number; spread: number } {
  let s = 0;
  let ss = 0;
  for (const x of v) {
    s += x;
    ss += x * x;
  }
  const mean = s / v.length;
  return { mean, spread: ss / v.length - mean * mean };
}
export function f(layer: Layer, input: Float64Array): number {
  const out = new Float64Array(layer.bias.length);
  for (let i = 0; i < out.length; i++) {
    let s = layer.bias[i];
    for (let j = 0; j < input.length; j++) s += layer.weights[i][j] * input[j];
    out[i] = Math.tanh(s);
  }
  const m = moments(out);
  return m.mean + m.spread;
}
export function makeLayer(weights: Float64Array[], bias: Float64Array): Layer {
  return new Layer(weights, bias);
}`,
    (m) => {
      const make = m.makeLayer as (w: Float64Array[], b: Float64Array) => Value;
      const layer = make([f64(0.5, -1), f64(2, 0.25), f64(-0.5, 0.75)], f64(0.1, -0.2, 0.3));
      assert.equal((layer as object).constructor.name, "Layer");
      return [
        [layer, f64(1, 2)],
        [{ weights: [f64(1, 2, 3)], bias: f64(-1) }, f64(0.5, 0.25, -2)],
      ];
    },
  );
});

interface Checked {
  js: (...args: unknown[]) => unknown;
  wasm: (...args: unknown[]) => unknown;
  wasmStats: Stats;
}

/** `f(...args)` through wasm gives the JavaScript backend's answer (value or error). */
function sameAnswer(m: Checked, args: unknown[]): "wasm" | "javascript" {
  const before = { ...m.wasmStats };
  const run = (g: (...args: unknown[]) => unknown) => {
    try {
      return { value: g(...args) };
    } catch (error) {
      return { error: error instanceof Error ? `${error.name}: ${error.message}` : error };
    }
  };
  const wasm = run(m.wasm);
  const ranIn = m.wasmStats.wasm > before.wasm ? "wasm" : "javascript";
  assert.deepEqual(wasm, run(m.js));
  return ranIn;
}

test("an object argument not of its type at run time runs as JavaScript: JavaScript's answer", async () => {
  const files = {
    "main.ts": `import { valueWithGradient } from "nabla";
export { wasmStats } from "nabla";
interface Params {
  scale: number;
  data: Float64Array;
  flags: { on: boolean };
}
function f(p: Params, x: number): number {
  let s = 0;
  for (let i = 0; i < p.data.length; i++) s += p.data[i] * x;
  return p.flags.on ? s * p.scale : s;
}
export const js = valueWithGradient(f);
export const wasm = valueWithGradient(f, { backend: "wasm" });
`,
  };
  assert.equal(diagnosticsText(compileFiles(files)), "");
  const m = await loadProgram<Checked>(files);
  const good = { scale: 2, data: f64(1, 2, 3), flags: { on: true } };
  assert.equal(sameAnswer(m, [good, 1.5]), "wasm");
  // An extra field is not read (it is not in the gradient either, as in JavaScript).
  assert.equal(sameAnswer(m, [{ ...good, extra: "x", more: [1] }, 1.5]), "wasm");
  const wrong: [string, unknown][] = [
    ["a missing number", { data: f64(1, 2, 3), flags: { on: true } }],
    ["a missing array", { scale: 2, flags: { on: true } }],
    ["a string for a number", { ...good, scale: "2" }],
    ["a number[] for a Float64Array", { ...good, data: [1, 2, 3] }],
    ["null for an object", { ...good, flags: null }],
    ["a number for a boolean", { ...good, flags: { on: 1 } }],
    ["an array for the object", [2, f64(1), { on: true }]],
    ["null", null],
  ];
  for (const [what, p] of wrong)
    assert.equal(sameAnswer(m, [p, 1.5]), "javascript", `${what}: reruns as JavaScript`);
});

test("a getter of an argument that calls the same function while the call copies in: that call runs as JavaScript, the first is not disturbed", async () => {
  const files = {
    "main.ts": `import { valueWithGradient } from "nabla";
export { wasmStats } from "nabla";
interface Lens {
  focal: number;
  weights: Float64Array;
}
function energy(lens: Lens, x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += lens.weights[i] * x[i] * x[i] * lens.focal;
  return s;
}
export const js = valueWithGradient(energy);
export const wasm = valueWithGradient(energy, { backend: "wasm" });
`,
  };
  assert.equal(diagnosticsText(compileFiles(files)), "");
  const m = await loadProgram<Checked>(files);
  const inner: unknown[] = [];
  // The getter runs after 'focal' is in wasm memory, where a nested call would copy its own.
  const lens = {
    focal: 2,
    get weights() {
      inner.push(m.wasm({ focal: 7, weights: f64(5, 5, 5) }, f64(1, 1, 1)));
      return f64(1, 2, 3);
    },
  };
  const before = { ...m.wasmStats };
  const x = f64(0.5, -1, 2);
  assert.deepEqual(m.wasm(lens, x), m.js(lens, x));
  assert.deepEqual(m.wasm(lens, x), {
    value: 2 * (0.25 + 2 + 12),
    gradient: [{ focal: 0.25 + 2 + 12, weights: f64(0.5, 2, 8) }, f64(2, -8, 24)],
  });
  // JavaScript reads the getter at every iteration; the wasm copy once, its nested call as JavaScript.
  assert.ok(m.wasmStats.javascript > before.javascript, "a nested call ran as JavaScript");
  assert.ok(inner.length > 2);
  for (const answer of inner)
    assert.deepEqual(answer, {
      value: 105,
      gradient: [{ focal: 15, weights: f64(7, 7, 7) }, f64(70, 70, 70)],
    });
});

test("review: a getter that calls another twin on the same wasmArrays memory while the call copies in: that call runs as JavaScript", async () => {
  const files = {
    "main.ts": `import { valueWithGradient, wasmArrays } from "nabla";
export { wasmStats } from "nabla";
interface P {
  a: number;
  b: number;
}
function fa(w: Float64Array, p: P): number {
  let s = 0;
  for (let i = 0; i < w.length; i++) s += w[i] * p.a + p.b;
  return s;
}
function fb(w: Float64Array, p: P): number {
  let s = 0;
  for (let i = 0; i < w.length; i++) s += w[i] * w[i] * p.a * p.b;
  return s;
}
export const A = valueWithGradient(fa, { backend: "wasm", wrt: 0 });
export const B = valueWithGradient(fb, { backend: "wasm", wrt: 0 });
export const memory = wasmArrays({ megabytes: 4 });
`,
  };
  const m = await loadProgram<{
    A: (w: Float64Array, p: unknown) => { value: number; gradient: Float64Array };
    B: (w: Float64Array, p: unknown) => { value: number; gradient: Float64Array };
    memory: { float64Array(n: number): Float64Array };
  }>(files);
  const w = m.memory.float64Array(4);
  w.set([1, 2, 3, 4]);
  m.A(w, { a: 2, b: 3 });
  m.B(w, { a: 1, b: 1 });
  let inner: unknown;
  const p = {
    a: 2,
    get b() {
      inner ??= m.B(w, { a: 7, b: 9 });
      return 3;
    },
  };
  assert.deepEqual(m.A(w, p), { value: 32, gradient: f64(2, 2, 2, 2) });
  assert.deepEqual(inner, { value: 1890, gradient: f64(126, 252, 378, 504) });
});

test("a gradient with respect to an object of numbers: its fields written by wasm, copied back", async () => {
  const files = {
    "main.ts": `import { gradient, derivative } from "nabla";
export { wasmStats } from "nabla";
interface Wishart { gamma: number; m: number }
function prior(w: Wishart, q: Float64Array): number {
  let s = 0;
  for (const x of q) s += 0.5 * w.gamma * w.gamma * x * x - w.m * x;
  return s;
}
export const js = gradient(prior);
export const wasm = gradient(prior, { backend: "wasm" });
`,
  };
  assert.equal(diagnosticsText(compileFiles(files)), "");
  const m = await loadProgram<Checked>(files);
  const before = { ...m.wasmStats };
  const w = { gamma: 1.5, m: 2 };
  const q = f64(0.5, -1, 2);
  const [gw, gq] = m.wasm(w, q) as [{ gamma: number; m: number }, Float64Array];
  assert.deepEqual([gw, gq], m.js(w, q));
  assert.equal(m.wasmStats.wasm - before.wasm, 1);
  // ∂/∂gamma = Σ gamma·x², ∂/∂m = -Σ x.
  assert.equal(gw.gamma, 1.5 * (0.25 + 1 + 4));
  assert.equal(gw.m, -1.5);
  assert.deepEqual(w, { gamma: 1.5, m: 2 }, "the argument untouched");
});

test("objects as results: copied out as plain objects; a primal tagged @backend wasm", async () => {
  const files = {
    "main.ts": `import { valueWithDifferential } from "nabla";
export { wasmStats } from "nabla";
interface Stats2 { mean: number; extremes: Float64Array; inner: { n: number } }
/** @backend wasm */
export function summary(v: Float64Array): Stats2 {
  let s = 0;
  let lo = Infinity;
  let hi = -Infinity;
  for (const x of v) {
    s += x;
    lo = Math.min(lo, x);
    hi = Math.max(hi, x);
  }
  return { mean: s / v.length, extremes: new Float64Array([lo, hi]), inner: { n: v.length } };
}
function affine(p: { a: number; b: number }, x: number): { y: number; slope: number } {
  return { y: p.a * x + p.b, slope: p.a };
}
export const js = valueWithDifferential(affine);
export const wasm = valueWithDifferential(affine, { backend: "wasm" });
`,
  };
  const compiled = compileFiles(files);
  assert.equal(diagnosticsText(compiled), "");
  assert.match([...compiled.outputs.values()][0]!.code, /summary \(@backend wasm\).*: WebAssembly/);
  const m = await loadProgram<Checked & { summary: (v: Float64Array) => unknown }>(files);
  const before = { ...m.wasmStats };
  assert.deepEqual(m.summary(f64(1, -2, 4)), {
    mean: 1,
    extremes: f64(-2, 4),
    inner: { n: 3 },
  });
  type VD = { value: unknown; differential: (...t: unknown[]) => unknown };
  const p = { a: 2, b: -1 };
  const w = m.wasm(p, 3) as VD;
  const j = m.js(p, 3) as VD;
  assert.deepEqual(w.value, j.value);
  assert.deepEqual(w.differential({ a: 0.5, b: 1 }, 2), j.differential({ a: 0.5, b: 1 }, 2));
  assert.equal(m.wasmStats.wasm - before.wasm, 3);
  assert.equal(m.wasmStats.javascript - before.javascript, 0);
});

test("an object passed where a type with other fields (or another order) is expected stays JavaScript", async () => {
  const files = {
    "main.ts": `import { valueWithGradient } from "nabla";
export { wasmStats } from "nabla";
interface Scale { factor: number }
interface Both { offset: number; factor: number }
function total(v: Float64Array, k: number): number {
  let t = 0;
  for (let i = 0; i < v.length; i++) t += Math.sin(k * v[i]) * Math.exp(v[i] / k);
  for (let i = 0; i < v.length; i++) t += Math.cos(k * v[i]) * Math.log(1 + v[i] * v[i]);
  return t;
}
function scaled(s: Scale, v: Float64Array): number {
  let t = 0;
  for (let i = 0; i < v.length; i++) t += s.factor * v[i];
  return t + total(v, s.factor);
}
function f(p: Both, v: Float64Array): number {
  return scaled(p, v) * p.offset;
}
export const js = valueWithGradient(f);
export const wasm = valueWithGradient(f, { backend: "wasm" });
`,
  };
  // `scaled` (not inlined: it calls another function) would read Both's first field as factor.
  const text = diagnosticsText(compileFiles(files));
  assert.match(
    text,
    /warning NABLA202: 'valueWithGradient' runs as JavaScript, not WebAssembly: a Both used as a Scale \(their fields differ\) in 'f'/,
  );
  const m = await loadProgram<Checked>(files);
  assert.equal(sameAnswer(m, [{ offset: 1.5, factor: 3 }, f64(0.5, 2)]), "javascript");
});

test("arrays of arrays the function makes: an element never written reads as JavaScript's undefined", async () => {
  const files = {
    "main.ts": `import { valueWithGradient } from "nabla";
export { wasmStats } from "nabla";
function f(rows: Float64Array[], skip: number): number {
  const squares: Float64Array[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) if (i !== skip) squares[i] = rows[i].map((x) => x * x);
  let s = 0;
  for (const r of squares) for (const x of r) s += x;
  return s;
}
export const js = valueWithGradient(f, { wrt: 0 });
export const wasm = valueWithGradient(f, { wrt: 0, backend: "wasm" });
`,
  };
  const compiled = compileFiles(files);
  assert.doesNotMatch(diagnosticsText(compiled), /NABLA202/, diagnosticsText(compiled));
  const m = await loadProgram<Checked>(files);
  const rows = [f64(1, 2), f64(3, 4, 5)];
  assert.equal(sameAnswer(m, [rows, -1]), "wasm");
  assert.equal(sameAnswer(m, [rows, 0]), "javascript", "reading squares[0] throws");
});

test("gmm (GradBench eval) with the backend: its gradient runs in wasm, equal to JavaScript's", async () => {
  const gmm = readFileSync(join(REPO_ROOT, "gradbench/evals/gmm.ts"), "utf8");
  const files = {
    "gmm.ts": gmm,
    "main.ts": `import { gradient } from "nabla";
export { wasmStats } from "nabla";
import { gmmObjective } from "./gmm.js";
export { prepareObjective } from "./gmm.js";
export const js = gradient(gmmObjective, { wrt: 0 });
export const wasm = gradient(gmmObjective, { wrt: 0, backend: "wasm" });
`,
  };
  const compiled = compileFiles(files);
  assert.equal(diagnosticsText(compiled), "");
  const main = [...compiled.outputs.entries()].find(([file]) => file.endsWith("main.ts"));
  const code = main?.[1].code ?? [...compiled.outputs.values()].map((o) => o.code).join("\n");
  assert.match(code, /gradient\(gmmObjective\) at main\.ts:\d+:\d+: WebAssembly/);
  const m = await loadProgram<
    Checked & { prepareObjective: (input: unknown) => { params: Value; x: Value; wishart: Value } }
  >(files);
  const before = { ...m.wasmStats };
  for (const [seed, d, k, n] of [
    [1, 2, 3, 5],
    [2, 3, 4, 10],
    [3, 5, 2, 7],
  ] as const) {
    const p = m.prepareObjective(gmmInput(seed, d, k, n, 2, 1.3));
    const js = m.js(p.params, p.x, p.wishart) as Value;
    const wasm = m.wasm(p.params, p.x, p.wishart) as Value;
    assert.deepEqual(withNumber(wasm, -1, 0), withNumber(js, -1, 0), "shape");
    assertRelative(flat(wasm), flat(js), 1e-12, `gmm d=${d} k=${k} n=${n}`);
  }
  assert.equal(m.wasmStats.wasm - before.wasm, 3);
  assert.equal(m.wasmStats.javascript - before.javascript, 0);
});

// Objects as people declare them carry more than numbers: a name, tags, an optional setting, a
// method as an arrow field. Fields the function never uses stay where they are (opaque: never
// copied); using one keeps the function JavaScript, with the field named.
const SPRING = `interface Spring {
  name: string;
  stiffness: number;
  rest: number;
  damping?: number;
  tags: string[];
  describe: () => string;
}`;

/** The energy of a chain of SPRINGs, with `extra` added per spring. */
const springEnergy = (extra: string) => `${SPRING}
export function f(springs: Spring[], x: Float64Array): number {
  let energy = 0;
  for (let i = 0; i < springs.length; i++) {
    const s = springs[i];
    const stretch = x[i + 1] - x[i] - s.rest;
    energy += 0.5 * s.stiffness * stretch * stretch${extra};
  }
  return energy;
}`;

/** Three springs of SPRING's type, the second with a damping (an optional field). */
function threeSprings() {
  return [1, 2.5, 0.75].map((k, i) => ({
    name: `spring ${i}`,
    stiffness: k,
    rest: 0.5 + 0.25 * i,
    tags: ["steel"],
    describe: () => `spring ${i}`,
    ...(i === 1 ? { damping: 0.1 } : {}),
  }));
}

test("objects with a string, an optional field, string[] and a function field run in wasm where the function does not use them", async () => {
  const springs = threeSprings();
  const counts = await checkBackends(springEnergy(""), [
    [springs as unknown as Value, f64(0, 1.1, 2.4, 3.2)],
  ]);
  assert.equal(counts.wasm, 3);
  // The objects are as they were: nothing was copied back into their other fields.
  assert.equal(springs[1]!.name, "spring 1");
  assert.equal(springs[1]!.damping, 0.1);
  assert.equal(springs[2]!.describe(), "spring 2");
});

test("an optional field read, where some objects have it and some do not", async () => {
  const springs = threeSprings();
  await checkBackends(springEnergy(" + (s.damping ?? 0) * stretch"), [
    [springs as unknown as Value, f64(0, 1.1, 2.4, 3.2)],
  ]);
  // Copied in, not back: the objects keep the fields they had, and lack the others.
  assert.equal(springs[1]!.damping, 0.1);
  assert.equal("damping" in springs[0]!, false);
});

test("a function using a string's length, or returning an object with a function field, stays JavaScript and says why", () => {
  const compiled = compileFiles({
    "main.ts": `import { gradient } from "nabla";
${SPRING}
function named(s: Spring, x: number): number {
  return s.name.length * s.stiffness * x;
}
function damped(s: Spring, x: number): number {
  return (s.damping ?? 0) * x + s.stiffness * x * x;
}
/** @backend wasm */
export function stiffer(a: Spring, b: Spring): Spring {
  return a.stiffness > b.stiffness ? a : b;
}
export const g1 = gradient(named, { backend: "wasm" });
export const g2 = gradient(damped, { backend: "wasm" });
`,
  });
  const text = diagnosticsText(compiled);
  assert.match(
    text,
    /'gradient' runs as JavaScript, not WebAssembly: the length of a string \(wasm compares strings for equality only\) in 'named'/,
  );
  // An optional number field is carried (with its presence): 'damped' runs in wasm.
  assert.doesNotMatch(text, /in 'damped'/);
  assert.match(
    text,
    /'stiffer' runs as JavaScript, not WebAssembly: it returns a Spring, whose fields wasm does not all carry/,
  );
});

test("a spread over defaults of an object with optional fields stays JavaScript and says why", () => {
  const compiled = compileFiles({
    "main.ts": `import { gradient } from "nabla";
interface Options {
  rate?: number;
  scale: number;
}
function loss(x: Float64Array, options: Options): number {
  const settings: Options = { rate: 0.5, ...options };
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += x[i] * x[i] * (settings.rate ?? 1) * settings.scale;
  return sum;
}
export const g = gradient(loss, { wrt: 0, backend: "wasm" });
`,
  });
  assert.match(
    diagnosticsText(compiled),
    /'gradient' runs as JavaScript, not WebAssembly: a test whether an object has a key \('in', which spreading an object with optional fields, '\{ \.\.\.defaults, \.\.\.options \}', makes too; wasm does not tell a key set to undefined from one left out\) in 'loss'/,
  );
});

test("a function-valued parameter stays JavaScript, and the warning says it is a function", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { gradient } from "nabla";
function total(step: (t: number) => number, x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += step(x[i]);
  return s;
}
function square(t: number): number {
  return t * t;
}
export const value = total(square, Float64Array.of(1, 2));
export const g = gradient(total, { wrt: 1, backend: "wasm" });
`,
    }),
  );
  assert.match(text, /parameter step in 'total' is a function or a value of an unread type/, text);
});

test("a state updated by spreads keeps its fields' order, as JavaScript does, and runs in wasm", async () => {
  await checkBackends(
    `interface State { x: number; v: number }
function step(s: State, dt: number): State {
  return { ...s, x: s.x + s.v * dt };
}
export function f(start: Float64Array): number {
  let s: State = { x: start[0], v: start[1] };
  for (let i = 0; i < 3; i++) {
    s = { ...s, v: s.v - 9.81 * 0.1 };
    s = step(s, 0.1);
  }
  return s.x * s.v;
}`,
    [[f64(1, 2)], [f64(-0.5, 4)]],
  );
  // The order JavaScript gives a key written again: where it was first written.
  const m = await loadProgram<{ g: (s: { x: number; v: number; w: number }) => unknown }>({
    "main.ts": `import { gradient } from "nabla";
interface S { x: number; v: number; w: number }
function moved(s: S): S {
  const a = { ...s, v: s.v * 2 };
  return { w: 1, ...a, x: a.x * 3 };
}
export const g = gradient((s: S) => Object.values(moved(s)).reduce((t, u, i) => t + u * (i + 1), 0));
`,
  });
  // moved(s) is { w, x, v }: w·1 + 3x·2 + 2v·3.
  assert.deepEqual(m.g({ x: 1, v: 2, w: 3 }), { x: 6, v: 6, w: 1 });
});
