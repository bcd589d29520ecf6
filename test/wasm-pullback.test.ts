import { test } from "node:test";
import assert from "node:assert/strict";
import { assertClose, compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";

// `pullback` and `valueWithPullback` with `backend: "wasm"`, and the reverse passes of a
// Jacobian, which are pullbacks: each run of the pullback runs both sweeps in wasm. Checked
// against the JavaScript backend (to the bit), against forward mode (sᵀ(J v) = (Jᵀ s)ᵀ v) and
// central differences, for running in wasm at all, and for the point the pullback was taken at
// when the caller changes its arrays afterwards.

interface Stats {
  wasm: number;
  javascript: number;
}

type Pullback<S, G> = (seed: S) => G;

// A curve fit as one writes it for Gauss–Newton: residuals of a model at samples, and the
// loss ½‖r‖² with a weight that is a plain number.
const FIT = (
  backend: string,
) => `import { differential, jacobian, pullback, valueWithPullback } from "nabla";
export { wasmStats } from "nabla";

export interface Samples {
  t: Float64Array;
  y: Float64Array;
}

export function residuals(params: Float64Array, data: Samples): Float64Array {
  const [amplitude, rate, offset] = params;
  const r = new Float64Array(data.t.length);
  for (let i = 0; i < data.t.length; i++) {
    const predicted = amplitude! * Math.exp(-rate! * data.t[i]!) + offset!;
    r[i] = predicted - data.y[i]!;
  }
  return r;
}

export function weightedLoss(params: Float64Array, data: Samples, weight: number): number {
  let total = 0;
  const r = residuals(params, data);
  for (const ri of r) total += ri * ri;
  return 0.5 * weight * total + Math.sin(params[0]! * weight);
}

export function trajectory(speeds: number[]): number[] {
  const heights: number[] = [];
  let h = 0;
  for (const v of speeds) {
    h = h + v * Math.cos(h);
    heights.push(h);
  }
  return heights;
}

export const fit = (params: Float64Array, data: Samples) =>
  valueWithPullback(residuals, { wrt: 0, backend: "${backend}" })(params, data);
export const fitJs = (params: Float64Array, data: Samples) =>
  valueWithPullback(residuals, { wrt: 0 })(params, data);
export const loss = pullback(weightedLoss, { wrt: [2, 0], backend: "${backend}" });
export const lossJs = pullback(weightedLoss, { wrt: [2, 0] });
export const heights = valueWithPullback(trajectory, { backend: "${backend}" });
export const heightsJs = valueWithPullback(trajectory);
export const tangent = differential(residuals, { wrt: 0 });
export const rows = jacobian(residuals, { wrt: 0, mode: "reverse", backend: "${backend}" });
export const rowsJs = jacobian(residuals, { wrt: 0, mode: "reverse" });
`;

interface Fit {
  fit: (
    p: Float64Array,
    d: Samples,
  ) => { value: Float64Array; pullback: Pullback<Float64Array, Float64Array> };
  fitJs: Fit["fit"];
  loss: (p: Float64Array, d: Samples, w: number) => Pullback<number, [number, Float64Array]>;
  lossJs: Fit["loss"];
  heights: (v: number[]) => { value: number[]; pullback: Pullback<number[], number[]> };
  heightsJs: Fit["heights"];
  tangent: (p: Float64Array, d: Samples) => (dp: Float64Array) => Float64Array;
  rows: (p: Float64Array, d: Samples) => Float64Array[];
  rowsJs: Fit["rows"];
  residuals: (p: Float64Array, d: Samples) => Float64Array;
  weightedLoss: (p: Float64Array, d: Samples, w: number) => number;
  wasmStats: Stats;
}

interface Samples {
  t: Float64Array;
  y: Float64Array;
}

const f64 = (...xs: number[]) => Float64Array.from(xs);

function assertSame(actual: unknown, expected: unknown, what: string) {
  assert.deepEqual(actual, expected, what);
}

function assertNear(actual: number, expected: number, what: string, tolerance = 1e-6) {
  const scale = Math.max(1, Math.abs(actual), Math.abs(expected));
  assert.ok(Math.abs(actual - expected) <= tolerance * scale, `${what}: ${actual} vs ${expected}`);
}

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) =>
  Array.from(a).reduce((s, ai, i) => s + ai * b[i]!, 0);

