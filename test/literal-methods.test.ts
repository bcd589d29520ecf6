import { test } from "node:test";
import assert from "node:assert/strict";
import { checkTwoWays } from "./support/two-ways.js";
import { compileFiles, diagnosticsText } from "./support/harness.js";

// Object literals with methods, getters and arrow fields, typed by interfaces, as TypeScript
// code builds them: returned by factories (lower/literal-factories.ts runs the factory's body
// where it is called) and passed to functions that call their methods (lower/passed-accessors.ts
// specializes the callee for them). `this` is the object; the methods read the factory's
// parameters and locals, and may change them. Each program is checked against central
// differences, and forward mode against reverse mode (support/two-ways.ts); what is refused is
// checked to the full text of its message.

test("a model factory whose method reads its field through `this` and the factory's parameters", async () => {
  await checkTwoWays(`interface Model {
  weight: number;
  bias: number;
  predict(x: number): number;
}
function makeModel(w: number, b: number): Model {
  return {
    weight: w,
    bias: b,
    predict(x: number) {
      return w * x + this.bias * this.weight;
    },
  };
}
export function f(w: number, b: number): number {
  const m = makeModel(w, b);
  let loss = 0;
  for (const [x, y] of [[1, 2], [2, 3.5], [3, 6]]) loss += (m.predict(x) - y) ** 2;
  return loss + makeModel(b, w).predict(0.5);
}`);
});

test("the brief's model factory: one weight, called once", async () => {
  await checkTwoWays(`interface Model {
  weight: number;
  predict(x: number): number;
}
function makeModel(w: number): Model {
  return {
    weight: w,
    predict(x: number) {
      return this.weight * x;
    },
  };
}
function loss(w: number): number {
  const m = makeModel(w);
  const p = m.predict(2);
  return (p - 1) ** 2;
}
export function f(x: number, y: number): number {
  return loss(x) * y;
}`);
});

test("a shape interface with area() and a perimeter getter, from a factory and written in place, measured by a helper", async () => {
  await checkTwoWays(`interface Shape {
  readonly perimeter: number;
  area(): number;
}
function rectangle(w: number, h: number): Shape {
  return {
    get perimeter() {
      return 2 * (w + h);
    },
    area() {
      return w * h;
    },
  };
}
function compactness(shape: Shape): number {
  return shape.area() / shape.perimeter ** 2;
}
export function f(x: number, y: number): number {
  const disk = {
    r: x,
    area() {
      return Math.PI * this.r * this.r;
    },
    get perimeter() {
      return 2 * Math.PI * this.r;
    },
  };
  const rect = rectangle(x, y);
  return compactness(rect) + compactness(disk) * y + compactness(rectangle(y, 2 * x)) + rect.area();
}`);
});

test("an optimizer object whose step() updates the parameters and its own velocity", async () => {
  await checkTwoWays(`interface Optimizer {
  step(params: number[], grads: number[]): void;
}
function momentum(rate: number, beta: number, n: number): Optimizer {
  const velocity = new Array<number>(n).fill(0);
  return {
    step(params: number[], grads: number[]) {
      for (let i = 0; i < params.length; i++) {
        velocity[i] = beta * velocity[i] - rate * grads[i];
        params[i] += velocity[i];
      }
    },
  };
}
function train(opt: Optimizer, target: number, steps: number): number[] {
  const p = [1, -1];
  for (let k = 0; k < steps; k++) opt.step(p, [2 * (p[0] - target), 2 * (p[1] + target)]);
  return p;
}
export function f(rate: number, target: number): number {
  const opt = momentum(rate, 0.5, 2);
  const p = [1, -1];
  for (let k = 0; k < 5; k++) {
    const g = [2 * (p[0] - target), 2 * (p[1] + target)];
    opt.step(p, g);
  }
  const q = train(momentum(rate * 0.5, 0.9, 2), target, 4);
  return p[0] * p[0] + p[1] * p[1] + q[0] * q[1];
}`);
});

test("counters whose state, in the factory's variables or in fields, methods change in loops", async () => {
  await checkTwoWays(`function makeStats() {
  let total = 0;
  let count = 0;
  return {
    add(v: number) {
      total += v;
      count++;
    },
    get mean() {
      return total / count;
    },
  };
}
export function f(x: number, y: number): number {
  const s = makeStats();
  for (let i = 0; i < 4; i++) s.add(x * i + y);
  const counter = {
    n: 0,
    sum: 0,
    add(v: number) {
      this.n++;
      this.sum += v * v;
    },
  };
  let k = 0;
  while (k < 3) {
    counter.add(x + k * y);
    k++;
  }
  return s.mean * counter.sum + counter.n;
}`);
});

