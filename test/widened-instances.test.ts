import assert from "node:assert/strict";
import { test } from "node:test";
import { compileFiles, diagnosticsText } from "./support/harness.js";
import { checkTwoWays } from "./support/two-ways.js";

// An instance built in a function and later held where its interface or base class goes
// (returned, assigned to a wider `let`, chosen in a loop): lowering builds it as the wider type
// from the start (lower/context.ts, WidenConstruction). Programs as TypeScript developers
// write them, checked two ways.

const SHAPES = `interface Shape {
  area(): number;
  scale(k: number): void;
}
class Circle implements Shape {
  constructor(public r: number) {}
  area() {
    return Math.PI * this.r * this.r;
  }
  scale(k: number) {
    this.r *= k;
  }
}
class Rect implements Shape {
  constructor(public w: number, public h: number) {}
  area() {
    return this.w * this.h;
  }
  scale(k: number) {
    this.w *= k;
    this.h *= k;
  }
}
`;

test("a factory builds, adjusts and returns instances of the classes implementing its result's interface", async () => {
  await checkTwoWays(`${SHAPES}
function make(kind: string, size: number): Shape {
  if (kind === "circle") {
    const c = new Circle(size);
    c.r += 0.5;
    return c;
  }
  const r = new Rect(size, 2 * size);
  r.scale(0.5);
  return r;
}
export function f(x: number, y: number): number {
  const shapes: Shape[] = [make("circle", x), make("rect", y), make("circle", x * y)];
  let total = 0;
  for (const s of shapes) total += s.area();
  return total;
}`);
});

test("the largest so far, in a loop, kept in a let of the interface's type; instances of two classes assigned to it", async () => {
  await checkTwoWays(`${SHAPES}
export function f(x: number, y: number): number {
  let best: Shape = new Circle(0.1);
  for (let i = 1; i <= 3; i++) {
    const r = new Rect(x * i, y);
    const c = new Circle(y / i);
    if (r.area() > best.area()) best = r;
    if (c.area() > best.area()) best = c;
  }
  best.scale(x);
  return best.area();
}`);
});

test("an abstract base: a let of the base's type first holding one subclass, then another, one mutated after being chosen", async () => {
  await checkTwoWays(`abstract class Body {
  constructor(public mass: number) {}
  abstract energy(v: number): number;
}
class Ball extends Body {
  constructor(mass: number, public radius: number) {
    super(mass);
  }
  energy(v: number) {
    return 0.5 * this.mass * v * v + this.radius;
  }
}
class Box extends Body {
  energy(v: number) {
    return this.mass * v;
  }
}
function inflate(b: Ball, k: number): void {
  b.radius *= k;
}
function pick(x: number): Body {
  const ball = new Ball(x, 2);
  inflate(ball, 1.5);
  const box = new Box(3);
  let chosen: Body = box;
  if (x > 0.5) chosen = ball;
  ball.mass += 1;
  return chosen;
}
export function f(x: number, y: number): number {
  const b = pick(x);
  return b.energy(y) + b.mass * x;
}`);
});

test("an instance the function was given as its own class, returned as the interface, is a clear NABLA109", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { gradient } from "nabla";
${SHAPES}
function larger(c: Circle, k: number): Shape {
  if (k > 1) return new Rect(k, k);
  return c;
}
export function f(x: number): number {
  return larger(new Circle(x), x).area();
}
export const g = gradient(f);
`,
    }),
  );
  assert.match(
    text,
    /main\.ts:28:3: error NABLA109: a 'Circle' is held here where the code also holds other 'Shape' values: differentiable code makes an instance a 'Shape' where it is built \('new Circle\(…\)' in this function\), not one it was given as a 'Circle'/,
  );
  assert.match(text, /help: declare the parameter, variable or result it comes from as 'Shape'/);
});
