import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { compileFiles, importCompiled } from "./support/harness.js";
import { MAT_MUL } from "./support/matrix-source.js";

// Forward mode on data-heavy code: data a differentiated function only reads gets no tangent
// (alias classes do not merge an argument with the others just because the callee stores
// arrays into it), and `jacobian` carries several directions through one forward pass.

/** A seeded generator (mulberry32): the same "random" inputs on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = seeded(20_260_517);
const randoms = (n: number, lo = -1, hi = 1) =>
  Array.from({ length: n }, () => lo + (hi - lo) * random());

/** Compiles `files`, loads main.ts, and returns its exports and generated code. */
async function build(files: Record<string, string>) {
  const result = compileFiles(files);
  assert.deepEqual(
    result.diagnostics.filter((d) => d.severity === "error").map((d) => d.message),
    [],
  );
  const code = result.outputs.get(join(result.dir, "main.ts"))!.code;
  const mod = await importCompiled<Record<string, (...args: unknown[]) => unknown>>(
    join(result.dir, "main.ts"),
  );
  return { mod, code };
}

/** The body of the generated function `name` in `code`. */
function functionText(code: string, name: string): string {
  const start = code.indexOf(`function ${name}(`);
  assert.ok(start >= 0, `no function ${name} in the output`);
  const end = code.indexOf("\n}\n", start);
  return code.slice(start, end + 2);
}

describe("inactive data stays without tangents", () => {
  // `collect` stores arrays of `rel` into its result, which aliases `rel`; `parents` is only
  // read. Before, any call to a callee that stores arrays into an argument merged all of its
  // arguments into one alias class, so the model (where `parents` comes from) became active
  // and every call built a zero shadow of all of it.
  const source = `
export interface Model { parents: number[]; base: number[][]; weights: number[] }

function collect(rel: number[][], parents: number[]): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < rel.length; i++) out.push(parents[i] < 0 ? rel[i] : rel[parents[i]]);
  return out;
}

export function f(x: Float64Array, m: Model): Float64Array {
  const rel = m.base.map((row) => row.map((v, j) => v * x[j % x.length]));
  const abs = collect(rel, m.parents);
  const r = new Float64Array(abs.length);
  for (let i = 0; i < abs.length; i++) {
    let s = 0;
    for (let j = 0; j < abs[i].length; j++) s += abs[i][j] * m.weights[j];
    r[i] = Math.sin(s);
  }
  return r;
}
`;
  const model = () => ({
    parents: [-1, 0, 0, 1],
    base: [randoms(3), randoms(3), randoms(3), randoms(3)],
    weights: randoms(3),
  });

  test("no shadow of the model, and the same derivative", async () => {
    const { mod, code } = await build({
      "main.ts": `import { differential } from "nabla";\n${source}
export const df = (x: Float64Array, m: Model, dx: Float64Array) => differential(f, { wrt: 0 })(x, m)(dx);
`,
    });
    const jvp = functionText(code, "f$jvp_0");
    assert.doesNotMatch(jvp, /\bdm\b|weights: /, "no zero shadow of the model");
    assert.doesNotMatch(functionText(code, "collect$jvp_0"), /dparents/);
    const m = model();
    const x = new Float64Array(randoms(3));
    const dx = new Float64Array(randoms(3));
    const got = mod.df!(x, m, dx) as Float64Array;
    const h = 1e-6;
    const plus = mod.f!(
      x.map((v, i) => v + h * dx[i]!),
      m,
    ) as Float64Array;
    const minus = mod.f!(
      x.map((v, i) => v - h * dx[i]!),
      m,
    ) as Float64Array;
    got.forEach((g, i) =>
      assert.ok(Math.abs(g - (plus[i]! - minus[i]!) / (2 * h)) < 1e-7, `element ${i}`),
    );
  });

  test("a callee that stores one argument's arrays into another still merges those two", async () => {
    // `into` receives `rows` arrays: writing into them later must make `rows` active.
    const { mod } = await build({
      "main.ts": `import { differential } from "nabla";
function link(into: number[][], rows: number[][], skip: number[]): void {
  for (let i = 0; i < rows.length; i++) if (skip[i] === 0) into.push(rows[i]);
}
export function g(x: number[], rows: number[][], skip: number[]): number {
  const into: number[][] = [];
  link(into, rows, skip);
  for (const r of into) r[0] = r[0] * x[0];
  let s = 0;
  for (const r of rows) s += r[0] * r[1];
  return s;
}
export const dg = (x: number[], rows: number[][], skip: number[]) =>
  differential(g, { wrt: 0 })(x, rows, skip)([1]);
`,
    });
    const rows = () => [
      [0.5, 2],
      [1.5, -1],
      [3, 0.25],
    ];
    // s = Σ_{kept} x·r0·r1 + Σ_{skipped} r0·r1, so ds/dx = Σ_{kept} r0·r1.
    assert.equal(mod.dg!([2], rows(), [0, 1, 0]), 0.5 * 2 + 3 * 0.25);
  });
});