test("a counter from a factory fed by a helper that calls its method, then read by another", async () => {
  await checkTwoWays(`interface Counter {
  count: number;
  add(v: number): void;
  readonly mean: number;
}
function makeCounter(scale: number): Counter {
  let sum = 0;
  return {
    count: 0,
    add(v: number) {
      sum += v * scale;
      this.count++;
    },
    get mean() {
      return sum / this.count;
    },
  };
}
function feed(c: Counter, xs: number[]): void {
  for (const x of xs) c.add(x);
}
function report(c: Counter): number {
  return c.mean * c.count;
}
export function f(x: number, y: number): number {
  const c = makeCounter(y);
  feed(c, [x, 2 * x, x * y]);
  c.add(1);
  return report(c) + c.mean;
}`);
});

test("a literal passed through two helpers, its methods calling each other and a getter through `this`", async () => {
  await checkTwoWays(`interface Box {
  w: number;
  h: number;
  readonly area: number;
  ratio(): number;
  scaled(k: number): number;
}
function outer(b: Box): number {
  return inner(b) + b.ratio();
}
function inner(b: Box): number {
  return b.scaled(2) * b.area;
}
export function f(x: number, y: number): number {
  const box: Box = {
    w: x,
    h: y,
    get area() {
      return this.w * this.h;
    },
    ratio() {
      return this.area / (this.w + this.h);
    },
    scaled(k: number) {
      return k * this.ratio();
    },
  };
  box.w = x * 2;
  return outer(box) + box.scaled(3);
}`);
});

test("a generic interface Fn<T> implemented by literals, handed to an integrator and a reducer", async () => {
  await checkTwoWays(`interface Fn<T> {
  eval(x: T): number;
}
function integrate(f: Fn<number>, a: number, b: number, n: number): number {
  const h = (b - a) / n;
  let sum = 0.5 * (f.eval(a) + f.eval(b));
  for (let i = 1; i < n; i++) sum += f.eval(a + i * h);
  return sum * h;
}
function total(f: Fn<number[]>, xs: number[]): number {
  return f.eval(xs) * 2;
}
export function f(k: number, c: number): number {
  const wave: Fn<number> = {
    eval(x) {
      return Math.sin(k * x) + c * x * x;
    },
  };
  const norm: Fn<number[]> = {
    eval(xs) {
      let s = 0;
      for (const x of xs) s += x * x;
      return Math.sqrt(s) * k;
    },
  };
  return integrate(wave, 0, 1, 16) + total(norm, [c, k, 1]) + wave.eval(c);
}`);
});

test("a layer factory with an arrow field and a getter, its result passed to a helper", async () => {
  await checkTwoWays(`interface Layer {
  forward: (x: number) => number;
  readonly norm: number;
}
function dense(w: number, b: number): Layer {
  const act = (z: number) => Math.tanh(z);
  return {
    forward: (x) => act(w * x + b),
    get norm() {
      return w * w + b * b;
    },
  };
}
function apply(layer: Layer, x: number): number {
  return layer.forward(x) + 0.01 * layer.norm;
}
export function f(w: number, b: number): number {
  const l1 = dense(w, b);
  const l2 = dense(b, w);
  return apply(l2, l1.forward(0.3)) + l1.norm;
}`);
});

test("a strategy picked by an if inside the factory's method, and factories given a strategy object", async () => {
  await checkTwoWays(`interface Schedule {
  rate(step: number): number;
}
function schedule(kind: string, base: number): Schedule {
  return {
    rate(step: number) {
      if (kind === "decay") return base / (1 + step);
      return base;
    },
  };
}
function descend(s: Schedule, x0: number, target: number): number {
  let x = x0;
  for (let i = 0; i < 6; i++) x -= s.rate(i) * 2 * (x - target);
  return x;
}
export function f(base: number, target: number): number {
  return descend(schedule("decay", base), 1, target) + descend(schedule("constant", base), 2, target);
}`);
});

