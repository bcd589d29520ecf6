import { test } from "node:test";
import assert from "node:assert/strict";
import { checkTwoWays } from "./support/two-ways.js";
import { loadProgram } from "./support/harness.js";

// Fields typed by an enum (in classes, interfaces and object literals) and records keyed by an
// alias of string: a numeric enum's value is a discrete choice, so such a field has no
// derivative, and the rest of the object differentiates as usual.

test("enum-typed class fields: parameter properties, a default member, an array of instances", async () => {
  await checkTwoWays(
    `enum Kind { Call, Put }
enum Act { Tanh, Relu }
class Opt {
  constructor(readonly kind: Kind, readonly strike: number) {}
  price(spot: number): number {
    return this.kind === Kind.Call ? spot - this.strike : this.strike - spot;
  }
}
class Layer {
  constructor(public w: number, public act: Act = Act.Tanh) {}
  run(x: number): number {
    const z = this.w * x;
    return this.act === Act.Tanh ? Math.tanh(z) : Math.max(0, z);
  }
}
export function f(x: number, y: number): number {
  const book: Opt[] = [new Opt(Kind.Call, x), new Opt(Kind.Put, 2 * x)];
  const value = book.reduce((total, o) => total + o.price(y) * o.strike, 0);
  return value + new Layer(x).run(y) + new Layer(y, Act.Relu).run(x + 2);
}`,
  );
});

test("enum-typed fields of interfaces and object literals, string and const enums, switch on a field", async () => {
  await checkTwoWays(
    `import { Unit } from "./units";
enum Kind { Call, Put }
const enum Op { Add = 1, Mul = 2 }
interface Leg { kind: Kind; unit: Unit; size: number; op?: Op }
function legValue(leg: Leg, x: number): number {
  let v = leg.unit === Unit.Feet ? leg.size * 0.3048 : leg.size;
  switch (leg.kind) {
    case Kind.Call:
      v *= x;
      break;
    case Kind.Put:
      v /= x;
      break;
  }
  return leg.op === Op.Mul ? 2 * v : v;
}
export function f(x: number, y: number): number {
  const legs: Leg[] = [
    { kind: Kind.Call, unit: Unit.Meters, size: y },
    { kind: Kind.Put, unit: Unit.Feet, size: x * y, op: Op.Mul },
  ];
  const spare = { kind: Kind.Call, size: x };
  return legs.reduce((s, leg) => s + legValue(leg, x + 2), 0) +
    (spare.kind === Kind.Call ? spare.size * y : 0);
}`,
    undefined,
    true,
    { "units.ts": `export enum Unit { Meters = "m", Feet = "ft" }\n` },
  );
});

test("a numeric enum field has no derivative: left out of the gradient, its tangent ignored", async () => {
  const m = await loadProgram<{
    g: (o: unknown, spot: number) => [Record<string, number>, number];
    d: (o: unknown, spot: number) => (dOpt: Record<string, number>, dSpot: number) => number;
    make: (strike: number) => unknown;
  }>({
    "main.ts": `import { differential, gradient } from "nabla";
enum Kind { Call, Put }
class Opt {
  constructor(readonly kind: Kind, readonly strike: number) {}
  price(spot: number): number {
    return this.kind === Kind.Call ? (spot - this.strike) * spot : this.strike - spot;
  }
}
const price = (o: Opt, spot: number) => o.price(spot);
export const make = (strike: number) => new Opt(Kind.Call, strike);
export const g = gradient(price);
export const d = differential(price);
`,
  });
  assert.deepEqual(m.g(m.make(100), 102), [{ strike: -102 }, 104]);
  assert.equal(m.d(m.make(100), 102)({ kind: 5, strike: 1 }, 1), 2);
});

test("records keyed by an alias of string, index signatures and maps keyed by one", async () => {
  await checkTwoWays(
    `type NodeId = string;
type Asset = "stock" | "bond";
interface Net {
  supply: Record<NodeId, number>;
  demand: { [id: NodeId]: number };
  flow: Map<NodeId, number>;
  mix: Record<Asset, number>;
}
function cost(x: number, n: Net): number {
  let c = 0;
  for (const [, cap] of Object.entries(n.supply)) c += cap * x;
  for (const id in n.demand) c += n.demand[id] * x * x;
  for (const [id, v] of n.flow) c += v * (id === "hub" ? 10 : 1) * x;
  return c + n.mix.stock * x + n.mix.bond;
}
export function f(x: number, y: number): number {
  const net: Net = {
    supply: { a: y, b: 2 },
    demand: { p: x * y },
    flow: new Map([["hub", y], ["leaf", 2]]),
    mix: { stock: y, bond: x },
  };
  return cost(x, net);
}`,
  );
});

