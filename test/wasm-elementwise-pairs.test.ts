import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, loadProgram } from "./support/harness.js";
import { lower } from "./support/ir.js";
import wabtModule from "wabt";
import { checkBackends, SQUARED_DISTANCE, kmeansCostSource } from "./support/wasm-backends.js";
import { integerBounds } from "../src/compiler/emit/wasm/integer-bounds.js";
import { integerValues } from "../src/compiler/emit/wasm/integers.js";
import { loopPrechecks } from "../src/compiler/emit/wasm/loop-prechecks.js";
import { elementwisePairs } from "../src/compiler/emit/wasm/elementwise-pairs.js";
import type { IRFunction, Op } from "../src/compiler/ir/types.js";
import { forEachOp } from "../src/compiler/ir/walk.js";

// Two iterations of an elementwise loop at once in f64x2 lanes (emit/wasm/elementwise-pairs.ts):
// reverse mode's `db[i] += s * (a[i] - b[i])`. Each element gets the scalar loop's operations
// in its order, so results must be JavaScript's to the bit, at every length (pairs, then the
// scalar loop for what is left) and when two arrays are one.

/** Per innermost loop of `fn` run in pairs: the arrays its body writes, by hint. */
function pairedLoops(fn: IRFunction, ownExp = false): string[][] {
  const ints = integerValues(fn, integerBounds(fn, integerValues(fn)).nonNegative);
  const definitions = new Map<number, Op>();
  forEachOp(fn.body, (op) => op.results.forEach((r) => definitions.set(r.id, op)));
  const paired: string[][] = [];
  forEachOp(fn.body, (op) => {
    if (op.opcode !== "loop") return;
    const prechecks = loopPrechecks(op, definitions, ints);
    const plan = prechecks && elementwisePairs(op, prechecks, definitions, ints, ownExp);
    if (plan)
      paired.push(
        plan.ops
          .filter((o) => o.opcode === "setIndex" || o.opcode === "addIndex")
          .map((o) => o.operands[0]!.hint),
      );
  });
  return paired;
}

const DOT = `export function f(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}`;

/** The WebAssembly text of each module the compiled program carries (wabt's disassembly). */
async function modulesOf(files: Record<string, string>): Promise<string[]> {
  const code = [...compileFiles(files).outputs.values()].map((o) => o.code).join("\n");
  const wabt = await wabtModule();
  return [...code.matchAll(/"bytes":"([^"]+)"/g)].map((m) => {
    // A copy: wabt reads the whole ArrayBuffer, and a Buffer may be a slice of a shared one.
    const module = wabt.readWasm(new Uint8Array(Buffer.from(m[1]!, "base64")), { simd: true });
    return module.toText({});
  });
}

test("reverse mode's elementwise loops run in pairs; the forward sweep's sums do not", async () => {
  const [gradientModule] = await modulesOf({
    "main.ts": `import { gradient } from "nabla";
${DOT.replace("export function f", "function dot")}
export const g = gradient(dot, { backend: "wasm" });
`,
  });
  // The backward sweep's loop, \`da[i] += s * b[i]; db[i] += s * a[i]\`: two paired stores.
  assert.equal(gradientModule!.match(/v128\.store/g)?.length, 2, gradientModule);
  const [primal] = await modulesOf({
    "main.ts": `/** @backend wasm */
${DOT}
`,
  });
  assert.doesNotMatch(primal!, /v128|f64x2/, "a sum carried from one iteration to the next");
});

test("loops whose iterations touch other elements, or round, are not paired", () => {
  const cases = {
    // Reads the next element: iteration i + 1's write would come before i's read.
    shifted: `export function f(a: Float64Array, out: Float64Array): number {
  const r = new Float64Array(a.length);
  for (let i = 0; i < a.length - 1; i++) r[i] = a[i + 1] * 2;
  return r[0];
}`,
    // A Float32Array's stores round to float32.
    rounded: `export function f(a: Float64Array): number {
  const r = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) r[i] = a[i] * 3;
  return r[0];
}`,
    // A call (Math.exp) in the body.
    calls: `export function f(a: Float64Array): number {
  const r = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) r[i] = Math.exp(a[i]);
  return r[0];
}`,
    // A value carried from one iteration to the next.
    carries: `export function f(a: Float64Array): number {
  const r = new Float64Array(a.length);
  let prev = 1;
  for (let i = 0; i < a.length; i++) {
    r[i] = a[i] * prev;
    prev = a[i];
  }
  return r[0];
}`,
  };
  for (const [name, source] of Object.entries(cases))
    assert.deepEqual(pairedLoops(lower(source, "f")), [], name);
  const scaled = `export function f(a: Float64Array, k: number): number {
  const r = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) r[i] = (a[i] - k) / 2 + -a[i];
  return r[r.length - 1];
}`;
  assert.deepEqual(pairedLoops(lower(scaled, "f")), [["r"]], "the same loop without them is");
});

