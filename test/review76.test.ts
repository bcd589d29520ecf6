import { test } from "node:test";
import assert from "node:assert/strict";
import {
  assertClose,
  centralDifference,
  compileFiles,
  diagnosticsText,
  loadProgram,
} from "./support/harness.js";

// Review 76: operators on realistic code, higher-order use and diagnostics.

// ---------------------------------------------------------------------------------------------
// Function values given to a class: a constructor or a static method that applies an operator
// to its function-typed parameter gets the derivative attached where the function is passed
// (`new Solver(loss)`), as a function does; before, nothing was attached and the derivative
// threw a TypeError ("this function value has none") when it ran.

test("a constructor taking gradient(f) of its parameter gets the derivative of the function passed", async () => {
  const m = await loadProgram<{
    steps: () => number[][];
    statics: () => number[];
    inherited: () => number[];
  }>({
    "main.ts": `import { gradient, derivative } from "nabla";

class Solver {
  private grad: (p: number[]) => number[];
  constructor(private f: (p: number[]) => number, private rate = 0.1) {
    this.grad = gradient(f);
  }
  step(p: number[]): number[] {
    const g = this.grad(p);
    return p.map((v, i) => v - this.rate * g[i]);
  }
  static slope(f: (x: number) => number, x: number): number {
    return derivative(f)(x);
  }
}
class Momentum extends Solver {}

function quad(p: number[]): number {
  return (p[0] - 1) ** 2 + 3 * (p[1] + 2) ** 2;
}

export function steps(): number[][] {
  const target = 4;
  const a = new Solver(quad).step([0, 0]);
  const b = new Solver((p) => (p[0] - target) ** 2 * p[1], 0.5).step([1, 2]);
  return [a, b];
}

function wave(x: number): number {
  return Math.sin(x);
}

export function statics(): number[] {
  return [Solver.slope(wave, 0.3), Solver.slope((x) => x ** 3, 2)];
}

export function inherited(): number[] {
  return new Momentum(quad).step([0, 0]);
}
`,
  });
  const [a, b] = m.steps();
  const close = (got: number[], want: number[], what: string) =>
    got.forEach((g, i) => assertClose(g, want[i]!, 1e-14, `${what}[${i}]`));
  close(a!, [0.2, -1.2], "step on quad");
  // ∂/∂p of (p0 − 4)² p1 at (1, 2): (2(p0 − 4) p1, (p0 − 4)²) = (−12, 9).
  close(b!, [1 + 0.5 * 12, 2 - 0.5 * 9], "step on a lambda capturing a local");
  const [s, c] = m.statics();
  assertClose(s!, Math.cos(0.3), 1e-15, "derivative(wave)");
  assertClose(
    c!,
    centralDifference((x) => x ** 3, 2),
    1e-8,
    "derivative of x³",
  );
  close(m.inherited(), [0.2, -1.2], "a subclass's inherited constructor");
});

test("derivative of a lambda over an operator on a function parameter: derivative((x) => derivative(f)(x))", async () => {
  // The lambda reads `f` without calling it: its derivative is needed all the same (it was
  // looked up under its key at run time, and never attached: a TypeError).
  const m = await loadProgram<{ newton: () => number[] }>({
    "main.ts": `import { derivative } from "nabla";

function minimize1d(f: (x: number) => number, x0: number): number {
  const d1 = derivative(f);
  const d2 = derivative((x: number) => derivative(f)(x));
  let x = x0;
  for (let i = 0; i < 50; i++) x -= d1(x) / d2(x);
  return x;
}

export function newton(): number[] {
  const c = 0.1;
  return [minimize1d((x) => Math.cosh(x - 2) + c * x, 0), minimize1d((x) => (x - 3) ** 4 + x * x, 1)];
}
`,
  });
  const [a, b] = m.newton();
  assertClose(a!, 2 - Math.asinh(0.1), 1e-12, "argmin of cosh(x − 2) + x/10");
  // 4(x − 3)³ + 2x = 0.
  assertClose(4 * (b! - 3) ** 3 + 2 * b!, 0, 1e-9, "stationary point");
});

