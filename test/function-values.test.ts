import { test } from "node:test";
import assert from "node:assert/strict";
import {
  assertClose,
  centralDifference,
  compileFiles,
  diagnosticsText,
  loadProgram,
} from "./support/harness.js";
import { checkTwoWays } from "./support/two-ways.js";

// Function values in differentiated code: function-typed parameters specialized per call site
// (arrows written at the call, local functions capturing the differentiated parameters,
// top-level functions), `gradient(loss)` of a function-typed parameter, functions chosen at
// run time (`Differentiable<…>` parameters and fields), nesting, and several files. Every
// gradient is checked against central finite differences of the compiled primal and against
// forward mode (the differential along each basis direction); primals are checked against
// plain TypeScript written here where that is short.

type Scalar = (...args: unknown[]) => number;
type Gradient = (...args: unknown[]) => number | number[];
type Fn = (...xs: number[]) => number;
type Differential = (...args: unknown[]) => (...tangents: number[]) => number;

/** A compiled function with its gradient and differential (same `wrt`). */
interface Differentiated {
  f: Scalar;
  g: Gradient;
  d: Differential;
}

/**
 * Checks the gradient of `fn` at `args` with respect to the arguments at `wrt` against finite
 * differences (to `tolerance`) and against forward mode (to rounding).
 */
function checkGradient(
  what: string,
  fn: Differentiated,
  args: unknown[],
  wrt: number[] = args.map((_, i) => i),
  tolerance = 1e-6,
): number[] {
  const raw = fn.g(...args);
  const gradient = typeof raw === "number" ? [raw] : raw;
  assert.equal(gradient.length, wrt.length, `${what}: gradient length`);
  wrt.forEach((index, k) => {
    const at = `${what} at (${args.join(", ")}): ∂/∂x${index}`;
    const x = args[index] as number;
    const finite = centralDifference((t) => fn.f(...args.map((v, j) => (j === index ? t : v))), x);
    assertClose(gradient[k]!, finite, tolerance, `${at}, finite differences`);
    const basis = wrt.map((_, j) => (j === k ? 1 : 0));
    assertClose(gradient[k]!, fn.d(...args)(...basis), 1e-11, `${at}, forward mode`);
  });
  return gradient;
}

// ---------------------------------------------------------------------------------------------
// A generic RK4 integrator given the pendulum's dynamics as a local arrow that captures the
// differentiated length: 300 steps, gradient of the final angle w.r.t. length and initial angle.

const PENDULUM = `import { gradient, differential } from "nabla";

function rk4(
  f: (t: number, y: Float64Array, out: Float64Array) => void,
  y0: Float64Array,
  t0: number,
  t1: number,
  steps: number,
): Float64Array {
  const n = y0.length;
  const h = (t1 - t0) / steps;
  let y = y0.slice();
  const k1 = new Float64Array(n);
  const k2 = new Float64Array(n);
  const k3 = new Float64Array(n);
  const k4 = new Float64Array(n);
  const tmp = new Float64Array(n);
  let t = t0;
  for (let s = 0; s < steps; s++) {
    f(t, y, k1);
    for (let i = 0; i < n; i++) tmp[i] = y[i] + 0.5 * h * k1[i];
    f(t + 0.5 * h, tmp, k2);
    for (let i = 0; i < n; i++) tmp[i] = y[i] + 0.5 * h * k2[i];
    f(t + 0.5 * h, tmp, k3);
    for (let i = 0; i < n; i++) tmp[i] = y[i] + h * k3[i];
    f(t + h, tmp, k4);
    const next = new Float64Array(n);
    for (let i = 0; i < n; i++) next[i] = y[i] + (h / 6) * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    y = next;
    t += h;
  }
  return y;
}

export function pendulum(length: number, theta0: number): number {
  const g = 9.81;
  const dynamics = (_t: number, y: Float64Array, out: Float64Array): void => {
    out[0] = y[1];
    out[1] = -(g / length) * Math.sin(y[0]);
  };
  return rk4(dynamics, new Float64Array([theta0, 0]), 0, 2, 300)[0];
}

export const g = gradient(pendulum);
export const d = differential(pendulum);
`;

/** The same pendulum in plain TypeScript. */
function pendulumReference(length: number, theta0: number): number {
  const rhs = (y: number[]) => [y[1]!, -(9.81 / length) * Math.sin(y[0]!)];
  const h = 2 / 300;
  let y = [theta0, 0];
  for (let s = 0; s < 300; s++) {
    const k1 = rhs(y);
    const k2 = rhs(y.map((v, i) => v + 0.5 * h * k1[i]!));
    const k3 = rhs(y.map((v, i) => v + 0.5 * h * k2[i]!));
    const k4 = rhs(y.map((v, i) => v + h * k3[i]!));
    y = y.map((v, i) => v + (h / 6) * (k1[i]! + 2 * k2[i]! + 2 * k3[i]! + k4[i]!));
  }
  return y[0]!;
}

test("RK4 with the pendulum's dynamics as a closure: gradient w.r.t. length and initial angle", async () => {
  const m = await loadProgram<{ pendulum: Scalar; g: Gradient; d: Differential }>({
    "main.ts": PENDULUM,
  });
  for (const args of [
    [1.2, 0.5],
    [0.8, -1.0],
    [2.0, 2.5],
  ]) {
    assertClose(m.pendulum(...args), pendulumReference(args[0]!, args[1]!), 1e-12, "primal");
    checkGradient("pendulum", { f: m.pendulum, g: m.g, d: m.d }, args);
  }
});

// ---------------------------------------------------------------------------------------------
// Simpson's rule given a parameterized integrand three ways: an arrow written at the call, a
// local const arrow capturing the parameter (and a local computed from it), and a top-level
// function. Gradients w.r.t. the parameter and both bounds.

