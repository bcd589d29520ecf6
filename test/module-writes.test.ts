import assert from "node:assert/strict";
import { test } from "node:test";
import { compileFiles, diagnosticsText } from "./support/harness.js";
import { checkTwoWays } from "./support/two-ways.js";

// Writes into module-level arrays and objects (NABLA105), told apart from stores of them into
// local arrays (analysis/points-to.ts): `path.push(origin)` writes `path`, not `origin`. A
// real write is found however it is reached: directly, through a local array holding the
// module's object, through a callee that writes its parameter or what its parameter holds,
// through what a callee returns, or through a record.

test("storing module-level objects into local arrays is no write to them", async () => {
  await checkTwoWays(
    `interface P { x: number; y: number }
const origin: P = { x: 0.5, y: 0 };
const anchors: P[] = [{ x: 1, y: 2 }, { x: -1, y: 0.5 }];
function collect(extra: P): P[] {
  const pts = [origin];
  for (const a of anchors) pts.push(a);
  pts.push(extra);
  return pts;
}
export function f(x: number, y: number): number {
  const pts = collect({ x, y: x * y });
  const more: P[] = [];
  more.push(origin);
  more.push(pts[pts.length - 1]);
  let s = 0;
  for (const p of pts) s += p.x * p.y;
  return s + more[1].y * y + more.length;
}`,
  );
});

test("a state started from module-level constants and replaced in a loop is no write to them", async () => {
  // Its new arrays share a class with the constants' once the loop carries both (points-to.ts
  // unifies); their stores are into arrays the function has just made.
  await checkTwoWays(
    `interface Body {
  position: number[];
  velocity: number[];
}
const START: Body = { position: [0, 0], velocity: [1, 0] };
const dt = 0.25;
export function f(fx: number, fy: number): number {
  let body = START;
  for (let step = 0; step < 4; step++) {
    const force = [fx, fy * step];
    body = {
      position: body.position.map((x, i) => x + dt * body.velocity[i]),
      velocity: body.velocity.map((v, i) => v + dt * force[i]),
    };
  }
  return body.position[0] * body.position[1] + body.velocity[0] + START.velocity[0];
}`,
  );
});

test("a copy made by a helper and changed is no write to what it copies", async () => {
  await checkTwoWays(
    `const START = { position: [0, 0], velocity: [1, 0.5] };
function clone(v: number[]): number[] {
  return v.slice();
}
export function f(x: number, y: number): number {
  let body = START;
  for (let step = 0; step < 3; step++) {
    const position = clone(body.position);
    position[step % 2] += x * body.velocity[step % 2];
    body = { position, velocity: body.velocity.map((v) => v * y) };
  }
  return body.position[0] * body.position[1] + body.velocity[1] + START.position[0];
}`,
  );
});

test("helpers held in module constants that only read module-level data are no write to it", async () => {
  // Arrows whose body is a boolean or a string: lowered as returning what their body is, so
  // their effects are known (a helper that cannot be lowered is taken to write everything).
  await checkTwoWays(
    `interface Lane {
  from: string;
  weight: number;
}
const config = { mode: "scaled" };
const lanes: Lane[] = [{ from: "a", weight: 2 }, { from: "b", weight: 0.5 }];
const isScaled = (c: { mode: string }) => c.mode === "scaled";
const nameOf = (lane: Lane) => lane.from;
function cost(x: number, lane: Lane = lanes[1]): number {
  return nameOf(lane) === "b" ? lane.weight * x * x : x;
}
export function f(x: number, y: number): number {
  const scale = isScaled(config) ? 3 : 1;
  return nameOf(lanes[0]) === "a" ? scale * x * y + cost(y) : x;
}`,
  );
});

test("a new state's array changed right after the state is made is no write to the constant it started from", async () => {
  await checkTwoWays(
    `const INIT = { v: [1, 2], w: [0.5, 0.25] };
export function f(x: number, y: number): number {
  let state = INIT;
  for (let i = 0; i < 3; i++) {
    const next = { v: state.v.map((a) => a * y), w: state.w };
    next.v[0] *= x;
    next.v[1] += next.w[i % 2];
    state = next;
  }
  return state.v[0] + state.v[1] * y + INIT.v[0];
}`,
  );
});