// ---------------------------------------------------------------------------------------------
// An operator given a variable holding a function value: the message says so, and for
// `derivative(derivative(f))` of a parameter, what works instead (it said "needs a function
// whose source nabla can see: a function declared in this program or an arrow function written
// here", which the functions in the variable are).

test("an operator of a variable or parameter holding a function value says what it is and what works", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { derivative } from "nabla";
const cases: [string, (x: number) => number][] = [["sq", (x) => x * x]];
export function slopes(): number[] {
  const out: number[] = [];
  for (const [, f] of cases) out.push(derivative(f)(1));
  return out;
}
export function curvature(f: (x: number) => number, x: number): number {
  return derivative(derivative(f))(x);
}
`,
    }),
  );
  assert.equal(
    text,
    `main.ts:5:50: error NABLA108: 'derivative' cannot differentiate 'f': it is a variable holding a function value, which nabla cannot follow to its code here
  4 |   const out: number[] = [];
> 5 |   for (const [, f] of cases) out.push(derivative(f)(1));
    |                                                  ^
help: give 'derivative' the function itself: its name, or an arrow function written at the call ('derivative((x) => …)')

main.ts:9:21: error NABLA108: 'derivative' cannot differentiate 'derivative(f)': 'f' is a function value here (a parameter or a variable), whose code nabla follows only where it is called
  8 | export function curvature(f: (x: number) => number, x: number): number {
> 9 |   return derivative(derivative(f))(x);
    |                     ^^^^^^^^^^^^^
help: differentiate a lambda calling it: 'derivative((x) => derivative(f)(x))'

2 errors`,
  );
});

// ---------------------------------------------------------------------------------------------
// A Math function given to an operator as a value (`derivative(Math.sin)`, `gradient(Math.atan2)`)
// is differentiated as the arrow calling it would be (it was NABLA108 "needs a function whose
// source nabla can see"); one of any number of arguments (`Math.max`) says why it is not.

test("an operator of a Math function: derivative(Math.sin), gradient(Math.atan2), hessian(Math.log), passed on", async () => {
  const m = await loadProgram<{ run: () => unknown[] }>({
    "main.ts": `import { derivative, gradient, hessian, valueWithGradient } from "nabla";
function newton(f: (x: number) => number, x: number): number {
  for (let i = 0; i < 20; i++) x -= f(x) / derivative(f)(x);
  return x;
}
export function run(): unknown[] {
  const slope = derivative(Math.cos);
  return [
    derivative(Math.sin)(0.3),
    derivative(derivative(Math.exp))(1),
    gradient(Math.atan2)(1, 2),
    gradient(Math.pow, { wrt: 1 })(2, 3),
    hessian(Math.log)(2),
    valueWithGradient(Math.sqrt)(4),
    [0, 1].map((x) => slope(x)),
    newton(Math.sin, 3),
  ];
}
`,
  });
  const [sin, exp, atan2, pow, log, sqrt, cos, root] = m.run() as [
    number,
    number,
    number[],
    number,
    number,
    { value: number; gradient: number },
    number[],
    number,
  ];
  assert.equal(sin, Math.cos(0.3));
  assert.equal(exp, Math.E);
  assertClose(atan2[0]!, 0.4, 1e-15, "∂atan2/∂y");
  assertClose(atan2[1]!, -0.2, 1e-15, "∂atan2/∂x");
  assertClose(pow, 8 * Math.log(2), 1e-15, "∂2^y/∂y");
  assert.equal(log, -0.25);
  assert.deepEqual(sqrt, { value: 2, gradient: 0.25 });
  assert.deepEqual(cos, [-0, -Math.sin(1)]);
  assertClose(root, Math.PI, 1e-15, "Newton on Math.sin");
});

test("an operator of Math.max says it takes any number of arguments", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { derivative } from "nabla";
export const d = derivative(Math.max);
`,
    }),
  );
  assert.match(
    text,
    /main\.ts:2:29: error NABLA108: 'derivative' cannot differentiate 'Math\.max' given as a value: it takes any number of arguments/,
  );
  assert.match(text, /help: .*'derivative\(\(x\) => Math\.max\(x, 0\)\)'/);
});

