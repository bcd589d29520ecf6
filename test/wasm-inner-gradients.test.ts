import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";
import { f64, type Stats } from "./support/wasm-backends.js";

// A function tagged `@backend wasm` computes an inner `gradient` with respect to arrays or
// objects in reverse mode, inside wasm: fresh zero shadows, then the function's sweeps
// (differentiate/inner-gradients.ts). Each program below is written twice from one text, tagged
// and not: the untagged copy runs as JavaScript, where the operator runs in reverse mode too,
// and the two must agree to the bit. The gradients themselves are checked against central
// differences and against forward mode (`derivative` along one element, from JavaScript).

/** The source of `name`, tagged `@backend wasm` or not, from a body written once. */
const twice = (head: (name: string) => string, body: string, name: string) =>
  `/** @backend wasm */\nexport function ${head(name)} {${body}}\nexport function ${head(`${name}Js`)} {${body}}\n`;

const sameBits = (a: ArrayLike<number>, b: ArrayLike<number>, what: string) => {
  assert.equal(a.length, b.length, what);
  for (let i = 0; i < a.length; i++)
    assert.ok(Object.is(a[i], b[i]), `${what}[${i}]: ${a[i]} vs ${b[i]}`);
};

/** Central difference of `f` at `x` along element `k`. */
const central = (f: (x: Float64Array) => number, x: Float64Array, k: number) => {
  const h = 1e-6 * Math.max(1, Math.abs(x[k]!));
  const plus = Float64Array.from(x);
  const minus = Float64Array.from(x);
  plus[k]! += h;
  minus[k]! -= h;
  return (f(plus) - f(minus)) / (2 * h);
};

const close = (got: number, want: number, tolerance: number, what: string) =>
  assert.ok(
    Math.abs(got - want) <= tolerance * Math.max(1, Math.abs(want)),
    `${what}: ${got} vs ${want}`,
  );

const ENERGY = `function energy(x: Float64Array): number {
  let e = 0;
  for (let i = 0; i < x.length; i++) e += Math.sin(x[i]!) * x[i]! * x[i]!;
  return e;
}`;

test("gradient descent inside a function run as WebAssembly: the inner gradient runs there, in reverse mode", async () => {
  const files = {
    "main.ts": `import { derivative, gradient } from "nabla";
export { wasmStats } from "nabla";
${ENERGY}
${twice(
  (n) => `${n}(x: Float64Array, steps: number, rate: number): Float64Array`,
  `
  const at = Float64Array.from(x);
  for (let s = 0; s < steps; s++) {
    const g = gradient(energy)(at);
    for (let i = 0; i < at.length; i++) at[i] -= rate * g[i]!;
  }
  return at;
`,
  "descend",
)}
${twice((n) => `${n}(x: Float64Array): Float64Array`, " return gradient(energy)(x); ", "slope")}
export const along = (x: Float64Array, k: number) =>
  derivative((t: number) => {
    const y = Float64Array.from(x);
    y[k] = t;
    return energy(y);
  })(x[k]!);
export { energy };
`,
  };
  const compiled = compileFiles(files);
  assert.equal(diagnosticsText(compiled), "");
  const code = [...compiled.outputs.values()][0]!.code;
  assert.match(code, /descend \(@backend wasm\).*: WebAssembly/);
  assert.match(code, /slope \(@backend wasm\).*: WebAssembly/);
  // Its JavaScript fallback calls the sweeps too: no pass per element.
  assert.match(code, /function descend\$js[^]*energy\$fwd[^]*energy\$bwd/);
  const m = await loadProgram<{
    descend: (x: Float64Array, steps: number, rate: number) => Float64Array;
    descendJs: (x: Float64Array, steps: number, rate: number) => Float64Array;
    slope: (x: Float64Array) => Float64Array;
    slopeJs: (x: Float64Array) => Float64Array;
    along: (x: Float64Array, k: number) => number;
    energy: (x: Float64Array) => number;
    wasmStats: Stats;
  }>(files);
  for (const n of [0, 1, 2, 7, 40]) {
    const x = Float64Array.from({ length: n }, (_, i) => Math.cos(1.7 * i) * 2);
    const before = { ...m.wasmStats };
    const descended = m.descend(x, 12, 0.05);
    const g = m.slope(x);
    assert.equal(m.wasmStats.wasm - before.wasm, 2, "both ran in wasm");
    assert.equal(m.wasmStats.javascript - before.javascript, 0, "neither fell back");
    sameBits(descended, m.descendJs(x, 12, 0.05), `descend at n = ${n}`);
    sameBits(g, m.slopeJs(x), `slope at n = ${n}`);
    for (let k = 0; k < n; k++) {
      close(g[k]!, m.along(x, k), 1e-12, `forward mode at ${k}`);
      close(g[k]!, central(m.energy, x, k), 1e-6, `central difference at ${k}`);
    }
    if (n > 0) assert.ok(m.energy(descended) < m.energy(x), "descent lowers the energy");
  }
});

