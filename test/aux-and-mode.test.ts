import { test } from "node:test";
import assert from "node:assert/strict";
import { differential, gradient, jacobian, valueWithGradient } from "../src/runtime/index.js";
import { compileFiles, diagnosticsText, finiteGradient, loadProgram } from "./support/harness.js";

// `hasAux` (JAX's `has_aux`) on gradient and valueWithGradient, and `jacobian`'s `mode`:
// compiled (through the loader) and through the run-time fallback (this file is compiled by
// tsc, so operators called here on its own functions run uncompiled). Every derivative is
// checked against finite differences and forward mode against reverse mode.

const close = (actual: number, expected: number, tolerance = 1e-6) =>
  assert.ok(
    Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected)),
    `${actual} vs ${expected}`,
  );
const closeAll = (actual: ArrayLike<number>, expected: ArrayLike<number>, tolerance = 1e-6) => {
  assert.equal(actual.length, expected.length);
  for (let i = 0; i < expected.length; i++) close(actual[i]!, expected[i]!, tolerance);
};

// A JAX user's regression: the loss returns the mean squared error with what it computed on
// the way (predictions, residuals), which a training loop logs.
const PROGRAM = `
import { differential, gradient, valueWithGradient } from "nabla";

export interface Stats {
  predictions: number[];
  residuals: number[];
  label: string;
}

export function mse(w: number[], xs: number[], ys: number[]): [number, Stats] {
  const predictions: number[] = [];
  const residuals: number[] = [];
  let sum = 0;
  for (let i = 0; i < xs.length; i++) {
    const p = Math.tanh(w[0] * xs[i] + w[1]) * w[2];
    predictions.push(p);
    residuals.push(p - ys[i]);
    sum += (p - ys[i]) ** 2;
  }
  return [sum / xs.length, { predictions, residuals, label: "mse" }];
}

/** The same loss without the aux: the reference the aux form is checked against. */
export function mseOnly(w: number[], xs: number[], ys: number[]): number {
  let sum = 0;
  for (let i = 0; i < xs.length; i++) {
    const p = Math.tanh(w[0] * xs[i] + w[1]) * w[2];
    sum += (p - ys[i]) ** 2;
  }
  return sum / xs.length;
}

export const withAux = valueWithGradient(mse, { wrt: 0, hasAux: true });
export const gradientWithAux = gradient(mse, { wrt: 0, hasAux: true });
export const reverse = gradient(mseOnly, { wrt: 0 });
export const forward = differential(mseOnly, { wrt: 0 });

// Several returns, and an aux of each kind: { value, aux } objects, a number, a string.
export function huber(w: number, x: number, y: number): { value: number; aux: { big: boolean; r: number } } {
  const r = w * x - y;
  if (Math.abs(r) > 1) return { value: Math.abs(r) - 0.5, aux: { big: true, r } };
  return { value: 0.5 * r * r, aux: { big: false, r } };
}
export function huberOnly(w: number, x: number, y: number): number {
  const r = w * x - y;
  if (Math.abs(r) > 1) return Math.abs(r) - 0.5;
  return 0.5 * r * r;
}
export const huberWithAux = valueWithGradient(huber, { hasAux: true });
export const huberReverse = gradient(huberOnly);
export const huberForward = differential(huberOnly);
export const numberAux = gradient((a: number, b: number) => [a * Math.sin(b), a + b], { hasAux: true });
export const stringAux = valueWithGradient((a: number) => ({ value: a ** 3, aux: "cubed" }), { hasAux: true });

/** A training loop that logs the aux of each step. */
export function train(xs: number[], ys: number[], steps: number): { w: number[]; log: number[][] } {
  const w = [0.5, 0, 1];
  const log: number[][] = [];
  const step = valueWithGradient(mse, { wrt: 0, hasAux: true });
  for (let k = 0; k < steps; k++) {
    const { value, gradient, aux } = step(w, xs, ys);
    log.push([value, ...aux.residuals]);
    for (let j = 0; j < w.length; j++) w[j] -= 0.1 * gradient[j];
  }
  return { w, log };
}
`;