const data: Samples = { t: f64(0, 0.5, 1, 1.5, 2), y: f64(3.1, 2.2, 1.6, 1.3, 1.05) };

test("valueWithPullback and pullback in wasm: the JavaScript backend's bits, forward mode's products, each sweep in wasm", async () => {
  const compiled = compileFiles({ "main.ts": FIT("wasm") });
  assert.doesNotMatch(diagnosticsText(compiled), /NABLA202/);
  const code = [...compiled.outputs.values()][0]!.code;
  assert.match(
    code,
    /\/\/ valueWithPullback\(residuals\) at main\.ts:\d+:\d+ \(its pullback\): WebAssembly \(\d+ bytes\); per call it copies in parameters 0, 1, 2, copies back parameters 2, copies out its array results \(taken: the forward sweep, whose memory it keeps; at each seed: the backward sweep on it, the arguments copied in again\)/,
  );
  const m = await loadProgram<Fit>({ "main.ts": FIT("wasm") });
  const before = { ...m.wasmStats };
  const params = f64(2, 0.7, 1);

  // Gauss–Newton's gradient Jᵀr, and a second seed from the same pullback.
  const at = m.fit(params, data);
  const js = m.fitJs(params, data);
  assertSame(at.value, js.value, "residuals");
  const seeds = [at.value, f64(1, -2, 0.5, 0, 3)];
  for (const [k, seed] of seeds.entries()) {
    const adjoint = at.pullback(seed);
    assertSame(adjoint, js.pullback(seed), `pullback at seed ${k}`);
    // Forward mode, independently: sᵀ (J v) = (Jᵀ s)ᵀ v along each coordinate.
    const jvp = m.tangent(params, data);
    for (let j = 0; j < params.length; j++) {
      const v = f64(...params.map((_, i) => (i === j ? 1 : 0)));
      assertNear(
        adjoint[j]!,
        dot(seed, jvp(v)),
        `seed ${k}, coordinate ${j} against forward mode`,
        1e-12,
      );
    }
  }

  // Several parameters in the user's order, a number among them.
  const back = m.loss(params, data, 0.8);
  const [dWeight, dParams] = back(1.5);
  assertSame([dWeight, dParams], m.lossJs(params, data, 0.8)(1.5), "weighted loss");
  const h = 1e-6;
  assertNear(
    dWeight,
    (1.5 * (m.weightedLoss(params, data, 0.8 + h) - m.weightedLoss(params, data, 0.8 - h))) /
      (2 * h),
    "d/dweight against central differences",
  );
  for (let j = 0; j < params.length; j++) {
    const plus = params.map((p, i) => (i === j ? p + h : p));
    const minus = params.map((p, i) => (i === j ? p - h : p));
    const difference =
      (m.weightedLoss(plus, data, 0.8) - m.weightedLoss(minus, data, 0.8)) / (2 * h);
    assertNear(dParams[j]!, 1.5 * difference, `d/dparams[${j}] against central differences`);
  }

  // An array grown from [], returned: number[] in and out.
  const speeds = [0.4, -0.3, 1.2, 0.8];
  const traj = m.heights(speeds);
  const trajJs = m.heightsJs(speeds);
  assertSame(traj.value, trajJs.value, "heights");
  assertSame(traj.pullback([0, 1, 0, 2]), trajJs.pullback([0, 1, 0, 2]), "heights' pullback");

  // Each forward sweep (3, when taken) and each backward sweep (2 + 1 + 1) ran in wasm.
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "calls that fell back");
  assert.equal(m.wasmStats.wasm - before.wasm, 7, "calls in wasm");
});

test("a wasm pullback stays at the point it was taken when the caller changes its arrays", async () => {
  const m = await loadProgram<Fit>({ "main.ts": FIT("wasm") });
  const params = f64(2, 0.7, 1);
  const expected = m.fitJs(f64(2, 0.7, 1), data).pullback(f64(1, 1, 1, 1, 1));
  const at = m.fit(params, data);
  // An optimizer moving its parameters in place, and the data changing, before the pullback runs.
  params[1] = 5;
  const moved = { t: data.t.slice(), y: data.y.slice() };
  const taken = m.fit(f64(2, 0.7, 1), moved);
  moved.y[0] = 100;
  assertSame(at.pullback(f64(1, 1, 1, 1, 1)), expected, "parameters changed afterwards");
  assertSame(taken.pullback(f64(1, 1, 1, 1, 1)), expected, "data changed afterwards");
});