const INTEGRATE = `import { gradient, differential } from "nabla";

/** Simpson's rule on n (even) intervals. */
function integrate(f: (x: number) => number, a: number, b: number, n: number): number {
  const h = (b - a) / n;
  let s = f(a) + f(b);
  for (let i = 1; i < n; i++) s += (i % 2 === 1 ? 4 : 2) * f(a + i * h);
  return (s * h) / 3;
}

function gauss(x: number): number {
  return Math.exp(-x * x);
}

/** An arrow written at the call. */
export function inline(k: number, a: number, b: number): number {
  return integrate((x) => Math.exp(-k * x * x) * Math.cos(k * x), a, b, 64);
}

/** A local function capturing k and a local computed from it. */
export function local(k: number, a: number, b: number): number {
  const w = k * k;
  const f = (x: number) => Math.sin(w * x) / (1 + k * x * x);
  return integrate(f, a, b, 64);
}

/** A top-level function, and the same integrator again with another integrand. */
export function named(k: number, a: number, b: number): number {
  return k * integrate(gauss, a, b, 64) + integrate((x) => gauss(k * x), a, b, 64);
}

export const g = { inline: gradient(inline), local: gradient(local), named: gradient(named) };
export const d = {
  inline: differential(inline),
  local: differential(local),
  named: differential(named),
};
`;

test("integrate of a parameterized integrand: gradient w.r.t. the parameter and both bounds", async () => {
  const m = await loadProgram<{
    g: Record<string, Gradient>;
    d: Record<string, Differential>;
    [name: string]: unknown;
  }>({ "main.ts": INTEGRATE });
  const integrands: Record<string, (k: number, x: number) => number> = {
    inline: (k, x) => Math.exp(-k * x * x) * Math.cos(k * x),
    local: (k, x) => Math.sin(k * k * x) / (1 + k * x * x),
    named: (k, x) => k * Math.exp(-x * x) + Math.exp(-k * k * x * x),
  };
  for (const name of Object.keys(m.g)) {
    const fn = { f: m[name] as Scalar, g: m.g[name]!, d: m.d[name]! };
    for (const [k, a, b] of [
      [0.7, -0.3, 1.4],
      [1.3, 0.2, 0.9],
    ] as const) {
      const [, ga, gb] = checkGradient(name, fn, [k, a, b]);
      // The derivatives w.r.t. the bounds are the integrand there, up to quadrature error.
      const integrand = integrands[name]!;
      assertClose(ga!, -integrand(k, a), 1e-5, `${name}: ∂/∂a = -f(a)`);
      assertClose(gb!, integrand(k, b), 1e-5, `${name}: ∂/∂b = f(b)`);
    }
  }
});

// ---------------------------------------------------------------------------------------------
// Gradient descent whose loss is a function-typed parameter: `gradient(loss)(p)` inside
// minimizeGD, called with an arrow capturing the hyperparameter c. Differentiated w.r.t. c
// (through all 50 unrolled steps), and run plainly.

const DESCENT = `import { gradient, differential } from "nabla";

function minimizeGD(
  loss: (p: number[]) => number,
  p0: number[],
  steps: number,
  rate: number,
): number[] {
  let p = p0.slice();
  for (let s = 0; s < steps; s++) {
    const g = gradient(loss)(p);
    p = p.map((pi, i) => pi - rate * g[i]);
  }
  return p;
}

/** Where gradient descent ends, for a plain run. */
export function descend(c: number): number[] {
  return minimizeGD((q) => (q[0] - c) ** 2 + c * q[1] ** 2 + Math.sin(q[0] * q[1]), [1, -0.5], 50, 0.05);
}

/** A scalar of where it ends, differentiated w.r.t. the hyperparameter c. */
export function tuned(c: number): number {
  const p = minimizeGD((q) => (q[0] - c) ** 2 + c * q[1] ** 2 + Math.sin(q[0] * q[1]), [1, -0.5], 50, 0.05);
  return p[0] * p[0] + 2 * p[1];
}

export const g = gradient(tuned);
export const d = differential(tuned);
`;

/** The same 50 steps unrolled by hand, the loss's gradient written out. */
function descendReference(c: number): number[] {
  let [p0, p1] = [1, -0.5];
  for (let s = 0; s < 50; s++) {
    const g0 = 2 * (p0 - c) + Math.cos(p0 * p1) * p1;
    const g1 = 2 * c * p1 + Math.cos(p0 * p1) * p0;
    [p0, p1] = [p0 - 0.05 * g0, p1 - 0.05 * g1];
  }
  return [p0, p1];
}

test("gradient descent over a loss passed as a function: plain run, and gradient w.r.t. a hyperparameter", async () => {
  const m = await loadProgram<{
    descend: (c: number) => number[];
    tuned: Scalar;
    g: Gradient;
    d: Differential;
  }>({ "main.ts": DESCENT });
  for (const c of [0.8, 1.5, -0.3]) {
    const p = m.descend(c);
    const expected = descendReference(c);
    assert.equal(p.length, 2);
    p.forEach((pi, i) => assertClose(pi, expected[i]!, 1e-12, `descend(${c})[${i}]`));
    assertClose(m.tuned(c), expected[0]! ** 2 + 2 * expected[1]!, 1e-12, `tuned(${c})`);
    checkGradient("tuned", { f: m.tuned, g: m.g, d: m.d }, [c]);
  }
});

// ---------------------------------------------------------------------------------------------
// Functions chosen at run time: `xs.map(act)` with act one of two top-level functions picked by
// a boolean, and a model whose layers hold their activation functions (differentiated w.r.t.
// numbers it builds the layers from, and w.r.t. the layers themselves).