test("a sum of exps pairs where the module's exp is the engine's; a sum the lanes read or store does not", () => {
  const sum = `export function f(a: Float64Array, m: number): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.exp(a[i] - m);
  return s;
}`;
  assert.deepEqual(
    pairedLoops(lower(sum, "f"), true),
    [[]],
    "the exps in lanes, the sum lane by lane",
  );
  assert.deepEqual(pairedLoops(lower(sum, "f")), [], "the engine's exp: one number per call");
  const cases = {
    // Iteration i + 1's exp needs iteration i's sum.
    feedsLanes: `export function f(a: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.exp(a[i] - s);
  return s;
}`,
    // The running sum is stored: a lane of the store would need the sum of the lane before.
    stored: `export function f(a: Float64Array): number {
  const r = new Float64Array(a.length);
  let s = 0;
  for (let i = 0; i < a.length; i++) {
    r[i] = s;
    s += Math.exp(a[i]);
  }
  return r[0];
}`,
    // Two carried numbers that trade places: each next value is the other's, not a sum's.
    swapped: `export function f(a: Float64Array): number {
  let s = 0;
  let t = 1;
  for (let i = 0; i < a.length; i++) {
    const e = Math.exp(a[i]);
    const u = s;
    s = t + e;
    t = u;
  }
  return s + t;
}`,
    // A sum alone: pairing it saves nothing.
    alone: `export function f(a: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * 2;
  return s;
}`,
  };
  for (const [name, source] of Object.entries(cases))
    assert.deepEqual(pairedLoops(lower(source, "f"), true), [], name);
});

const lengths = [0, 1, 2, 3, 4, 5, 8, 9, 16, 17];
const vector = (n: number, seed: number) =>
  Float64Array.from({ length: n }, (_, i) => Math.sin(seed + 1.7 * i) * (1 + i / 3));

test("gradients through paired loops equal JavaScript's, checked two ways, at every length", async () => {
  await checkBackends(
    DOT,
    lengths.map((n) => [vector(n, 1), vector(n, 2)]),
  );
  // A weighted squared error: the backward sweep writes two adjoints and reads three arrays.
  await checkBackends(
    `export function f(pred: Float64Array, target: Float64Array, weights: Float64Array): number {
  let loss = 0;
  for (let i = 0; i < pred.length; i++) {
    const r = (pred[i] - target[i]) / 2;
    loss += weights[i] * r * r;
  }
  return loss;
}`,
    lengths.map((n) => [vector(n, 3), vector(n, 4), vector(n, 5)]),
  );
});

interface Programs {
  jsDir: (p: Float64Array[], c: Float64Array[], v: Float64Array[]) => Directions;
  wasmDir: (p: Float64Array[], c: Float64Array[], v: Float64Array[]) => Directions;
  jsAxpy: (a: Float64Array, b: Float64Array, s: number) => Float64Array;
  wasmAxpy: (a: Float64Array, b: Float64Array, s: number) => Float64Array;
  jsDot: (a: Float64Array, b: Float64Array) => [Float64Array, Float64Array];
  wasmDot: (a: Float64Array, b: Float64Array) => [Float64Array, Float64Array];
  wasmStats: { wasm: number; javascript: number };
}
interface Directions {
  gradient: Float64Array[];
  hessianVectorProduct: Float64Array[];
}

const sameBits = (wasm: ArrayLike<number>, js: ArrayLike<number>, what: string) => {
  assert.equal(wasm.length, js.length, what);
  for (let i = 0; i < js.length; i++)
    assert.ok(Object.is(wasm[i], js[i]), `${what}[${i}]: wasm ${wasm[i]}, JavaScript ${js[i]}`);
};

