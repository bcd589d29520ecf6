import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";
import { checkAgainstPlain, checkTwoWays } from "./support/two-ways.js";

// Programs written as TypeScript developers write them, each checked against the plain
// program run as JavaScript, central differences, and forward mode against reverse mode.

test("a case whose nested switch over every value of a union returns in each, in a function ending in a switch, returns (it was NABLA107)", async () => {
  // TypeScript knows the inner switch cannot fall out of `case "bin"`: nabla took the case for
  // one that can, so the function for one that can reach its end.
  await checkAgainstPlain(
    `type Op = "+" | "*" | "/";
type Node = { kind: "bin"; op: Op } | { kind: "neg" } | { kind: "pow"; n: number };
function apply(node: Node, x: number, y: number): number {
  switch (node.kind) {
    case "bin": {
      const l = x * 2;
      switch (node.op) {
        case "+": return l + y;
        case "*": return l * y;
        case "/": return l / y;
      }
    }
    case "neg":
      if (x > 0) {
        switch (node.kind) {
          case "neg": return -x * y;
        }
      } else {
        return x - y;
      }
    case "pow":
      return (node as { n: number }).n > 0 ? x ** 3 : y;
  }
}
export function f(x: number, y: number) {
  const nodes: Node[] = [{ kind: "bin", op: "*" }, { kind: "bin", op: "/" }, { kind: "neg" }, { kind: "pow", n: 2 }];
  let s = 0;
  for (const n of nodes) s += apply(n, x, y);
  return s;
}`,
    [
      [0.7, -0.4],
      [-1.3, 0.9],
    ],
  );
});

test("a class declared 'export default class Vec', imported by any name, is built with 'new' and typed as itself (was NABLA101 ''new Vec' is not supported')", async () => {
  // The module did not record a default-exported class, and TypeScript names its instances'
  // type by the export ('default'), which held apart the 'Vec' its own methods build.
  await checkTwoWays(
    `import V from "./vec.js";
import { Pair } from "./pair.js";
export function f(x: number, y: number) {
  const a = new V([x, y, x * y]);
  const b = a.zip(new V([y, 2, x]), (p, q) => p * q - q);
  return b.sum() + a.scaled(y).sum() + new Pair(x, y).area;
}`,
    undefined,
    true,
    {
      "vec.ts": `export default class Vec {
  constructor(readonly xs: readonly number[]) {}
  zip(o: Vec, f: (a: number, b: number) => number) { return new Vec(this.xs.map((v, i) => f(v, o.xs[i]))); }
  scaled(k: number): Vec { return new Vec(this.xs.map((v) => v * k)); }
  sum() { return this.xs.reduce((s, v) => s + v, 0); }
}`,
      "pair.ts": `class Pair {
  constructor(public a: number, public b: number) {}
  get area() { return this.a * Math.sin(this.b); }
}
export default Pair;
export { Pair };`,
    },
  );
});

test("a method written in a module-level object literal ('const Loss = { mse(a, b) { … } }'), of this module, imported or read through a namespace, is called as written (was NABLA112 'which code runs is not known')", async () => {
  await checkTwoWays(
    `import { Act } from "./acts.js";
import * as A from "./acts.js";
const k = 10;
const Loss = {
  weight: 0.5,
  sq(a: number) { return a * a; },
  mse(a: number[], b: number[]) {
    let s = 0;
    for (let i = 0; i < a.length; i++) s += this.sq(a[i] - b[i]);
    return (this.weight * s) / a.length + k;
  },
  cube: (a: number) => a * a * a,
};
export function f(x: number, y: number) {
  const k = 1000; // not the 'k' Loss.mse reads
  return Loss.mse([x, y], [y * 2, 1]) + Loss.cube(x) + Act.soft(x * y) + A.Act.scaled(y, 3) + k * 0;
}`,
    undefined,
    true,
    {
      "acts.ts": `const scale = 2;
export const Act = {
  soft(v: number) { return Math.log1p(Math.exp(v)) * scale; },
  scaled(v: number, by = 2) { return Math.tanh(v) * by * this.gain; },
  gain: 1.5,
};`,
    },
  );
});

test("a function value whose trailing parameters have defaults or are optional, called without them ('Loss.huber(a)' of '(r, delta = 0.5) => …'), runs with their defaults (was NABLA102 'no function of the program fits')", async () => {
  await checkAgainstPlain(
    `const Loss = {
  huber: (r: number, delta = 0.5) => (Math.abs(r) < delta ? 0.5 * r * r : delta * (Math.abs(r) - 0.5 * delta)),
  pow: (r: number, p?: number) => Math.abs(r) ** (p ?? 2),
};
const losses: ((r: number, k?: number) => number)[] = [Loss.huber, Loss.pow];
export function f(x: number, y: number) {
  let s = Loss.huber(x - y) + Loss.huber(x * y, 2) + Loss.pow(y) + Loss.pow(x, 3);
  for (const l of losses) s += l(x + y) * 0.5;
  return s;
}`,
  );
});