test("a reverse-mode Jacobian's pullbacks run in wasm, one per row, as in JavaScript", async () => {
  const m = await loadProgram<Fit>({ "main.ts": FIT("wasm") });
  const params = f64(2, 0.7, 1);
  const before = { ...m.wasmStats };
  const rows = m.rows(params, data);
  assert.equal(
    m.wasmStats.wasm - before.wasm,
    1 + data.t.length,
    "the forward sweep, then a backward sweep per row",
  );
  assert.equal(m.wasmStats.javascript - before.javascript, 0);
  assertSame(rows, m.rowsJs(params, data), "rows");
  const jvp = m.tangent(params, data);
  for (let j = 0; j < 3; j++) {
    const column = jvp(f64(...[0, 1, 2].map((i) => (i === j ? 1 : 0))));
    rows.forEach((row, i) => assert.equal(row[j], column[i], `J[${i}][${j}] against forward mode`));
  }
});

test("backend 'auto' keeps pullbacks JavaScript, without a warning", async () => {
  // "auto" times single calls; a pullback is a forward sweep, then backward sweeps later.
  const compiled = compileFiles({ "main.ts": FIT("auto") });
  assert.doesNotMatch(diagnosticsText(compiled), /NABLA202/);
  const code = [...compiled.outputs.values()][0]!.code;
  assert.match(
    code,
    /\/\/ valueWithPullback\(residuals\) at main\.ts:\d+:\d+: JavaScript, not WebAssembly: 'auto' keeps pullbacks JavaScript: it times single calls, and a pullback is several/,
  );
  const m = await loadProgram<Fit>({ "main.ts": FIT("auto") });
  const params = f64(2, 0.7, 1);
  const seed = f64(1, -2, 0.5, 0, 3);
  const before = { ...m.wasmStats };
  for (let call = 0; call < 20; call++)
    assertSame(
      m.fit(params, data).pullback(seed),
      m.fitJs(params, data).pullback(seed),
      `call ${call}`,
    );
  assert.equal(m.wasmStats.wasm - before.wasm, 0, "calls in wasm");
});