type Stats = { predictions: number[]; residuals: number[]; label: string };
type Vector = (w: number[], xs: number[], ys: number[]) => number[];
interface Program {
  mse: (w: number[], xs: number[], ys: number[]) => [number, Stats];
  mseOnly: (w: number[], xs: number[], ys: number[]) => number;
  withAux: (
    w: number[],
    xs: number[],
    ys: number[],
  ) => { value: number; gradient: number[]; aux: Stats };
  gradientWithAux: (w: number[], xs: number[], ys: number[]) => { gradient: number[]; aux: Stats };
  reverse: Vector;
  forward: (w: number[], xs: number[], ys: number[]) => (dw: number[]) => number;
  huberWithAux: (
    w: number,
    x: number,
    y: number,
  ) => { value: number; gradient: number[]; aux: { big: boolean; r: number } };
  huberOnly: (w: number, x: number, y: number) => number;
  huberReverse: (w: number, x: number, y: number) => number[];
  huberForward: (w: number, x: number, y: number) => (...d: number[]) => number;
  numberAux: (a: number, b: number) => { gradient: number[]; aux: number };
  stringAux: (a: number) => { value: number; gradient: number; aux: string };
  train: (xs: number[], ys: number[], steps: number) => { w: number[]; log: number[][] };
}

const xs = [0, 0.5, 1, 1.5, 2];
const ys = [0.1, 0.5, 0.6, 0.9, 1.2];
const w = [0.7, -0.2, 1.3];

/** Checks a hasAux gradient against the loss-only function, both modes and differences. */
function checkAuxGradient(
  gradientOf: number[],
  reverse: number[],
  forward: (d: number[]) => number,
  loss: (...v: number[]) => number,
  at: number[],
) {
  closeAll(gradientOf, reverse, 1e-12);
  closeAll(gradientOf, finiteGradient(loss, at));
  at.forEach((_, i) => close(gradientOf[i]!, forward(at.map((_, j) => (j === i ? 1 : 0))), 1e-12));
}

test("hasAux, compiled: [loss, aux] from one run; the gradient is the loss's (differences, forward mode)", async () => {
  const p = await loadProgram<Program>({ "main.ts": PROGRAM });
  const r = p.withAux(w, xs, ys);
  const [value, stats] = p.mse(w, xs, ys);
  close(r.value, value, 1e-15);
  close(r.value, p.mseOnly(w, xs, ys), 1e-15);
  // The aux depends on the differentiated w: its primal values, as the function computes them.
  assert.deepEqual(r.aux, stats);
  checkAuxGradient(
    r.gradient,
    p.reverse(w, xs, ys),
    p.forward(w, xs, ys),
    (...v) => p.mseOnly(v, xs, ys),
    w,
  );
  const g = p.gradientWithAux(w, xs, ys);
  assert.deepEqual(Object.keys(g), ["gradient", "aux"]);
  closeAll(g.gradient, r.gradient, 0);
  assert.deepEqual(g.aux, stats);
});

test("hasAux, compiled: { value, aux } with several returns, number and string aux", async () => {
  const p = await loadProgram<Program>({ "main.ts": PROGRAM });
  for (const [wv, x, y] of [
    [0.4, 2, 0.5],
    [3, 2, 0.5],
    [-1, 1.5, 0.2],
  ] as const) {
    const r = p.huberWithAux(wv, x, y);
    close(r.value, p.huberOnly(wv, x, y), 1e-15);
    assert.deepEqual(r.aux, { big: Math.abs(wv * x - y) > 1, r: wv * x - y });
    checkAuxGradient(
      r.gradient,
      p.huberReverse(wv, x, y),
      (d) => p.huberForward(wv, x, y)(...d),
      (...v) => p.huberOnly(v[0]!, v[1]!, v[2]!),
      [wv, x, y],
    );
  }
  const n = p.numberAux(2, 0.5);
  assert.equal(n.aux, 2.5);
  closeAll(n.gradient, [Math.sin(0.5), 2 * Math.cos(0.5)], 1e-15);
  closeAll(
    n.gradient,
    finiteGradient((a, b) => a! * Math.sin(b!), [2, 0.5]),
  );
  const s = p.stringAux(2);
  assert.deepEqual(s, { value: 8, gradient: 12, aux: "cubed" });
});

test("hasAux, compiled: a training loop logs the aux of each step; the loss goes down", async () => {
  const p = await loadProgram<Program>({ "main.ts": PROGRAM });
  const { w: trained, log } = p.train(xs, ys, 30);
  assert.equal(log.length, 30);
  assert.ok(log[29]![0]! < log[0]![0]!);
  // Each logged residual is the one of the weights of its step: the last matches a fresh run.
  const [, stats] = p.mse(trained, xs, ys);
  assert.equal(stats.residuals.length, xs.length);
  assert.ok(log.every((row) => row.length === 1 + xs.length));
});