// ---------------------------------------------------------------------------------------------
// jacobian along all directions at once (f$jvps): every case is checked three ways — against
// `differential` column by column (scalar forward mode, the same arithmetic: equal to rounding),
// against `pullback` row by row (reverse mode), and against central differences of f.

const LANE_PROGRAM = `
import { jacobian, differential, pullback, derivative, withDerivative, registerDerivative } from "nabla";

// --- matrices as arrays of rows (GradBench ht's style) ---
type Matrix = number[][];
${MAT_MUL}
function rotation(t: number[]): Matrix {
  const c = Math.cos(t[0]), s = Math.sin(t[0]);
  return [[c, -s, t[1]], [s, c, t[2]], [0, 0, 1]];
}
export interface Model { parents: number[]; base: Matrix[]; points: Matrix; weights: Matrix }
export function skin(theta: Float64Array, model: Model): Float64Array {
  const local: Matrix[] = [];
  for (let b = 0; b < model.base.length; b++)
    local.push(matMul(model.base[b], rotation([theta[3 * b], theta[3 * b + 1], theta[3 * b + 2]])));
  const world: Matrix[] = [];
  for (let b = 0; b < local.length; b++)
    world.push(model.parents[b] < 0 ? local[b] : matMul(world[model.parents[b]], local[b]));
  const out = new Float64Array(2 * model.points.length);
  const acc: Matrix = model.points.map(() => [0, 0]);
  for (let b = 0; b < world.length; b++) {
    for (let v = 0; v < model.points.length; v++) {
      const p = model.points[v];
      const w = model.weights[v][b];
      for (let r = 0; r < 2; r++) acc[v][r] += (world[b][r][0] * p[0] + world[b][r][1] * p[1] + world[b][r][2]) * w;
    }
  }
  for (let v = 0; v < acc.length; v++) { out[2 * v] = acc[v][0]; out[2 * v + 1] = acc[v][1]; }
  return out;
}

// --- carried lanes that swap and read each other ---
export function recurrence(x: number[], n: number): number[] {
  let a = x[0], b = x[1], c = x[2];
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = a;
    a = b * 0.5 + Math.sin(c);
    b = c - t * t * 0.1;
    c = t;
    out.push(a);
    out.push(b * c);
    if (a > 0.3) { const s = a; a = b; b = s; }
  }
  return out;
}

// --- objects, classes, mixed tuples ---
interface Body { pos: number; vel: number; /** @noDerivative */ id: number }
function step(p: Body, dt: number, k: number): void {
  p.vel -= k * p.pos * dt;
  p.pos += p.vel * dt;
}
export class Spring {
  constructor(public k: number) {}
  force(x: number): number { return -this.k * x * x * x; }
}
export function particles(x: number[], steps: number, spring: Spring): number[] {
  const ps: Body[] = [];
  for (let i = 0; i < x.length; i++) ps.push({ pos: x[i], vel: x[(i + 1) % x.length] * 0.5, id: i });
  const pair: [number, number[]] = [0, []];
  for (let s = 0; s < steps; s++)
    for (const p of ps) {
      step(p, 0.1, 1 + 0.1 * p.id);
      p.vel += spring.force(p.pos) * 0.01;
    }
  const out: number[] = [];
  for (const p of ps) {
    pair[0] += p.pos * p.vel;
    pair[1].push(p.pos);
    out.push(p.pos);
    out.push(p.vel);
    out.push(pair[0]);
  }
  for (const v of pair[1]) out.push(v * pair[0]);
  const o = { a: x[0], b: [x[1], x[2]] };
  o.b[1] *= o.a;
  out.push(o.a * o.b[0]);
  out.push(o.b[1]);
  return out;
}

// --- callees returning objects and nested arrays ---
interface State { grid: number[][]; energy: number; tag: [number, number[]] }
function evolve(x: Float64Array, n: number): State {
  const grid: number[][] = [];
  let energy = 0;
  for (let i = 0; i < n; i++) {
    const row: number[] = [];
    for (let j = 0; j < x.length; j++) row.push(Math.tanh(x[j] * (i + 1)) + (j > 0 ? row[j - 1] * 0.5 : 0));
    grid.push(row);
    energy += row[row.length - 1] * row[0];
  }
  return { grid, energy, tag: [energy * energy, grid[n - 1]] };
}
function rescale(s: State, k: number): State {
  for (const row of s.grid) for (let j = 0; j < row.length; j++) row[j] *= k + s.energy;
  return s;
}
export function objects(x: Float64Array, n: number): Float64Array {
  const s = rescale(evolve(x, n), 0.5);
  const out = new Float64Array(n * x.length + 3);
  for (let i = 0; i < n; i++) for (let j = 0; j < x.length; j++) out[i * x.length + j] = s.grid[i][j];
  out[n * x.length] = s.energy;
  out[n * x.length + 1] = s.tag[0];
  out[n * x.length + 2] = s.tag[1][0] * s.tag[1][x.length - 1];
  return out;
}

// --- recursion, callees that hand back their argument, branches with zero tangents ---
function power(x: number, n: number): number {
  return n === 0 ? 1 : x * power(x, n - 1);
}
function same(v: number): number {
  return v;
}
function pick(v: number, w: number, c: boolean): number {
  if (c) return v;
  return 2;
}
function chain(xs: number[], i: number): number[] {
  if (i === 0) return [xs[0]];
  const rest = chain(xs, i - 1);
  rest.push(rest[rest.length - 1] * xs[i] + same(xs[i]));
  return rest;
}
function relu(t: number): number {
  return t > 0 ? t : 0.1 * t;
}
function soft(t: number): number {
  return Math.log(1 + Math.exp(t));
}
export function calls(x: number[]): number[] {
  const out = chain(x, x.length - 1);
  for (let i = 0; i < x.length; i++) {
    const act = x[(i + 2) % x.length] > 0 ? relu : soft;
    out.push(act(x[i] * 1.5 - 0.2));
    out.push(power(x[i], 3));
    out.push(same(x[i] * 2));
    out.push(pick(x[i], 1, x[i] > 0));
    out.push(Math.max(x[i], 0.1) * Math.abs(x[(i + 1) % x.length]));
  }
  return out;
}

// --- a function that writes its argument (the passes after the first get copies) ---
export function prefixWide(a: number[]): number[] {
  for (let i = 1; i < a.length; i++) a[i] += a[i - 1] * 0.5;
  const out: number[] = [];
  for (let i = 0; i < a.length; i++) {
    out.push(a[i]);
    out.push(a[i] * a[(i + 3) % a.length]);
  }
  return out;
}

// --- Float32Array, tuples out ---
export function f32(x: Float32Array): Float32Array {
  const y = new Float32Array(x.length + 1);
  for (let i = 0; i < x.length; i++) { y[i] = x[i] * x[(i + 1) % x.length]; y[x.length] += x[i]; }
  return y;
}
export function tuple(x: [number, number]): [number, number, number] {
  return [x[0] * x[1], Math.exp(x[0]), x[1] / (1 + x[0] * x[0])];
}

// --- operators inside, withDerivative, a registered rule ---
function cube(t: number): number { return t * t * t; }
export function softplus(t: number): number { return Math.log(1 + Math.exp(t)); }
registerDerivative(softplus, {
  forward: (t, dt) => ({ value: softplus(t), tangent: dt / (1 + Math.exp(-t)) }),
  reverse: (t) => ({ value: softplus(t), pullback: (dy) => dy / (1 + Math.exp(-t)) }),
});
export function sumSq(v: number[]): number[] {
  return v.map((t) => t * t);
}
registerDerivative(sumSq, {
  forward: (v, dv) => ({ value: sumSq(v), tangent: v.map((t, i) => 2 * t * dv[i]) }),
  reverse: (v) => ({ value: sumSq(v), pullback: (dy) => v.map((t, i) => 2 * t * dy[i]) }),
});
export function mixed(x: number[]): number[] {
  const sq = sumSq(x);
  const out: number[] = [];
  for (let i = 0; i < x.length; i++) {
    const halved = withDerivative(x[i] * x[i], (d) => d * 0.5);
    out.push(softplus(x[i] * sq[i]));
    out.push(derivative(cube)(x[i]) * x[0]);
    out.push(halved);
  }
  return out;
}

// --- a lambda with captures; sparse coefficients (zeros skip lane updates) ---
export function sparse(x: Float64Array, w: number[][]): Float64Array {
  const out = new Float64Array(w.length);
  for (let i = 0; i < w.length; i++) {
    let s = 0;
    for (let j = 0; j < x.length; j++) s += w[i][j] * Math.sin(x[j]);
    out[i] = s;
    out[i] += x[i % x.length] * w[i][0];
  }
  return out;
}

export const cases: Record<string, { f: (...a: any[]) => any; j: (...a: any[]) => any; d: (...a: any[]) => any; p: (...a: any[]) => any }> = {
  skin: { f: skin, j: jacobian(skin, { wrt: 0 }), d: differential(skin, { wrt: 0 }), p: pullback(skin, { wrt: 0 }) },
  recurrence: { f: recurrence, j: jacobian(recurrence, { wrt: 0 }), d: differential(recurrence, { wrt: 0 }), p: pullback(recurrence, { wrt: 0 }) },
  particles: { f: particles, j: jacobian(particles, { wrt: 0 }), d: differential(particles, { wrt: 0 }), p: pullback(particles, { wrt: 0 }) },
  calls: { f: calls, j: jacobian(calls), d: differential(calls), p: pullback(calls) },
  objects: { f: objects, j: jacobian(objects, { wrt: 0 }), d: differential(objects, { wrt: 0 }), p: pullback(objects, { wrt: 0 }) },
  prefixWide: { f: prefixWide, j: jacobian(prefixWide), d: differential(prefixWide), p: pullback(prefixWide) },
  f32: { f: f32, j: jacobian(f32), d: differential(f32), p: pullback(f32) },
  tuple: { f: tuple, j: jacobian(tuple), d: differential(tuple), p: pullback(tuple) },
  mixed: { f: mixed, j: jacobian(mixed), d: differential(mixed), p: pullback(mixed) },
  sparse: { f: sparse, j: jacobian(sparse, { wrt: 0 }), d: differential(sparse, { wrt: 0 }), p: pullback(sparse, { wrt: 0 }) },
};

// The same Jacobians in forward mode, as JavaScript and with the wasm backend (wasm-lanes.ts).
export const twins: Record<string, { js: (...a: any[]) => any; wasm: (...a: any[]) => any }> = {
  skin: { js: jacobian(skin, { wrt: 0, mode: "forward" }), wasm: jacobian(skin, { wrt: 0, mode: "forward", backend: "wasm" }) },
  recurrence: { js: jacobian(recurrence, { wrt: 0, mode: "forward" }), wasm: jacobian(recurrence, { wrt: 0, mode: "forward", backend: "wasm" }) },
  particles: { js: jacobian(particles, { wrt: 0, mode: "forward" }), wasm: jacobian(particles, { wrt: 0, mode: "forward", backend: "wasm" }) },
  calls: { js: jacobian(calls, { mode: "forward" }), wasm: jacobian(calls, { mode: "forward", backend: "wasm" }) },
  objects: { js: jacobian(objects, { wrt: 0, mode: "forward" }), wasm: jacobian(objects, { wrt: 0, mode: "forward", backend: "wasm" }) },
  f32: { js: jacobian(f32, { mode: "forward" }), wasm: jacobian(f32, { mode: "forward", backend: "wasm" }) },
  tuple: { js: jacobian(tuple, { mode: "forward" }), wasm: jacobian(tuple, { mode: "forward", backend: "wasm" }) },
  sparse: { js: jacobian(sparse, { wrt: 0, mode: "forward" }), wasm: jacobian(sparse, { wrt: 0, mode: "forward", backend: "wasm" }) },
};
export { wasmStats } from "nabla";

export function scaledLambda(x: number[], scale: number): number[][] {
  const f = (v: number[]): number[] => {
    const out = v.map((t, i) => Math.sin(t * scale) * v[(i + 1) % v.length]);
    out.push(scale * v[0]);
    return out;
  };
  return jacobian(f)(x);
}
`;