test("to the bit: kmeans' Newton step, an array read and written in one loop, one array given twice", async () => {
  const files = {
    "main.ts": `import { gradientAndHessianVectorProduct, gradient } from "nabla";
export { wasmStats } from "nabla";
${SQUARED_DISTANCE}
${kmeansCostSource("cost")}
export const jsDir = gradientAndHessianVectorProduct(cost, { wrt: 1 });
export const wasmDir = gradientAndHessianVectorProduct(cost, { wrt: 1, backend: "wasm" });

function axpy(a: Float64Array, b: Float64Array, s: number): Float64Array {
  const out = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = s * a[i] + b[i];
  for (let i = 0; i < a.length; i++) out[i] += out[i] * b[i] - a[i] / s;
  return out;
}
export const jsAxpy = axpy;
/** @backend wasm */
export function wasmAxpy(a: Float64Array, b: Float64Array, s: number): Float64Array {
  return axpy(a, b, s);
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
export const jsDot = gradient(dot);
export const wasmDot = gradient(dot, { backend: "wasm" });
`,
  };
  const compiled = compileFiles(files);
  assert.equal(compiled.diagnostics.length, 0, compiled.diagnostics.map((d) => d.message).join());
  const m = await loadProgram<Programs>(files);
  const before = { ...m.wasmStats };
  let calls = 0;
  for (const n of lengths) {
    const a = vector(n, 6);
    const b = vector(n, 7);
    sameBits(m.wasmAxpy(a, b, 0.3), m.jsAxpy(a, b, 0.3), `axpy, n = ${n}`);
    const [ja, jb] = m.jsDot(a, a);
    const [wa, wb] = m.wasmDot(a, a);
    sameBits(wa, ja, `d/da of a·a, n = ${n}`);
    sameBits(wb, jb, `d/db of a·a, n = ${n}`);
    calls += 2;
    for (const k of [1, 3]) {
      const points = [vector(n, 8), vector(n, 9), vector(n, 10)];
      const centroids = Array.from({ length: k }, (_, j) => vector(n, 11 + j));
      const ones = centroids.map((c) => new Float64Array(c.length).fill(1));
      const js = m.jsDir(points, centroids, ones);
      const wasm = m.wasmDir(points, centroids, ones);
      centroids.forEach((_, j) => {
        sameBits(wasm.gradient[j]!, js.gradient[j]!, `kmeans gradient, n = ${n}, k = ${k}`);
        sameBits(wasm.hessianVectorProduct[j]!, js.hessianVectorProduct[j]!, "kmeans HVP");
      });
      calls++;
    }
  }
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "calls that fell back");
  assert.equal(m.wasmStats.wasm - before.wasm, calls, "calls run in wasm");
});

test("loops counting down, comparisons and selects, and accesses at other offsets pair; one array written and read at two offsets does not", () => {
  const cases: Record<string, [string, string[][]]> = {
    // A reverse sweep's shape: from the top element down.
    down: [
      `export function f(a: Float64Array): number {
  const r = new Float64Array(a.length);
  for (let i = a.length - 1; i >= 0; i--) {
    const v = a[i];
    const small = 0.01 * v;
    r[i] = v > 0 ? v : small;
  }
  return r[0];
}`,
      [["r"]],
    ],
    // Read one below, written at the counter: two arrays, checked apart on entry.
    offsets: [
      `export function f(x: Float64Array, y: Float64Array, out: Float64Array): void {
  for (let i = 1; i < x.length; i++) out[i] = x[i] * y[i - 1];
}`,
      [["out"]],
    ],
    // A prefix sum: iteration i reads what iteration i - 1 wrote.
    recurrence: [
      `export function f(a: Float64Array): void {
  for (let i = 1; i < a.length; i++) a[i] = a[i] + a[i - 1];
}`,
      [],
    ],
  };
  for (const [name, [source, expected]] of Object.entries(cases))
    assert.deepEqual(pairedLoops(lower(source, "f")), expected, name);
});