test("a network factory given its activation, its methods reading `this` in callbacks and taking a default", async () => {
  await checkTwoWays(`interface Net {
  weights: number[];
  forward(xs: number[]): number;
  penalty(scale?: number): number;
}
function makeNet(w: number[], act: (z: number) => number): Net {
  return {
    weights: w,
    forward(xs: number[]) {
      return act(xs.map((x, i) => this.weights[i] * x).reduce((a, b) => a + b, 0));
    },
    penalty(scale = 0.1) {
      return scale * this.weights.reduce((s, v) => s + v * v, 0);
    },
  };
}
export function f(a: number, b: number): number {
  const net = makeNet([a, b], (z) => Math.tanh(z));
  const net2 = makeNet([b, a], Math.sin);
  return net.forward([1, 2]) + net.penalty() + net2.forward([0.5, 0.25]) + net2.penalty(2);
}`);
});

const MODEL_MODULE = `export const SCALE = 2;
function sq(v: number): number {
  return v * v;
}
export interface Model {
  weight: number;
  predict(x: number): number;
  readonly size: number;
}
export function makeModel(w: number): Model {
  const w2 = sq(w);
  return {
    weight: w,
    predict(x: number) {
      return this.weight * x * SCALE + w2;
    },
    get size() {
      return sq(this.weight);
    },
  };
}
`;

test("a factory of another module, its object's methods run here and in a helper given it", async () => {
  await checkTwoWays(
    `import { makeModel, SCALE, type Model } from "./model.js";
function use(m: Model): number {
  return m.predict(3) + m.size * SCALE;
}
export function f(w: number, v: number): number {
  const m = makeModel(w);
  return m.predict(v) + use(m) + use(makeModel(2 * v)) + m.size;
}`,
    undefined,
    undefined,
    { "model.ts": MODEL_MODULE },
  );
});

test("a factory's code reads its module's names, not the caller's locals of the same name", async () => {
  await checkTwoWays(`const scale = 2;
function scaler(w: number) {
  return (x: number) => w * x * scale;
}
function scaled(w: number) {
  return {
    apply(x: number) {
      return w * x * scale;
    },
  };
}
export function f(x: number, y: number): number {
  const scale = 100;
  const g = scaler(x);
  return g(y) + scaled(y).apply(x) + scale * 0;
}`);
});

test("a getter of a literal passed in, copied by a spread and destructured: its value when it is read", async () => {
  await checkTwoWays(`interface Box {
  w: number;
  readonly area: number;
}
function snapshot(b: Box, w: number): number {
  const copy = { ...b };
  b.w = w;
  return copy.area + b.area;
}
function destructured(b: Box): number {
  const { area } = b;
  return area;
}
export function f(x: number, y: number): number {
  const box = {
    w: x,
    get area() {
      return this.w * this.w;
    },
  };
  return snapshot(box, y) + destructured(box) * x;
}`);
});

test("a method returning an array, called through `this` by another, in a descent loop of a helper", async () => {
  await checkTwoWays(`interface Field {
  grad(x: number): number[];
  value(x: number): number;
}
function quadratic(a: number, b: number): Field {
  return {
    grad(x: number) {
      return [2 * a * x, b];
    },
    value(x) {
      const g = this.grad(x);
      return (g[0] * x) / 2 + g[1];
    },
  };
}
function descend(f: Field, x0: number): number {
  let x = x0;
  for (let i = 0; i < 3; i++) x -= 0.1 * f.grad(x)[0];
  return f.value(x);
}
export function f(a: number, b: number): number {
  const q = quadratic(a, b);
  return descend(q, 1) + q.value(b);
}`);
});

test("a loss object written in place, given to a class's method and to a constructor", async () => {
  await checkTwoWays(`interface Loss {
  value(p: number): number;
}
class Trainer {
  constructor(private rate: number) {}
  run(loss: Loss, p0: number): number {
    let p = p0;
    for (let i = 0; i < 3; i++) p -= this.rate * loss.value(p);
    return p;
  }
}
class Holder {
  total: number;
  constructor(loss: Loss, p: number) {
    this.total = loss.value(p) * 2;
  }
}
export function f(x: number, y: number): number {
  const loss = {
    value(p: number) {
      return (p - x) * y;
    },
  };
  const t = new Trainer(0.1);
  return t.run(loss, 1) + new Holder(loss, y).total;
}`);
});

// What stays refused, each with its whole message.

/** The formatted diagnostics of main.ts. */
function diagnosticsOf(main: string): string {
  return diagnosticsText(compileFiles({ "main.ts": main }));
}