test("a pullback wasm does not cover stays JavaScript and says why; a seed of the wrong length fails as in JavaScript", async () => {
  const files = {
    "main.ts": `import { pullback } from "nabla";
export { wasmStats } from "nabla";
export function normalize(v: Float64Array): number {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  n = Math.sqrt(n);
  for (let i = 0; i < v.length; i++) v[i] = v[i]! / n;
  return n;
}
export function outer(a: Float64Array): number[][] {
  return Array.from(a, (x) => Array.from(a, (y) => x * y));
}
export function scaled(a: Float64Array, k: number): Float64Array {
  return a.map((x) => k * x * x);
}
export let stiffness = 2;
export const GRAVITY = 9.81;
export function spring(x: number, m: number): number {
  return 0.5 * stiffness * x * x + m * GRAVITY * x;
}
export function fall(x: number, m: number): number {
  return m * GRAVITY * x * x;
}
export const springBack = pullback(spring, { backend: "wasm" });
export const fallBack = pullback(fall, { backend: "wasm" });
export function stiffen(k: number) {
  stiffness = k;
}
export const normBack = pullback(normalize, { backend: "wasm" });
export const outerBack = pullback(outer, { backend: "wasm" });
export const scaledBack = pullback(scaled, { wrt: 0, backend: "wasm" });
export const scaledJs = pullback(scaled, { wrt: 0 });
`,
  };
  const text = diagnosticsText(compileFiles(files));
  assert.match(
    text,
    /warning NABLA202: 'pullback' runs as JavaScript, not WebAssembly: it may write its argument 'v'/,
  );
  assert.match(
    text,
    /warning NABLA202: 'pullback' runs as JavaScript, not WebAssembly: the pullback of a function returning number\[\]\[\] is not covered yet \(numbers and arrays of numbers are\)/,
  );
  assert.match(
    text,
    /warning NABLA202: 'pullback' runs as JavaScript, not WebAssembly: it reads the module-level 'stiffness', which may change before the pullback runs/,
  );
  assert.equal(text.match(/NABLA202/g)?.length, 3, text);
  const m = await loadProgram<{
    normBack: (v: Float64Array) => Pullback<number, Float64Array>;
    springBack: (x: number, m: number) => Pullback<number, number[]>;
    fallBack: (x: number, m: number) => Pullback<number, number[]>;
    stiffen: (k: number) => void;
    outerBack: (a: Float64Array) => Pullback<number[][], Float64Array>;
    scaledBack: (a: Float64Array, k: number) => Pullback<Float64Array, Float64Array>;
    scaledJs: (a: Float64Array, k: number) => Pullback<Float64Array, Float64Array>;
    wasmStats: Stats;
  }>(files);
  // JavaScript's pullback keeps the stiffness its forward sweep read.
  const springAt = m.springBack(0.5, 2);
  m.stiffen(100);
  assertSame(springAt(1), [2 * 0.5 + 2 * 9.81, 0.5 * 9.81], "spring, after the stiffness changed");
  const fell = { ...m.wasmStats };
  assertSame(m.fallBack(0.5, 2)(1), [2 * 2 * 9.81 * 0.5, 9.81 * 0.25], "a module-level constant");
  assert.equal(m.wasmStats.wasm - fell.wasm, 2, "both sweeps, reading a constant, in wasm");
  const v = f64(3, 4);
  const unit = m.normBack(v)(1);
  assertNear(unit[0]!, 0.6, "normalize, in JavaScript");
  assertNear(unit[1]!, 0.8, "normalize, in JavaScript");
  assertSame(
    m.outerBack(f64(1, 2))([
      [1, 0],
      [0, 1],
    ]),
    f64(2, 4),
    "outer, in JavaScript",
  );
  // A seed shorter than the result: the call reruns as JavaScript, which throws its error.
  const before = { ...m.wasmStats };
  const wrong = () => m.scaledBack(f64(1, 2, 3), 2)(f64(1, 1));
  const wrongJs = () => m.scaledJs(f64(1, 2, 3), 2)(f64(1, 1));
  assert.throws(wrongJs, TypeError);
  assert.throws(wrong, (error: Error) => {
    assert.throws(wrongJs, { message: error.message });
    return true;
  });
  assert.equal(m.wasmStats.javascript - before.javascript, 1, "the wrong seed fell back");
  assertSame(m.scaledBack(f64(1, 2, 3), 2)(f64(1, 0, 1)), f64(4, 0, 12), "a right seed");
});