const ACTIVATIONS = `import { gradient, differential, type Differentiable } from "nabla";

function relu(x: number): number {
  return x > 0 ? x : 0.01 * x;
}
function softplus(x: number): number {
  return Math.log(1 + Math.exp(x));
}
function tanh(x: number): number {
  return Math.tanh(x);
}

function layer(xs: number[], act: Differentiable<(x: number) => number>): number[] {
  return xs.map(act);
}

export function net(a: number, b: number, useRelu: boolean): number {
  const xs = [a, a * b, b - 1, 2 * a + b];
  const act = useRelu ? relu : softplus;
  const ys = layer(xs, act);
  let s = 0;
  for (const y of ys) s += y * y;
  return s;
}

export interface Layer {
  w: number[];
  b: number;
  act: Differentiable<(x: number) => number>;
}

function forward(layers: Layer[], x: number[]): number {
  let h = x;
  for (const layer of layers) {
    let s = layer.b;
    for (let i = 0; i < h.length; i++) s += layer.w[i] * h[i];
    h = [layer.act(s), layer.act(-s)];
  }
  return h[0] + 2 * h[1];
}

export function model(w0: number, w1: number, x: number): number {
  const layers: Layer[] = [
    { w: [w0, w1], b: 0.1, act: tanh },
    { w: [w1, -w0], b: -0.2, act: softplus },
    { w: [0.5, w0 * w1], b: 0.3, act: relu },
  ];
  return forward(layers, [x, 1 - x]);
}

export function loss(layers: Layer[]): number {
  return forward(layers, [0.3, -0.2]);
}

export const activations = { relu, softplus, tanh };
export const g = { net: gradient(net, { wrt: [0, 1] }), model: gradient(model), loss: gradient(loss) };
export const d = {
  net: differential(net, { wrt: [0, 1] }),
  model: differential(model),
  loss: differential(loss),
};
`;

type Act = (x: number) => number;
interface Layer {
  w: number[];
  b: number;
  act: Act;
}
interface LayerTangent {
  w: number[];
  b: number;
}
interface ActivationsModule {
  net: Scalar;
  model: Scalar;
  loss: (layers: Layer[]) => number;
  activations: { relu: Act; softplus: Act; tanh: Act };
  g: { net: Gradient; model: Gradient; loss: (layers: Layer[]) => LayerTangent[] };
  d: {
    net: Differential;
    model: Differential;
    loss: (layers: Layer[]) => (tangent: LayerTangent[]) => number;
  };
}

test("xs.map(act) with the activation chosen at run time: the derivative follows the function held", async () => {
  const m = await loadProgram<ActivationsModule>({ "main.ts": ACTIVATIONS });
  const fn = { f: m.net, g: m.g.net, d: m.d.net };
  // All four inputs of the layer positive, then all negative (relu's 0.01 slope).
  for (const [a, b] of [
    [0.3, 1.4],
    [-0.6, 0.5],
  ] as const) {
    const withRelu = checkGradient("net (relu)", fn, [a, b, true], [0, 1]);
    const withSoftplus = checkGradient("net (softplus)", fn, [a, b, false], [0, 1]);
    assert.notDeepEqual(withRelu, withSoftplus);
  }
  // At a = 0.3, b = 1.4 relu is the identity on every input: s = Σ xᵢ², closed form.
  const [ga, gb] = m.g.net(0.3, 1.4, true) as number[];
  assertClose(ga!, 2 * 0.3 + 2 * 0.42 * 1.4 + 4 * 2.0, 1e-12, "∂net/∂a");
  assertClose(gb!, 2 * 0.42 * 0.3 + 2 * 0.4 + 2 * 2.0, 1e-12, "∂net/∂b");
});

test("a model whose layers hold their activation functions", async () => {
  const m = await loadProgram<ActivationsModule>({ "main.ts": ACTIVATIONS });
  const fn = { f: m.model, g: m.g.model, d: m.d.model };
  for (const args of [
    [0.3, -0.6, 0.8],
    [1.1, 0.4, -0.5],
  ]) {
    checkGradient("model", fn, args);
  }

  // Differentiated w.r.t. the layers themselves, with the activations swapped around: the
  // gradient has the layers' shape without 'act', and follows each layer's function.
  const { relu, softplus, tanh } = m.activations;
  for (const acts of [
    [tanh, softplus, relu],
    [softplus, relu, tanh],
  ]) {
    const layers: Layer[] = [
      { w: [0.5, -0.4], b: 0.1, act: acts[0]! },
      { w: [0.3, 0.8], b: -0.2, act: acts[1]! },
      { w: [-0.7, 0.6], b: 0.05, act: acts[2]! },
    ];
    const gradient = m.g.loss(layers);
    assert.deepEqual(Object.keys(gradient[0]!).sort(), ["b", "w"]);
    const zero = (): LayerTangent[] => layers.map((l) => ({ w: l.w.map(() => 0), b: 0 }));
    layers.forEach((layer, li) => {
      const coordinates = [...layer.w.map((_, i) => ["w", i] as const), ["b", 0] as const];
      for (const [field, i] of coordinates) {
        const bumped = (t: number) =>
          m.loss(
            layers.map((l, j) =>
              j !== li
                ? l
                : field === "b"
                  ? { ...l, b: t }
                  : { ...l, w: l.w.map((v, k) => (k === i ? t : v)) },
            ),
          );
        const at = field === "b" ? layer.b : layer.w[i]!;
        const g = field === "b" ? gradient[li]!.b : gradient[li]!.w[i]!;
        const what = `loss: layer ${li} ${field}${field === "w" ? `[${i}]` : ""}`;
        assertClose(g, centralDifference(bumped, at), 1e-6, `${what}, finite differences`);
        const tangent = zero();
        if (field === "b") tangent[li]!.b = 1;
        else tangent[li]!.w[i] = 1;
        assertClose(g, m.d.loss(layers)(tangent), 1e-11, `${what}, forward mode`);
      }
    });
  }
});