test("several parameters (arrays and a number), a lambda capturing a local, destructured at once", async () => {
  const files = {
    "main.ts": `import { derivative, gradient } from "nabla";
export { wasmStats } from "nabla";
export function residual(cam: Float64Array, x: Float64Array, w: number, feat: Float64Array): number {
  const u = (cam[0]! * x[0]! + cam[1]! * x[1]!) / (cam[2]! + x[2]! * x[2]! + 1);
  const r = w * (u - feat[0]!);
  return r * r + Math.sin(cam[1]! * w);
}
${twice(
  (n) =>
    `${n}(cams: Float64Array[], xs: Float64Array[], ws: Float64Array, feats: Float64Array[]): Float64Array`,
  `
  const out = new Float64Array(7 * ws.length);
  for (let i = 0; i < ws.length; i++) {
    const feat = feats[i]!;
    const [dcam, dx, dw] = gradient(
      (c: Float64Array, p: Float64Array, v: number) => residual(c, p, v, feat),
      { wrt: [0, 1, 2] },
    )(cams[i]!, xs[i]!, ws[i]!);
    for (let j = 0; j < 3; j++) {
      out[7 * i + j] = dcam[j]!;
      out[7 * i + 3 + j] = dx[j]!;
    }
    out[7 * i + 6] = dw;
  }
  return out;
`,
  "partials",
)}
export const alongW = (cam: Float64Array, x: Float64Array, w: number, feat: Float64Array) =>
  derivative((v: number) => residual(cam, x, v, feat))(w);
`,
  };
  const compiled = compileFiles(files);
  assert.equal(diagnosticsText(compiled), "");
  assert.match(
    [...compiled.outputs.values()][0]!.code,
    /partials \(@backend wasm\).*: WebAssembly/,
  );
  const m = await loadProgram<{
    partials: (
      c: Float64Array[],
      x: Float64Array[],
      w: Float64Array,
      f: Float64Array[],
    ) => Float64Array;
    partialsJs: (
      c: Float64Array[],
      x: Float64Array[],
      w: Float64Array,
      f: Float64Array[],
    ) => Float64Array;
    residual: (c: Float64Array, x: Float64Array, w: number, f: Float64Array) => number;
    alongW: (c: Float64Array, x: Float64Array, w: number, f: Float64Array) => number;
    wasmStats: Stats;
  }>(files);
  const cams = [f64(0.5, -0.3, 2), f64(1.5, 0.25, 0.5), f64(-2, 1, 3)];
  const xs = [f64(1, 2, 0.5), f64(-1, 0.5, 2), f64(0.25, -3, 1)];
  const ws = f64(0.7, -1.2, 2.5);
  const feats = [f64(0.25), f64(-0.5), f64(1)];
  const before = m.wasmStats.wasm;
  const got = m.partials(cams, xs, ws, feats);
  assert.equal(m.wasmStats.wasm - before, 1, "ran in wasm");
  sameBits(got, m.partialsJs(cams, xs, ws, feats), "partials");
  ws.forEach((w, i) => {
    const [cam, x, feat] = [cams[i]!, xs[i]!, feats[i]!];
    for (let j = 0; j < 3; j++) {
      close(
        got[7 * i + j]!,
        central((c) => m.residual(c, x, w, feat), cam, j),
        1e-6,
        `dcam[${j}]`,
      );
      close(
        got[7 * i + 3 + j]!,
        central((p) => m.residual(cam, p, w, feat), x, j),
        1e-6,
        `dx[${j}]`,
      );
    }
    close(got[7 * i + 6]!, m.alongW(cam, x, w, feat), 1e-12, "dw, forward mode");
  });
});

