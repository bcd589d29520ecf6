import assert from "node:assert/strict";
import { test } from "node:test";
import { compileFiles, diagnosticsText } from "./support/harness.js";
import { checkAgainstPlain } from "./support/two-ways.js";

// Classes of one module used from another as TypeScript projects split them: through a
// namespace import (`import * as geo from "./geo"`: `new geo.Vec(…)`, `geo.Particle.at(…)`,
// `extends geo.Particle`, `instanceof geo.Vec`, `p: geo.Vec`), and extended across modules by
// name, the base's constructor reading its own module (a constant, a private helper) and
// taking an optional parameter the subclass does not pass. Each program is checked against
// the same program run as plain JavaScript, differences and forward mode (two-ways.ts).

const geo = `
export class Vec {
  constructor(public x: number, public y: number) {}
  add(o: Vec): Vec {
    return new Vec(this.x + o.x, this.y + o.y);
  }
  scale(k: number): Vec {
    return new Vec(this.x * k, this.y * k);
  }
  get length(): number {
    return Math.hypot(this.x, this.y);
  }
}
export function dot(a: Vec, b: Vec): number {
  return a.x * b.x + a.y * b.y;
}
export class Particle {
  constructor(public pos: Vec, public mass: number) {}
  static at(x: number, y: number): Particle {
    return new Particle(new Vec(x, y), 1);
  }
  kinetic(v: Vec): number {
    return 0.5 * this.mass * dot(v, v);
  }
}
`;

test("classes through a namespace import: new geo.Vec, a static factory, a subclass, instanceof, a parameter typed geo.Vec", async () => {
  await checkAgainstPlain(
    `import * as G from "./geo";

function mid(a: G.Vec, b: G.Vec): G.Vec {
  return a.add(b).scale(0.5);
}

class Heavy extends G.Particle {
  constructor(pos: G.Vec) {
    super(pos, 10);
  }
}

export function f(a: number, b: number): number {
  const p = G.Particle.at(a, b);
  const h = new Heavy(new G.Vec(b, a));
  const m = mid(p.pos, h.pos);
  const shape: G.Vec = p.pos instanceof G.Vec ? m : p.pos;
  return p.kinetic(m) + h.kinetic(shape) + m.length + G.dot(new G.Vec(a, 1), h.pos);
}
`,
    undefined,
    "js",
    { "geo.ts": geo },
  );
});

test("subclasses of a class of another module: the base constructor reads its module's constant and helper, its optional parameter left out, or inherited as JavaScript gives it", async () => {
  await checkAgainstPlain(
    `import { Body } from "./body";

class Rocket extends Body {
  thrust: number;
  constructor(x: number, v: number, thrust: number) {
    super(x, v);
    this.thrust = thrust;
  }
  step(dt: number): void {
    this.v += this.thrust * dt;
    super.step(dt);
  }
}

// No constructor of its own: JavaScript's, which passes its arguments to Body's.
class Halved extends Body {
  step(dt: number): void {
    super.step(dt / 2);
    super.step(dt / 2);
  }
}

export function f(thrust: number, v0: number): number {
  const r = new Rocket(0, v0, thrust);
  const slow = new Body(1, v0, 0.5);
  const halved = new Halved(0, thrust, v0 / 4);
  for (let i = 0; i < 10; i++) {
    r.step(0.1);
    slow.step(0.1);
    halved.step(0.1);
  }
  return r.x + r.trail.reduce((a, b) => a + b, 0) / r.trail.length + slow.x * thrust + halved.x;
}
`,
    undefined,
    "js",
    {
      "body.ts": `
const DEFAULT_DRAG = 0.1;
function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}
export class Body {
  drag: number;
  trail: number[] = [];
  constructor(public x: number, public v: number, drag?: number) {
    this.drag = clamp(drag ?? DEFAULT_DRAG, 0, 1);
    this.trail.push(x);
  }
  step(dt: number): void {
    this.v -= this.drag * this.v * dt;
    this.x += this.v * dt;
    this.trail.push(this.x);
  }
}
`,
    },
  );
});

test("classes through a namespace import under the wasm backend give the JavaScript results", async () => {
  await checkAgainstPlain(
    `import * as G from "./geo";
export function f(a: number, b: number): number {
  const p = G.Particle.at(a, b);
  return p.kinetic(new G.Vec(b, a * b)) + p.pos.length;
}
`,
    undefined,
    "wasm",
    { "geo.ts": geo },
  );
});

test("a generator and a factory of another module reading their module's numeric constants", async () => {
  await checkAgainstPlain(
    `import { shifted, makeModel } from "./gen";
export function f(x: number, y: number): number {
  let s = 0;
  for (const v of shifted([x, 2 * y])) s += v * v;
  const m = makeModel(y);
  return s + m.predict(x);
}
`,
    undefined,
    "js",
    {
      "gen.ts": `
const EPS = 0.25;
const SCALE = 2 * EPS + 1;
export function* shifted(xs: number[]) {
  for (const x of xs) yield x * SCALE + EPS;
}
export interface Model {
  weight: number;
  predict(x: number): number;
}
export function makeModel(w: number): Model {
  return {
    weight: w,
    predict(x: number): number {
      return this.weight * x + SCALE;
    },
  };
}
`,
    },
  );
});

test("super.area() in a subclass of a class imported through a namespace", async () => {
  await checkAgainstPlain(
    `import * as S from "./square";
class Tile extends S.Square {
  constructor(side: number, public gap: number) {
    super(side);
  }
  area(): number {
    return super.area() - this.gap * this.side;
  }
}
export function f(x: number, y: number): number {
  const t = new Tile(x, y);
  return t.area() + new S.Square(y).area() * x;
}
`,
    undefined,
    "js",
    {
      "square.ts": `
export class Square {
  constructor(public side: number) {}
  area(): number {
    return this.side * this.side;
  }
}
`,
    },
  );
});

test("a subclass without a constructor of a base of another module whose parameters are not annotated is refused at the 'new', not typed at the wrong file's positions", () => {
  const text = diagnosticsText(
    compileFiles({
      "base.ts": `export class Base {
  constructor(public x = 0, public k = 2) {}
  value(): number {
    return this.k * this.x * this.x;
  }
}
`,
      "main.ts": `import { gradient } from "nabla";
import { Base } from "./base";
class Sub extends Base {}
export function f(a: number): number {
  return new Sub(a).value();
}
export const g = gradient(f);
`,
    }),
  );
  assert.match(
    text,
    /main\.ts:5:10: error NABLA101: 'new Sub', whose inherited constructor takes rest or destructured parameters, or parameters not annotated with types its module sees/,
  );
  assert.doesNotMatch(text, /NABLA103/);
});