// ---------------------------------------------------------------------------------------------
// A derivative taken inside a local function, and higher-order functions that pass their
// function parameter on (directly, and wrapped in an arrow), given arrows and a top-level name.

const NESTING = `import { gradient, differential, derivative } from "nabla";

/** f(y) = d/dt (a t² y) at t = y = 2 a y², so nested = 2 a x² sin(a). */
export function nested(a: number, x: number): number {
  const f = (y: number) => derivative((t: number) => a * t * t * y)(y);
  return f(x) * Math.sin(a);
}

function softplus(x: number): number {
  return Math.log(1 + Math.exp(x));
}
function apply(f: (x: number) => number, x: number): number {
  return f(x) * f(x + 1);
}
function twice(f: (x: number) => number, x: number): number {
  return apply(f, x) + apply((t) => f(2 * t), x);
}

export function hof(a: number, x: number): number {
  const wave = (t: number) => Math.sin(a * t);
  return twice(wave, x) + twice(softplus, a * x) + twice((t) => a * t * t, x);
}

export const g = { nested: gradient(nested), hof: gradient(hof) };
export const d = { nested: differential(nested), hof: differential(hof) };
`;

test("a derivative taken inside a local function of differentiated code", async () => {
  const m = await loadProgram<{
    nested: Scalar;
    g: { nested: Gradient };
    d: { nested: Differential };
  }>({
    "main.ts": NESTING,
  });
  for (const [a, x] of [
    [0.7, 1.1],
    [-1.2, 0.4],
  ] as const) {
    assertClose(m.nested(a, x), 2 * a * x * x * Math.sin(a), 1e-12, "nested");
    const [ga, gx] = checkGradient("nested", { f: m.nested, g: m.g.nested, d: m.d.nested }, [a, x]);
    assertClose(ga!, 2 * x * x * (Math.sin(a) + a * Math.cos(a)), 1e-12, "∂nested/∂a");
    assertClose(gx!, 4 * a * x * Math.sin(a), 1e-12, "∂nested/∂x");
  }
});

test("a higher-order function passing its function parameter on to another", async () => {
  const m = await loadProgram<{ hof: Scalar; g: { hof: Gradient }; d: { hof: Differential } }>({
    "main.ts": NESTING,
  });
  const softplus = (x: number) => Math.log(1 + Math.exp(x));
  const apply = (f: (x: number) => number, x: number) => f(x) * f(x + 1);
  const twice = (f: (x: number) => number, x: number) => apply(f, x) + apply((t) => f(2 * t), x);
  for (const [a, x] of [
    [0.7, 1.1],
    [-0.4, 0.9],
  ] as const) {
    const expected =
      twice((t) => Math.sin(a * t), x) + twice(softplus, a * x) + twice((t) => a * t * t, x);
    assertClose(m.hof(a, x), expected, 1e-12, "hof");
    checkGradient("hof", { f: m.hof, g: m.g.hof, d: m.d.hof }, [a, x]);
  }
});

// ---------------------------------------------------------------------------------------------
// Several files: higher-order functions in model.ts (one calling the other), called from
// main.ts with a local arrow, an arrow written at the call, and a function main.ts does not
// export.

const MODEL = `/** The mean of f over n points of [0, s). */
export function sample(f: (x: number) => number, s: number, n: number): number {
  let total = 0;
  for (let i = 0; i < n; i++) total += f((s * i) / n);
  return total / n;
}

/** sample, with f shifted by c. */
export function shifted(f: (x: number) => number, c: number, s: number, n: number): number {
  return sample((x) => f(x + c), s, n);
}
`;

const MAIN = `import { gradient, differential } from "nabla";
import { sample, shifted } from "./model.js";

function bump(x: number): number {
  return Math.exp(-x * x);
}

export function local(a: number, b: number): number {
  const f = (x: number) => Math.sin(a * x) + b * x * x;
  return sample(f, 1, 10) * sample((x) => a * bump(b * x), 2, 7);
}

export function named(a: number, b: number): number {
  return sample(bump, a, 10) * b + shifted(bump, b, a, 8);
}

export const g = { local: gradient(local), named: gradient(named) };
export const d = { local: differential(local), named: differential(named) };
`;

test("higher-order functions of another file given a local arrow and a non-exported function", async () => {
  const m = await loadProgram<{
    g: Record<string, Gradient>;
    d: Record<string, Differential>;
    [name: string]: unknown;
  }>({ "model.ts": MODEL, "main.ts": MAIN });
  const mean = (f: (x: number) => number, s: number, n: number) => {
    let total = 0;
    for (let i = 0; i < n; i++) total += f((s * i) / n);
    return total / n;
  };
  const bump = (x: number) => Math.exp(-x * x);
  const references: Record<string, (a: number, b: number) => number> = {
    local: (a, b) =>
      mean((x) => Math.sin(a * x) + b * x * x, 1, 10) * mean((x) => a * bump(b * x), 2, 7),
    named: (a, b) => mean(bump, a, 10) * b + mean((x) => bump(x + b), a, 8),
  };
  for (const name of Object.keys(m.g)) {
    const f = m[name] as Scalar;
    for (const args of [
      [0.4, 1.3],
      [1.7, -0.6],
    ]) {
      assertClose(f(...args), references[name]!(args[0]!, args[1]!), 1e-12, `${name} primal`);
      checkGradient(name, { f, g: m.g[name]!, d: m.d[name]! }, args);
    }
  }
});

// ---------------------------------------------------------------------------------------------
// Diagnostics

