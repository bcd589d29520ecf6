import assert from "node:assert/strict";
import { test } from "node:test";
import {
  assertClose,
  compileFiles,
  diagnosticsText,
  finiteGradient,
  loadProgram,
} from "./support/harness.js";
import { checkTwoWays } from "./support/two-ways.js";

// Arrow-function class fields (lower/arrow-fields.ts): called as methods bound to the instance,
// on instances built inside differentiated code too, whose arrows the emitted module installs
// (emit/js/written-function.ts). Derivatives against central differences and forward mode
// against reverse mode; instances that leave derivative code are checked to have their arrows.

test("an instance built in differentiated code calls its arrow fields, which call each other", async () => {
  await checkTwoWays(`class Neuron {
  constructor(private w: number, private b: number) {}
  activate = (z: number): number => Math.tanh(z);
  forward = (x: number): number => this.activate(this.w * x + this.b);
}
export function f(x: number, y: number): number {
  const n = new Neuron(y, 0.5);
  return n.forward(x) + n.activate(y);
}`);
});

test("arrow fields calling methods and getters, and methods calling arrow fields", async () => {
  await checkTwoWays(`class Layer {
  weights: number[];
  constructor(w0: number, w1: number, public bias = 0.1) {
    this.weights = [w0, w1];
  }
  get norm(): number {
    return Math.hypot(this.weights[0]!, this.weights[1]!);
  }
  dot(a: number, b: number): number {
    return this.weights[0]! * a + this.weights[1]! * b;
  }
  relu = (z: number) => (z > 0 ? z : 0.01 * z);
  apply = (a: number, b: number): number => this.relu(this.dot(a, b) + this.bias) / this.norm;
  loss(a: number, b: number, target: number): number {
    const e = this.apply(a, b) - target;
    return e * e;
  }
}
export function f(x: number, y: number): number {
  const layer = new Layer(x, y);
  return layer.loss(1.5, -0.5, 0.3) + layer.apply(y, x);
}`);
});

test("arrow fields with default and optional parameters", async () => {
  await checkTwoWays(`class Poly {
  constructor(readonly a: number, readonly b: number) {}
  at = (t: number, scale = 2): number => scale * (this.a * t * t + this.b * t);
  shifted = (t: number, shift?: number): number => this.at(t + (shift ?? 0.5));
}
export function f(x: number, y: number): number {
  const p = new Poly(x, y);
  return p.at(y) + p.at(x, 3) + p.shifted(x) + p.shifted(y, -1);
}`);
});

test("a subclass inherits its base's arrow fields and adds its own", async () => {
  await checkTwoWays(`class Unit {
  constructor(public gain: number) {}
  scaled = (v: number): number => this.gain * v;
}
class Damped extends Unit {
  damping = 0.25;
  response = (v: number): number => this.scaled(v) * Math.exp(-this.damping * v);
}
class Plain extends Unit {}
export function f(x: number, y: number): number {
  const d = new Damped(y);
  const p = new Plain(x);
  return d.response(x) + d.scaled(y) + p.scaled(x * y);
}`);
});

test("an arrow field passed where a function is expected: to .map, to a function of the program, kept in a const", async () => {
  await checkTwoWays(`class Model {
  constructor(readonly k: number) {}
  predict = (t: number): number => Math.sin(this.k * t) + t;
}
function integrate(g: (t: number) => number, a: number, b: number, n = 8): number {
  const h = (b - a) / n;
  let s = 0.5 * (g(a) + g(b));
  for (let i = 1; i < n; i++) s += g(a + i * h);
  return s * h;
}
export function f(x: number, y: number): number {
  const m = new Model(y);
  const ys = [x, 2 * x, y].map(m.predict);
  const area = integrate(m.predict, 0, x);
  const predict = m.predict;
  let total = area + predict(x * y);
  for (const v of ys) total += v * v;
  return total;
}`);
});

test("an instance made outside differentiated code keeps working, its arrow fields passed on too", async () => {
  await checkTwoWays(`class Scaler {
  constructor(public k: number) {}
  apply = (x: number) => x * this.k + 1;
  twice = (x: number): number => this.apply(this.apply(x));
}
const base = new Scaler(1.5);
export function f(x: number, y: number): number {
  return base.twice(x * y) + [x, y].map(base.apply).reduce((a, b) => a * b, 1);
}`);
});