const WRITES: [string, string, string][] = [
  [
    "through a new state's field set to the constant's array before the write",
    `const INIT = { v: [1, 2] };
function f(k: number): number {
  let s = INIT;
  for (let i = 0; i < 3; i++) {
    const next = { v: s.v.map((x) => x) };
    next.v = s.v;
    next.v[0] *= k;
    s = next;
  }
  return s.v[0];
}`,
    "main.ts:8:5: error NABLA105: differentiable code cannot change the module-level 'INIT'",
  ],
  [
    "through what a helper returns that may be its argument",
    `const START = { position: [0, 0] };
function maybeCopy(v: number[], copy: boolean): number[] {
  return copy ? v.slice() : v;
}
function f(a: number): number {
  const p = maybeCopy(START.position, a > 1);
  p[0] = a;
  return a * p[0];
}`,
    "main.ts:8:3: error NABLA105: differentiable code cannot change the module-level 'START'",
  ],
  [
    "through a state that starts as it and is replaced in a loop",
    `const START = { position: [0, 0] };
function f(a: number): number {
  let body = START;
  for (let i = 0; i < 2; i++) {
    body.position[0] += a;
    body = { position: body.position.map((x) => x * a) };
  }
  return body.position[0];
}`,
    "main.ts:6:5: error NABLA105: differentiable code cannot change the module-level 'START'",
  ],
  [
    "a field of an element",
    `const data = [{ x: 1 }];
function f(a: number): number {
  data[0].x = a;
  return a * data[0].x;
}`,
    "main.ts:4:3: error NABLA105: differentiable code cannot change the module-level 'data'",
  ],
  [
    "through a local array that holds it",
    `const origin = { x: 0 };
function f(a: number): number {
  const pts = [origin];
  pts[0].x = a;
  return a * origin.x;
}`,
    "main.ts:5:3: error NABLA105: differentiable code cannot change the module-level 'origin'",
  ],
  [
    "by a callee that writes its parameter",
    `interface P { x: number }
const origin: P = { x: 0 };
function setX(p: P, v: number): void {
  p.x = v;
}
function f(a: number): number {
  setX(origin, a);
  return a * origin.x;
}`,
    "main.ts:8:3: error NABLA105: differentiable code cannot change the module-level 'origin' (this call writes to it)",
  ],
  [
    "by an arrow held in a module constant that writes its parameter",
    `const counter = { n: 0 };
const bump = (c: { n: number }) => {
  c.n++;
};
function f(a: number): number {
  bump(counter);
  return a * a;
}`,
    "main.ts:7:3: error NABLA105: differentiable code cannot change the module-level 'counter' (this call writes to it)",
  ],
  [
    "by an arrow held in a module constant that writes its parameter and returns a boolean",
    `const seen = { count: 0 };
const visit = (s: { count: number }) => ++s.count > 1;
function f(a: number): number {
  return visit(seen) ? a * a : a;
}`,
    "main.ts:5:10: error NABLA105: differentiable code cannot change the module-level 'seen' (this call writes to it)",
  ],
  [
    "by a callee that writes what its parameter holds",
    `interface P { x: number }
const origin: P = { x: 0 };
function bump(ps: P[], v: number): void {
  ps[0].x += v;
}
function f(a: number): number {
  bump([origin], a);
  return a * origin.x;
}`,
    "main.ts:8:3: error NABLA105: differentiable code cannot change the module-level 'origin' (this call writes to it)",
  ],
  [
    "through what a callee returns",
    `interface P { x: number }
const origin: P = { x: 0 };
function first(ps: P[]): P {
  return ps[0];
}
function f(a: number): number {
  first([origin]).x = a;
  return a * origin.x;
}`,
    "main.ts:8:3: error NABLA105: differentiable code cannot change the module-level 'origin'",
  ],
  [
    "through a record read into a local",
    `interface P { x: number }
const table: Record<string, P> = { a: { x: 0 } };
function f(a: number): number {
  const q = [table["a"]];
  q[0].x = a;
  return a * table.a.x;
}`,
    "main.ts:6:3: error NABLA105: differentiable code cannot change the module-level 'table'",
  ],
];

for (const [what, body, expected] of WRITES) {
  test(`a write to module-level data ${what} is reported`, () => {
    const text = diagnosticsText(
      compileFiles({
        "main.ts": `import { gradient } from "nabla";\n${body}\nexport const g = gradient(f);\n`,
      }),
    );
    assert.ok(text.includes(expected), `expected «${expected}» in:\n${text}`);
  });
}

test("a static property changed in differentiated code is NABLA105 at the write, not 'cannot find' the class", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { gradient } from "nabla";
class Circle {
  static created = 0;
  static readonly SCALE = 2;
  constructor(public r: number) { Circle.created++; }
  area(): number { return Math.PI * this.r * this.r * Circle.SCALE; }
}
export const g = gradient((r: number) => new Circle(r).area());
`,
    }),
  );
  assert.equal(
    text.split("\n").slice(0, 5).join("\n"),
    `main.ts:5:35: error NABLA105: differentiable code cannot change the static property 'Circle.created', which is module-level state
  4 |   static readonly SCALE = 2;
> 5 |   constructor(public r: number) { Circle.created++; }
    |                                   ^^^^^^^^^^^^^^
help: differentiable code reads the static properties of 'Circle' but does not write them: keep changing state (a counter, a cache) outside the differentiated code, or in a parameter and return it`,
  );
});
