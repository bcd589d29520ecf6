import { test } from "node:test";
import assert from "node:assert/strict";
import { parseFunction } from "../src/compiler/ir/parser.js";
import { printFunction } from "../src/compiler/ir/printer.js";
import { isDifferentiable } from "../src/compiler/ir/type-system.js";
import { differential, gradient } from "../src/runtime/index.js";
import { assertClose, compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";

// Integer typed arrays (Int32Array, Uint8Array, Uint8ClampedArray…) in differentiated code,
// as TypeScript programs use them: labels, CSR structure, counts, masks, pixels. They are
// data: read into index computations, comparisons and arithmetic, made and written inside the
// function, even given differentiated numbers (which they truncate, wrap or clamp as
// JavaScript does: piecewise constant, so no derivative passes through them). Each program:
// nabla's value is the plain function's to the bit, the gradient agrees with central
// differences and with forward mode (a differential along a pseudo-random direction against
// the gradient's dot product with it).

type Arg = number | Float64Array | Int32Array | Uint8Array | Uint8ClampedArray | Arg[];
type Gradient = number | Float64Array | Gradient[];

interface Compiled {
  f: (...args: Arg[]) => number;
  vg: (...args: Arg[]) => { value: number; gradient: Gradient | Gradient[] };
  vd: (...args: Arg[]) => { value: number; differential: (...t: Gradient[]) => number };
}

/** The differentiated numbers of an argument, in order (number or arrays of Float64Arrays). */
function numbers(a: Arg | Gradient): number[] {
  if (typeof a === "number") return [a];
  if (a instanceof Float64Array) return Array.from(a);
  if (Array.isArray(a)) return a.flatMap(numbers);
  throw new Error("not differentiated");
}

/** A copy of `a` with its k-th number (in `numbers` order) moved by h. */
function moved(a: Arg, k: number, h: number): Arg {
  let seen = 0;
  const walk = (v: Arg): Arg => {
    if (typeof v === "number") return seen++ === k ? v + h : v;
    if (v instanceof Float64Array) return v.map((x) => (seen++ === k ? x + h : x));
    if (Array.isArray(v)) return v.map(walk);
    throw new Error("not differentiated");
  };
  return walk(a);
}

/** A tangent shaped like `a` with pseudo-random numbers. */
function direction(a: Arg, seed: { s: number }): Gradient {
  const next = () => ((seed.s = (seed.s * 16807) % 2147483647) / 2147483647) * 2 - 1;
  if (typeof a === "number") return next();
  if (a instanceof Float64Array) return a.map(() => next());
  if (Array.isArray(a)) return a.map((v) => direction(v, seed));
  throw new Error("not differentiated");
}

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

/**
 * Compiles `source` (which defines `f`) with valueWithGradient and valueWithDifferential for
 * `wrt`, and checks them at `args` as the file's comment says (and that it compiles without a
 * warning). `args` is made anew for each
 * call: the function may write into them.
 */
async function checkProgram(
  source: string,
  wrt: number[],
  args: () => Arg[],
  /** Nabla's value is the plain function's to the bit (else to 1e-14 relative). */
  exact = true,
): Promise<Compiled> {
  const files = {
    "main.ts": `import { valueWithDifferential, valueWithGradient } from "nabla";
${source}
export const vg = valueWithGradient(f, { wrt: [${wrt.join(", ")}] });
export const vd = valueWithDifferential(f, { wrt: [${wrt.join(", ")}] });
`,
  };
  // No diagnostic: in particular no NABLA201 for values stored into an integer array.
  assert.equal(diagnosticsText(compileFiles(files)), "", "diagnostics");
  const m = await loadProgram<Compiled>(files);
  const plain = m.f(...args());
  const { value, gradient } = m.vg(...args());
  if (exact) assert.equal(value, plain, "value: the plain function's");
  else assertClose(value, plain, 1e-14, "value: the plain function's");
  // One differentiated argument: its gradient; several: one per argument.
  const grads = wrt.length === 1 ? [gradient as Gradient] : (gradient as Gradient[]);
  wrt.forEach((p, w) => {
    const g = numbers(grads[w]!);
    g.forEach((gk, k) => {
      const x = numbers(args()[p]!)[k]!;
      const h = 1e-6 * Math.max(1, Math.abs(x));
      const at = (step: number) => {
        const a = args();
        a[p] = moved(a[p]!, k, step);
        return m.f(...a);
      };
      const fd = (at(h) - at(-h)) / (2 * h);
      assertClose(gk, fd, 1e-6, `∂f/∂(argument ${p}, number ${k}), finite differences`);
    });
  });
  const seed = { s: 12345 };
  const tangents = wrt.map((p) => direction(args()[p]!, seed));
  const forward = m.vd(...args());
  if (exact) assert.equal(forward.value, plain, "forward mode's value");
  else assertClose(forward.value, plain, 1e-14, "forward mode's value");
  const expected = wrt.reduce((s, _, w) => s + dot(numbers(grads[w]!), numbers(tangents[w]!)), 0);
  assertClose(forward.differential(...tangents), expected, 1e-10, "forward against reverse mode");
  return m;
}

const f64 = (...xs: number[]) => Float64Array.from(xs);

const CLASS_LOSS = `export function f(weights: Float64Array[], features: Float64Array[], labels: Uint8Array): number {
  let loss = 0;
  for (let i = 0; i < features.length; i++) {
    const w = weights[labels[i]];
    let s = 0;
    for (let j = 0; j < w.length; j++) s += w[j] * features[i][j];
    loss += (s - 1) ** 2;
  }
  return loss;
}`;

const classArgs = (): Arg[] => [
  [f64(0.3, -0.2, 0.5), f64(-0.4, 0.1, 0.9), f64(0.7, 0.6, -0.3)],
  [f64(1, 2, -1), f64(0.5, -1, 2), f64(-2, 0.3, 1), f64(0.1, 0.2, 0.3)],
  Uint8Array.of(2, 0, 2, 1),
];

test("a class loss whose weights row is chosen by a Uint8Array label: gradient wrt the weights", async () => {
  await checkProgram(CLASS_LOSS, [0], classArgs);
  // With respect to the features too, and by default (every parameter with a tangent: not labels).
  await checkProgram(CLASS_LOSS, [0, 1], classArgs);
});

test("a CSR sparse matrix-vector product with Int32Array rows and cols: gradient wrt vals and x", async () => {
  const source = `export function f(vals: Float64Array, x: Float64Array, rows: Int32Array, cols: Int32Array): number {
  const n = rows.length - 1;
  const y = new Float64Array(n);
  for (let r = 0; r < n; r++) {
    for (let k = rows[r]; k < rows[r + 1]; k++) {
      y[r] += vals[k] * x[cols[k]];
    }
  }
  let s = 0;
  for (let r = 0; r < n; r++) s += Math.sin(y[r]) * y[r];
  return s;
}`;
  // [[1.5, 0, -2], [0, 0.5, 0], [0.3, 0.7, 1.1]]
  const args = (): Arg[] => [
    f64(1.5, -2, 0.5, 0.3, 0.7, 1.1),
    f64(0.4, -0.9, 1.3),
    Int32Array.of(0, 2, 3, 6),
    Int32Array.of(0, 2, 1, 0, 1, 2),
  ];
  await checkProgram(source, [0, 1], args);
});

test("a CSR matrix as an object with Int32Array fields: its gradient holds only vals", async () => {
  const m = await checkProgram(
    `interface Csr {
  rows: Int32Array;
  cols: Int32Array;
  vals: Float64Array;
}
function multiply(a: Csr, x: Float64Array): Float64Array {
  const y = new Float64Array(a.rows.length - 1);
  for (let r = 0; r < y.length; r++)
    for (let k = a.rows[r]; k < a.rows[r + 1]; k++) y[r] += a.vals[k] * x[a.cols[k]];
  return y;
}
export function f(vals: Float64Array, x: Float64Array): number {
  const a: Csr = { rows: Int32Array.of(0, 2, 3), cols: Int32Array.from([1, 0, 1]), vals };
  const y = multiply(a, x);
  return y[0] * y[1] + Math.exp(y[1]);
}
export const gradientOfMatrix = valueWithGradient((a: Csr, x: Float64Array) => multiply(a, x)[0] ** 2);`,
    [0, 1],
    () => [f64(0.5, -1.2, 0.8), f64(0.3, 0.9)],
  );
  const a = { rows: Int32Array.of(0, 1), cols: Int32Array.of(1), vals: f64(3) };
  const { gradient } = (
    m as unknown as {
      gradientOfMatrix: (a: object, x: Float64Array) => { gradient: [object, Float64Array] };
    }
  ).gradientOfMatrix(a, f64(5, 2));
  assert.deepEqual(Object.keys(gradient[0]), ["vals"], "the tangent of a Csr has only vals");
  assertClose((gradient[0] as { vals: Float64Array }).vals[0]!, 2 * 6 * 2, 1e-15, "∂/∂vals");
  assert.deepEqual(Array.from(gradient[1]), [0, 2 * 6 * 3], "∂/∂x");
});

test("a histogram-weighted loss: counts in an Int32Array made inside, bucketed by Math.floor of x", async () => {
  const source = `export function f(x: Float64Array, k: number): number {
  const counts = new Int32Array(k);
  const bucket = new Int32Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const b = Math.min(k - 1, Math.max(0, Math.floor(x[i] * k)));
    bucket[i] = b;
    counts[b]++;
  }
  let loss = 0;
  for (let i = 0; i < x.length; i++) loss += (x[i] * x[i]) / counts[bucket[i]];
  return loss;
}`;
  await checkProgram(source, [0], () => [f64(0.12, 0.47, 0.15, 0.93, 0.41, 0.44), 4]);
});

test("counts read while they grow, in the same loop (reverse mode needs each count as it was)", async () => {
  const source = `export function f(x: Float64Array, labels: Int32Array): number {
  const seen = new Int32Array(3);
  let loss = 0;
  for (let i = 0; i < x.length; i++) {
    seen[labels[i]] += 1;
    loss += Math.sin(x[i]) / seen[labels[i]] + x[i] * seen[0];
  }
  return loss;
}`;
  await checkProgram(source, [0], () => [
    f64(0.3, 1.1, -0.7, 2.2, 0.5),
    Int32Array.of(0, 2, 0, 1, 2),
  ]);
});

test("a Uint8Array mask multiplied into differentiated numbers, and tested as a condition", async () => {
  const source = `export function f(x: Float64Array, mask: Uint8Array, y: number): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    s += x[i] * mask[i] * x[i];
    if (mask[i] === 0) s += y * x[i];
    else if (mask[i] > 1) s -= Math.cos(x[i] * y);
  }
  return s;
}`;
  await checkProgram(source, [0, 2], () => [
    f64(0.5, -1.5, 2, 0.25),
    Uint8Array.of(1, 0, 3, 1),
    0.7,
  ]);
});

test("a differentiated value stored into a Uint8ClampedArray and read back: clamped and rounded as JavaScript does, derivative zero", async () => {
  const source = `export function f(x: Float64Array): number {
  const pixels = new Uint8ClampedArray(x.length);
  for (let i = 0; i < x.length; i++) pixels[i] = x[i];
  let s = 0;
  for (let i = 0; i < x.length; i++) s += pixels[i] * x[i];
  return s;
}`;
  const x = f64(3.3, 200.7, 300, -5, 17.2);
  const m = await checkProgram(source, [0], () => [x]);
  // The gradient is exactly the stored pixels: nothing passes through the store.
  const { gradient } = m.vg(x);
  assert.deepEqual(Array.from(gradient as Float64Array), [3, 201, 255, 0, 17]);
});

test("differentiated values stored into Int32Array, Int8Array and Uint16Array wrap as ToInt32 and friends; Math.floor into an index array", async () => {
  // Each stored value is a staircase of unit steps, which central differences cannot see at
  // this scale, so the program reads them where they are flat: as conditions, and where the
  // steps are wide (whole units of x). Their wrapping decides the branches.
  const source = `export function f(x: Float64Array): number {
  const wide = new Int32Array(x.length);
  const narrow = new Int8Array(x.length);
  const small = new Uint16Array(x.length);
  const idx = new Int32Array(x.length);
  for (let i = 0; i < x.length; i++) {
    wide[i] = x[i] * 1e9;
    narrow[i] = x[i] * 100;
    small[i] = -x[i] * 1000;
    idx[i] = Math.floor(x[i] * 10);
  }
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    s += wide[i] < 0 ? x[i] : 2 * x[i] * x[i];
    s += narrow[i] < 0 ? Math.sin(x[i]) : x[i] / 3;
    s += small[i] > 32768 ? x[i] ** 3 : -x[i];
    s += idx[i] * x[i] + x[((idx[i] % x.length) + x.length) % x.length] ** 2;
  }
  return s;
}`;
  // 2.5371e9 wraps to a negative Int32, 253.71 to an Int8's -3, -161.23 to 95; -2537.1 is
  // 63000 as a Uint16.
  const m = await checkProgram(source, [0], () => [f64(2.5371, 0.3719, -1.6123, 0.9347)]);
  const x = f64(2.5371, 0.3719, -1.6123, 0.9347);
  const { gradient } = m.vg(x);
  const expected = [
    1 + Math.cos(x[0]!) + 3 * x[0]! ** 2 + 25,
    4 * x[1]! + 1 / 3 + 3 * x[1]! ** 2 + 3,
    1 + 1 / 3 - 1 - 17,
    4 * x[3]! + 1 / 3 + 3 * x[3]! ** 2 + 9,
  ];
  // x[idx mod 4]: 25 → x1, 3 → x3, -17 → x3, 9 → x1.
  expected[1]! += 2 * x[1]! * 2;
  expected[3]! += 2 * x[3]! * 2;
  (gradient as Float64Array).forEach((g, i) =>
    assertClose(g, expected[i]!, 1e-12, `∂f/∂x${i}, by hand`),
  );
});

test("an Int32Array label per sample inside an inner gradient, under an outer derivative (nested operators)", async () => {
  await checkProgram(
    `import { gradient } from "nabla";
function loss(w: Float64Array, labels: Int32Array, scale: number): number {
  let s = 0;
  for (let i = 0; i < labels.length; i++) s += scale * (w[labels[i]] - i) ** 2 * w[i];
  return s;
}
export function f(t: number, u: number): number {
  const labels = Int32Array.of(1, 0, 2, 1);
  const g = gradient(loss, { wrt: 0 })(Float64Array.of(t, u, t * u, 1), labels, t);
  return g[0] * g[1] + g[2];
}`,
    [0, 1],
    () => [0.6, -1.3],
    // The plain function runs the inner gradient as compiled; under the outer operator it is
    // differentiated code of its own, whose sums may round differently.
    false,
  );
});

test("an integer array a callee writes, and one made by Int32Array.from with a callback", async () => {
  await checkProgram(
    `function argmaxInto(rows: Float64Array[], out: Uint32Array): void {
  for (let r = 0; r < rows.length; r++) {
    let best = 0;
    for (let j = 1; j < rows[r].length; j++) if (rows[r][j] > rows[r][best]) best = j;
    out[r] = best;
  }
}
export function f(rows: Float64Array[], order: Int16Array): number {
  const winners = new Uint32Array(rows.length);
  argmaxInto(rows, winners);
  const shifted = Int32Array.from(order, (v) => v + 1);
  let s = 0;
  for (let r = 0; r < rows.length; r++) s += rows[r][winners[r]] * shifted[r] + rows[order[r]][0];
  return s;
}`,
    [0],
    () => [[f64(0.3, 0.9, -0.1), f64(2, -1, 0.5)], Int16Array.of(1, 0) as unknown as Arg],
  );
});

test("differentiating with respect to an integer typed array: NABLA106 says it has no derivative", () => {
  const result = compileFiles({
    "main.ts": `import { gradient } from "nabla";

export function masked(x: Float64Array, mask: Uint8Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i] * mask[i];
  return s;
}
export const g = gradient(masked, { wrt: 1 });
`,
  });
  assert.equal(
    diagnosticsText(result),
    `main.ts:3:41: error NABLA106: cannot differentiate 'masked' with respect to parameter 'mask', an integer typed array (Uint8Array): its elements are integers, which have no derivative (a number stored into one is rounded to an integer)
  2 |
> 3 | export function masked(x: Float64Array, mask: Uint8Array): number {
    |                                         ^^^^^^^^^^^^^^^^
help: an integer typed array is data the function reads (labels, indices, counts, masks); to differentiate with respect to its values, pass them as a Float64Array
main.ts:8:18: note: when differentiating 'masked' for 'gradient'
> 8 | export const g = gradient(masked, { wrt: 1 });
    |                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  );
});

test("backend wasm: a function reading an integer typed array runs as WebAssembly (test/wasm-integer-arrays.test.ts), and so does 'auto'", async () => {
  const source = `import { gradient } from "nabla";
export { wasmStats } from "nabla";

${CLASS_LOSS}
export const g = gradient(f, { wrt: 0, backend: "wasm" });
export const auto = gradient(f, { wrt: 0, backend: "auto" });
export const js = gradient(f, { wrt: 0 });
`;
  const compiled = compileFiles({ "main.ts": source });
  assert.equal(diagnosticsText(compiled), "");
  const code = [...compiled.outputs.values()][0]!.code;
  assert.match(code, /gradient\(f\) at main\.ts:14:18: WebAssembly/);
  type G = (...args: Arg[]) => Float64Array[];
  const m = await loadProgram<{ g: G; auto: G; js: G; wasmStats: { wasm: number } }>({
    "main.ts": source,
  });
  const expected = m.js(...classArgs());
  const before = m.wasmStats.wasm;
  assert.deepEqual(m.g(...classArgs()), expected, "the wasm request's gradient is JavaScript's");
  assert.equal(m.wasmStats.wasm - before, 1, "run in wasm");
  assert.deepEqual(m.auto(...classArgs()), expected, "auto's gradient is JavaScript's");
});

test("backend wasm: an Int32Array made inside and an Int32Array field are covered (no NABLA202)", () => {
  const result = compileFiles({
    "main.ts": `import { gradient } from "nabla";

interface Samples {
  xs: Float64Array;
  labels: Int32Array;
}
export function weighted(w: number, d: Samples): number {
  let s = 0;
  for (let i = 0; i < d.xs.length; i++) s += w * d.xs[i] * d.labels[i];
  return s;
}
export function spread(x: Float64Array): number {
  const counts = new Int32Array(4);
  for (let i = 0; i < x.length; i++) counts[Math.floor(x[i]) & 3]++;
  return x[0] * counts[0];
}
export const g = gradient(weighted, { wrt: 0, backend: "wasm" });
export const h = gradient(spread, { backend: "wasm" });
`,
  });
  assert.equal(diagnosticsText(result), "");
});

test("a function returning an integer typed array has no derivative: NABLA106 says so", () => {
  const result = compileFiles({
    "main.ts": `import { derivative } from "nabla";

export function bucket(x: number): Int32Array {
  const out = new Int32Array(1);
  out[0] = x * 4;
  return out;
}
export const d = derivative(bucket);
`,
  });
  assert.equal(
    diagnosticsText(result),
    `main.ts:3:8: error NABLA106: cannot differentiate 'bucket': it returns an Int32Array, which has no derivative (numbers, arrays and objects of numbers do)
  2 |
> 3 | export function bucket(x: number): Int32Array {
    |        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
main.ts:8:18: note: when differentiating 'bucket' for 'derivative'
> 8 | export const d = derivative(bucket);
    |                  ^^^^^^^^^^^^^^^^^^

1 error`,
  );
});

test("a result that depends on x only through an Int32Array store has derivative zero in both modes, and NABLA201 says so", async () => {
  const files = {
    "main.ts": `import { derivative, gradient } from "nabla";

export function stepped(x: number): number {
  const buf = new Int32Array(1);
  buf[0] = x * 3;
  return buf[0] / 3;
}
export const d = derivative(stepped);
export const g = gradient(stepped);
`,
  };
  assert.equal(
    diagnosticsText(compileFiles(files)),
    `main.ts:3:8: warning NABLA201: the result of 'stepped' does not depend on the differentiated arguments, so its derivative is always zero
  2 |
> 3 | export function stepped(x: number): number {
    |        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
main.ts:8:18: note: when differentiating 'stepped' for 'derivative'
> 8 | export const d = derivative(stepped);
    |                  ^^^^^^^^^^^^^^^^^^^

1 warning`,
  );
  const m = await loadProgram<{ d: (x: number) => number; g: (x: number) => number }>(files);
  assert.equal(m.d(2.9), 0, "forward mode");
  assert.equal(m.g(2.9), 0, "reverse mode");
});

test("integer arrays through for…of, map, slice, sort without a comparator (by value, as typed arrays sort), fill, searches, reduce, spreads and helpers over several kinds of array", async () => {
  await checkProgram(
    `function total(v: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i];
  return s;
}
function weightedSum(a: number[] | Float64Array, b: number[] | Int32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
export function f(x: Float64Array, labels: Int32Array): number {
  let s = 0;
  for (const l of labels) s += x[l];
  const doubled = labels.map((l) => l * 2);
  const scaled = labels.map((l, i) => l * x[i]);
  const sorted = labels.slice().sort();
  const sortedCopy = Int32Array.of(12, -3, 9, 100).toSorted();
  const copy = new Int32Array([x[0] * 10, x[1] * 10]);
  const filled = new Uint8Array(3).fill(x[2] * 40);
  s += total(labels) * x[0] + total(x) + weightedSum(x, labels);
  s += doubled[1] * x[1] + scaled[2] * x[2] + sorted[0] * x[0] + sortedCopy[1] * x[1];
  s += copy[0] + copy[1] * x[1] + filled[2] * x[2];
  s += labels.indexOf(2) * x[0] + (labels.includes(3) ? x[1] : 0) + Math.max(...labels) * x[2];
  s += labels.reduce((a, b) => a + b, 0) * x[1];
  const plain = [...labels];
  s += plain[0] * x[2];
  return s;
}`,
    [0],
    () => [f64(0.37, 1.23, 2.11), Int32Array.of(2, 0, 1)],
  );
});

test("hessian, pullback called twice and checkpoint of functions reading integer arrays", async () => {
  const m = await loadProgram<{
    f: (x: Float64Array, mask: Uint8Array, order: Int32Array) => number;
    g: (x: Float64Array, mask: Uint8Array, order: Int32Array) => Float64Array;
    h: (x: Float64Array, mask: Uint8Array, order: Int32Array) => Float64Array[];
    hv: (x: Float64Array, mask: Uint8Array, order: Int32Array, v: Float64Array) => Float64Array;
    pb: (x: Float64Array, mask: Uint8Array, order: Int32Array) => (seed: number) => Float64Array;
    viaCheckpoint: (x: Float64Array, mask: Uint8Array, order: Int32Array) => Float64Array;
  }>({
    "main.ts": `import { checkpoint, gradient, hessian, hessianVectorProduct, pullback } from "nabla";

export function f(x: Float64Array, mask: Uint8Array, order: Int32Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += mask[i] * Math.sin(x[order[i]] * x[i]);
  return s;
}
function outer(x: Float64Array, mask: Uint8Array, order: Int32Array): number {
  return checkpoint(f)(x, mask, order) * 2;
}
export const g = gradient(f);
export const h = hessian(f);
export const hv = hessianVectorProduct(f);
export const pb = pullback(f);
export const viaCheckpoint = gradient(outer);
`,
  });
  const x = f64(0.4, -1.1, 0.9);
  const mask = Uint8Array.of(1, 0, 2);
  const order = Int32Array.of(2, 2, 0);
  const g = m.g(x, mask, order);
  const h = m.h(x, mask, order);
  // Each Hessian row against central differences of the gradient, and against the
  // Hessian-vector product (forward over reverse) along each axis.
  for (let i = 0; i < 3; i++) {
    const step = 1e-6;
    const up = m.g(
      x.map((v, k) => (k === i ? v + step : v)),
      mask,
      order,
    );
    const down = m.g(
      x.map((v, k) => (k === i ? v - step : v)),
      mask,
      order,
    );
    const e = f64(0, 0, 0);
    e[i] = 1;
    const hv = m.hv(x, mask, order, e);
    const fd =
      (m.f(
        x.map((v, k) => (k === i ? v + step : v)),
        mask,
        order,
      ) -
        m.f(
          x.map((v, k) => (k === i ? v - step : v)),
          mask,
          order,
        )) /
      (2 * step);
    assertClose(g[i]!, fd, 1e-6, `∂f/∂x${i}, differences`);
    for (let j = 0; j < 3; j++) {
      assertClose(h[i]![j]!, (up[j]! - down[j]!) / (2 * step), 1e-6, `H[${i}][${j}], differences`);
      assertClose(h[i]![j]!, hv[j]!, 1e-12, `H[${i}][${j}], Hessian-vector product`);
    }
  }
  const back = m.pb(x, mask, order);
  const first = back(1);
  const second = back(3);
  for (let j = 0; j < 3; j++) {
    assertClose(first[j]!, g[j]!, 1e-15, `pullback ∂/∂x${j}`);
    assertClose(second[j]!, 3 * g[j]!, 1e-15, `pullback again ∂/∂x${j}`);
    assertClose(m.viaCheckpoint(x, mask, order)[j]!, 2 * g[j]!, 1e-15, `checkpoint ∂/∂x${j}`);
  }
});

test("the run-time fallback (no build step: this file is compiled by tsc) takes integer typed arrays", () => {
  const loss = (w: Float64Array, labels: Int32Array, mask: Uint8ClampedArray) => {
    let s = 0;
    for (let i = 0; i < labels.length; i++) s += mask[i]! * (w[labels[i]!]! - i) ** 2;
    return s;
  };
  const w = f64(0.5, -1, 2);
  const labels = Int32Array.of(2, 0, 2, 1);
  const mask = Uint8ClampedArray.of(1, 3, 0, 2);
  const g = gradient(loss)(w, labels, mask);
  const forward = differential(loss)(w, labels, mask);
  for (let j = 0; j < 3; j++) {
    const step = 1e-6;
    const up = w.map((v, k) => (k === j ? v + step : v));
    const down = w.map((v, k) => (k === j ? v - step : v));
    const fd = (loss(up, labels, mask) - loss(down, labels, mask)) / (2 * step);
    assertClose(g[j]!, fd, 1e-6, `∂/∂w${j}, differences`);
    const e = f64(0, 0, 0);
    e[j] = 1;
    assertClose(forward(e), g[j]!, 1e-12, `∂/∂w${j}, forward mode`);
  }
});

test("an Int32Array argument the function updates in a loop while reading it (reverse mode needs each value as it was); left as JavaScript leaves it", async () => {
  const source = `export function f(w: Float64Array, state: Int32Array): number {
  let s = 0;
  for (let t = 0; t < 3; t++) {
    for (let i = 0; i < w.length; i++) {
      s += Math.sin(w[i] * state[i]);
      state[i] = (state[i] * 3 + 1) % 7;
    }
  }
  return s;
}`;
  const m = await checkProgram(source, [0], () => [f64(0.3, -0.7, 1.1), Int32Array.of(1, 2, 5)]);
  const state = Int32Array.of(1, 2, 5);
  m.vg(f64(0.3, -0.7, 1.1), state);
  assert.deepEqual(Array.from(state), [5, 4, 1], "the state after the call");
});

test("optional integer arrays: a field of an object and a parameter, present or absent", async () => {
  const source = `interface Batch {
  xs: Float64Array;
  weights?: Uint8Array;
}
export function f(w: number, b: Batch, mask?: Int32Array): number {
  let s = 0;
  for (let i = 0; i < b.xs.length; i++) {
    const k = b.weights ? b.weights[i] : 1;
    const m = mask?.[i] ?? 1;
    s += k * m * Math.sin(w * b.xs[i]);
  }
  return s;
}`;
  await checkProgram(source, [0], () => [0.5, { xs: f64(1, 2) } as unknown as Arg]);
  await checkProgram(source, [0], () => [
    0.5,
    { xs: f64(1, 2), weights: Uint8Array.of(2, 3) } as unknown as Arg,
    Int32Array.of(1, 0),
  ]);
});

test("k-means assignment into an Int32Array (argmin stored), an embedding lookup by Uint16Array token ids, a segment sum by Int32Array ids, a convolution over Uint8ClampedArray pixels", async () => {
  await checkProgram(
    `export function f(centers: Float64Array[], points: Float64Array[]): number {
  const assignment = new Int32Array(points.length);
  for (let p = 0; p < points.length; p++) {
    let best = Infinity;
    for (let c = 0; c < centers.length; c++) {
      let d = 0;
      for (let j = 0; j < centers[c].length; j++) d += (points[p][j] - centers[c][j]) ** 2;
      if (d < best) {
        best = d;
        assignment[p] = c;
      }
    }
  }
  let cost = 0;
  for (let p = 0; p < points.length; p++) {
    const c = centers[assignment[p]];
    for (let j = 0; j < c.length; j++) cost += (points[p][j] - c[j]) ** 2;
  }
  return cost;
}`,
    [0, 1],
    () => [
      [f64(0, 0), f64(2, 1)],
      [f64(0.2, -0.1), f64(1.8, 1.3), f64(2.5, 0.4), f64(-0.3, 0.6)],
    ],
  );
  await checkProgram(
    `export function f(table: Float64Array[], tokens: Uint16Array, target: Float64Array): number {
  const mean = new Float64Array(target.length);
  for (const t of tokens) for (let j = 0; j < mean.length; j++) mean[j] += table[t][j] / tokens.length;
  let loss = 0;
  for (let j = 0; j < mean.length; j++) loss += (Math.tanh(mean[j]) - target[j]) ** 2;
  return loss;
}`,
    [0, 2],
    () => [
      [f64(0.1, 0.2), f64(-0.5, 0.3), f64(0.9, -0.4)],
      Uint16Array.of(2, 0, 2, 1) as unknown as Arg,
      f64(0.3, -0.2),
    ],
  );
  await checkProgram(
    `export function f(values: Float64Array, segments: Int32Array, weights: Float64Array): number {
  const sums = new Float64Array(weights.length);
  for (let i = 0; i < values.length; i++) sums[segments[i]] += values[i];
  let s = 0;
  for (let k = 0; k < sums.length; k++) s += weights[k] * Math.exp(sums[k] / 4);
  return s;
}`,
    [0, 2],
    () => [f64(0.5, -1, 2, 0.25, 1.5), Int32Array.of(0, 2, 0, 1, 2), f64(1, -2, 0.5)],
  );
  await checkProgram(
    `export function f(kernel: Float64Array, image: Uint8ClampedArray, width: number): number {
  const height = image.length / width;
  let energy = 0;
  for (let y = 1; y < height - 1; y++)
    for (let x = 1; x < width - 1; x++) {
      let v = 0;
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++)
          v += kernel[(dy + 1) * 3 + dx + 1] * (image[(y + dy) * width + x + dx] / 255);
      energy += v * v;
    }
  return energy;
}`,
    [0],
    () => [
      f64(0.1, -0.2, 0.1, 0.3, 0.5, -0.1, 0, 0.2, -0.3),
      Uint8ClampedArray.from({ length: 20 }, (_, i) => (i * 53) % 256),
      5,
    ],
  );
});

test("a class with Int32Array fields (its gradient holds only its Float64Array), a module-level Int32Array table, an Int32Array[] of groups", async () => {
  const m = await checkProgram(
    `class Graph {
  constructor(
    public from: Int32Array,
    public to: Int32Array,
    public stiffness: Float64Array,
  ) {}
  energy(pos: Float64Array): number {
    let e = 0;
    for (let k = 0; k < this.from.length; k++) {
      const d = pos[this.from[k]] - pos[this.to[k]] - 1;
      e += this.stiffness[k] * d * d;
    }
    return e;
  }
}
const PERMUTATION = Int32Array.of(1, 2, 0);
function groupEnergy(x: Float64Array, groups: Int32Array[]): number {
  let s = 0;
  for (const g of groups) {
    let m = 0;
    for (const i of g) m += x[i];
    s += m * m;
  }
  return s;
}
export function f(pos: Float64Array, stiffness: Float64Array): number {
  const graph = new Graph(Int32Array.of(0, 1), Int32Array.of(1, 2), stiffness);
  const permuted = Array.from(PERMUTATION, (p) => pos[p] * pos[p]);
  return graph.energy(pos) + permuted[0] * permuted[2] + groupEnergy(pos, [Int32Array.of(0, 1), Int32Array.of(2)]);
}
export const ofGraph = valueWithGradient((g: Graph, pos: Float64Array) => g.energy(pos));
export function makeGraph(): Graph {
  return new Graph(Int32Array.of(0, 1), Int32Array.of(1, 2), Float64Array.of(1, 2));
}`,
    [0, 1],
    () => [f64(0, 0.5, 3), f64(1, 2)],
  );
  const { ofGraph, makeGraph } = m as unknown as {
    ofGraph: (g: object, pos: Float64Array) => { gradient: [object, Float64Array] };
    makeGraph: () => object;
  };
  const [dg, dpos] = ofGraph(makeGraph(), f64(0, 0.5, 3)).gradient;
  assert.deepEqual(Object.keys(dg), ["stiffness"], "a Graph's gradient has only its stiffness");
  assert.deepEqual(Array.from((dg as { stiffness: Float64Array }).stiffness), [2.25, 12.25]);
  assert.deepEqual(Array.from(dpos), [-3, -11, 14]);
});

test("the IR prints and parses integer typed arrays by name; they are not differentiable", () => {
  const text = `func @f(%x.0: Float64Array, %idx.1: Int32Array, %px.2: Uint8ClampedArray[]) -> number {
  %3: number = const 0
  %4: number = index %idx.1, %3
  %5: number = index %x.0, %4
  %6: Uint8ClampedArray = index %px.2, %3
  setIndex %6, %3, %5
  return %5
}`;
  const fn = parseFunction(text);
  assert.equal(printFunction(fn), text);
  assert.deepEqual(
    fn.params.map((p) => isDifferentiable(p.type)),
    [true, false, false],
  );
});

test("'.filter' of an integer typed array makes one of its kind; '.push' on one is NABLA101, naming it with its article", async () => {
  const m = await loadProgram<{
    g: (x: Float64Array, labels: Int32Array) => Float64Array;
    kinds: (labels: Int32Array) => boolean;
  }>({
    "main.ts": `import { gradient } from "nabla";

export function f(x: Float64Array, labels: Int32Array): number {
  const kept = labels.filter((l) => l > 0);
  return x[kept[0]] * kept.length;
}
export const g = gradient(f);
export const kinds = (labels: Int32Array) => labels.filter((l) => l > 0) instanceof Int32Array;
`,
  });
  const labels = Int32Array.from([-1, 2, 0, 1]);
  assert.deepEqual(Array.from(m.g(Float64Array.from([5, 6, 7, 8]), labels)), [0, 0, 2, 0]);
  assert.equal(m.kinds(labels), true);
  const result = compileFiles({
    "main.ts": `import { gradient } from "nabla";

export function f(x: Float64Array, labels: Int32Array): number {
  labels.push(1);
  return x[labels[0]];
}
export const g = gradient(f);
`,
  });
  assert.match(
    diagnosticsText(result),
    /^main\.ts:4:3: error NABLA101: '\.push' needs a plain array, not an Int32Array\n/,
  );
});