test("a function-typed parameter without Differentiable<…> is called through the functions the program uses as values", async () => {
  await checkTwoWays(`
function square(y: number): number {
  return y * y;
}
const shapes = { square, sin: Math.sin };
function apply(x: number, g: (y: number) => number): number {
  return g(x) * x;
}
export function f(x: number, y: number): number {
  return apply(x, shapes.square) + apply(y, shapes.sin) * x;
}
`);
});

test("a function-typed field written as data (a scenario object of arrows, a table of Math functions) is followed", async () => {
  await checkTwoWays(`
interface Scenario {
  gain: number;
  input: (t: number) => number;
  disturbance: (t: number, level: number) => number;
}
export const ramp: Scenario = {
  gain: 2,
  input: (t) => 0.5 * t,
  disturbance: (t, level) => level * Math.tanh(t - 1),
};
const unary = { sin: Math.sin, exp: Math.exp, sqrt: Math.sqrt };
function simulate(k: number, scenario: Scenario, level: number): number {
  const { input, disturbance } = scenario;
  let s = 0;
  for (let i = 0; i < 5; i++) s += k * scenario.gain * input(i) + disturbance(i, level);
  return s;
}
export function f(x: number, y: number): number {
  const name: keyof typeof unary = x > 10 ? "sqrt" : "sin";
  return simulate(x, ramp, y) + unary[name](x * y) + unary.exp(y);
}
`);
});

test("a class field holding a function (initialized with Math.tanh, or set to an arrow of module data) is followed", async () => {
  await checkTwoWays(`
const activations = { soft: (v: number) => v / (1 + Math.abs(v)) };
class Neuron {
  w = 1;
  act: (x: number) => number = Math.tanh;
  constructor(w: number, smooth: boolean) {
    this.w = w;
    if (!smooth) this.act = activations.soft;
  }
  fire(x: number): number {
    return this.act(this.w * x);
  }
}
export function f(x: number, y: number): number {
  return new Neuron(x, true).fire(y) + new Neuron(y, false).fire(x);
}
`);
});

test("a function value holding a closure nabla did not compile throws at run time, naming it", async () => {
  const m = await loadProgram<{
    grad: (gain: number, input: (t: number) => number) => number;
    linear: (t: number) => number;
  }>({
    "main.ts": `import { gradient } from "nabla";
export const inputs = { linear: (t: number) => 3 * t };
export const linear = inputs.linear;
function run(gain: number, input: (t: number) => number): number {
  return gain * input(gain);
}
export const grad = gradient(run, { wrt: 0 });
`,
  });
  assertClose(m.grad(2, m.linear), 12, 1e-12, "d/dgain of gain * 3 gain");
  assert.throws(
    () => m.grad(2, (t: number) => 3 * t),
    (error: unknown) =>
      error instanceof TypeError && /input holds .*not one of the functions/.test(error.message),
  );
});

test("a local function passed on that assigns a variable it captures: the variable is shared (a cell)", async () => {
  const m = await loadProgram<{ f: (x: number) => number; df: (x: number) => number }>({
    "main.ts": `import { gradient } from "nabla";
function apply(f: (x: number) => number, x: number): number {
  return f(x);
}
export function f(x: number): number {
  let calls = 0;
  const g = (t: number) => {
    calls += 1;
    return t * x;
  };
  return apply(g, x) + apply(g, 2 * x) * calls;
}
export const df = gradient(f);
`,
  });
  // f = x² + (2x · x) · 2 = 5x²: calls is 2 once both applies ran, as JavaScript evaluates it.
  assert.equal(m.f(3), 3 * 3 + 2 * 3 * 3 * 2);
  assert.equal(m.df(3), 2 * 3 + 8 * 3);
});

const CHOSEN = (choice: string) => `import { gradient, type Differentiable } from "nabla";
function sq(x: number): number {
  return x * x;
}
function apply(f: Differentiable<(x: number) => number>, x: number): number {
  return f(x);
}
export function f(x: number, c: boolean): number {
  const id = (t: number) => t * x;
  ${choice}
}
export const df = gradient(f, { wrt: 0 });
`;

test("a local function or arrow chosen by a condition is called or passed as chosen", async () => {
  await checkTwoWays(`
function sq(t: number): number {
  return t * t;
}
function apply(f: (x: number) => number, x: number): number {
  return f(x);
}
export function f(x: number, y: number): number {
  const c = y > 0;
  const id = (t: number) => t * x;
  let s = apply(c ? (t: number) => t * x : sq, x);
  const g = c ? id : sq;
  s += apply(g, y);
  const h = c ? (t: number) => t * y : sq;
  return s + apply(h, x) + h(y);
}
`);
});

test("a local function chosen by a condition and assigned to a field is reported", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": CHOSEN(
        "const o: { fn: (t: number) => number } = { fn: sq };\n  o.fn = c ? (t: number) => t * x : sq;\n  return apply(o.fn, x);",
      ),
    }),
  );
  assert.match(
    text,
    /main\.ts:11:\d+: error NABLA112: a function stored as a value chosen at run time must be declared at the top level of a module; a local or inline function chosen by a condition can be called or passed to a function, but not stored/,
  );
});

