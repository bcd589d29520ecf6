import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";
import type { Stats } from "./support/wasm-backends.js";

// Integer typed arrays (Int32Array, Uint8Array, Uint8ClampedArray…) in the WebAssembly
// backend, as data: arguments copied in, arrays made inside, element reads, stores converted
// exactly as JavaScript converts them (ToInt32 and friends wrap modulo 2^32, 2^16 or 2^8;
// NaN and ±Infinity become 0; a Uint8ClampedArray clamps and rounds half to even), `.length`,
// fields of objects and results. Every value is the JavaScript backend's to the bit (Object.is
// per element); derivatives through functions reading them are checked against central
// differences and forward mode against reverse mode, under backend "wasm", and every call is
// counted as run in wasm.

type Int =
  Int32Array | Uint32Array | Int16Array | Uint16Array | Int8Array | Uint8Array | Uint8ClampedArray;
type Arg = number | Float64Array | Int | Arg[] | { [field: string]: Arg };

const f64 = (...xs: number[]) => Float64Array.from(xs);

const isInt = (v: unknown): v is Int => ArrayBuffer.isView(v) && !(v instanceof Float64Array);

/** The differentiated numbers of an argument or gradient, in order: integer arrays are data. */
function numbers(v: Arg): number[] {
  if (typeof v === "number") return [v];
  if (v instanceof Float64Array) return Array.from(v);
  if (isInt(v)) return [];
  if (Array.isArray(v)) return v.flatMap(numbers);
  return Object.keys(v)
    .sort()
    .flatMap((k) => numbers(v[k]!));
}

/** A copy of `v` with its k-th differentiated number (in `numbers` order) moved by h. */
function moved(v: Arg, k: number, h: number): Arg {
  let seen = 0;
  const walk = (u: Arg): Arg => {
    if (typeof u === "number") return seen++ === k ? u + h : u;
    if (u instanceof Float64Array) return u.map((x) => (seen++ === k ? x + h : x));
    if (isInt(u)) return u.slice();
    if (Array.isArray(u)) return u.map(walk);
    return Object.fromEntries(
      Object.keys(u)
        .sort()
        .map((f) => [f, walk(u[f]!)]),
    );
  };
  return walk(v);
}

/** A tangent of `v` (its integer arrays have none) with pseudo-random numbers. */
function direction(v: Arg, seed: { s: number }): Arg {
  const next = () => ((seed.s = (seed.s * 16807) % 2147483647) / 2147483647) * 2 - 1;
  if (typeof v === "number") return next();
  if (v instanceof Float64Array) return v.map(() => next());
  if (Array.isArray(v)) return v.map((u) => direction(u, seed));
  if (isInt(v)) throw new Error("no tangent");
  return Object.fromEntries(
    Object.keys(v)
      .filter((f) => !isInt(v[f]))
      .sort()
      .map((f) => [f, direction(v[f]!, seed)]),
  );
}

function sameBits(actual: ArrayLike<number>, expected: ArrayLike<number>, what: string) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < expected.length; i++)
    assert.ok(
      Object.is(actual[i], expected[i]),
      `${what}[${i}]: wasm ${actual[i]}, JavaScript ${expected[i]}`,
    );
}