type Case = {
  f: (...a: unknown[]) => ArrayLike<number>;
  j: (...a: unknown[]) => ArrayLike<number>[];
  d: (...a: unknown[]) => (dx: unknown) => ArrayLike<number>;
  p: (...a: unknown[]) => (seed: unknown) => ArrayLike<number>;
};

/** A copy of x (typed arrays stay typed) with `h` added at position i. */
function bumped<T extends ArrayLike<number>>(x: T, i: number, h: number): T {
  const y = (x instanceof Float64Array || x instanceof Float32Array
    ? x.slice()
    : [...(x as unknown as number[])]) as unknown as number[];
  y[i]! += h;
  return y as unknown as T;
}
/** A zero vector like x with a 1 at i. */
function unit<T extends ArrayLike<number>>(x: T, i: number): T {
  const y = bumped(x, i, 0) as unknown as number[];
  for (let j = 0; j < y.length; j++) y[j] = j === i ? 1 : 0;
  return y as unknown as T;
}
/** A deep copy: typed arrays stay typed, class instances keep their class. */
function deepCopy<T>(v: T): T {
  if (v === null || typeof v !== "object") return v;
  if (v instanceof Float64Array || v instanceof Float32Array) return v.slice() as T;
  if (Array.isArray(v)) return v.map(deepCopy) as T;
  const c = Object.create(Object.getPrototypeOf(v) as object) as Record<string, unknown>;
  for (const [k, x] of Object.entries(v)) c[k] = deepCopy(x);
  return c as T;
}
const copyArgs = (args: unknown[]) => deepCopy(args);

