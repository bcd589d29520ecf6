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

test("a literal passed through two helpers, its methods calling each other and a getter through \`this\`", async () => {
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

// What stays refused, with the message naming the construct.

function check(main: string): string {
  return diagnosticsText(compileFiles({ "main.ts": `import { gradient } from "nabla";\n${main}` }));
}

test("a strategy chosen by an if between two literals is refused: its method is not known where it is called", () => {
  const text = check(`interface Step {
  apply(x: number): number;
}
export function f(x: number, y: number): number {
  let s: Step;
  if (x > 0) s = { apply(v: number) { return v * y; } };
  else s = { apply(v: number) { return v + y; } };
  return s.apply(x);
}
export const g = gradient(f);
`);
  assert.equal(
    text,
    `main.ts:6:18: error NABLA112: this object has methods or getters written in its literal ('apply()'); differentiable code calls them where the object is written, on the object a factory of this module returns, and in the functions it is passed to, but cannot choose between it and another object by a condition, or keep it in a variable that branches or loops change: the method called would be known only at run time
  5 |   let s: Step;
> 6 |   if (x > 0) s = { apply(v: number) { return v * y; } };
    |                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: call the method in each branch, or make the objects instances of classes declaring the method ('class Scale implements Step { apply(v: number) { … } }'), which nabla dispatches on their class
main.ts:11:18: note: when differentiating 'f' for 'gradient'
> 11 | export const g = gradient(f);
     |                  ^^^^^^^^^^^

1 error
`,
  );
});