test("a pullback's seed has its array result's length: one shorter or longer is refused, in JavaScript and wasm", async () => {
  // A plain array seed shorter than the result was padded with zeros, silently; after a
  // 'pop' the result's shadow is longer than the result, and a seed as long as the shadow
  // seeded the element the result no longer has; a tuple result's closure read past a short
  // seed (NaN).
  type Back = (seed: number[]) => number[];
  const m = await loadProgram<{
    squares: (x: number[]) => number[];
    pair: (x: number[]) => number[];
    dropped: (x: number[]) => number[];
    backs: Record<"squares" | "pair" | "dropped", Back[]>;
  }>({
    "main.ts": `import { pullback, valueWithPullback } from "nabla";
// A loop: the tape's sweeps.
export function squares(x: number[]): number[] { return x.map((v, i) => v * v * (i + 1)); }
// No loop: the closure's, the result's shadow filled from the seed, or the seed read itself.
function numbers(a: number, b: number): number[] { return [a * b, Math.sin(a)]; }
function tuple(a: number, b: number): [number, number] { return [a * b, Math.sin(a)]; }
export const pair = (x: number[]) => numbers(x[0], x[1]);
// A result that 'pop' shortened: its shadow keeps the element dropped.
export function dropped(x: number[]): number[] { const y = x.map((v) => v * Math.exp(v)); y.pop(); return y; }
export const backs = {
  squares: [
    (s: number[]) => pullback(squares)([0.5, -1.2, 2])(s),
    (s: number[]) => pullback(squares, { backend: "wasm" })([0.5, -1.2, 2])(s),
    (s: number[]) => valueWithPullback(squares)([0.5, -1.2, 2]).pullback(s),
    (s: number[]) => valueWithPullback(squares, { backend: "wasm" })([0.5, -1.2, 2]).pullback(s),
  ],
  pair: [
    (s: number[]) => pullback(numbers, { wrt: [0, 1] })(0.5, -1.2)(s),
    (s: number[]) => pullback(numbers, { wrt: [0, 1], backend: "wasm" })(0.5, -1.2)(s),
    (s: number[]) => pullback(tuple, { wrt: [0, 1] })(0.5, -1.2)(s as [number, number]),
  ],
  dropped: [(s: number[]) => pullback(dropped)([0.5, -1.2, 2])(s)],
};
`,
  });
  const points = { squares: [0.5, -1.2, 2], pair: [0.5, -1.2], dropped: [0.5, -1.2, 2] };
  for (const name of ["squares", "pair", "dropped"] as const) {
    const x = points[name];
    const n = m[name](x).length;
    const seed = [0.3, -0.7, 1.1].slice(0, n);
    // sᵀJ by central differences of x ↦ sᵀf(x).
    const along = (v: number[]) => m[name](v).reduce((sum, y, i) => sum + seed[i]! * y, 0);
    const expected = x.map((_, j) => {
      const h = 1e-6 * Math.max(1, Math.abs(x[j]!));
      const at = (d: number) => along(x.map((v, k) => (k === j ? v + d : v)));
      return (at(h) - at(-h)) / (2 * h);
    });
    for (const [k, back] of m.backs[name].entries()) {
      const what = `${name}, pullback ${k}`;
      back(seed).forEach((g, j) => assertClose(g, expected[j]!, 1e-6, `${what}: ∂/∂x${j}`));
      for (const wrong of [seed.slice(0, -1), [...seed, 1]])
        assert.throws(() => back(wrong), {
          name: "TypeError",
          message: `nabla: the pullback's seed has length ${wrong.length}, but the result has length ${n}: a seed has the shape of the function's result`,
        });
    }
  }
});

test("a wasm pullback's backward sweeps run on what its forward sweep left, whatever ran in between", async () => {
  // A relaxation that updates its state in place (the backward sweep puts the old values back
  // as it goes), with a scratch array it makes and reads again, run at several seeds, with
  // other wasm calls sharing the memory between the forward sweep and each backward sweep.
  const files = {
    "main.ts": `import { gradient, pullback, valueWithPullback } from "nabla";
export { wasmStats } from "nabla";

export function relax(initial: Float64Array, rate: number, steps: number): Float64Array {
  const state = Float64Array.from(initial);
  const flux = new Float64Array(state.length);
  for (let step = 0; step < steps; step++) {
    for (let i = 0; i + 1 < state.length; i++) flux[i] = rate * Math.sin(state[i + 1]! - state[i]!);
    for (let i = 0; i + 1 < state.length; i++) {
      state[i] += flux[i]!;
      state[i + 1] -= flux[i]!;
    }
  }
  return state;
}

export function spread(xs: number[]): number {
  let total = 0;
  for (const x of xs) total += x * x * Math.cos(x);
  return total;
}

export const relaxed = valueWithPullback(relax, { wrt: [0, 1], backend: "wasm" });
export const relaxedJs = valueWithPullback(relax, { wrt: [0, 1] });
export const spreadGradient = gradient(spread, { backend: "wasm" });
export const spreadBack = pullback(spread, { backend: "wasm" });
export function safeLog(xs: Float64Array): number {
  let s = 0;
  for (const x of xs) {
    if (x <= 0) throw new RangeError(\`log of \${x}\`);
    s += Math.log(x);
  }
  return s;
}
export const safeBack = pullback(safeLog, { backend: "wasm" });
`,
  };
  assert.doesNotMatch(diagnosticsText(compileFiles(files)), /NABLA202/);
  type Relaxed = (
    initial: Float64Array,
    rate: number,
    steps: number,
  ) => { value: Float64Array; pullback: (seed: Float64Array) => [Float64Array, number] };
  const m = await loadProgram<{
    relaxed: Relaxed;
    relaxedJs: Relaxed;
    spreadGradient: (xs: number[]) => number[];
    spreadBack: (xs: number[]) => (seed: number) => number[];
    safeBack: (xs: Float64Array) => (seed: number) => Float64Array;
    wasmStats: Stats;
  }>(files);
  const initial = f64(0.3, -1.2, 0.8, 2.1, -0.4, 1.5);
  const before = { ...m.wasmStats };
  const at = m.relaxed(initial, 0.35, 12);
  const js = m.relaxedJs(initial, 0.35, 12);
  assertSame(at.value, js.value, "relaxed state");
  // Other calls in between, on the same memory (their arguments over the forward sweep's
  // heap and tape), and one so large it needs a larger memory.
  const mid = Array.from({ length: 5_000 }, (_, i) => Math.cos(i));
  const big = Array.from({ length: 300_000 }, (_, i) => Math.sin(i));
  const otherBack = m.spreadBack([1, 2, 3]);
  for (const [k, seed] of [
    f64(1, 0, 0, 0, 0, 0),
    f64(0, 0, 0, 0, 0, 1),
    f64(0.5, -1, 2, 0.25, 3, -0.75),
  ].entries()) {
    const between = k === 1 ? big : mid;
    assertSame(m.spreadGradient(between), m.spreadGradient(between.slice()), "a call between");
    assertSame(at.pullback(seed), js.pullback(seed), `seed ${k}`);
    assertSame(otherBack(k + 1), m.spreadBack([1, 2, 3])(k + 1), `the other pullback at ${k + 1}`);
  }
  // The same seed twice gives the same adjoints.
  const seed = f64(1, 1, 1, 1, 1, 1);
  assertSame(at.pullback(seed), at.pullback(seed), "a seed run twice");
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "calls that fell back");
  // A pullback that throws throws when it is taken, as in JavaScript.
  assert.throws(() => m.safeBack(f64(1, -2)), { name: "RangeError", message: "log of -2" });
});