// ---------------------------------------------------------------------------------------------
// A number constant of an npm package (`export declare const G: number` in its .d.ts), read in
// differentiated code by name or through a namespace import: a constant (it was NABLA103
// "cannot determine the type of imported value 'G' from 'units' … annotate its declaration",
// which is annotated).

test("a package's number constant, read by name or through a namespace, is a constant", async () => {
  const m = await loadProgram<{ run: () => number[] }>({
    "node_modules/units/package.json": `{ "name": "units", "type": "module", "main": "index.js", "types": "index.d.ts" }\n`,
    "node_modules/units/index.d.ts": `export declare const G: number;\nexport { DRAG } from "./drag.js";\n`,
    "node_modules/units/drag.d.ts": `export declare const DRAG: number;\n`,
    "node_modules/units/index.js": `export const G = 9.81;\nexport { DRAG } from "./drag.js";\n`,
    "node_modules/units/drag.js": `export const DRAG = 0.5;\n`,
    "main.ts": `import { derivative, gradient } from "nabla";
import { G } from "units";
import * as units from "units";

function height(v: number, t: number): number {
  return v * t - 0.5 * G * t * t - units.DRAG * v * v * t;
}

export function run(): number[] {
  return [...gradient(height)(3, 2), derivative((t: number) => height(3, t))(2)];
}
`,
  });
  const [dv, dt, d] = m.run();
  // ∂/∂v = t − 2·DRAG·v·t, ∂/∂t = v − G·t − DRAG·v².
  assertClose(dv!, 2 - 2 * 0.5 * 3 * 2, 1e-15, "∂h/∂v");
  assertClose(dt!, 3 - 9.81 * 2 - 0.5 * 9, 1e-15, "∂h/∂t");
  assertClose(d!, dt!, 1e-15, "forward mode");
});

test("an instance method applying an operator to its function parameter gets the derivative of the function passed", async () => {
  // `fitter.fit(loss, p)`, `new Fitter().fit(…)`, `this.opt.fit(…)`, an inherited method: the
  // receiver's class is the source's (`new`) or TypeScript's; each call passes its own function.
  const m = await loadProgram<{ run: () => number[][] }>({
    "main.ts": `import { gradient } from "nabla";
class Fitter {
  fit(f: (p: number[]) => number, p: number[]): number[] {
    return gradient(f)(p);
  }
}
class Tuned extends Fitter {}
class Trainer {
  opt = new Fitter();
  run(p: number[]): number[] {
    return this.opt.fit((q) => q[0] * q[1], p);
  }
}
function bowl(p: number[]): number {
  return (p[0] - 1) ** 2 + 3 * (p[1] + 2) ** 2;
}
function cup(p: number[]): number {
  return p[0] * p[0] * p[1];
}
export function run(): number[][] {
  const fitter = new Fitter();
  const k = 2;
  return [
    fitter.fit(bowl, [0, 0]),
    new Fitter().fit((p) => k * p[0] + p[1] ** 3, [1, 2]),
    new Tuned().fit(cup, [2, 3]),
    new Trainer().run([2, 5]),
  ];
}
`,
  });
  assert.deepEqual(m.run(), [
    [-2, 12],
    [2, 12],
    [12, 4],
    [5, 2],
  ]);
});