test("valueWithGradient with respect to rows and to an object of numbers", async () => {
  const files = {
    "main.ts": `import { gradient, valueWithGradient } from "nabla";
export { wasmStats } from "nabla";
export function weighted(rows: Float64Array[]): number {
  let s = 0;
  for (const r of rows) for (let j = 0; j < r.length; j++) s += r[j]! * r[j]! * (j + 1);
  return s;
}
export interface Gains { a: number; b: number }
export function cost(p: Gains, k: number): number {
  return p.a * p.a * k + Math.exp(p.b * k);
}
${twice(
  (n) => `${n}(rows: Float64Array[]): Float64Array[]`,
  `
  const { value, gradient: g } = valueWithGradient(weighted)(rows);
  return g.map((r) => r.map((d) => d / value));
`,
  "normalized",
)}
${twice(
  (n) => `${n}(p: Gains, ks: Float64Array): Float64Array`,
  `
  const out = new Float64Array(2 * ks.length);
  for (let i = 0; i < ks.length; i++) {
    const g = gradient(cost, { wrt: 0 })(p, ks[i]!);
    out[2 * i] = g.a;
    out[2 * i + 1] = g.b;
  }
  return out;
`,
  "gains",
)}
`,
  };
  const compiled = compileFiles(files);
  assert.equal(diagnosticsText(compiled), "");
  const code = [...compiled.outputs.values()][0]!.code;
  assert.match(code, /normalized \(@backend wasm\).*: WebAssembly/);
  assert.match(code, /gains \(@backend wasm\).*: WebAssembly/);
  const m = await loadProgram<{
    normalized: (rows: Float64Array[]) => Float64Array[];
    normalizedJs: (rows: Float64Array[]) => Float64Array[];
    gains: (p: { a: number; b: number }, ks: Float64Array) => Float64Array;
    gainsJs: (p: { a: number; b: number }, ks: Float64Array) => Float64Array;
    weighted: (rows: Float64Array[]) => number;
    wasmStats: Stats;
  }>(files);
  const rows = [f64(1, 2), f64(3), f64(), f64(-0.5, 0.25, 4)];
  const before = m.wasmStats.wasm;
  const got = m.normalized(rows);
  const gains = m.gains({ a: 2, b: 0.5 }, f64(3, -1, 0.25));
  assert.equal(m.wasmStats.wasm - before, 2, "both ran in wasm");
  got.forEach((r, i) => sameBits(r, m.normalizedJs(rows)[i]!, `row ${i}`));
  sameBits(gains, m.gainsJs({ a: 2, b: 0.5 }, f64(3, -1, 0.25)), "gains");
  const value = m.weighted(rows);
  rows.forEach((row, i) =>
    row.forEach((_, j) => {
      const f = (r: Float64Array) => m.weighted(rows.map((q, k) => (k === i ? r : q)));
      close(got[i]![j]! * value, central(f, row, j), 1e-6, `row ${i}, ${j}`);
      close(got[i]![j]! * value, 2 * row[j]! * (j + 1), 1e-12, `closed form ${i}, ${j}`);
    }),
  );
  [3, -1, 0.25].forEach((k, i) => {
    close(gains[2 * i]!, 2 * 2 * k, 1e-12, "d/da");
    close(gains[2 * i + 1]!, k * Math.exp(0.5 * k), 1e-12, "d/db");
  });
});