/**
 * Checks c.j at (x, ...rest): columns equal scalar forward mode's to rounding, rows reverse
 * mode's, and central differences within `fdTolerance`.
 */
function checkJacobian(
  name: string,
  c: Case,
  x: ArrayLike<number>,
  rest: unknown[],
  fdTolerance = 1e-6,
) {
  const J = c.j(...copyArgs([x, ...rest]));
  const m = c.f(...copyArgs([x, ...rest])).length;
  assert.equal(J.length, m, `${name}: rows`);
  const n = x.length;
  for (let jx = 0; jx < n; jx++) {
    const column = c.d(...copyArgs([x, ...rest]))(unit(x, jx));
    for (let i = 0; i < m; i++) {
      const a = J[i]![jx]!;
      const b = column[i]!;
      assert.ok(
        Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b)),
        `${name}: J[${i}][${jx}] = ${a}, differential ${b}`,
      );
    }
    if (fdTolerance === Infinity) continue;
    const h = 1e-6 * Math.max(1, Math.abs(x[jx]!));
    const plus = c.f(...copyArgs([bumped(x, jx, h), ...rest]));
    const minus = c.f(...copyArgs([bumped(x, jx, -h), ...rest]));
    for (let i = 0; i < m; i++) {
      const fd = (plus[i]! - minus[i]!) / (2 * h);
      assert.ok(
        Math.abs(J[i]![jx]! - fd) <= fdTolerance * Math.max(1, Math.abs(fd)),
        `${name}: J[${i}][${jx}] = ${J[i]![jx]}, differences ${fd}`,
      );
    }
  }
  for (let i = 0; i < m; i++) {
    const value = c.f(...copyArgs([x, ...rest]));
    const seed =
      value instanceof Float64Array || value instanceof Float32Array
        ? unit(value, i)
        : unit(Array.from(value), i);
    const row = c.p(...copyArgs([x, ...rest]))(seed);
    for (let jx = 0; jx < n; jx++)
      assert.ok(
        Math.abs(J[i]![jx]! - row[jx]!) <= 1e-10 * Math.max(1, Math.abs(row[jx]!)),
        `${name}: J[${i}][${jx}] = ${J[i]![jx]}, pullback ${row[jx]}`,
      );
  }
  return J;
}