test("a method applying an operator to its function parameter, called through an interface, a base class, a call's result or an element", async () => {
  // Each class the receiver may be (the interface's implementers, the base's subclasses) gets
  // what its method needs attached to the function passed, once per operator.
  const m = await loadProgram<{ run: () => number[][] }>({
    "main.ts": `import { gradient, valueWithGradient } from "nabla";
interface Fitter {
  fit(f: (p: number[]) => number, p: number[]): number[];
}
class Descent implements Fitter {
  constructor(private lr = 0.1) {}
  fit(f: (p: number[]) => number, p: number[]): number[] {
    const g = gradient(f)(p);
    return p.map((v, i) => v - this.lr * g[i]);
  }
}
class Secant implements Fitter {
  fit(f: (p: number[]) => number, p: number[]): number[] {
    const { value, gradient: g } = valueWithGradient(f)(p);
    return p.map((v, i) => v - value / g[i]);
  }
}
abstract class Base {
  abstract fit(f: (p: number[]) => number, p: number[]): number[];
}
class Half extends Base {
  fit(f: (p: number[]) => number, p: number[]): number[] {
    const g = gradient(f)(p);
    return p.map((v, i) => v - 0.5 * g[i]);
  }
}
function make(): Fitter {
  return new Secant();
}
function loss(p: number[]): number {
  return (p[0] - 1) ** 2 + 3 * (p[1] + 2) ** 4;
}
export function run(): number[][] {
  const fitters: Fitter[] = [new Descent(), new Secant()];
  const out = fitters.map((f) => f.fit(loss, [0, 0]));
  const b: Base = new Half();
  out.push(b.fit(loss, [0, 0]));
  out.push(make().fit((p) => p[0] ** 3 + p[1], [1, 1]));
  out.push(fitters[0].fit((p) => p[0] * p[1], [2, 3]));
  return out;
}
`,
  });
  const [descent, secant, half, made, element] = m.run();
  assert.deepEqual(descent, [0.2, -9.600000000000001]);
  assert.deepEqual(secant, [49 / 2, -49 / 96]);
  assert.deepEqual(half, [1, -48]);
  assert.deepEqual(made, [1 - 2 / 3, -1]);
  assert.deepEqual(element, [2 - 0.1 * 3, 3 - 0.1 * 2]);
});

// ---------------------------------------------------------------------------------------------
// A differentiated value joined into text that flows into the result: NABLA104 says so (it said
// "'+' is not differentiable" at a template literal, which has no '+').

test("NABLA104 at a template literal or a string '+' says the value is joined into text", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { derivative } from "nabla";
export const d = derivative((x: number) => {
  const s = \`\${x}\`;
  return s.length * x;
});
export const e = derivative((x: number) => parseFloat("0" + x) * x);
`,
    }),
  );
  assert.match(
    text,
    /main\.ts:3:13: error NABLA104: a value that depends on the differentiated arguments is joined into text here \(a template literal or '\+' on a string\), which has no derivative, and the text flows into the result/,
  );
  assert.match(text, /main\.ts:6:55: error NABLA104: a value .* is joined into text here/);
  assert.doesNotMatch(text, /'\+' is not differentiable/);
});

// ---------------------------------------------------------------------------------------------
// An object result where an operator needs a number or numbers: the message names it as an
// object (it wrote the inline type's source text, "returns a { a: x[0] * x[1], b: x[1] }", and
// "returns a Out"), and `gradient`'s no longer points to `jacobian`, which does not take it.

test("an object-valued function given to gradient or jacobian: the message says it returns an object", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { gradient, jacobian } from "nabla";
interface Out {
  a: number;
  b: number;
}
function named(x: number[]): Out {
  return { a: x[0], b: x[1] };
}
export const g = gradient((x: number[]) => ({ a: x[0] * x[1], b: x[1] }));
export const j = jacobian((x: number[]) => ({ a: x[0] * x[1], b: x[1] }));
export const k = jacobian(named);
`,
    }),
  );
  assert.match(
    text,
    /main\.ts:9:27: error NABLA106: cannot differentiate this function: it returns an object with fields 'a' and 'b', not a number \(a gradient needs a number-valued function; use 'pullback' for others, or 'jacobian' of a function returning the numbers in an array\)/,
  );
  assert.match(
    text,
    /main\.ts:10:18: error NABLA108: 'jacobian' needs a function returning a number, a number\[\], a tuple of numbers or a typed array; this one returns an object with fields 'a' and 'b'\n/,
  );
  assert.match(
    text,
    /main\.ts:11:18: error NABLA108: .* this one returns an object of type 'Out'\n/,
  );
});