test("an inner function that changes its argument keeps the function JavaScript, saying why", async () => {
  const files = {
    "main.ts": `import { gradient } from "nabla";
export { wasmStats } from "nabla";
function squash(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    x[i] = Math.tanh(x[i]!);
    s += x[i]!;
  }
  return s;
}
/** @backend wasm */
export function squashed(x: Float64Array): Float64Array {
  return gradient(squash)(Float64Array.from(x));
}
`,
  };
  const text = diagnosticsText(compileFiles(files));
  assert.equal(
    text,
    `main.ts:12:8: warning NABLA202: 'squashed' runs as JavaScript, not WebAssembly: its inner 'gradient' of 'squash', which may change its arguments, cannot run in reverse mode there
  11 | /** @backend wasm */
> 12 | export function squashed(x: Float64Array): Float64Array {
     |        ^^^^^^^^^^^^^^^^^
help: the WebAssembly backend covers functions of numbers, booleans, strings compared for equality, arrays of numbers (Float64Array, Float32Array, number[], arrays of them), integer typed arrays (Int32Array, Uint8Array…), arrays it makes and grows, and objects of them (with fields of other types, such as functions, only where the function does not use them); 'backend: "auto"' picks it only where it applies, without this warning

1 warning`,
  );
  const m = await loadProgram<{ squashed: (x: Float64Array) => Float64Array; wasmStats: Stats }>(
    files,
  );
  const x = f64(0.5, -2, 1);
  const before = m.wasmStats.wasm;
  const g = m.squashed(x);
  assert.equal(m.wasmStats.wasm - before, 0, "ran as JavaScript");
  x.forEach((v, i) => close(g[i]!, 1 - Math.tanh(v) ** 2, 1e-12, `d/dx[${i}]`));
});

test("a gradient with respect to a number alone runs in forward mode: JavaScript's results to rounding, and of a function that changes its arguments too", async () => {
  // d/dw of Σ (xᵢ − xᵢ₋₁)² w + sin x₀: forward mode sums the tangents of the terms, where
  // JavaScript's gradient (reverse mode) scales each term's adjoint by w's, so the last bits
  // may differ. Forward mode is one pass without a tape, and covers a function that changes
  // its arguments, which reverse mode inside wasm does not.
  const files = {
    "main.ts": `import { gradient } from "nabla";
export { wasmStats } from "nabla";
function energy(x: Float64Array, w: number): number {
  const n = x.length;
  let s = 0;
  for (let i = 1; i < n; i++) s += (x[i]! - x[i - 1]!) ** 2 * w;
  return s + (n > 0 ? Math.sin(x[0]!) : 0);
}
function relax(k: number, state: Float64Array): number {
  let s = 0;
  for (let i = 0; i < state.length; i++) {
    state[i] = state[i]! * Math.exp(-k);
    s += state[i]!;
  }
  return s;
}
${twice(
  (name) => `${name}(x: Float64Array, ws: Float64Array): Float64Array`,
  `
  const out = new Float64Array(2 * ws.length);
  for (let k = 0; k < ws.length; k++) {
    out[2 * k] = gradient(energy, { wrt: [1] })(x, ws[k]!);
    const state = Float64Array.from(x);
    out[2 * k + 1] = gradient(relax, { wrt: [0] })(ws[k]!, state);
  }
  return out;
`,
  "slopes",
)}`,
  };
  assert.equal(diagnosticsText(compileFiles(files)), "");
  const m = await loadProgram<{
    slopes: (x: Float64Array, ws: Float64Array) => Float64Array;
    slopesJs: (x: Float64Array, ws: Float64Array) => Float64Array;
    wasmStats: Stats;
  }>(files);
  const ws = Float64Array.from({ length: 40 }, (_, k) => 0.037 * k - 0.31);
  for (let trial = 0; trial < 20; trial++) {
    const x = Float64Array.from({ length: 3 + trial }, (_, i) => Math.cos(i * 1.7 + trial) * 3);
    const before = m.wasmStats.wasm;
    const got = m.slopes(x, ws);
    assert.equal(m.wasmStats.wasm - before, 1, "in wasm");
    const want = m.slopesJs(x, ws);
    let sum = 0;
    for (let i = 1; i < x.length; i++) sum += (x[i]! - x[i - 1]!) ** 2;
    let total = 0;
    for (const v of x) total += v;
    ws.forEach((w, k) => {
      close(got[2 * k]!, want[2 * k]!, 1e-12, `d/dw at trial ${trial}`);
      close(got[2 * k]!, sum, 1e-12, `d/dw at trial ${trial}, by hand`);
      close(got[2 * k + 1]!, want[2 * k + 1]!, 1e-12, `d/dk at trial ${trial}`);
      close(got[2 * k + 1]!, -Math.exp(-w) * total, 1e-12, `d/dk at trial ${trial}, by hand`);
    });
  }
});