test("an arrow stored in a class field, not chosen by any condition: NABLA112 says it is stored, not chosen", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { gradient } from "nabla";

class Smoother {
  transform: (x: number) => number;
  constructor(public strength: number) {
    this.transform = (x) => x * this.strength;
  }
  apply(v: number): number {
    return this.transform(v) * v;
  }
}

function loss(s: number): number {
  return new Smoother(s).apply(3);
}

export const g = gradient(loss);
`,
    }),
  );
  assert.match(
    text,
    /main\.ts:6:22: error NABLA112: a local or inline function can be called, or passed to a function that calls it, but not stored as a value \(in a field, an object or an array\) in differentiable code\n.*\n> 6 \| {5}this\.transform = \(x\) => x \* this\.strength;\n.*\^+\nhelp: declare it at the top level of a module, taking what it reads from here as parameters, and store that \(in a class, a method does this\)/,
  );
  assert.doesNotMatch(text, /chosen by a condition/);
});

test("a Differentiable parameter given a function the program does not use as a value throws", async () => {
  const m = await loadProgram<{
    cube: (x: number) => number;
    dApply: (f: (x: number) => number, x: number) => number;
  }>({
    "main.ts": `import { gradient, type Differentiable } from "nabla";
export function cube(x: number): number {
  return x * x * x;
}
export function apply(f: Differentiable<(x: number) => number>, x: number): number {
  return Math.sin(f(x));
}
export const dApply = gradient(apply, { wrt: 1 });
export const functions = [cube];
`,
  });
  // One of the program's functions used as a value: its derivative.
  assertClose(m.dApply(m.cube, 0.5), Math.cos(0.125) * 0.75, 1e-12, "dApply(cube)");
  // The same function written as a closure here is not one nabla compiled.
  assert.throws(
    () => m.dApply((x: number) => x * x * x, 0.5),
    (error: unknown) =>
      error instanceof TypeError && /not one of the functions/.test(error.message),
  );
});

test("a function only handed to an array method or a timer is not a candidate, and need not be differentiable", async () => {
  const m = await loadProgram<{ result: number }>({
    "main.ts": `import { gradient, type Differentiable } from "nabla";
function label(x: number): number {
  return parseFloat(String(x));
}
export function sq(x: number): number {
  return x * x;
}
function apply(f: Differentiable<(x: number) => number>, x: number): number {
  return f(x);
}
export const labels = [1.5].map(label);
setTimeout(label, 0);
export const g = gradient(apply, { wrt: 1 });
export const result = g(sq, 3);
`,
  });
  assert.equal(m.result, 6);
});

test("a candidate that cannot be differentiated is reported with the value that may hold it", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { gradient, type Differentiable } from "nabla";
function label(x: number): number {
  return parseFloat(String(x));
}
function apply(f: Differentiable<(x: number) => number>, x: number): number {
  return f(x);
}
export const table = { label };
export const g = gradient(apply, { wrt: 1 });
`,
    }),
  );
  assert.match(text, /NABLA104: 'String' is not differentiable/);
  assert.match(
    text,
    /when differentiating this call to 'label', one of the functions 'f' may hold/,
  );
});

// Regressions from the review of function values.

test("review: captures are read when the function is called, after the other arguments ran", async () => {
  const m = await loadProgram<{ late: Fn; aliased: Fn; gLate: Fn; gAliased: Fn }>({
    "main.ts": `import { gradient } from "nabla";
function hof(f: (x: number) => number, x: number): number {
  return f(x);
}
/** bump() changes what g captures before hof calls g. */
export function late(k: number): number {
  let c = k;
  const g = (x: number) => c * x;
  const bump = (): number => {
    c = c * 3;
    return 1;
  };
  return hof(g, bump());
}
/** const g2 = g is the same closure: it sees c change. */
export function aliased(k: number): number {
  let c = k;
  const g = (x: number) => c * x;
  const g2 = g;
  c = 3 * k;
  return g2(2) + hof(g2, 1);
}
export const gLate = gradient(late);
export const gAliased = gradient(aliased);
`,
  });
  assert.equal(m.late(2), 6);
  assertClose(m.gLate(2), 3, 1e-12, "late");
  assert.equal(m.aliased(1), 9);
  assertClose(m.gAliased(1), 9, 1e-12, "aliased");
});

test("review: an inner gradient over an array of a function that writes it is reported", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { gradient } from "nabla";
function step(loss: (p: number[]) => number, p: number[]): number[] {
  return gradient(loss)(p);
}
function mut(q: number[]): number {
  q[0] = q[0] * 2;
  return q[0] * q[0] + q[1];
}
export const g = gradient((h: number) => step(mut, [h, 1])[0]);
`,
    }),
  );
  assert.match(
    text,
    /NABLA116: inside differentiable code, 'gradient' with respect to an array runs its function once per element/,
  );
});

test("review: a parameter named like a top-level function is not that function", async () => {
  const m = await loadProgram<{ train: () => number[] }>({
    "main.ts": `import { gradient } from "nabla";
function loss(p: number[]): number {
  return p[0] * p[0];
}
function minimize(f: (p: number[]) => number, p0: number[], steps: number): number[] {
  const p = p0.slice();
  for (let s = 0; s < steps; s++) p[0] -= 0.1 * gradient(f)(p)[0];
  return p;
}
/** Passes its parameter on: no derivative is attached to it on the way. */
export function train(loss: (p: number[]) => number): number[] {
  return minimize(loss, [0], 10);
}
export const direct = minimize(loss, [1], 1);
`,
  });
  assert.throws(() => m.train(), /needs the derivative of the function passed as 'f'/);
});

test("review: valueWithGradient of a function parameter, in plain and differentiated runs", async () => {
  const m = await loadProgram<{ loss: Fn; gLoss: Fn }>({
    "main.ts": `import { gradient, valueWithGradient } from "nabla";
function vg(f: (p: number[]) => number, p: number[]): number {
  const r = valueWithGradient(f)(p);
  return r.value + r.gradient[0];
}
export function loss(k: number): number {
  return vg((q) => q[0] * q[0] * k, [k, 1]);
}
export const gLoss = gradient(loss);
`,
  });
  // loss(k) = k³ + 2k², loss'(k) = 3k² + 4k.
  assertClose(m.loss(2), 16, 1e-12, "value");
  assertClose(m.gLoss(2), 20, 1e-12, "gradient");
});

test("review: a recursion wrapping its function argument gets a diagnostic, not a stack overflow", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { gradient } from "nabla";
function nest(f: (x: number) => number, x: number, depth: number): number {
  if (depth === 0) return f(x);
  return nest((y) => f(y) * 2, x, depth - 1);
}
export const g = gradient((x: number) => nest((t) => t * t, x, 3));
`,
    }),
  );
  assert.match(text, /NABLA101: 'nest' is given a function that wraps the function it was given/);
  assert.doesNotMatch(text, /NABLA900/);
});