/** Both values alike: the same typed array kinds, objects' fields, every number to the bit. */
function sameValue(actual: unknown, expected: unknown, what: string): void {
  if (typeof expected === "number") return sameBits([actual as number], [expected], what);
  if (ArrayBuffer.isView(expected)) {
    assert.equal(
      (actual as object).constructor,
      expected.constructor,
      `${what}: ${expected.constructor.name}`,
    );
    return sameBits(actual as Int, expected as Int, what);
  }
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${what}: an array`);
    assert.equal(actual.length, expected.length, `${what}: length`);
    return expected.forEach((e, i) => sameValue(actual[i], e, `${what}[${i}]`));
  }
  const object = expected as Record<string, unknown>;
  assert.deepEqual(Object.keys(actual as object), Object.keys(object), `${what}: fields`);
  for (const k of Object.keys(object))
    sameValue((actual as Record<string, unknown>)[k], object[k], `${what}.${k}`);
}

interface Operators {
  vgJs: (...args: Arg[]) => { value: number; gradient: Arg };
  vgWasm: (...args: Arg[]) => { value: number; gradient: Arg };
  vdJs: (...args: Arg[]) => { value: number; differential: (...t: Arg[]) => number };
  vdWasm: (...args: Arg[]) => { value: number; differential: (...t: Arg[]) => number };
  wasmStats: Stats;
}

/** `f` (defined in `source`) differentiated with respect to `wrt`, by both backends. */
const operators = (source: string, wrt: number[]) => {
  const w = `wrt: [${wrt.join(", ")}]`;
  return {
    "main.ts": `import { valueWithGradient, valueWithDifferential } from "nabla";
export { wasmStats } from "nabla";
${source}
export const vgJs = valueWithGradient(f, { ${w} });
export const vgWasm = valueWithGradient(f, { ${w}, backend: "wasm" });
export const vdJs = valueWithDifferential(f, { ${w} });
export const vdWasm = valueWithDifferential(f, { ${w}, backend: "wasm" });
`,
  };
};

/** Asserts that both wasm operators of `files` were compiled to WebAssembly, without NABLA202. */
function assertCompiledToWasm(files: Record<string, string>): void {
  const compiled = compileFiles(files);
  assert.equal(diagnosticsText(compiled), "", "no diagnostic (no NABLA202)");
  const code = [...compiled.outputs.values()][0]!.code;
  assert.match(code, /valueWithGradient\(f\) at main\.ts:\d+:\d+: WebAssembly/);
  assert.match(code, /valueWithDifferential\(f\) at main\.ts:\d+:\d+: WebAssembly/);
}

/**
 * At each point (made anew per call: `f` may write what it makes from them): wasm's value,
 * gradient and differential are JavaScript's to the bit; the gradient agrees with central
 * differences, and forward mode (a differential along a pseudo-random direction) with the
 * gradient's dot product with it; every wasm call ran in wasm.
 */
async function checkDerivatives(source: string, wrt: number[], points: (() => Arg[])[]) {
  const files = operators(source, wrt);
  assertCompiledToWasm(files);
  const m = await loadProgram<Operators>(files);
  const before = { ...m.wasmStats };
  for (const args of points) {
    const js = m.vgJs(...args());
    const wasm = m.vgWasm(...args());
    sameBits([wasm.value], [js.value], "value");
    const gradients = (g: Arg) => (wrt.length === 1 ? [g] : (g as Arg[]));
    sameValue(gradients(wasm.gradient), gradients(js.gradient), "gradient");
    wrt.forEach((p, w) => {
      numbers(gradients(wasm.gradient)[w]!).forEach((g, k) => {
        const x = numbers(args()[p]!)[k]!;
        const h = 1e-6 * Math.max(1, Math.abs(x));
        const at = (step: number) => {
          const a = args();
          a[p] = moved(a[p]!, k, step);
          return m.vgJs(...a).value;
        };
        const fd = (at(h) - at(-h)) / (2 * h);
        assert.ok(
          Math.abs(g - fd) <= 1e-6 * Math.max(1, Math.abs(fd)),
          `∂f/∂(argument ${p}, number ${k}): wasm ${g}, central differences ${fd}`,
        );
      });
    });
    const seed = { s: 12345 };
    const tangents = wrt.map((p) => direction(args()[p]!, seed));
    const forwardJs = m.vdJs(...args());
    const forward = m.vdWasm(...args());
    sameBits([forward.value], [forwardJs.value], "forward mode's value");
    const t = forward.differential(...tangents);
    sameBits([t], [forwardJs.differential(...tangents)], "differential");
    const g = gradients(wasm.gradient);
    const along = wrt.reduce((s, _, w) => {
      const dx = numbers(tangents[w]!);
      return s + numbers(g[w]!).reduce((acc, gk, k) => acc + gk * dx[k]!, 0);
    }, 0);
    assert.ok(
      Math.abs(t - along) <= 1e-10 * Math.max(1, Math.abs(along)),
      `forward mode ${t} against reverse mode ${along}`,
    );
  }
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "calls that fell back");
  assert.equal(m.wasmStats.wasm - before.wasm, 3 * points.length, "calls run in wasm");
  return m;
}

/**
 * `body` as two functions, `wasm` tagged `@backend wasm` and `js` not, with `header` before
 * them; checks that `wasm` compiled to WebAssembly without a warning.
 */
async function primalTwins<T>(header: string, signature: string, body: string) {
  const files = {
    "main.ts": `export { wasmStats } from "nabla";
${header}
/** @backend wasm */
export function wasm${signature} ${body}
export function js${signature} ${body}
`,
  };
  const compiled = compileFiles(files);
  assert.equal(diagnosticsText(compiled), "", "no diagnostic (no NABLA202)");
  assert.match([...compiled.outputs.values()][0]!.code, /wasm \(@backend wasm\).*: WebAssembly/);
  return loadProgram<{ wasm: T; js: T; wasmStats: Stats }>(files);
}

/** Numbers at the edges of every conversion: wrapping, clamping, ties, NaN, infinities, -0. */
const EDGES = [
  NaN,
  Infinity,
  -Infinity,
  -0,
  0,
  5e-324,
  0.49999999999999994,
  0.5,
  1.5,
  2.5,
  -0.5,
  -1.5,
  -1,
  -3,
  -3.7,
  3.7,
  127,
  127.5,
  128,
  -128.5,
  -129,
  253.5,
  254.5,
  255,
  255.5,
  256,
  32767.5,
  32768,
  65535.9,
  65536,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31),
  -(2 ** 31) - 1,
  2 ** 32 - 0.5,
  2 ** 32,
  2 ** 32 + 5,
  -(2 ** 32) - 5.5,
  2 ** 53 + 2,
  2 ** 63,
  2 ** 64 + 2 ** 12,
  -(2 ** 70) - 2 ** 30,
  1e20,
  -1e20,
  1e300,
];

interface AllKinds {
  i32: Int32Array;
  u32: Uint32Array;
  i16: Int16Array;
  u16: Uint16Array;
  i8: Int8Array;
  u8: Uint8Array;
  u8c: Uint8ClampedArray;
}

const ALL_KINDS = `interface AllKinds {
  i32: Int32Array;
  u32: Uint32Array;
  i16: Int16Array;
  u16: Uint16Array;
  i8: Int8Array;
  u8: Uint8Array;
  u8c: Uint8ClampedArray;
}`;

test("stores into each integer array kind convert as JavaScript's: NaN, ±Infinity, -0, 2^31, 2^32 + 5, -1 into Uint8, 255.5/254.5/-3 into Uint8Clamped, 1e20…", async () => {
  const m = await primalTwins<(v: Float64Array) => AllKinds>(
    ALL_KINDS,
    "(v: Float64Array): AllKinds",
    `{
  const n = v.length;
  const i32 = new Int32Array(n);
  const u32 = new Uint32Array(n);
  const i16 = new Int16Array(n);
  const u16 = new Uint16Array(n);
  const i8 = new Int8Array(n);
  const u8 = new Uint8Array(n);
  const u8c = new Uint8ClampedArray(n);
  for (let i = 0; i < n; i++) {
    i32[i] = v[i];
    u32[i] = v[i];
    i16[i] = v[i];
    u16[i] = v[i];
    i8[i] = v[i];
    u8[i] = v[i];
    u8c[i] = v[i];
  }
  return { i32, u32, i16, u16, i8, u8, u8c };
}`,
  );
  const before = { ...m.wasmStats };
  const v = Float64Array.from(EDGES);
  const wasm = m.wasm(v);
  sameValue(wasm, m.js(v), "stored");
  assert.equal(m.wasmStats.wasm - before.wasm, 1, "ran in wasm");
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "fell back");
  // A few by hand, in case both backends were wrong alike.
  const at = (x: number) => EDGES.indexOf(x);
  assert.equal(wasm.i32[at(2 ** 31)], -(2 ** 31));
  assert.equal(wasm.u32[at(2 ** 32 + 5)], 5);
  assert.equal(wasm.u8[at(-1)], 255);
  assert.equal(wasm.u8c[at(255.5)], 255);
  assert.equal(wasm.u8c[at(254.5)], 254);
  assert.equal(wasm.u8c[at(253.5)], 254);
  assert.equal(wasm.u8c[at(-3)], 0);
  assert.equal(wasm.i32[at(1e20)], 1661992960);
  assert.ok(Object.is(wasm.i32[at(-0)], 0), "-0 is stored as 0");
  assert.equal(wasm.u8c[EDGES.findIndex(Number.isNaN)], 0);
});

test("integer arrays made by literals, of, from, fill, and written by += and ++ (wrapping at each store), read back into numbers", async () => {
  const m = await primalTwins<(v: Float64Array) => { kinds: AllKinds; sums: Float64Array }>(
    ALL_KINDS,
    "(v: Float64Array): { kinds: AllKinds; sums: Float64Array }",
    `{
  const i32 = Int32Array.from(v);
  const u32 = new Uint32Array([v[0], v[1] * 3, -v[2]]);
  const i16 = Int16Array.of(v[3], v[4] + 0.5, 40000);
  const u16 = new Uint16Array(4).fill(v[5]);
  const i8 = new Int8Array(3);
  const u8 = new Uint8Array(3);
  const u8c = new Uint8ClampedArray(3);
  for (let i = 0; i < v.length; i++) {
    i8[i % 3] += v[i];
    u8[i % 3]++;
    u8c[i % 3] += v[i] / 2;
  }
  i8[0]++;
  u8[1]--;
  const sums = new Float64Array(7);
  for (let i = 0; i < 3; i++) {
    sums[0] += i32[i] * 0.5;
    sums[1] += u32[i];
    sums[2] += i16[i] / 3;
    sums[3] += u16[i];
    sums[4] += i8[i] - 0.25;
    sums[5] += u8[i];
    sums[6] += u8c[i] * u8c.length;
  }
  return { kinds: { i32, u32, i16, u16, i8, u8, u8c }, sums };
}`,
  );
  const points = [
    Float64Array.from(EDGES),
    f64(100.7, -40.2, 3e9, 70000.5, -2.5, 65537, 127, 1, 0.5, 300),
  ];
  const before = { ...m.wasmStats };
  for (const v of points) sameValue(m.wasm(v), m.js(v), "made and written");
  assert.equal(m.wasmStats.wasm - before.wasm, points.length, "ran in wasm");
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "fell back");
});

test("loop counters and sums of them (integers wasm keeps as i32) stored into each kind wrap as JavaScript's stores do", async () => {
  const m = await primalTwins<(n: number, offset: number) => AllKinds>(
    ALL_KINDS,
    "(n: number, offset: number): AllKinds",
    `{
  const i32 = new Int32Array(n);
  const u32 = new Uint32Array(n);
  const i16 = new Int16Array(n);
  const u16 = new Uint16Array(n);
  const i8 = new Int8Array(n);
  const u8 = new Uint8Array(n);
  const u8c = new Uint8ClampedArray(n);
  for (let i = 0; i < n; i++) {
    i32[i] = i * 30000000 - 5;
    u32[i] = i - 3;
    i16[i] = i * 1000 + 32000;
    u16[i] = i * 1000 - 300;
    i8[i] = i * 3 + 100;
    u8[i] = i - 5;
    u8c[i] = i * 40 - 100;
  }
  for (let i = 0; i < n; i++) u8[i] += offset;
  return { i32, u32, i16, u16, i8, u8, u8c };
}`,
  );
  const before = { ...m.wasmStats };
  sameValue(m.wasm(53, 0.75), m.js(53, 0.75), "stored");
  sameValue(m.wasm(70, -300.5), m.js(70, -300.5), "stored");
  assert.equal(m.wasmStats.wasm - before.wasm, 2, "ran in wasm");
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "fell back");
});

test("bit operators (|, &, ^, <<, >>, >>>, ~, Math.imul, Math.clz32) convert their operands by ToInt32 as JavaScript does, on numbers and on integer array elements", async () => {
  const m = await primalTwins<
    (a: Float64Array, big: Uint32Array, small: Int8Array) => Float64Array
  >(
    "",
    "(a: Float64Array, big: Uint32Array, small: Int8Array): Float64Array",
    `{
  const n = a.length;
  const out = new Float64Array(9 * n * n + 2 * n + 4 * big.length);
  let k = 0;
  for (let i = 0; i < n; i++) {
    out[k++] = ~a[i];
    out[k++] = Math.clz32(a[i]);
    for (let j = 0; j < n; j++) {
      out[k++] = a[i] | a[j];
      out[k++] = a[i] & a[j];
      out[k++] = a[i] ^ a[j];
      out[k++] = a[i] << a[j];
      out[k++] = a[i] >> a[j];
      out[k++] = a[i] >>> a[j];
      out[k++] = Math.imul(a[i], a[j]);
      out[k++] = (a[i] | 0) + (a[j] >>> 0);
      out[k++] = ((i * 7) & 3) + (j << 2);
    }
  }
  for (let i = 0; i < big.length; i++) {
    out[k++] = big[i];
    out[k++] = big[i] | 0;
    out[k++] = (big[i] ^ small[i % small.length]) >>> 0;
    out[k++] = small[i % small.length] * big[i] + (small[(i + 1) & 1] << 30);
  }
  return out;
}`,
  );
  const a = Float64Array.from(EDGES.filter((_, i) => i % 2 === 0).concat([31, 32, 33, 0xdeadbeef]));
  const big = Uint32Array.of(0, 1, 2 ** 31, 2 ** 32 - 1, 0xdeadbeef, 12345);
  const small = Int8Array.of(-128, 127, -1);
  const before = { ...m.wasmStats };
  sameValue(m.wasm(a, big, small), m.js(a, big, small), "bit operations");
  assert.equal(m.wasmStats.wasm - before.wasm, 1, "ran in wasm");
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "fell back");
});

test("labels hashed into buckets with & and |, read as indices: gradient and differential in wasm", async () => {
  await checkDerivatives(
    `export function f(x: Float64Array, centers: Float64Array, ids: Uint16Array): number {
  const counts = new Int32Array(4);
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    const b = ((ids[i] * 2654435761) >>> 28) & 3;
    counts[b]++;
    const c = centers[(ids[i] | 0) % centers.length];
    s += (x[i] - c) ** 2 * (counts[b] ^ 1);
  }
  return s;
}`,
    [0, 1],
    [
      () => [
        f64(0.3, -1.2, 2.5, 0.8, 1.9, -0.4),
        f64(0.5, -0.25, 1.75),
        Uint16Array.of(7, 65535, 3, 1024, 7, 40000),
      ],
    ],
  );
});

test("an embedding lookup by Uint16Array token ids into a flat table (ids[t] * dim + j) with Uint8Array positions masked by &", async () => {
  await checkDerivatives(
    `export function f(table: Float64Array, positional: Float64Array, ids: Uint16Array, at: Uint8Array, dim: number): number {
  let s = 0;
  for (let t = 0; t < ids.length; t++) {
    let dot = 0;
    for (let j = 0; j < dim; j++) {
      const e = table[ids[t] * dim + j] + positional[(at[t] & 3) * dim + j];
      dot += e * e * (j + 1);
    }
    s += Math.tanh(dot / dim);
  }
  return s;
}`,
    [0, 1],
    [
      () => [
        Float64Array.from({ length: 15 }, (_, i) => Math.sin(i * 0.9) * 0.7),
        Float64Array.from({ length: 12 }, (_, i) => Math.cos(i * 1.3) * 0.4),
        Uint16Array.of(4, 0, 2, 2, 1, 3),
        Uint8Array.of(0, 1, 6, 255, 2, 3),
        3,
      ],
    ],
  );
});

const CSR_MULTIPLY = `export function f(vals: Float64Array, x: Float64Array, rows: Int32Array, cols: Int32Array): number {
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

test("a CSR sparse matrix-vector product with Int32Array rows and cols: gradient wrt vals and x in wasm", async () => {
  // [[1.5, 0, -2], [0, 0.5, 0], [0.3, 0.7, 1.1]], and a 4×5 one with an empty row.
  await checkDerivatives(
    CSR_MULTIPLY,
    [0, 1],
    [
      () => [
        f64(1.5, -2, 0.5, 0.3, 0.7, 1.1),
        f64(0.4, -0.9, 1.3),
        Int32Array.of(0, 2, 3, 6),
        Int32Array.of(0, 2, 1, 0, 1, 2),
      ],
      () => [
        f64(0.25, -1.1, 2.2, 0.9, -0.6),
        f64(1.2, 0.1, -0.7, 0.35, 2),
        Int32Array.of(0, 2, 2, 4, 5),
        Int32Array.of(4, 1, 0, 3, 2),
      ],
    ],
  );
});

test("the CSR product with vals and x in a wasmArrays memory: those read in place, the Int32Arrays copied beside them", async () => {
  const files = operators(CSR_MULTIPLY, [0, 1]);
  files["main.ts"] += `export { wasmArrays } from "nabla";\n`;
  const m = await loadProgram<
    Operators & {
      wasmArrays: (o: { megabytes: number }) => { from: (v: number[]) => Float64Array };
    }
  >(files);
  const memory = m.wasmArrays({ megabytes: 4 });
  const vals = memory.from([1.5, -2, 0.5, 0.3, 0.7, 1.1]);
  const x = memory.from([0.4, -0.9, 1.3]);
  const rows = Int32Array.of(0, 2, 3, 6);
  const cols = Int32Array.of(0, 2, 1, 0, 1, 2);
  const before = { ...m.wasmStats };
  const wasm = m.vgWasm(vals, x, rows, cols);
  const js = m.vgJs(vals, x, rows, cols);
  sameBits([wasm.value], [js.value], "value");
  sameValue(wasm.gradient, js.gradient, "gradient");
  assert.equal(m.wasmStats.wasm - before.wasm, 1, "ran in wasm");
  assert.equal(m.wasmStats.inPlace - before.inPlace, 1, "read in place");
});

test("a CSR matrix as an object with Int32Array fields (a parameter, its gradient only vals) and one built inside", async () => {
  await checkDerivatives(
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
export function f(a: Csr, x: Float64Array): number {
  const y = multiply(a, x);
  const b: Csr = { rows: Int32Array.of(0, 1, 2), cols: Int32Array.from([1, 0]), vals: y };
  const z = multiply(b, x);
  return y[0] * z[1] + Math.exp(z[0]) + a.cols.length;
}`,
    [0, 1],
    [
      () => [
        { rows: Int32Array.of(0, 2, 3), cols: Int32Array.of(0, 1, 1), vals: f64(0.5, -1.2, 0.8) },
        f64(0.3, 0.9),
      ],
    ],
  );
});

test("a class loss whose weights row is chosen by a Uint8Array label, and a Uint8Array mask", async () => {
  await checkDerivatives(
    `export function f(weights: Float64Array[], features: Float64Array[], labels: Uint8Array, mask: Uint8Array): number {
  let loss = 0;
  for (let i = 0; i < features.length; i++) {
    const w = weights[labels[i]];
    let s = 0;
    for (let j = 0; j < w.length; j++) s += w[j] * features[i][j] * mask[j];
    loss += (s - 1) ** 2;
  }
  return loss;
}`,
    [0, 1],
    [
      () => [
        [f64(0.3, -0.2, 0.5), f64(-0.4, 0.1, 0.9), f64(0.7, 0.6, -0.3)],
        [f64(1, 2, -1), f64(0.5, -1, 2), f64(-2, 0.3, 1), f64(0.1, 0.2, 0.3)],
        Uint8Array.of(2, 0, 2, 1),
        Uint8Array.of(1, 0, 1),
      ],
    ],
  );
});

test("a histogram-weighted loss: counts in Int32Arrays made inside, bucketed by Math.floor of x, counted with ++", async () => {
  await checkDerivatives(
    `export function f(x: Float64Array, k: number): number {
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
}`,
    [0, 1],
    [() => [f64(0.12, 0.47, 0.15, 0.93, 0.41, 0.44), 4]],
  );
});

test("pixels quantized into a Uint8ClampedArray and counts that wrap in an Int8Array weigh differentiated numbers (no derivative passes through them)", async () => {
  await checkDerivatives(
    `export function f(x: Float64Array, gain: number): number {
  const pixels = new Uint8ClampedArray(x.length);
  const wraps = new Int8Array(2);
  for (let i = 0; i < x.length; i++) {
    pixels[i] = x[i] * 100;
    wraps[i % 2] += 100;
  }
  let s = 0;
  for (let i = 0; i < x.length; i++) s += pixels[i] * gain * x[i] + wraps[i % 2] * x[i] * x[i];
  return s / pixels.length;
}`,
    [0, 1],
    // 1.2 and -0.4 clamp, 0.333 and 2.1 are between ties; the Int8 counts wrap past 127.
    [() => [f64(1.2, 0.333, -0.4, 2.1, 0.77), 0.6]],
  );
});

test("results: a CSR sparse matrix with Int32Array rows and cols (ba's SparseMatrix) comes out as Int32Arrays", async () => {
  const header = `export interface SparseMatrix {
  nrows: number;
  ncols: number;
  rows: Int32Array;
  cols: Int32Array;
  vals: Float64Array;
}`;
  const m = await primalTwins<(dense: Float64Array[], tolerance: number) => SparseMatrix>(
    header,
    "(dense: Float64Array[], tolerance: number): SparseMatrix",
    `{
  const nrows = dense.length;
  const ncols = nrows > 0 ? dense[0].length : 0;
  let nnz = 0;
  for (const row of dense) for (const v of row) if (Math.abs(v) > tolerance) nnz++;
  const rows = new Int32Array(nrows + 1);
  const cols = new Int32Array(nnz);
  const vals = new Float64Array(nnz);
  let k = 0;
  for (let r = 0; r < nrows; r++) {
    for (let c = 0; c < ncols; c++) {
      if (Math.abs(dense[r][c]) > tolerance) {
        cols[k] = c;
        vals[k++] = dense[r][c];
      }
    }
    rows[r + 1] = k;
  }
  return { nrows, ncols, rows, cols, vals };
}`,
  );
  interface SparseMatrix {
    nrows: number;
    ncols: number;
    rows: Int32Array;
    cols: Int32Array;
    vals: Float64Array;
  }
  const dense = [f64(1.5, 0, -2, 0), f64(0, 0, 0, 0), f64(0.3, 1e-9, 0.7, -0)];
  const before = { ...m.wasmStats };
  const wasm = m.wasm(dense, 1e-6);
  sameValue(wasm, m.js(dense, 1e-6), "the matrix");
  assert.ok(wasm.rows instanceof Int32Array && wasm.cols instanceof Int32Array);
  assert.deepEqual([...wasm.rows], [0, 2, 2, 4]);
  assert.deepEqual([...wasm.cols], [0, 2, 0, 2]);
  assert.equal(m.wasmStats.wasm - before.wasm, 1, "ran in wasm");
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "fell back");
});

test("ba's Jacobian layout filled by a @backend wasm driver: structure in Int32Arrays, the weight rows by derivative", async () => {
  // GradBench's ba (gradbench/evals/ba.ts): per observation two reprojection rows of 15
  // entries and a weight row, in CSR, built as a driver of it would: every row's columns, and
  // the weight rows' values by an inner derivative (the next test runs the whole Jacobian).
  const header = `import { derivative } from "nabla";
export interface SparseMatrix {
  nrows: number;
  ncols: number;
  rows: Int32Array;
  cols: Int32Array;
  vals: Float64Array;
}
export interface Observation {
  camera: number;
  point: number;
}
const CAM_PARAMS = 11;
function weightError(w: number): number {
  return 1 - w * w;
}`;
  type Driver = (
    cams: number,
    points: number,
    obs: { camera: number; point: number }[],
    weights: Float64Array,
  ) => { nrows: number; ncols: number; rows: Int32Array; cols: Int32Array; vals: Float64Array };
  const m = await primalTwins<Driver>(
    header,
    "(n: number, m: number, obs: Observation[], weights: Float64Array): SparseMatrix",
    `{
  const p = obs.length;
  const nnz = 2 * p * (CAM_PARAMS + 3 + 1) + p;
  const jac: SparseMatrix = {
    nrows: 3 * p,
    ncols: CAM_PARAMS * n + 3 * m + p,
    rows: new Int32Array(3 * p + 1),
    cols: new Int32Array(nnz),
    vals: new Float64Array(nnz),
  };
  let k = 0;
  for (let i = 0; i < p; i++) {
    const { camera, point } = obs[i];
    for (let row = 0; row < 2; row++) {
      for (let j = 0; j < CAM_PARAMS; j++) jac.cols[k++] = CAM_PARAMS * camera + j;
      for (let j = 0; j < 3; j++) jac.cols[k++] = CAM_PARAMS * n + 3 * point + j;
      jac.cols[k++] = CAM_PARAMS * n + 3 * m + i;
      jac.rows[2 * i + row + 1] = k;
    }
  }
  for (let i = 0; i < p; i++) {
    jac.cols[k] = CAM_PARAMS * n + 3 * m + i;
    jac.vals[k++] = derivative(weightError)(weights[i]);
    jac.rows[2 * p + i + 1] = k;
  }
  return jac;
}`,
  );
  const obs = Array.from({ length: 7 }, (_, i) => ({ camera: i % 3, point: (i * 5) % 4 }));
  const weights = Float64Array.from(obs, (_, i) => 0.4 + 0.1 * i);
  const before = { ...m.wasmStats };
  const wasm = m.wasm(3, 4, obs, weights);
  sameValue(wasm, m.js(3, 4, obs, weights), "the Jacobian");
  assert.ok(wasm.rows instanceof Int32Array && wasm.cols instanceof Int32Array);
  assert.equal(wasm.rows[wasm.rows.length - 1], 2 * 7 * 15 + 7);
  assert.equal(wasm.vals[wasm.vals.length - 1], -2 * weights[6]!);
  assert.equal(m.wasmStats.wasm - before.wasm, 1, "ran in wasm");
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "fell back");
});

test("an integer array of another kind than declared (or a Float64Array) runs the call as JavaScript, with JavaScript's result", async () => {
  const files = operators(CSR_MULTIPLY, [0, 1]);
  const m = await loadProgram<Operators>(files);
  const vals = f64(1.5, -2, 0.5, 0.3, 0.7, 1.1);
  const x = f64(0.4, -0.9, 1.3);
  const cols = Int32Array.of(0, 2, 1, 0, 1, 2);
  for (const rows of [Uint8Array.of(0, 2, 3, 6), Float64Array.of(0, 2, 3, 6)]) {
    const before = { ...m.wasmStats };
    const wasm = m.vgWasm(vals, x, rows as unknown as Int32Array, cols);
    const js = m.vgJs(vals, x, rows as unknown as Int32Array, cols);
    sameBits([wasm.value], [js.value], "value");
    sameValue(wasm.gradient, js.gradient, "gradient");
    assert.equal(m.wasmStats.javascript - before.javascript, 1, `a ${rows.constructor.name}`);
  }
});

test("a function that writes its Int32Array argument stays JavaScript, as for a Float64Array: NABLA202 says why", () => {
  const result = compileFiles({
    "main.ts": `import { gradient } from "nabla";

export function tally(x: Float64Array, counts: Int32Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    counts[i % counts.length]++;
    s += x[i] * x[i];
  }
  return s;
}
export const g = gradient(tally, { wrt: 0, backend: "wasm" });
`,
  });
  assert.equal(
    diagnosticsText(result),
    `main.ts:11:18: warning NABLA202: 'gradient' runs as JavaScript, not WebAssembly: it may write its argument 'counts' (the backend copies arguments in, not back)
  10 | }
> 11 | export const g = gradient(tally, { wrt: 0, backend: "wasm" });
     |                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: let the function change copies it makes ('const pos = state.pos.slice()', '{ ...p }') instead; 'backend: "auto"' picks WebAssembly only where it applies, without this warning

1 warning`,
  );
});