test("hasAux, compiled: the function runs once per call (value, gradient and aux from one sweep)", () => {
  const r = compileFiles({ "main.ts": PROGRAM });
  assert.equal(diagnosticsText(r), "");
  const code = [...r.outputs.values()].map((o) => o.code).join("\n");
  // The wrapper of `withAux` calls only the fused gradient (or the two sweeps), never `mse`.
  const wrapper = /export const withAux = \(\(w, xs, ys\) => \{[^]*?\}\);/.exec(code)?.[0] ?? "";
  assert.match(wrapper, /\$nabla\.takeAux\(\)/);
  assert.doesNotMatch(wrapper, /\bmse\(/);
  assert.match(code, /\$nabla\.setAux\(/);
});

// The run-time fallback: the same functions, written here (tsc strips their types).
function mse(w: number[], xs: number[], ys: number[]) {
  const predictions = xs.map((x) => Math.tanh(w[0]! * x + w[1]!) * w[2]!);
  let sum = 0;
  for (let i = 0; i < xs.length; i++) sum += (predictions[i]! - ys[i]!) ** 2;
  return { value: sum / xs.length, aux: { predictions, count: xs.length } };
}
function mseOnly(w: number[], xs: number[], ys: number[]): number {
  let sum = 0;
  for (let i = 0; i < xs.length; i++) {
    const p = Math.tanh(w[0]! * xs[i]! + w[1]!) * w[2]!;
    sum += (p - ys[i]!) ** 2;
  }
  return sum / xs.length;
}

test("hasAux, fallback: value, gradient and aux of a plain function (differences, forward mode)", () => {
  const r = valueWithGradient(mse, { wrt: 0, hasAux: true })(w, xs, ys);
  close(r.value, mseOnly(w, xs, ys), 1e-15);
  assert.deepEqual(r.aux, mse(w, xs, ys).aux);
  const forward = differential(mseOnly, { wrt: 0 })(w, xs, ys);
  checkAuxGradient(
    r.gradient,
    gradient(mseOnly, { wrt: 0 })(w, xs, ys),
    (d) => forward(d),
    (...v) => mseOnly(v, xs, ys),
    w,
  );
  const g = gradient((a: number, b: number) => [a * b, [a, b]] as [number, number[]], {
    hasAux: true,
  })(2, 3);
  assert.deepEqual(g, { gradient: [3, 2], aux: [2, 3] });
});

test("hasAux, fallback: bad option values are TypeErrors before anything is compiled", () => {
  const run = (options: unknown) => () =>
    (gradient as (f: unknown, o: unknown) => (...a: unknown[]) => unknown)(mse, options)(w, xs, ys);
  assert.throws(
    run({ hasAux: 1 }),
    /^TypeError: nabla: 'hasAux' given to gradient must be true or false, and is 1$/,
  );
  assert.throws(
    run({ hasAux: "true); globalThis.NABLA_CANARY = 1; (" }),
    /'hasAux' given to gradient must be true or false/,
  );
  assert.throws(
    run({ mode: "forward" }),
    /unknown option "mode" given to gradient; its options are 'wrt', 'hasAux'/,
  );
  assert.throws(
    () =>
      jacobian((q: number[]) => [q[0]!], {
        mode: 'forward" }); globalThis.NABLA_CANARY = 1; ({ a: "',
      } as never),
    /'mode' given to jacobian must be "forward" or "reverse"/,
  );
  assert.throws(
    () => jacobian((q: number[]) => [q[0]!], { hasAux: true } as never),
    /unknown option "hasAux" given to jacobian; its options are 'wrt', 'mode'/,
  );
  assert.equal((globalThis as { NABLA_CANARY?: number }).NABLA_CANARY, undefined);
  // A function that returns a plain number with hasAux: the compiler's diagnostic.
  assert.throws(
    () => gradient((a: number) => a * a, { hasAux: true } as never)(2),
    /NABLA108: with 'hasAux: true', 'f' must return '\[loss, aux\]' or '\{ value: loss, aux \}'/,
  );
});

// jacobian's mode: the two modes agree, with differences, and the one chosen is what runs.
const JACOBIANS = `
import { jacobian } from "nabla";

export function wide(q: number[]): number[] {
  return [q[0] * Math.cos(q[1]) + q[2], q[0] * Math.sin(q[1]) * q[2]];
}
export function tall(q: Float64Array): Float64Array {
  return new Float64Array([q[0] * q[1], Math.exp(q[0]), Math.sin(q[1]) * q[0], q[1]]);
}
export function curve(t: number): number[] {
  return [Math.cos(t), Math.sin(t), t * t];
}
export function energy(q: number[]): number {
  return q[0] * q[0] * q[1] + Math.log(1 + q[1] * q[1]);
}
export const wideAuto = jacobian(wide);
export const wideForward = jacobian(wide, { mode: "forward" });
export const wideReverse = jacobian(wide, { mode: "reverse" });
export const tallForward = jacobian(tall, { mode: "forward" });
export const tallReverse = jacobian(tall, { mode: "reverse" });
export const curveForward = jacobian(curve, { mode: "forward" });
export const curveReverse = jacobian(curve, { mode: "reverse" });
export const energyForward = jacobian(energy, { mode: "forward" });
export const energyReverse = jacobian(energy, { mode: "reverse" });
`;

type Rows = ArrayLike<number>[];
interface Jacobians {
  wide: (q: number[]) => number[];
  tall: (q: Float64Array) => Float64Array;
  curve: (t: number) => number[];
  energy: (q: number[]) => number;
  [name: string]: unknown;
}

/** The Jacobian of f at x by central differences: m rows of n. */
function finiteJacobian(f: (x: number[]) => ArrayLike<number>, x: number[]): number[][] {
  const m = f(x).length;
  return Array.from({ length: m }, (_, i) => finiteGradient((...v) => f(v)[i]!, x));
}

function checkRows(actual: Rows, expected: Rows, tolerance = 1e-6) {
  assert.equal(actual.length, expected.length);
  actual.forEach((row, i) => closeAll(row, expected[i]!, tolerance));
}

test("jacobian mode, compiled: forward and reverse agree with each other and with differences", async () => {
  const p = await loadProgram<Jacobians>({ "main.ts": JACOBIANS });
  const call = <T>(name: string, ...args: unknown[]) =>
    (p[name] as (...a: unknown[]) => T)(...args);
  const q = [1.3, 0.4, -0.7];
  const wideFd = finiteJacobian(p.wide, q);
  for (const mode of ["Auto", "Forward", "Reverse"])
    checkRows(call<Rows>(`wide${mode}`, q), wideFd);
  checkRows(call<Rows>("wideForward", q), call<Rows>("wideReverse", q), 1e-12);

  const t = new Float64Array([0.8, -1.1]);
  const tallForward = call<Float64Array[]>("tallForward", t);
  const tallReverse = call<Float64Array[]>("tallReverse", t);
  checkRows(
    tallForward,
    finiteJacobian((v) => p.tall(new Float64Array(v)), [...t]),
  );
  checkRows(tallForward, tallReverse, 1e-12);
  assert.ok(tallForward.every((row) => row instanceof Float64Array));
  assert.ok(tallReverse.every((row) => row instanceof Float64Array));

  // With respect to a number: a column of m numbers either way.
  const column = call<number[]>("curveReverse", 0.9);
  closeAll(column, call<number[]>("curveForward", 0.9), 1e-12);
  closeAll(
    column,
    finiteJacobian((v) => p.curve(v[0]!), [0.9]).map((row) => row[0]!),
  );

  // A number-valued function: its gradient, by n JVPs or one backward pass.
  const e = [0.6, -1.4];
  const energyForward = call<number[]>("energyForward", e);
  closeAll(energyForward, call<number[]>("energyReverse", e), 1e-12);
  closeAll(
    energyForward,
    finiteGradient((...v) => p.energy(v), e),
  );
});

test("jacobian mode, compiled: only the chosen mode's derivatives are generated and called", () => {
  const only = (mode: string) =>
    compileFiles({
      "main.ts": `
import { jacobian } from "nabla";
function wide(q: number[]): number[] {
  return [q[0] * Math.cos(q[1]) + q[2], q[0] * q[2]];
}
export const j = jacobian(wide, { mode: "${mode}" });
`,
    });
  const forward = only("forward");
  assert.equal(diagnosticsText(forward), "");
  const forwardCode = [...forward.outputs.values()].map((o) => o.code).join("\n");
  assert.match(forwardCode, /function wide\$jvps/);
  assert.doesNotMatch(forwardCode, /wide\$(fwd|bwd|vjp)|jacobianSite/);
  const reverse = only("reverse");
  assert.equal(diagnosticsText(reverse), "");
  const reverseCode = [...reverse.outputs.values()].map((o) => o.code).join("\n");
  assert.match(reverseCode, /wide\$(vjp|fwd)/);
  assert.doesNotMatch(reverseCode, /wide\$jvps?\b|jacobianSite/);
});

test("jacobian mode, fallback: forward and reverse agree with each other and with differences", () => {
  const wide = (q: number[]) => [q[0]! * Math.cos(q[1]!) + q[2]!, q[0]! * Math.sin(q[1]!) * q[2]!];
  const q = [1.3, 0.4, -0.7];
  const forward = jacobian(wide, { mode: "forward" })(q);
  const reverse = jacobian(wide, { mode: "reverse" })(q);
  checkRows(forward, reverse, 1e-12);
  checkRows(forward, finiteJacobian(wide, q));
  const energy = (v: number[]) => v[0]! * v[0]! * v[1]! + Math.log(1 + v[1]! * v[1]!);
  const e = [0.6, -1.4];
  closeAll(
    jacobian(energy, { mode: "forward" })(e),
    jacobian(energy, { mode: "reverse" })(e),
    1e-12,
  );
  closeAll(
    jacobian(energy, { mode: "forward" })(e),
    finiteGradient((...v) => energy(v), e),
  );
});

test("bad hasAux and mode options are NABLA108 at the option, with a code frame", () => {
  const cases: [string, string][] = [
    [
      `export const g = gradient(f, { hasAux: 1 });`,
      `main.ts:6:40: error NABLA108: 'hasAux' must be written as 'true' or 'false': nabla reads it from the source`,
    ],
    [
      `const flag = true;\nexport const g = gradient(f, { hasAux: flag });`,
      `main.ts:7:40: error NABLA108: 'hasAux' must be written as 'true' or 'false': nabla reads it from the source`,
    ],
    [
      `export const g = gradient(f, { mode: "forward" });`,
      `main.ts:6:32: error NABLA108: unknown option 'mode'; the options of 'gradient' are 'wrt', 'hasAux', 'backend' ('mode' is an option of 'jacobian')`,
    ],
    [
      `export const g = jacobian(v, { mode: "sideways" });`,
      `main.ts:6:38: error NABLA108: 'mode' must be written as "forward" or "reverse": nabla reads it from the source`,
    ],
    [
      `const mode = "forward";\nexport const g = jacobian(v, { mode });`,
      `main.ts:7:32: error NABLA108: 'mode' must be written as "forward" or "reverse": nabla reads it from the source`,
    ],
    [
      `export const g = jacobian(v, { hasAux: true });`,
      `main.ts:6:32: error NABLA108: unknown option 'hasAux'; the options of 'jacobian' are 'wrt', 'mode', 'backend' ('hasAux' is an option of 'gradient' and 'valueWithGradient')`,
    ],
    [
      `export const g = gradient(f, { hasAux: true, hasAux: false });`,
      `main.ts:6:46: error NABLA108: the option 'hasAux' is given twice`,
    ],
    [
      `export const g = gradient(f, { hasAux: true });`,
      `main.ts:3:10: error NABLA108: with 'hasAux: true', 'f' must return '[loss, aux]' or '{ value: loss, aux }' with a number loss (a tuple return type such as '[number, string]' if annotated), but this is a number`,
    ],
    [
      `export const g = gradient((x: number) => [x, x, x * x], { hasAux: true });`,
      `main.ts:6:42: error NABLA108: with 'hasAux: true', this function must return '[loss, aux]' or '{ value: loss, aux }' with a number loss (a tuple return type such as '[number, string]' if annotated), but this is 'number[]'`,
    ],
    [
      `export const g = gradient((x: number) => gradient((y: number) => [x * y, 1], { hasAux: true })(x).gradient);`,
      `main.ts:6:78: error NABLA116: 'hasAux' is not supported inside differentiable code; differentiate the loss alone there, and compute the aux outside`,
    ],
  ];
  for (const [line, expected] of cases) {
    const header =
      'import { gradient, jacobian } from "nabla";\nfunction f(x: number): number {\n  return x * x;\n}\nfunction v(q: number[]): number[] { return [q[0]]; }\n';
    const r = compileFiles({ "main.ts": `${header}${line}\n` });
    const printed = diagnosticsText(r);
    assert.ok(printed.startsWith(expected), `${line}\n---\n${printed}`);
    // A code frame under the heading, pointing at the line.
    assert.match(printed, /\n> +\d+ \| /);
  }
});