test("review: a candidate that cannot be differentiated is a warning, and throws only if called", async () => {
  const m = await loadProgram<{ g: (x: number, useSq: boolean) => number }>({
    "main.ts": `import { gradient, type Differentiable } from "nabla";
export function sq(x: number): number {
  return x * x;
}
export function fmt(x: number): number {
  return Number(x.toFixed(2));
}
function table(f: (x: number) => number, xs: number[]): number[] {
  return xs.map((x) => f(x));
}
export const shown = table(fmt, [1.234]);
function apply(f: Differentiable<(x: number) => number>, x: number): number {
  return f(x) * 3;
}
export const g = (x: number, useSq: boolean) => gradient(apply, { wrt: 1 })(useSq ? sq : fmt, x);
`,
  });
  assert.equal(m.g(2, true), 12);
  assert.throws(() => m.g(2, false), /nabla could not differentiate 'fmt'/);
});

test("review: functions of a namespace import are candidates, and attached derivatives follow both branches of a choice", async () => {
  const m = await loadProgram<{ gLoss: Fn; fitted: (c: boolean) => number[] }>({
    "acts.ts": `export function sq(x: number): number {
  return x * x;
}
export function cube(x: number): number {
  return x * x * x;
}
`,
    "main.ts": `import { gradient, type Differentiable } from "nabla";
import * as A from "./acts.ts";
function run(act: Differentiable<(x: number) => number>, x: number): number {
  return act(x) * 3;
}
function loss(x: number): number {
  return run(x > 0 ? A.sq : A.cube, x);
}
export const gLoss = gradient(loss);
function bowl(p: number[]): number {
  return (p[0] - 1) ** 2;
}
function bowl2(p: number[]): number {
  return (p[0] + 1) ** 2;
}
function minimize(f: (p: number[]) => number, p0: number[], steps: number): number[] {
  const p = p0.slice();
  for (let s = 0; s < steps; s++) p[0] -= 0.25 * gradient(f)(p)[0];
  return p;
}
export const fitted = (c: boolean) => minimize(c ? bowl : bowl2, [0], 40);
`,
  });
  assertClose(m.gLoss(0.7), 6 * 0.7, 1e-12, "sq branch");
  assertClose(m.gLoss(-0.7), 9 * 0.49, 1e-12, "cube branch");
  assertClose(m.fitted(true)[0]!, 1, 1e-9, "bowl");
  assertClose(m.fitted(false)[0]!, -1, 1e-9, "bowl2");
});