test("a Jacobian with respect to rows (number[][]): its differentials and its pullbacks in wasm", async () => {
  const files = {
    "main.ts": `import { jacobian } from "nabla";
export { wasmStats } from "nabla";

/** Moments of a point cloud, as a plotting helper might compute them. */
export function moments(points: number[][]): number[] {
  const sums = [0, 0, 0];
  for (const [x, y] of points) {
    sums[0] += x! * x!;
    sums[1] += Math.sin(x! * y!);
    sums[2] += Math.hypot(x!, y!);
  }
  return sums;
}
export const reverse = jacobian(moments, { mode: "reverse", backend: "wasm" });
export const forward = jacobian(moments, { mode: "forward", backend: "wasm" });
export const either = jacobian(moments, { backend: "wasm" });
export const reverseJs = jacobian(moments, { mode: "reverse" });
export const forwardJs = jacobian(moments, { mode: "forward" });
`,
  };
  assert.doesNotMatch(diagnosticsText(compileFiles(files)), /NABLA202/);
  type J = (points: number[][]) => number[][][];
  const m = await loadProgram<{
    reverse: J;
    forward: J;
    either: J;
    reverseJs: J;
    forwardJs: J;
    moments: (points: number[][]) => number[];
    wasmStats: Stats;
  }>(files);
  const points = [
    [1, 2],
    [3, -1],
    [0.5, 0.25],
    [-2, 0.75],
  ];
  const before = { ...m.wasmStats };
  const rows = m.reverse(points);
  assertSame(rows, m.reverseJs(points), "reverse mode");
  assertSame(m.forward(points), m.forwardJs(points), "forward mode");
  assertSame(m.either(points), m.reverseJs(points), "either (more inputs than results: reverse)");
  // The forward sweep once and a pullback per result (1 + 3), a differential per input (8), and
  // the one the Jacobian without mode chose.
  assert.ok(m.wasmStats.wasm - before.wasm >= 1 + 3 + 8, "calls in wasm");
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "calls that fell back");
  const h = 1e-6;
  points.forEach((point, p) =>
    point.forEach((v, c) => {
      const moved = (d: number) =>
        m.moments(points.map((q, i) => (i === p ? q.map((w, j) => (j === c ? v + d : w)) : q)));
      const [plus, minus] = [moved(h), moved(-h)];
      rows.forEach((row, r) =>
        assertNear(row[p]![c]!, (plus[r]! - minus[r]!) / (2 * h), `J[${r}][${p}][${c}]`),
      );
    }),
  );
});