test("a strategy chosen by an if between two literals is refused where its method is called: which one runs is known only at run time", () => {
  assert.equal(
    diagnosticsOf(`import { gradient } from "nabla";
interface Step {
  apply(x: number): number;
}
export function f(x: number, y: number): number {
  let s: Step;
  if (x > 0) s = { apply(v: number) { return v * y; } };
  else s = { apply(v: number) { return v + y; } };
  return s.apply(x);
}
export const g = gradient(f);
`),
    `main.ts:9:10: error NABLA112: which code 'apply' of this 'Step' runs is not known here: differentiable code calls a method or getter written in an object literal only on an object whose literal it knows (written in this function or a module-level 'const', returned by a factory ending in 'return { … }', or passed in as an argument), not on one chosen by a condition, kept in a variable that branches or loops change, made when the module was loaded, or read from an array or a field
  8 |   else s = { apply(v: number) { return v + y; } };
> 9 |   return s.apply(x);
    |          ^^^^^^^
help: build the object where the method is called (call its factory there, or call the method in each branch choosing the object), or make the objects instances of classes declaring it ('class … implements Step'), which nabla dispatches on their class
main.ts:11:18: note: when differentiating 'f' for 'gradient'
> 11 | export const g = gradient(f);
     |                  ^^^^^^^^^^^

1 error`,
  );
});

test("a method of a factory's object read as a value is refused", () => {
  assert.equal(
    diagnosticsOf(`import { gradient } from "nabla";
interface Model {
  weight: number;
  predict(x: number): number;
}
function makeModel(w: number): Model {
  return {
    weight: w,
    predict(x: number) {
      return this.weight * x;
    },
  };
}
export function f(w: number): number {
  const m = makeModel(w);
  const predict = m.predict;
  return predict(2);
}
export const g = gradient(f);
`),
    `main.ts:16:21: error NABLA101: type 'Model' has no field 'predict' that nabla knows of (methods are called, not read)
  15 |   const m = makeModel(w);
> 16 |   const predict = m.predict;
     |                     ^^^^^^^
help: declare the field in the type, or call the method ('.predict(…)')
main.ts:19:18: note: when differentiating 'f' for 'gradient'
> 19 | export const g = gradient(f);
     |                  ^^^^^^^^^^^

1 error`,
  );
});

test("objects with methods stored in an array are refused, where they are stored and where a method is called", () => {
  assert.equal(
    diagnosticsOf(`import { gradient } from "nabla";
interface Model {
  predict(x: number): number;
}
function makeModel(w: number): Model {
  return {
    predict(x: number) {
      return w * x;
    },
  };
}
export function f(w: number): number {
  const models = [makeModel(w), makeModel(2 * w)];
  let s = 0;
  for (const m of models) s += m.predict(2);
  return s;
}
export const g = gradient(f);
`),
    `main.ts:13:18: error NABLA112: this object has methods or getters written in its literal ('predict()'); differentiable code runs them on the object where it is written, where a factory returns it (a function ending in 'return { … }'), and in the functions it is passed to, but cannot store it in an object or an array
  12 | export function f(w: number): number {
> 13 |   const models = [makeModel(w), makeModel(2 * w)];
     |                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: make it an instance of a class declaring them ('class Box { get area() { … } }'), which can go anywhere; or compute the values here and pass those
main.ts:6:10: note: the object with the accessors is written here
> 6 |   return {
    |          ^
main.ts:18:18: note: when differentiating 'f' for 'gradient'
> 18 | export const g = gradient(f);
     |                  ^^^^^^^^^^^

main.ts:15:32: error NABLA112: which code 'predict' of this 'Model' runs is not known here: differentiable code calls a method or getter written in an object literal only on an object whose literal it knows (written in this function or a module-level 'const', returned by a factory ending in 'return { … }', or passed in as an argument), not on one chosen by a condition, kept in a variable that branches or loops change, made when the module was loaded, or read from an array or a field
  14 |   let s = 0;
> 15 |   for (const m of models) s += m.predict(2);
     |                                ^^^^^^^^^
help: build the object where the method is called (call its factory there, or call the method in each branch choosing the object), or make the objects instances of classes declaring it ('class … implements Model'), which nabla dispatches on their class
main.ts:18:18: note: when differentiating 'f' for 'gradient'
> 18 | export const g = gradient(f);
     |                  ^^^^^^^^^^^

2 errors`,
  );
});

