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

// Classes with `#private` members (parse/private-names.ts, emit/js/private-names.ts): nabla's
// output makes each `#name` a property keyed "#name", which generated code reads as a field.
// Programs written as a TypeScript developer would, checked two ways.

test("private fields, a readonly private set in the constructor, a private method, a private static constant and a getter", async () => {
  await checkTwoWays(`class RunningMean {
  static #unit = 1.5;
  #total = 0;
  #count = 0;
  readonly #weight: number;
  constructor(weight: number) {
    this.#weight = weight;
  }
  add(v: number): void {
    this.#total += this.#scaled(v);
    this.#count++;
  }
  #scaled(v: number): number {
    return v * this.#weight * RunningMean.#unit;
  }
  get mean(): number {
    return this.#count === 0 ? 0 : this.#total / this.#count;
  }
}
export function f(x: number, y: number): number {
  const m = new RunningMean(y);
  for (let i = 1; i <= 3; i++) m.add(x * i);
  m.add(Math.sin(y));
  return m.mean;
}`);
});

test("a value class with private coordinates, a private static helper and a private getter, methods returning new instances", async () => {
  await checkTwoWays(`class Vec2 {
  #x: number;
  #y: number;
  constructor(x: number, y: number) {
    this.#x = x;
    this.#y = y;
  }
  static #dot(a: Vec2, b: Vec2): number {
    return a.#x * b.#x + a.#y * b.#y;
  }
  get #lengthSq(): number {
    return Vec2.#dot(this, this);
  }
  get length(): number {
    return Math.sqrt(this.#lengthSq);
  }
  scale(k: number): Vec2 {
    return new Vec2(this.#x * k, this.#y * k);
  }
  plus(o: Vec2): Vec2 {
    return new Vec2(this.#x + o.#x, this.#y + o.#y);
  }
  cosTo(o: Vec2): number {
    return Vec2.#dot(this, o) / (this.length * o.length);
  }
}
export function f(x: number, y: number): number {
  const a = new Vec2(x, y);
  const b = a.scale(2).plus(new Vec2(y, 1));
  return b.length + a.cosTo(b);
}`);
});

test("an instance made outside differentiated code, its private state read through methods, a private static constant", async () => {
  await checkTwoWays(`class Spring {
  static #minLength = 0.1;
  #k: number;
  #rest: number;
  constructor(k: number, rest: number) {
    this.#k = k;
    this.#rest = Math.max(rest, Spring.#minLength);
  }
  energy(length: number): number {
    const stretch = length - this.#rest;
    return 0.5 * this.#k * stretch * stretch;
  }
}
const springs = [new Spring(2, 1), new Spring(5, 0.5), new Spring(1, 0)];
export function f(x: number, y: number): number {
  let e = 0;
  for (const s of springs) e += s.energy(x) * y;
  return e;
}`);
});

test("a class declared in another module, with private fields and an optional private cache read with ?.", async () => {
  await checkTwoWays(
    `import { Polynomial } from "./poly.ts";
export function f(x: number, y: number): number {
  const p = new Polynomial([1, y, x]);
  return p.at(x) + p.at(y) * p.degree;
}`,
    undefined,
    true,
    {
      "poly.ts": `export class Polynomial {
  #coefficients: number[];
  #last?: { x: number; value: number };
  constructor(coefficients: number[]) {
    this.#coefficients = [...coefficients];
  }
  get degree(): number {
    return this.#coefficients.length - 1;
  }
  at(x: number): number {
    if (this.#last?.x === x) return this.#last.value;
    let value = 0;
    for (let i = this.#coefficients.length - 1; i >= 0; i--) value = value * x + this.#coefficients[i]!;
    this.#last = { x, value };
    return value;
  }
}
`,
    },
  );
});

test("the gradient with respect to an instance has its private fields under their '#' names; user code keeps calling the class", async () => {
  const m = await loadProgram<{
    g: (m: unknown) => Record<string, number>;
    built: (x: number) => { value: { norm(): number; describe(): string }; derivative: unknown };
    model: { predict(x: number): number; describe(): string };
  }>({
    "main.ts": `import { gradient, valueWithDerivative } from "nabla";
class Line {
  #slope: number;
  #intercept: number;
  constructor(slope: number, intercept: number) {
    this.#slope = slope;
    this.#intercept = intercept;
  }
  predict(x: number): number {
    return this.#slope * x + this.#intercept;
  }
  norm(): number {
    return Math.hypot(this.#slope, this.#intercept);
  }
  describe(): string {
    return \`y = \${this.#slope}x + \${this.#intercept}\`;
  }
}
export const model = new Line(2, 1);
export const g = gradient((m: Line) => (m.predict(3) - 4) ** 2);
export const built = valueWithDerivative((x: number) => new Line(x, x * x));
`,
  });
  const grad = m.g(m.model);
  // d/dslope (3s + b − 4)² = 2·(7 − 4)·3, d/dintercept = 2·3.
  assert.deepEqual(grad, { "#slope": 18, "#intercept": 6 });
  assert.equal(m.model.describe(), "y = 2x + 1");
  const { value, derivative } = m.built(3);
  assert.equal(value.describe(), "y = 3x + 9");
  assertClose(value.norm(), Math.hypot(3, 9), 1e-15);
  assert.deepEqual(derivative, { "#slope": 1, "#intercept": 6 });
});

test("a class expression held by a const, with private members", async () => {
  const m = await loadProgram<{ f: (x: number) => number; g: (x: number) => number }>({
    "main.ts": `import { gradient } from "nabla";
const Damper = class {
  #c: number;
  constructor(c: number) {
    this.#c = c;
  }
  force(v: number): number {
    return -this.#c * v * Math.abs(v);
  }
};
const damper = new Damper(0.3);
export function f(v: number): number {
  return damper.force(v);
}
export const g = gradient(f);
`,
  });
  const expected = finiteGradient((v) => m.f(v), [1.7])[0]!;
  assertClose(m.g(1.7), expected, 1e-6);
});

test("a subclass that declares a '#name' its base declares too keeps both private, and differentiating through it says why", async () => {
  const files = {
    "main.ts": `import { gradient } from "nabla";
class Gauge {
  #value = 0;
  set(v: number) {
    this.#value = v;
  }
  read(): number {
    return this.#value;
  }
}
class OffsetGauge extends Gauge {
  #value: number;
  constructor(offset: number) {
    super();
    this.#value = offset;
  }
  override read(): number {
    return super.read() + this.#value;
  }
}
export function f(x: number): number {
  const g = new OffsetGauge(1);
  g.set(x);
  return g.read() * x;
}
export function plain(x: number): number {
  const g = new OffsetGauge(1);
  g.set(x);
  return g.read();
}
export const df = gradient(f);
`,
  };
  const text = diagnosticsText(compileFiles(files));
  assert.match(
    text,
    /main\.ts:22:13: error NABLA101: 'new OffsetGauge', which declares '#value' as its base 'Gauge' does, is not supported in differentiable code/,
  );
  assert.match(
    text,
    /help: rename one of the two: nabla's output makes each class's '#' names properties named "#value", and one instance cannot hold two/,
  );
});
