import { test } from "node:test";
import assert from "node:assert/strict";
import { assertClose, centralDifference, loadProgram } from "./support/harness.js";

// Every operator applied to a function-typed parameter in plain code, as library code writes
// it: a Newton step taking `hessian(f)`, a Gauss–Newton step taking `jacobian(r)`, a solver
// reading `pullback(f)`, and lambdas calling the parameter given to the second-order operators
// (`hessian((p) => f(p) + mu * |p|²)`). They were refused (NABLA108, NABLA112) though
// `gradient(f)` worked. Each result is checked against the operator applied to the function
// itself (the same code: equal to the bit), and the Hessians and Jacobians against central
// differences of gradients and values (test/wasm-suites.test.ts runs them again under wasm).

const LIBRARY = `import {
  differential,
  gradient,
  hessian,
  hessianVectorProduct,
  gradientAndHessianVectorProduct,
  jacobian,
  pullback,
  valueWithDifferential,
  valueWithPullback,
} from "nabla";

export type Scalar = (x: number[]) => number;
export type Field = (x: number[]) => number[];

export function newtonStep(f: Scalar, x: number[]): number[] {
  const g = gradient(f)(x);
  const h = hessian(f)(x);
  const det = h[0][0] * h[1][1] - h[0][1] * h[1][0];
  return [
    x[0] - (h[1][1] * g[0] - h[0][1] * g[1]) / det,
    x[1] - (h[0][0] * g[1] - h[1][0] * g[0]) / det,
  ];
}
export const curvature = (f: Scalar, x: number[]) => hessian(f)(x);
export const curvatureAlong = (f: Scalar, x: number[], v: number[]) =>
  hessianVectorProduct(f)(x, v);
export const slopeAndCurvature = (f: Scalar, x: number[], v: number[]) =>
  gradientAndHessianVectorProduct(f)(x, v);
export const sensitivity = (r: Field, x: number[]) => jacobian(r)(x);
export const directional = (f: Scalar, x: number[], v: number[]) => differential(f)(x)(v);
export function directionalWithValue(f: Scalar, x: number[], v: number[]) {
  const { value, differential: along } = valueWithDifferential(f)(x);
  return { value, tangent: along(v) };
}
export const transposed = (r: Field, x: number[], w: number[]) => pullback(r)(x)(w);
export function transposedWithValue(r: Field, x: number[], w: number[]) {
  const { value, pullback: back } = valueWithPullback(r)(x);
  return { value, back: back(w) };
}
/** Lambdas calling the parameter, given to second-order operators. */
export const penalized = (f: Scalar, x: number[], mu: number) =>
  hessian((p: number[]) => f(p) + mu * (p[0] * p[0] + p[1] * p[1]))(x);
export const stacked = (f: Scalar, x: number[]) =>
  jacobian((p: number[]) => [f(p), p[0] * f(p)])(x);
`;

const MAIN = `import {
  differential,
  gradient,
  hessian,
  hessianVectorProduct,
  gradientAndHessianVectorProduct,
  jacobian,
  pullback,
  valueWithDifferential,
  valueWithPullback,
} from "nabla";
import * as lib from "./library.js";

const energy = (p: number[]) => Math.sin(p[0]) * p[1] ** 3 + Math.exp(p[0] * p[1]);
function residuals(p: number[]): number[] {
  return [p[0] * p[1], Math.cos(p[0]) + p[1] ** 2, p[0] / (1 + p[1] ** 2)];
}

export const energyValue = energy;
export const energyGradient = gradient(energy);
export const residualsValue = residuals;

/** Each operator through the library (a function parameter) and on the function itself. */
export function pairs(x: number[], v: number[], w: number[], mu: number) {
  const direct = () => {
    const { value, pullback: back } = valueWithPullback(residuals)(x);
    const withDifferential = valueWithDifferential(energy)(x);
    return {
      hessian: hessian(energy)(x),
      hvp: hessianVectorProduct(energy)(x, v),
      ghvp: gradientAndHessianVectorProduct(energy)(x, v),
      jacobian: jacobian(residuals)(x),
      differential: differential(energy)(x)(v),
      valueWithDifferential: {
        value: withDifferential.value,
        tangent: withDifferential.differential(v),
      },
      pullback: pullback(residuals)(x)(w),
      valueWithPullback: { value, back: back(w) },
      penalized: hessian((p: number[]) => energy(p) + mu * (p[0] * p[0] + p[1] * p[1]))(x),
      stacked: jacobian((p: number[]) => [energy(p), p[0] * energy(p)])(x),
    };
  };
  const through = {
    hessian: lib.curvature(energy, x),
    hvp: lib.curvatureAlong(energy, x, v),
    ghvp: lib.slopeAndCurvature(energy, x, v),
    jacobian: lib.sensitivity(residuals, x),
    differential: lib.directional(energy, x, v),
    valueWithDifferential: lib.directionalWithValue(energy, x, v),
    pullback: lib.transposed(residuals, x, w),
    valueWithPullback: lib.transposedWithValue(residuals, x, w),
    penalized: lib.penalized(energy, x, mu),
    stacked: lib.stacked(energy, x),
  };
  return { direct: direct(), through };
}

/** Newton's method on Rosenbrock's function, the Hessian taken by the library. */
export function rosenbrockMinimum(steps: number): number[] {
  let x = [-1.2, 1];
  for (let i = 0; i < steps; i++)
    x = lib.newtonStep((p) => (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2, x);
  return x;
}
`;