test("a factory returning one of two literals is refused: it is no factory ending in its one 'return { … }'", () => {
  assert.equal(
    diagnosticsOf(`import { gradient } from "nabla";
interface Step {
  apply(x: number): number;
}
function makeStep(kind: string, k: number): Step {
  if (kind === "scale") return { apply(v: number) { return v * k; } };
  return { apply(v: number) { return v + k; } };
}
export function f(x: number): number {
  const s = makeStep("scale", x);
  return s.apply(x);
}
export const g = gradient(f);
`),
    `main.ts:6:32: error NABLA112: this object has methods or getters written in its literal ('apply()'); differentiable code runs them on the object where it is written, where a factory returns it (a function ending in 'return { … }'), and in the functions it is passed to, but cannot choose between it and another object by a condition, or keep it in a variable that branches or loops change
  5 | function makeStep(kind: string, k: number): Step {
> 6 |   if (kind === "scale") return { apply(v: number) { return v * k; } };
    |                                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: make it an instance of a class declaring them ('class Box { get area() { … } }'), which can go anywhere; or compute the values here and pass those
main.ts:10:13: note: when differentiating this call to 'makeStep'
> 10 |   const s = makeStep("scale", x);
     |             ^^^^^^^^^^^^^^^^^^^^
main.ts:13:18: note: when differentiating 'f' for 'gradient'
> 13 | export const g = gradient(f);
     |                  ^^^^^^^^^^^

main.ts:11:10: error NABLA112: which code 'apply' of this 'Step' runs is not known here: differentiable code calls a method or getter written in an object literal only on an object whose literal it knows (written in this function or a module-level 'const', returned by a factory ending in 'return { … }', or passed in as an argument), not on one chosen by a condition, kept in a variable that branches or loops change, made when the module was loaded, or read from an array or a field
  10 |   const s = makeStep("scale", x);
> 11 |   return s.apply(x);
     |          ^^^^^^^
help: build the object where the method is called (call its factory there, or call the method in each branch choosing the object), or make the objects instances of classes declaring it ('class … implements Step'), which nabla dispatches on their class
main.ts:13:18: note: when differentiating 'f' for 'gradient'
> 13 | export const g = gradient(f);
     |                  ^^^^^^^^^^^

2 errors`,
  );
});

test("NABLA109 for a literal's object joining a variable of an interface names its extra fields, not a 'new'", () => {
  assert.equal(
    diagnosticsOf(`import { gradient } from "nabla";
interface P { x: number }
export function f(a: number): number {
  const q = { x: a, y: 2 };
  let p: P = { x: 1 };
  if (a > 1) p = q;
  return p.x;
}
export const g = gradient(f);
`),
    `main.ts:6:14: error NABLA109: a '{ x: a, y: 2 }' is held here where the code also holds other 'P' values: where branches or loops join, differentiable code needs one type, and this object has fields a 'P' does not ('y')
  5 |   let p: P = { x: 1 };
> 6 |   if (a > 1) p = q;
    |              ^^^^^
help: keep it in a variable of its own type, or build a new 'P' holding only the fields a 'P' has
main.ts:9:18: note: when differentiating 'f' for 'gradient'
> 9 | export const g = gradient(f);
    |                  ^^^^^^^^^^^

1 error`,
  );
});

test("a factory of another module whose method reads a name of its module the caller does not import is refused", () => {
  // A numeric constant is read by its value (see cross-module-classes.test.ts); an array is not.
  const model = `export const SCALE = [2];
export interface Model {
  predict(x: number): number;
}
export function makeModel(w: number): Model {
  return {
    predict(x: number) {
      return w * x * SCALE[0];
    },
  };
}
`;
  const main = `import { gradient } from "nabla";
import { makeModel } from "./model.js";
export function f(w: number): number {
  return makeModel(w).predict(2);
}
export const g = gradient(f);
`;
  assert.equal(
    diagnosticsText(compileFiles({ "main.ts": main, "model.ts": model })),
    `model.ts:8:22: error NABLA101: a factory of another module, or a method of the object it returns, reading its module's 'SCALE' is not supported in differentiable code yet
  7 |     predict(x: number) {
> 8 |       return w * x * SCALE[0];
    |                      ^^^^^
help: pass 'SCALE' to the factory as an argument, import it where the factory is called too, or declare the factory in that module
main.ts:6:18: note: when differentiating 'f' for 'gradient'
> 6 | export const g = gradient(f);
    |                  ^^^^^^^^^^^

1 error`,
  );
});