test("arrow fields next to getters, setters and a field initialized from an arrow field", async () => {
  await checkTwoWays(`class Thermo {
  private celsius = 0;
  toF = (c: number): number => c * 1.8 + 32;
  offset: number = this.toF(1);
  get fahrenheit(): number {
    return this.toF(this.celsius);
  }
  set fahrenheit(f: number) {
    this.celsius = (f - 32) / 1.8;
  }
  constructor(start: number) {
    this.celsius = start;
  }
}
export function f(x: number, y: number): number {
  const t = new Thermo(x);
  const before = t.fahrenheit;
  t.fahrenheit = before * y;
  return t.fahrenheit + t.offset * x;
}`);
});

test("instances built in derivative code and handed back to the caller have their arrow fields", async () => {
  const m = await loadProgram<{
    vg: (
      x: number,
      y: number,
    ) => { value: number; gradient: number[]; aux: { neuron: { forward(x: number): number } } };
    vp: (
      x: number,
      y: number,
    ) => {
      value: { forward(x: number): number; activate(z: number): number; w: number };
      pullback: (seed: unknown) => number[];
    };
  }>({
    "main.ts": `import { valueWithGradient, valueWithPullback } from "nabla";
export class Neuron {
  constructor(public w: number, public b: number) {}
  activate = (z: number): number => Math.tanh(z);
  forward = (x: number): number => this.activate(this.w * x + this.b);
}
function loss(x: number, y: number) {
  const neuron = new Neuron(x, y);
  return { value: neuron.forward(2), aux: { neuron } };
}
function build(x: number, y: number): Neuron {
  return new Neuron(x * y, y);
}
export const vg = valueWithGradient(loss, { hasAux: true });
export const vp = valueWithPullback(build);
`,
  });
  const { value, aux } = m.vg(0.3, -0.2);
  assert.equal(aux.neuron.forward(2), value);
  assert.equal(aux.neuron.forward(1), Math.tanh(0.3 - 0.2));
  const built = m.vp(0.5, 2);
  assert.equal(built.value.w, 1);
  assert.equal(built.value.forward(3), Math.tanh(3 + 2));
  assert.equal(built.value.activate(1), Math.tanh(1));
  // The arrows read the instance they were made for: a later write is seen.
  built.value.w = 2;
  assert.equal(built.value.forward(3), Math.tanh(6 + 2));
});

test("an instance built in derivative code and passed to a function that runs as written", async () => {
  // Without a derivative through it, 'energyAt' runs as the user wrote it, on the instance
  // the derivative code built.
  await checkTwoWays(`import { withoutDerivative } from "nabla";
class Spring {
  constructor(public k: number, public rest = 1) {}
  energy = (len: number): number => 0.5 * this.k * (len - this.rest) ** 2;
}
function energyAt(s: Spring, len: number): number {
  return s.energy(len);
}
export function f(x: number, y: number): number {
  const s = new Spring(x * y);
  const huge = energyAt(withoutDerivative(s), 2) > 1e6;
  return huge ? 0 : s.energy(y) * 2;
}`);
});

test("an arrow field some code assigns is reported, for instances built inside or outside", () => {
  for (const made of ["new Scaler(y)", "base"]) {
    const text = diagnosticsText(
      compileFiles({
        "main.ts": `import { gradient } from "nabla";
class Scaler {
  constructor(public k: number) {}
  apply = (x: number) => x * this.k + 1;
}
const base = new Scaler(1.5);
base.apply = (x: number) => x * x;
export function f(x: number, y: number): number {
  const s = ${made};
  return s.apply(x);
}
export const g = gradient(f);
`,
      }),
    );
    assert.match(
      text,
      /error NABLA101: the arrow-function field 'apply' of 'Scaler' may be assigned other functions/,
    );
  }
});

test("classes implementing an interface, some by an arrow field and some by a method", async () => {
  await checkTwoWays(`interface Activation {
  apply(z: number): number;
}
class Tanh implements Activation {
  apply = (z: number): number => Math.tanh(z);
}
class Scaled implements Activation {
  constructor(private k: number) {}
  apply(z: number): number {
    return this.k * z;
  }
}
class Shifted implements Activation {
  constructor(private by: number) {}
  apply = (z: number): number => Math.sin(z + this.by);
}
export function f(x: number, y: number): number {
  const acts: Activation[] = [new Tanh(), new Scaled(y), new Shifted(x * y)];
  let s = 0;
  for (const a of acts) s += a.apply(x + s);
  return s;
}`);
});