interface Main {
  energyValue: (p: number[]) => number;
  energyGradient: (p: number[]) => number[];
  residualsValue: (p: number[]) => number[];
  pairs: (
    x: number[],
    v: number[],
    w: number[],
    mu: number,
  ) => { direct: Record<string, unknown>; through: Record<string, unknown> };
  rosenbrockMinimum: (steps: number) => number[];
}

const load = () => loadProgram<Main>({ "library.ts": LIBRARY, "main.ts": MAIN });

const X = [0.3, -0.7];
const V = [1.5, 0.25];
const W = [1, -2, 0.5];

test("every operator on a function parameter equals the operator on the function", async () => {
  const m = await load();
  const { direct, through } = m.pairs(X, V, W, 0.5);
  assert.deepEqual(Object.keys(through), Object.keys(direct));
  for (const key of Object.keys(direct)) {
    // Numbers only: deepEqual would take two functions of the same shape for equal.
    assert.doesNotMatch(JSON.stringify(direct[key]), /null/, `${key}: numbers`);
    assert.deepEqual(through[key], direct[key], `${key} through a function parameter`);
  }
});

test("the Hessian and Jacobian a function parameter gets agree with differences", async () => {
  const m = await load();
  const { through } = m.pairs(X, V, W, 0.5);
  const hessian = through.hessian as number[][];
  const jacobian = through.jacobian as number[][];
  for (let i = 0; i < 2; i++) {
    for (let j = 0; j < 2; j++) {
      const second = centralDifference(
        (t) => m.energyGradient(X.map((v, k) => (k === j ? t : v)))[i]!,
        X[j]!,
      );
      assertClose(hessian[i]![j]!, second, 1e-6, `∂²E/∂x${i}∂x${j}`);
    }
    for (let r = 0; r < 3; r++) {
      const slope = centralDifference(
        (t) => m.residualsValue(X.map((v, k) => (k === i ? t : v)))[r]!,
        X[i]!,
      );
      assertClose(jacobian[r]![i]!, slope, 1e-6, `∂r${r}/∂x${i}`);
    }
  }
});

test("Newton's method written as a library taking hessian(f) of its parameter finds Rosenbrock's minimum", async () => {
  const m = await load();
  const [a, b] = m.rosenbrockMinimum(8);
  assertClose(a!, 1, 1e-12, "x");
  assertClose(b!, 1, 1e-12, "y");
});

test("a solver imported as a namespace ('lib.minimize(loss, …)', 'new lib.Descent(loss)', 'lib.Descent.run(loss, …)') gets the derivatives of the function passed (was a run-time TypeError)", async () => {
  const m = await loadProgram<{ fits: (a: number) => number[] }>({
    "optim.ts": `import { gradient } from "nabla";
export type Loss = (p: number[]) => number;
export function minimize(loss: Loss, p0: number[], steps = 200): number[] {
  const p = p0.slice();
  for (let s = 0; s < steps; s++) {
    const g = gradient(loss)(p);
    for (let i = 0; i < p.length; i++) p[i] -= 0.1 * g[i];
  }
  return p;
}
export class Descent {
  private readonly slope: (p: number[]) => number[];
  constructor(loss: Loss, private readonly rate = 0.1) {
    this.slope = gradient(loss);
  }
  step(p: number[]): number[] {
    const g = this.slope(p);
    return p.map((v, i) => v - this.rate * g[i]);
  }
  static run(loss: Loss, p: number[], steps: number): number[] {
    const d = new Descent(loss);
    for (let s = 0; s < steps; s++) p = d.step(p);
    return p;
  }
}
`,
    "main.ts": `import * as optim from "./optim.js";
export function fits(a: number): number[] {
  const loss = (p: number[]) => (p[0] - a) ** 2 + 2 * (p[1] + a) ** 2;
  const d = new optim.Descent(loss);
  return [...optim.minimize(loss, [0, 0]), ...d.step([1, 1]), ...optim.Descent.run(loss, [0, 0], 200)];
}
`,
  });
  const [a, b, c, d, e, f] = m.fits(0.5);
  assertClose(a!, 0.5, 1e-9, "minimize: p0");
  assertClose(b!, -0.5, 1e-9, "minimize: p1");
  assertClose(c!, 1 - 0.1 * 2 * (1 - 0.5), 1e-15, "one step: p0");
  assertClose(d!, 1 - 0.1 * 4 * (1 + 0.5), 1e-15, "one step: p1");
  assertClose(e!, 0.5, 1e-9, "Descent.run: p0");
  assertClose(f!, -0.5, 1e-9, "Descent.run: p1");
});