test("to the bit: loops counting down, selects, other offsets, and the same array passed for two at different offsets", async () => {
  const files = {
    "main.ts": `import { gradient } from "nabla";
export { wasmStats } from "nabla";
function leaky(a: Float64Array): Float64Array {
  const r = new Float64Array(a.length);
  for (let i = a.length - 1; i >= 0; i--) {
    const v = a[i];
    const small = 0.01 * v;
    r[i] = v > 0 ? v : small;
  }
  return r;
}
function shiftedProduct(x: Float64Array, y: Float64Array, out: Float64Array): void {
  if (x.length === 0) return;
  out[0] = x[0];
  for (let i = 1; i < x.length; i++) out[i] = x[i] * y[i - 1] + 1;
}
function chained(x: Float64Array): Float64Array {
  const y = Float64Array.from(x);
  shiftedProduct(x, y, y);
  return y;
}
function energy(x: Float64Array): number {
  const k = new Float64Array(x.length);
  shiftedProduct(x, x, k);
  const r = leaky(k);
  let s = 0;
  for (let i = 0; i < r.length; i++) s += r[i] * r[i];
  return s;
}
export const jsLeaky = leaky;
/** @backend wasm */
export function wasmLeaky(a: Float64Array): Float64Array {
  return leaky(a);
}
export const jsChained = chained;
/** @backend wasm */
export function wasmChained(x: Float64Array): Float64Array {
  return chained(x);
}
export const jsEnergy = gradient(energy);
export const wasmEnergy = gradient(energy, { backend: "wasm" });
export const jsShifted = shiftedProduct;
/** @backend wasm */
export function wasmShifted(x: Float64Array, y: Float64Array, out: Float64Array): void {
  shiftedProduct(x, y, out);
}
// From the top element down: the sum's additions in that order, the exps saved in it.
function softmaxDenominator(x: Float64Array): number {
  let s = 0;
  for (let i = x.length - 1; i >= 0; i--) s += Math.exp(x[i] * 0.5);
  return s;
}
export const jsDenominator = softmaxDenominator;
/** @backend wasm */
export function wasmDenominator(x: Float64Array): number {
  return softmaxDenominator(x);
}
// From the bottom up: its reverse sweep takes the saved exps from the top element down.
function upwardDenominator(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.exp(x[i] * 0.5);
  return s;
}
export const jsUpwardGradient = gradient(upwardDenominator);
export const wasmUpwardGradient = gradient(upwardDenominator, { backend: "wasm" });
// Two exps saved per element, taken back two per element by the reverse sweep.
function gaussianMix(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.exp(x[i]) * Math.exp(-x[i] * x[i]);
  return s;
}
export const jsMixGradient = gradient(gaussianMix);
export const wasmMixGradient = gradient(gaussianMix, { backend: "wasm" });
export const jsDenominatorGradient = gradient(softmaxDenominator);
export const wasmDenominatorGradient = gradient(softmaxDenominator, { backend: "wasm" });
`,
  };
  type F = (x: Float64Array, y?: Float64Array, out?: Float64Array) => Float64Array;
  const m = await loadProgram<Record<string, F> & { wasmStats: { javascript: number } }>(files);
  const before = m.wasmStats.javascript;
  for (const n of lengths) {
    const a = vector(n, 8);
    if (n > 3) a[2] = NaN;
    sameBits(m.wasmLeaky!(a), m.jsLeaky!(a), `leaky, n = ${n}`);
    // y given as the output too: iteration i reads what iteration i - 1 wrote.
    const x = vector(n, 9);
    sameBits(m.wasmChained!(x), m.jsChained!(x), `shifted product into its own input, n = ${n}`);
    sameBits(m.wasmEnergy!(x), m.jsEnergy!(x), `gradient, n = ${n}`);
    // The same array as y and as out, which only the call tells: the pairs check on entry.
    const [jsOut, wasmOut] = [Float64Array.from(x), Float64Array.from(x)];
    m.jsShifted!(x, jsOut, jsOut);
    m.wasmShifted!(x, wasmOut, wasmOut);
    sameBits(wasmOut, jsOut, `shifted product, y given as out, n = ${n}`);
    const spread = x.map((v, i) => v * (1 + i));
    sameBits(
      [m.wasmDenominator!(spread)] as never,
      [m.jsDenominator!(spread)] as never,
      `sum down, n = ${n}`,
    );
    sameBits(
      m.wasmDenominatorGradient!(spread),
      m.jsDenominatorGradient!(spread),
      `its gradient, n = ${n}`,
    );
    sameBits(
      m.wasmUpwardGradient!(spread),
      m.jsUpwardGradient!(spread),
      `the gradient of the sum upwards, n = ${n}`,
    );
    sameBits(m.wasmMixGradient!(x), m.jsMixGradient!(x), `two saves per element, n = ${n}`);
  }
  assert.equal(m.wasmStats.javascript, before, "calls that fell back");
});