test("a specialization that cannot be compiled, called by one that can, becomes a function that throws why", async () => {
  const m = await loadProgram<{ run: () => number[]; plain: (n: number) => number }>({
    "main.ts": `import { gradient } from "nabla";
function descend(f: (p: number[]) => number, p: number[]): number[] {
  const g = gradient(f)(p);
  return p.map((pi, i) => pi - 0.1 * g[i]!);
}
function sumAt(f: (x: number) => number, n: number): number {
  if (n < 0) throw "negative n";
  let s = 0;
  for (let i = 0; i < n; i++) s += f(i);
  return s;
}
function wrapped(f: (x: number) => number, n: number): number {
  return sumAt(f, n);
}
export const plain = (n: number) => wrapped((x) => 2 * x, n);
export const run = () => descend((q) => wrapped((x) => q[0]! * x, 3), [1]);
`,
  });
  // The module loads and its plain code runs; the derivative says why it is missing.
  assert.equal(m.plain(3), 6);
  assert.throws(
    () => m.run(),
    /nabla could not differentiate 'sumAt\$with\$lambda' \(differentiable code can throw 'new Error/,
  );
});

test("gradient of a function parameter inside a local closure, passed on through another function, with captured literal unions and call results", async () => {
  const m = await loadProgram<{
    viaClosure: () => number[];
    passedOn: () => number[];
    twoLevels: (mode: "fast" | "slow") => number[];
    fromCall: () => number[];
  }>({
    "main.ts": `import { gradient } from "nabla";
type Mode = "fast" | "slow";
function minimize(loss: (p: number[]) => number, p0: number[], steps: number): number[] {
  const grad = (p: number[]): number[] => gradient(loss)(p);
  const p = p0.slice();
  for (let s = 0; s < steps; s++) {
    const g = grad(p);
    for (let i = 0; i < p.length; i++) p[i] -= 0.25 * g[i]!;
  }
  return p;
}
function descend(f: (p: number[]) => number, p: number[]): number[] {
  const g = gradient(f)(p);
  return p.map((pi, i) => pi - 0.1 * g[i]!);
}
function descendFrom(f: (p: number[]) => number, p: number[]): number[] {
  return descend(f, p);
}
function descendTwice(f: (p: number[]) => number, p: number[]): number[] {
  return descendFrom(f, descendFrom(f, p));
}
function scaled(x: number, mode: Mode): number {
  return mode === "fast" ? 2 * x * x : x * x;
}
function makeTarget(): number[] {
  return [2, 3];
}
export const viaClosure = () => minimize((q) => (q[0]! - 1) ** 2 + (q[1]! + 2) ** 2, [0, 0], 60);
export const passedOn = () => descendFrom((q) => q[0]! * q[0]!, [1]);
export const twoLevels = (mode: Mode) => descendTwice((p) => scaled(p[0]!, mode), [3]);
export const fromCall = () => {
  const target = makeTarget();
  return descend((q) => (q[0]! - target[0]!) ** 2 + (q[1]! - target[1]!) ** 2, [1, 1]);
};
`,
  });
  const [a, b] = m.viaClosure();
  assertClose(a!, 1, 1e-9, "closure, first coordinate");
  assertClose(b!, -2, 1e-9, "closure, second coordinate");
  assertClose(m.passedOn()[0]!, 0.8, 1e-12, "passed on once");
  // fast: x ← x − 0.1·4x = 0.6x, twice; slow: x ← 0.8x, twice.
  assertClose(m.twoLevels("fast")[0]!, 3 * 0.36, 1e-12, "fast");
  assertClose(m.twoLevels("slow")[0]!, 3 * 0.64, 1e-12, "slow");
  const [c, d] = m.fromCall();
  assertClose(c!, 1.2, 1e-12, "call result, first");
  assertClose(d!, 1.4, 1e-12, "call result, second");
});

test("a function written in module data whose field some code assigns is no candidate: the call is an error, not a guess", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { gradient } from "nabla";
interface Scenario {
  input: (t: number) => number;
}
export const ramp: Scenario = { input: (t) => 2 * t };
export function retune(s: Scenario): void {
  s.input = (t) => 3 * t;
}
function run(k: number, s: Scenario): number {
  return k * s.input(k);
}
export const g = gradient(run, { wrt: 0 });
`,
    }),
  );
  assert.match(text, /main\.ts:10:14: error NABLA102: no function of the program fits this call/);
});

test("a candidate in module data declared below the code that runs the derivative matches nothing until it is initialized", async () => {
  const m = await loadProgram<{ early: string; late: number }>({
    "main.ts": `import { gradient } from "nabla";
interface Scenario {
  input: (t: number) => number;
}
function run(k: number, s: Scenario): number {
  return k * s.input(k);
}
const g = gradient(run, { wrt: 0 });
let early = "";
try {
  g(2, { input: (t) => t });
} catch (e) {
  early = (e as Error).message;
}
export { early };
export const ramp: Scenario = { input: (t) => 2 * t };
export const late = g(2, ramp);
`,
  });
  assert.match(m.early, /not one of the functions/);
  assert.equal(m.late, 8);
});

test("Object.assign onto a local object leaves the functions of module-level objects known; one assigning a function field by name acts as 'ops.g = …'", async () => {
  // Before, any Object.assign onto an existing object made every module-level function value
  // unknown (NABLA102 for \`ops.g(x)\`, or a run-time TypeError in a derivative).
  await checkTwoWays(`interface Settings { a: number; b: number }
const ops = { g: (t: number) => t * 2 + Math.sin(t) };
export function f(x: number, y: number): number {
  const s: Settings = { a: x, b: 1 };
  Object.assign(s, { b: y * s.a }, { a: Math.sqrt(1 + y * y) });
  return ops.g(x) * s.a + s.b;
}`);
  // As with \`ops.g = triple\`: the field's function is chosen at run time, among the
  // program's function values, which the arrow written in \`ops\` is not.
  const m = await loadProgram<{ d: (x: number) => number }>({
    "main.ts": `import { gradient } from "nabla";
const ops = { g: (t: number) => t * 2 };
function triple(t: number): number {
  return 3 * t;
}
export function retarget(): void {
  Object.assign(ops, { g: triple });
}
export const d = gradient((x: number) => ops.g(x));
`,
  });
  assert.throws(
    () => m.d(1),
    /TypeError: nabla: .*holds 'g', which is not one of the functions nabla saw used as a value/,
  );
});

test("a helper writing into an array of a type nabla has none for (number[] | Float64Array) leaves module-level function values known", async () => {
  // Before, the write `v[i] *= k` through a parameter whose type could not be read was taken
  // as a write of any data, functions included: the stages' 'post' was chosen at run time
  // and the derivative threw a TypeError (found by the idiom fuzzer).
  await checkTwoWays(`interface Stage {
  gain: number;
  post?: (v: number) => number;
}
export const stages: Stage[] = [{ gain: -0.36 }, { gain: 1.99, post: (v) => v * v * -0.78 }];
function runStages(v: number): number {
  for (const stage of stages) {
    v *= stage.gain;
    if (stage.post) v = stage.post(v);
  }
  return v;
}
function scaleAll(v: number[] | Float64Array, k: number): void {
  for (let i = 0; i < v.length; i++) v[i] *= k;
}
export function f(x: number, y: number): number {
  const typed = new Float64Array([1.58, y]);
  scaleAll(typed, x);
  return runStages(typed[0] + typed[1]);
}`);
});

test("an array filled as it is made (new Array(n).fill(v)) is not module data: the functions of a module-level object a local alias names stay known", async () => {
  // Before, '.fill' on 'new Array(2)' (of type any[]) counted as a write of any data, and
  // 'Math.cos' through the local 'const Math = myMath' was NABLA102 (found by the idiom fuzzer).
  await checkTwoWays(`const myMath: { cos: (t: number) => number; sin: (t: number) => number } = {
  cos: (t: number) => 1 - (t * t) / 2,
  sin: (t: number) => t * -0.19,
};
function wave(a: number, b: number): number {
  const Math = myMath;
  return Math.cos(a) * b + Math.sin(b);
}
export function f(x: number, y: number): number {
  const xs: number[] = new Array(2).fill(Math.cos(x));
  xs[0] = Math.exp(y);
  return wave(x + 0.97, y) + xs[0] * xs[1];
}`);
});