describe("jacobian along all directions at once", async () => {
  const { mod, code } = await build({ "main.ts": LANE_PROGRAM });
  const cases = mod.cases as unknown as Record<string, Case>;

  test("one forward pass computes f once for all columns (no per-column JVP)", () => {
    const wrapper = code.slice(code.indexOf("skin: {"), code.indexOf("recurrence: {"));
    // (Under NABLA_BACKEND=wasm, test/wasm-suites.test.ts, its WebAssembly twin.)
    assert.match(wrapper, /skin\$(jvps_0|wasm\w*)\(/);
    assert.doesNotMatch(wrapper, /\.differential\(/);
    assert.match(functionText(code, "matMul$jvps"), /\$q < \$k/);
  });

  test("matrices as arrays of rows, a parent chain, sparse weights (ht's skinning)", () => {
    const bones = 4;
    const points = 7;
    const model = {
      parents: [-1, 0, 1, 1],
      base: Array.from({ length: bones }, () => [randoms(3), randoms(3), [0, 0, 1]]),
      points: Array.from({ length: points }, () => randoms(2)),
      // Mostly zero, as skinning weights are.
      weights: Array.from({ length: points }, (_, v) =>
        Array.from({ length: bones }, (_, b) =>
          b === v % bones || b === (v + 1) % bones ? random() : 0,
        ),
      ),
    };
    const x = new Float64Array(randoms(3 * bones));
    checkJacobian("skin", cases.skin!, x, [model]);
    // Called again: the call site now knows m and goes straight to forward mode.
    checkJacobian("skin", cases.skin!, x, [model]);
  });

  test("loop-carried lanes that swap and read each other, across branches", () => {
    checkJacobian("recurrence", cases.recurrence!, randoms(3), [6]);
  });

  test("classes with methods, @noDerivative fields, mixed tuples, objects", () => {
    checkJacobian("particles", cases.particles!, randoms(4), [
      5,
      new (mod.Spring as unknown as new (k: number) => object)(0.7),
    ]);
  });

  test("callees returning objects holding nested arrays and tuples, written afterwards", () => {
    checkJacobian("objects", cases.objects!, new Float64Array(randoms(3)), [4]);
  });

  test("recursion, callees returning their argument, zero tangents from branches, max/abs", () => {
    checkJacobian("calls", cases.calls!, randoms(5), []);
  });

  test("more than 32 directions (two passes), a function that writes its argument", () => {
    // 40 inputs and 80 outputs: forward mode in passes of 32 and 8 directions; prefixWide
    // writes x, so the second pass runs on a copy of x as it was.
    const x = randoms(40, -0.5, 0.5);
    const J = checkJacobian("prefixWide", cases.prefixWide!, x, []);
    assert.equal(J[0]!.length, 40);
    const given = [...x];
    cases.prefixWide!.j(given);
    const once = [...x];
    cases.prefixWide!.f(once);
    assert.deepEqual(given, once, "x written once, as one call would");
  });

  test("Float32Array in and out, tuples in and out", () => {
    // (Central differences in single precision say little: closed form instead.)
    const J = checkJacobian("f32", cases.f32!, new Float32Array([0.5, -1.25, 2]), [], Infinity);
    assert.ok(J.every((r) => r instanceof Float32Array));
    assert.deepEqual(
      J.map((r) => Array.from(r)),
      [
        [-1.25, 0.5, 0],
        [0, 2, -1.25],
        [2, 0, 0.5],
        [1, 1, 1],
      ],
    );
    checkJacobian("tuple", cases.tuple!, [0.3, -0.7], []);
  });

  test("operators inside, withDerivative, registered forward rules (called once per direction)", () => {
    const x = randoms(4);
    const J = cases.mixed!.j([...x]);
    // withDerivative halves the derivative of x[i]²: the rows for `halved` are x[i], not 2x[i].
    for (let i = 0; i < 4; i++) assert.ok(Math.abs(J[3 * i + 2]![i]! - x[i]!) < 1e-15);
    // Columns and rows agree (central differences do not know about withDerivative).
    const c = cases.mixed!;
    for (let j = 0; j < 4; j++) {
      const column = c.d([...x])(unit(x, j));
      J.forEach((row, i) =>
        assert.ok(Math.abs(row[j]! - column[i]!) <= 1e-12 * Math.max(1, Math.abs(column[i]!))),
      );
    }
  });

  test("sparse coefficients: updates scaled by zero are skipped, the Jacobian is the same", () => {
    const w = [
      [0, 1.5, 0, 0],
      [0, 0, 0, 0],
      [2, 0, -1, 0],
      [0, 0, 0, 3],
      [0.5, 0, 0, 0],
    ];
    const x = new Float64Array(randoms(4));
    checkJacobian("sparse", cases.sparse!, x, [w]);
    assert.match(functionText(code, "sparse$jvps_0"), /!== 0\) \{/);
  });

  test("the same Jacobians with the wasm backend: equal to JavaScript's, in wasm where covered", () => {
    const twins = mod.twins as unknown as Record<string, { js: Case["j"]; wasm: Case["j"] }>;
    const stats = mod.wasmStats as unknown as { wasm: number; javascript: number };
    const bones = 3;
    const model = {
      parents: [-1, 0, 0],
      base: Array.from({ length: bones }, () => [randoms(3), randoms(3), [0, 0, 1]]),
      points: Array.from({ length: 5 }, () => randoms(2)),
      weights: Array.from({ length: 5 }, (_, v) =>
        Array.from({ length: bones }, (_, b) => (b === v % bones ? random() : 0)),
      ),
    };
    const weights = [
      [0, 1.5, 0, 0],
      [2, 0, -1, 0],
      [0, 0, 0, 3],
    ];
    const inputs: Record<string, unknown[]> = {
      skin: [new Float64Array(randoms(3 * bones)), model],
      recurrence: [randoms(3), 6],
      particles: [randoms(4), 5, new (mod.Spring as unknown as new (k: number) => object)(0.7)],
      calls: [randoms(5)],
      objects: [new Float64Array(randoms(3)), 4],
      f32: [new Float32Array([0.5, -1.25, 2])],
      tuple: [[0.3, -0.7]],
      sparse: [new Float64Array(randoms(4)), weights],
    };
    const ran: string[] = [];
    for (const [name, twin] of Object.entries(twins)) {
      const before = stats.wasm;
      const fromWasm = twin.wasm(...copyArgs(inputs[name]!));
      const fromJs = twin.js(...copyArgs(inputs[name]!));
      assert.equal(fromWasm.length, fromJs.length, `${name}: rows`);
      fromWasm.forEach((row, i) =>
        Array.from(row).forEach((value, j) =>
          assert.ok(
            Object.is(value, fromJs[i]![j]) ||
              Math.abs(value - fromJs[i]![j]!) <= 1e-12 * Math.abs(fromJs[i]![j]!),
            `${name}: J[${i}][${j}] = ${value} in wasm, ${fromJs[i]![j]} in JavaScript`,
          ),
        ),
      );
      if (stats.wasm > before) ran.push(name);
    }
    // Objects, classes, mixed tuples of tangents and function values stay JavaScript (the
    // module's comments say why).
    assert.deepEqual(ran, ["skin", "recurrence", "f32", "tuple", "sparse"]);
    for (const name of ["particles", "calls", "objects"])
      assert.match(
        code,
        new RegExp(
          `// jacobian\\(${name}\\) at main\\.ts:\\d+:\\d+: JavaScript, not WebAssembly: `,
        ),
      );
  });

  test("f in another module", async () => {
    const other = await build({
      "lib.ts": `export function spread(x: Float64Array, w: number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < w.length; i++) out.push(Math.sin(x[i % x.length] * w[i]) * x[(i + 1) % x.length]);
  return out;
}`,
      "main.ts": `import { jacobian, differential, pullback } from "nabla";
import { spread } from "./lib.ts";
export const c = { f: spread, j: jacobian(spread, { wrt: 0 }), d: differential(spread, { wrt: 0 }), p: pullback(spread, { wrt: 0 }) };
`,
    });
    assert.match(other.code, /import \{[^}]*spread\$jvps_0/);
    checkJacobian("spread", other.mod.c as unknown as Case, new Float64Array(randoms(3)), [
      randoms(7),
    ]);
  });

  test("a lambda with captures", () => {
    const x = randoms(3);
    const scale = 1.7;
    const J = (mod.scaledLambda as (x: number[], s: number) => number[][])(x, scale);
    const f = (v: number[]) => [
      ...v.map((t, i) => Math.sin(t * scale) * v[(i + 1) % v.length]!),
      scale * v[0]!,
    ];
    J.forEach((row, i) =>
      row.forEach((value, j) => {
        const h = 1e-6;
        const fd = (f(bumped(x, j, h))[i]! - f(bumped(x, j, -h))[i]!) / (2 * h);
        assert.ok(Math.abs(value - fd) < 1e-7, `J[${i}][${j}]`);
      }),
    );
  });
});