test("a factory of another module given a function is refused, naming the factory", () => {
  const model = `export interface Model {
  predict(x: number): number;
}
export function makeModel(w: number, act: (z: number) => number): Model {
  return {
    predict(x: number) {
      return act(w * x);
    },
  };
}
`;
  const main = `import { gradient } from "nabla";
import { makeModel } from "./model.js";
export function f(w: number): number {
  return makeModel(w, Math.tanh).predict(2);
}
export const g = gradient(f);
`;
  assert.equal(
    diagnosticsText(compileFiles({ "main.ts": main, "model.ts": model })),
    `main.ts:4:10: error NABLA112: 'makeModel', a factory of another module returning an object with methods, takes functions: nabla builds such an object where the factory is called, and a factory of another module only when it is given no functions
  3 | export function f(w: number): number {
> 4 |   return makeModel(w, Math.tanh).predict(2);
    |          ^^^^^^^^^^^^^^^^^^^^^^^
help: declare the factory in this module, or pass it the values the functions compute
main.ts:6:18: note: when differentiating 'f' for 'gradient'
> 6 | export const g = gradient(f);
    |                  ^^^^^^^^^^^

1 error`,
  );
});

test("a method of a literal passed on that hands `this` to another function is refused, naming the method", () => {
  assert.equal(
    diagnosticsOf(`import { gradient } from "nabla";
interface Box {
  w: number;
  readonly area: number;
  twice(): number;
}
function helper(b: Box): number {
  return b.area;
}
function use(b: Box): number {
  return b.twice();
}
export function f(x: number): number {
  const box = {
    w: x,
    get area() { return this.w * this.w; },
    twice() { return 2 * helper(this); },
  };
  return box.twice() + use(box);
}
console.log(gradient(f)(3));
`),
    `main.ts:17:10: error NABLA112: 'twice', written in an object literal passed to a function, uses 'this' other than to read its fields and call its methods ('this.w', 'this.f()'): nabla follows the object there only through such reads and calls
  16 |     get area() { return this.w * this.w; },
> 17 |     twice() { return 2 * helper(this); },
     |          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: read what it needs into variables first ('const w = this.w'), or make the object an instance of a class declaring 'twice'
main.ts:21:13: note: when differentiating 'f' for 'gradient'
> 21 | console.log(gradient(f)(3));
     |             ^^^^^^^^^^^

1 error`,
  );
});

test("a method of an object a factory made when the module was loaded is refused where it is called", () => {
  assert.equal(
    diagnosticsOf(`import { gradient } from "nabla";
interface Model {
  predict(x: number): number;
}
function makeModel(w: number): Model {
  return { predict(x: number) { return w * x; } };
}
const model = makeModel(2);
export function f(x: number): number {
  return model.predict(x) * x;
}
export const g = gradient(f);
`),
    `main.ts:10:10: error NABLA112: which code 'predict' of this 'Model' runs is not known here: differentiable code calls a method or getter written in an object literal only on an object whose literal it knows (written in this function or a module-level 'const', returned by a factory ending in 'return { … }', or passed in as an argument), not on one chosen by a condition, kept in a variable that branches or loops change, made when the module was loaded, or read from an array or a field
   9 | export function f(x: number): number {
> 10 |   return model.predict(x) * x;
     |          ^^^^^^^^^^^^^
help: build the object where the method is called (call its factory there, or call the method in each branch choosing the object), or make the objects instances of classes declaring it ('class … implements Model'), which nabla dispatches on their class
main.ts:12:18: note: when differentiating 'f' for 'gradient'
> 12 | export const g = gradient(f);
     |                  ^^^^^^^^^^^

1 error`,
  );
});

test("a literal passed on whose method reads its own object by its name is refused, saying to use this", () => {
  assert.equal(
    diagnosticsOf(`import { gradient } from "nabla";
interface Box { w: number; readonly size: number; grow(): number }
function use(b: Box): number { return b.grow(); }
export function f(x: number): number {
  const box = {
    w: x,
    get size() { return this.w * 2; },
    grow() { return box.size * x; },
  };
  return use(box);
}
export const g = gradient(f);
`),
    `main.ts:10:10: error NABLA112: this object has methods or getters written in its literal ('get size', 'grow()'); differentiable code runs them on the object where it is written, where a factory returns it (a function ending in 'return { … }'), and in the functions it is passed to, but cannot capture it in a function that is passed on (a method reading its own object by its name: read it through 'this' instead)
   9 |   };
> 10 |   return use(box);
     |          ^^^^^^^^
help: make it an instance of a class declaring them ('class Box { get area() { … } }'), which can go anywhere; or compute the values here and pass those
main.ts:5:15: note: the object with the accessors is written here
> 5 |   const box = {
    |               ^
main.ts:12:18: note: when differentiating 'f' for 'gradient'
> 12 | export const g = gradient(f);
     |                  ^^^^^^^^^^^

1 error`,
  );
});