/** Each element of `actual` against `expected`, to 1e-12 relative. */
function closeAll(actual: number[], expected: number[]): void {
  assert.equal(actual.length, expected.length);
  actual.forEach((a, i) => assertClose(a, expected[i]!, 1e-12));
}

test("a pullback's seed may leave out what Tangent<T> leaves out — parts with no tangent, optional fields — as zero; a required number it lacks is refused", async () => {
  // A seed of exactly Tangent<Out> was refused once the seed's shape was checked (the result's
  // Int32Array, text and string[] counted as parts to seed), and a seed leaving out an optional
  // number field (or a record's key) gave NaN.
  const m = await loadProgram<{
    labeledBack: (seed: unknown) => number[];
    loopOptionalBack: (seed: unknown) => number[];
    closureOptionalBack: (seed: unknown) => number[];
    groupsBack: (seed: unknown) => number[];
    closureRequiredBack: (seed: unknown) => number[];
  }>({
    "main.ts": `import { pullback } from "nabla";
interface Out { v: number[]; idx: Int32Array; meta: { name: string }; tags: string[] }
function labeled(a: number, b: number): Out {
  const v: number[] = [];
  for (let i = 0; i < 2; i++) v.push(i === 0 ? a * b : a);
  return { v, idx: Int32Array.of(1, 2), meta: { name: "pt" }, tags: ["u", "w"] };
}
interface Maybe { s: number; extra?: number }
function looped(a: number, b: number): Maybe {
  let s = 0;
  for (let i = 0; i < 2; i++) s += a * b;
  return a > 0 ? { s, extra: a * a } : { s };
}
function closed(a: number, b: number): Maybe {
  return { s: a * b, extra: a * a * b };
}
function counts(xs: number[]): Record<string, number> {
  const r: Record<string, number> = {};
  for (const x of xs) r[x > 0 ? "pos" : "neg"] = (r[x > 0 ? "pos" : "neg"] ?? 0) + x * x;
  return r;
}
function both(a: number, b: number): { s: number; p: number } {
  return { s: a * b, p: a + b };
}
export const labeledBack = (seed: unknown) => pullback(labeled, { wrt: [0, 1] })(0.7, 2)(seed as never);
export const loopOptionalBack = (seed: unknown) => pullback(looped, { wrt: [0, 1] })(0.7, 2)(seed as never);
export const closureOptionalBack = (seed: unknown) => pullback(closed, { wrt: [0, 1] })(0.7, 2)(seed as never);
export const groupsBack = (seed: unknown) => pullback(counts)([0.5, -1, 2])(seed as never) as unknown as number[];
export const closureRequiredBack = (seed: unknown) => pullback(both, { wrt: [0, 1] })(0.7, 2)(seed as never);
`,
  });
  // v = [a·b, a]: the seed [1, 2] gives ∂/∂a = b + 2 = 4, ∂/∂b = a = 0.7.
  closeAll(m.labeledBack({ v: [1, 2] }), [4, 0.7]);
  // s = 2ab, extra = a² (a > 0): the seed { s: 1 } gives [2b, 2a]; with extra 1, [2b + 2a, 2a].
  closeAll(m.loopOptionalBack({ s: 1 }), [4, 1.4]);
  closeAll(m.loopOptionalBack({ s: 1, extra: 1 }), [5.4, 1.4]);
  // s = ab, extra = a²b: { s: 1 } gives [b, a]; with extra 1, [b + 2ab, a + a²].
  closeAll(m.closureOptionalBack({ s: 1 }), [2, 0.7]);
  closeAll(m.closureOptionalBack({ s: 1, extra: 1 }), [4.8, 1.19]);
  // pos = 0.5² + 2², neg = 1: the seed { pos: 1 } gives [1, 0, 4].
  closeAll(m.groupsBack({ pos: 1 }), [1, 0, 4]);
  assert.throws(
    () => m.closureRequiredBack({ s: 1 }),
    /the pullback's seed\.p is undefined, but the result\.p is a number/,
  );
  closeAll(m.closureRequiredBack({ s: 1, p: 1 }), [3, 1.7]);
});