test("Hessians and Jacobians in both modes through the arrow fields of instances built inside", async () => {
  const m = await loadProgram<{
    f: (p: number[]) => number;
    g: (p: number[]) => number[];
    h: (p: number[]) => number[][];
    jf: (p: number[]) => number[][];
    jr: (p: number[]) => number[][];
  }>({
    "main.ts": `import { hessian, jacobian } from "nabla";
class Spring {
  constructor(public k: number, public rest: number) {}
  energy = (len: number): number => 0.5 * this.k * (len - this.rest) ** 2 + Math.sin(this.k * len);
  force = (len: number): number => -this.k * (len - this.rest) * this.energy(len);
}
export function f(p: number[]): number {
  const s = new Spring(p[0]!, 0.5);
  return s.energy(p[1]!) + s.force(p[0]! * p[1]!);
}
export function g(p: number[]): number[] {
  const s = new Spring(p[1]!, p[0]!);
  return [s.energy(p[0]!), s.force(p[1]!), s.energy(p[0]! + p[1]!)];
}
export const h = hessian(f);
export const jf = jacobian(g, { mode: "forward" });
export const jr = jacobian(g, { mode: "reverse" });
`,
  });
  for (const p of [
    [0.7, -0.4],
    [1.3, 0.9],
  ]) {
    const hessian = m.h(p);
    hessian.forEach((row, i) => {
      // Each row is the gradient of ∂f/∂p_i, by differences of a gradient itself checked.
      const partial = (q: number[]) => finiteGradient((...xs) => m.f(xs), q)[i]!;
      const expected = finiteGradient((...xs) => partial(xs), p);
      row.forEach((v, j) => assertClose(v, expected[j]!, 1e-4, `H[${i}][${j}] at ${p}`));
      row.forEach((v, j) => assertClose(v, hessian[j]![i]!, 1e-12, `symmetry at ${p}`));
    });
    const forward = m.jf(p);
    const reverse = m.jr(p);
    forward.forEach((row, i) => {
      const expected = finiteGradient((...xs) => m.g(xs)[i]!, p);
      row.forEach((v, j) => {
        assertClose(v, expected[j]!, 1e-6, `J[${i}][${j}] at ${p}, finite differences`);
        assertClose(v, reverse[i]![j]!, 1e-12, `J[${i}][${j}] at ${p}, forward and reverse`);
      });
    });
  }
});

test("function-typed parameters and fields typed only by their default: a Math function or a function of the program", async () => {
  await checkTwoWays(`class Unit {
  constructor(
    private k: number,
    private clamp = Math.tanh,
  ) {}
  out(x: number): number {
    return this.clamp(this.k * x);
  }
}
function soft(v: number): number {
  return v / (1 + Math.abs(v));
}
function apply(x: number, act = Math.tanh): number {
  return act(x) * 2;
}
class Layer {
  act = Math.sin;
  scale = (v: number): number => this.act(v) * 3;
}
export function f(x: number, y: number): number {
  const u = new Unit(y);
  const s = new Unit(x, soft);
  return u.out(x) + s.out(y) + apply(x * y) + apply(y, Math.cos) + new Layer().scale(x);
}`);
});

test("a '#private' arrow field and arrow fields reading '#private' fields", async () => {
  await checkTwoWays(`class Neuron {
  #w: number;
  constructor(
    w: number,
    private b: number,
  ) {
    this.#w = w;
  }
  #activate = (z: number): number => Math.tanh(z);
  forward = (x: number): number => this.#activate(this.#w * x + this.b);
  get weight(): number {
    return this.#w;
  }
}
export function f(x: number, y: number): number {
  const n = new Neuron(y, 0.5);
  const ys = [x, y].map(n.forward);
  return n.forward(x) * n.weight + ys[1]!;
}`);
});

test("a class of another module with arrow fields reading its module's constants, built and passed on here", async () => {
  await checkTwoWays(
    `import { Model } from "./lib";
function sum(g: (t: number) => number, xs: number[]): number {
  let s = 0;
  for (const x of xs) s += g(x);
  return s;
}
export function f(x: number, y: number): number {
  const m = new Model(y);
  const ys = [x, y].map(m.predict);
  return m.twice(x) + ys[0]! * ys[1]! + sum(m.twice, [x, 2 * y]);
}`,
    undefined,
    true,
    {
      "lib.ts": `const GAIN = 1.5;
export class Model {
  constructor(readonly k: number) {}
  predict = (t: number): number => Math.sin(this.k * t) * GAIN + t;
  twice = (t: number): number => this.predict(this.predict(t));
}
`,
    },
  );
});