test("the gradient of a record keyed by an alias of string has the record's keys", async () => {
  const m = await loadProgram<{
    g: (x: number, n: unknown) => [number, unknown];
  }>({
    "main.ts": `import { gradient } from "nabla";
type NodeId = string;
interface Net { supply: Record<NodeId, number> }
function f(x: number, n: Net): number {
  let c = 0;
  for (const [, cap] of Object.entries(n.supply)) c += cap * x;
  return c;
}
export const g = gradient(f);
`,
  });
  assert.deepEqual(m.g(2, { supply: { a: 1, b: 2 } }), [3, { supply: { a: 2, b: 2 } }]);
});

test("a switch listing every member of an enum needs no default, on a field or a parameter", async () => {
  await checkTwoWays(
    `enum ShapeKind { Circle, Square }
interface Shape { kind: ShapeKind; size: number }
function area(s: Shape): number {
  switch (s.kind) {
    case ShapeKind.Circle:
      return Math.PI * s.size * s.size;
    case ShapeKind.Square:
      return s.size * s.size;
  }
}
function scale(kind: ShapeKind, x: number): number {
  switch (kind) {
    case ShapeKind.Circle:
      return 2 * x;
    case ShapeKind.Square:
      return x;
  }
}
export function f(x: number, y: number): number {
  const shapes: Shape[] = [{ kind: ShapeKind.Circle, size: x }, { kind: ShapeKind.Square, size: y }];
  return shapes.reduce((total, s) => total + area(s) * scale(s.kind, y), 0);
}`,
  );
});

test("an enum or number-literal parameter is a choice: left out of the default wrt, as in the types", async () => {
  const m = await loadProgram<{
    g: (x: number, act: number, order: number) => number;
    both: (x: number, act: number, order: number) => [number, number];
    d: (x: number, act: number, order: number) => (dx: number) => number;
  }>({
    "main.ts": `import { gradient, differential } from "nabla";
export enum Activation { Tanh, Relu }
function layer(x: number, act: Activation, order: 1 | 2): number {
  const y = act === Activation.Tanh ? Math.tanh(x) : Math.max(x, 0);
  return order === 1 ? y : y * y;
}
export const g = gradient(layer);
export const both = gradient(layer, { wrt: [0, 1] });
export const d = differential(layer);
`,
  });
  const x = 0.5;
  const t = Math.tanh(x);
  assert.equal(m.g(x, 0, 1), 1 - t * t);
  assert.equal(m.g(x, 0, 2), 2 * t * (1 - t * t));
  assert.deepEqual(m.both(x, 1, 2), [2 * x, 0]);
  assert.equal(m.d(x, 0, 1)(2), 2 * (1 - t * t));
});

test("a numeric enum as a key: Record<Kind, number> read and written by a variable of the enum, literals with '[Kind.A]: x', Map<Kind, …>, Set<Kind>, maps keyed by string literals", async () => {
  await checkTwoWays(`enum Kind { Stock, Bond, Cash }
enum Act { Relu = 1, Tanh = 2, Id = 4 }
type Dir = "up" | "down";
const RATES: Record<Kind, number> = { [Kind.Stock]: 0.07, [Kind.Bond]: 0.03, [Kind.Cash]: 0.01 };
const CASH = "cash";
export function f(x: number, y: number): number {
  const weight: Record<Act, number> = { [Act.Relu]: x, [Act.Tanh]: 0.5, [Act.Id]: y };
  const acts = [Act.Id, Act.Tanh, Act.Relu, Act.Id];
  for (const a of acts) weight[a] *= 1 + 0.1 * a;
  const byKind = new Map<Kind, number>();
  for (const k of [Kind.Stock, Kind.Bond, Kind.Stock]) byKind.set(k, (byKind.get(k) ?? 0) + RATES[k] * x);
  const seen = new Set<Act>(acts);
  const moves = new Map<Dir, number>([["up", x]]);
  moves.set("down", y * 2);
  const named = { [CASH]: y, ["bond"]: x };
  let s = named.cash * named.bond;
  for (const a of acts) s += weight[a] * (seen.has(a) ? 1 : 0);
  for (const [, v] of byKind) s += v * y;
  // No field is named 3: undefined, as in JavaScript.
  const k = (x > 0 ? 3 : 2) as Act;
  return s + (moves.get("up") ?? 0) * (moves.get("down") ?? 0) + (weight[k] ?? 7);
}`);
});