test("the gradient of an object or nested array argument whose arrays the function lengthens ('p.hist.push(x)', 'rows[0].push(v)') is shaped as the argument was given (it had the pushed elements' zeros)", async () => {
  const m = await loadProgram<{
    g: (p: { x: number; hist: number[]; rows: number[][] }) => {
      x: number;
      hist: number[];
      rows: number[][];
    };
    gr: (rows: number[][], k: number) => [number[][], number];
  }>({
    "main.ts": `import { gradient } from "nabla";
interface P { x: number; hist: number[]; rows: number[][] }
function track(p: P) {
  p.hist.push(p.x);
  p.rows[0].push(p.x * 2);
  p.rows.push([p.x]);
  return p.x * p.hist[0] + p.rows[0][0] * p.rows[1][0];
}
function grow(rows: number[][], k: number) {
  for (const r of rows) r.push(k * r[0]);
  return rows.reduce((s, r) => s + r[r.length - 1] * r[0], 0);
}
export const g = gradient(track);
export const gr = gradient(grow);
`,
  });
  const p = { x: 3, hist: [], rows: [[2], [5, 1]] };
  assert.deepEqual(m.g(p), { x: 6, hist: [], rows: [[5], [2, 0]] });
  assert.deepEqual(p, { x: 3, hist: [3], rows: [[2, 6], [5, 1], [3]] });
  assert.deepEqual(m.gr([[1, 2], [3]], 2), [[[4, 0], [12]], 10]);
});

test("a default-exported arrow or function expression ('export default (a: number, b = 2) => …') is differentiated where it is imported and called (was NABLA102 'does not export a function 'default' with visible source')", async () => {
  await checkTwoWays(
    `import cube from "./cube.js";
import twice from "./twice.js";
export function f(x: number, y: number) {
  return cube(x) + cube(y, x) + twice(x * y);
}`,
    undefined,
    true,
    {
      "cube.ts": `const k = 3;
function helper(a: number) { return a * k; }
export default (a: number, b = 2) => helper(a) * a + Math.sin(b);`,
      "twice.ts": `export default function (v: number) { return 2 * Math.exp(v / 4); }`,
    },
  );
});

test("an optional method of an interface called with '?.' and the chain going on ('s.grow?.(1).scaled(10)') reads the rest of the chain on the call's result (silently wrong: the rest was dropped, the chain's value was the call's)", async () => {
  await checkAgainstPlain(
    `interface Shape { area(): number; scaled(k: number): Shape; grow?(k: number): Shape }
class Rect implements Shape {
  constructor(readonly w: number, readonly h: number) {}
  area() { return this.w * this.h; }
  scaled(k: number): Shape { return new Rect(this.w * k, this.h * k); }
  grow(k: number): Shape { return new Rect(this.w + k, this.h + k); }
}
class Sq implements Shape {
  constructor(readonly s: number) {}
  area() { return this.s * this.s; }
  scaled(k: number): Shape { return new Sq(this.s * k); }
}
export function f(x: number, y: number) {
  const shapes: Shape[] = [new Rect(x, y), new Sq(x * y)];
  let s = 0;
  for (const sh of shapes) {
    s += (sh.grow?.(1).scaled(10) ?? sh).area();
    s += sh.grow?.(y).area() ?? -sh.area();
  }
  return s;
}`,
  );
});

test("NABLA101 for an optional method whose class returns another type than the interface declares names both types and the fix (it said only methods returning nothing are supported)", () => {
  const result = compileFiles({
    "main.ts": `import { gradient } from "nabla";
interface Shape { area(): number; scale?(k: number): Shape }
class Rect implements Shape {
  constructor(readonly w: number) {}
  area() { return this.w * this.w; }
  scale(k: number) { return new Rect(this.w * k); }
}
export function f(x: number) {
  const s: Shape = new Rect(x);
  return s.scale?.(2).area() ?? 0;
}
export const g = gradient(f);
`,
  });
  const text = diagnosticsText(result);
  assert.match(
    text,
    /main\.ts:10:10: error NABLA101: the optional call of 'scale', a method of 'Shape' declared to return a Shape, is not supported in differentiable code where a class's 'scale' returns a Rect\n/,
  );
  assert.match(
    text,
    /help: optional methods called with '\?\.' are supported when each class's method returns what 'Shape' declares \(a number, a boolean, nothing…\); declare the classes' 'scale' to return a Shape, or give 'scale' a body in every class that implements 'Shape' and call it without '\?\.'\n/,
  );
});

test("an interface's optional method called with '?.' on a chain that may have stopped ('s.grow?.(1).grow?.(2).area') is skipped where it stopped, as JavaScript skips the whole chain (it threw 'an instance of none of the classes')", async () => {
  await checkAgainstPlain(
    `interface Shape { readonly area: number; grow?(k: number): Shape }
class Rect implements Shape {
  constructor(readonly w: number, readonly h: number) {}
  get area() { return this.w * this.h; }
  grow(k: number): Shape { return new Rect(this.w + k, this.h * k); }
}
class Sq implements Shape {
  constructor(readonly s: number) {}
  get area() { return this.s * this.s; }
}
export function f(x: number, y: number) {
  const shapes: Shape[] = [new Rect(x, y), new Sq(x * y)];
  let s = 0;
  for (const sh of shapes) s += sh.grow?.(1).grow?.(y).area ?? sh.area / 2;
  return s;
}`,
  );
});
