import assert from "node:assert/strict";
import { test } from "node:test";
import { loadProgram } from "./support/harness.js";
import { checkTwoWays } from "./support/two-ways.js";

// Unions of classes that share no base (`Disk | Square`) and of interfaces classes implement:
// typed as the interface they would share, each call of a method running the one of the
// object's class, narrowed by `instanceof`, by a discriminant field or by `in`. Checked against
// central differences and forward mode against reverse mode.

test("a scene of disks and squares typed by their union: areas and masses, narrowed three ways", async () => {
  await checkTwoWays(`class Disk {
  readonly kind = "disk";
  constructor(public radius: number, public density: number) {}
  area(): number {
    return Math.PI * this.radius * this.radius;
  }
}

class Square {
  readonly kind = "square";
  constructor(public side: number) {}
  area(): number {
    return this.side * this.side;
  }
  perimeter(): number {
    return 4 * this.side;
  }
}

type Shape = Disk | Square;

function mass(s: Shape): number {
  if (s instanceof Disk) return s.area() * s.density;
  return s.area() + 0.1 * s.perimeter();
}

function largest(shapes: Shape[]): Shape {
  let best = shapes[0];
  for (const s of shapes) if (s.area() > best.area()) best = s;
  return best;
}

export function f(x: number, y: number): number {
  const shapes: Array<Disk | Square> = [new Disk(x, 2), new Square(y)];
  shapes.push(new Disk(x * y, 1));
  shapes.push(new Square(x + y));
  let total = 0;
  for (const s of shapes) total += mass(s) + s.area();
  for (const s of shapes) if (s.kind === "square") total += s.side * x;
  for (const s of shapes) if ("radius" in s) total += s.radius * y;
  return total + largest(shapes).area();
}`);
});

test("a physics body Particle | RigidBody: stepped in place and its energy summed", async () => {
  await checkTwoWays(`class Particle {
  constructor(public x: number, public v: number, public m: number) {}
  step(dt: number): void {
    this.x += this.v * dt;
  }
  energy(): number {
    return 0.5 * this.m * this.v * this.v;
  }
}

class RigidBody {
  constructor(
    public x: number,
    public v: number,
    public m: number,
    public omega: number,
    public inertia: number,
  ) {}
  step(dt: number): void {
    this.x += this.v * dt;
    this.omega *= 1 - 0.1 * dt;
  }
  energy(): number {
    return 0.5 * this.m * this.v * this.v + 0.5 * this.inertia * this.omega * this.omega;
  }
}

type Body = Particle | RigidBody;

function spawn(i: number, x: number, y: number): Body {
  return i % 2 === 0 ? new Particle(x * i, y, 1 + i) : new RigidBody(x, y * i, 2, x * y, 0.5);
}

export function f(x: number, y: number): number {
  const bodies: Body[] = [];
  for (let i = 0; i < 4; i++) bodies.push(spawn(i, x, y));
  for (let t = 0; t < 3; t++) for (const b of bodies) b.step(0.1);
  let e = 0;
  for (const b of bodies) {
    e += b.energy() + b.x * b.x;
    if (b instanceof RigidBody) e += b.omega;
  }
  return e;
}`);
});

test("a union of interfaces classes implement, with a class in it: each object's method runs", async () => {
  await checkTwoWays(`interface Spring {
  stretch(x: number): number;
}

interface Damper {
  drag(v: number): number;
}

class Linear implements Spring {
  constructor(public k: number) {}
  stretch(x: number): number {
    return 0.5 * this.k * x * x;
  }
}

class Cubic implements Spring {
  constructor(public k: number) {}
  stretch(x: number): number {
    return 0.25 * this.k * x ** 4;
  }
}

class Viscous implements Damper {
  constructor(public c: number) {}
  drag(v: number): number {
    return this.c * v * v;
  }
}

class Weight {
  constructor(public m: number) {}
}

function cost(e: Spring | Damper | Weight, x: number): number {
  if (e instanceof Weight) return e.m * 9.81 * x;
  if ("c" in e) return e.drag(x);
  return e.stretch(x);
}

export function f(x: number, y: number): number {
  const parts: (Spring | Damper | Weight)[] = [new Linear(x), new Viscous(y), new Cubic(x * y)];
  parts.push(new Weight(y * y));
  let total = 0;
  for (const p of parts) total += cost(p, x + y);
  return total;
}`);
});

test('"field" in an object of a union that is of none of its classes throws', async () => {
  const m = await loadProgram<{ df: (s: object, x: number) => number }>({
    "main.ts": `import { gradient } from "nabla";
class Disk {
  constructor(public radius: number) {}
}
class Square {
  constructor(public side: number) {}
}
function f(s: Disk | Square, x: number): number {
  return "radius" in s ? s.radius * x : x;
}
export const df = gradient(f, { wrt: [1] });
`,
  });
  assert.throws(() => m.df({ radius: 2 }, 1), /instance of none of its classes/);
});
