import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText } from "./support/harness.js";
import { checkAgainstPlain, checkTwoWays } from "./support/two-ways.js";

// Multi-file projects laid out as a TypeScript team lays them out (barrels, default exports,
// namespace imports, shared types, registries, re-exported derivatives), each checked against
// the plain program run as JavaScript, central differences, and forward against reverse mode.

const MATH = {
  "math/vec.ts": `export type Vec = number[];
export function dot(a: Vec, b: Vec): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
export const add = (a: Vec, b: Vec): Vec => a.map((v, i) => v + b[i]);
export function scale(a: Vec, k: number): Vec {
  return a.map((v) => v * k);
}
export function norm(a: Vec): number {
  return Math.sqrt(dot(a, a));
}`,
  "math/matrix.ts": `import { dot, type Vec } from "./vec.js";
export class Matrix {
  constructor(public readonly rows: number[][]) {}
  static identity(n: number): Matrix {
    const rows: number[][] = [];
    for (let i = 0; i < n; i++) rows.push(Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)));
    return new Matrix(rows);
  }
  get size(): number {
    return this.rows.length;
  }
  apply(v: Vec): Vec {
    return this.rows.map((r) => dot(r, v));
  }
  times(k: number): Matrix {
    return new Matrix(this.rows.map((r) => r.map((e) => e * k)));
  }
}`,
  "math/index.ts": `export * from "./vec.js";
export { Matrix as Mat } from "./matrix.js";
`,
};

const cases: [string, string, Record<string, string>][] = [
  [
    "a barrel re-exporting a module's functions and a renamed class",
    `import { dot, add, norm, Mat } from "./math/index.js";
export function f(x: number, y: number): number {
  const m = new Mat([[x, 1], [y, x * y]]);
  const v = m.apply([y, x]);
  const w = add(v, Mat.identity(2).times(x).apply([1, y]));
  return dot(v, w) + norm(w) * m.size;
}`,
    MATH,
  ],
  [
    "a namespace import of a barrel, and 'import type' of its alias",
    `import * as M from "./math/index.js";
import type { Vec } from "./math/index.js";
function energy(v: Vec): number {
  return 0.5 * M.dot(v, v);
}
export function f(x: number, y: number): number {
  const a: Vec = M.scale([x, y, x - y], y);
  const m = new M.Mat([[1, x, 0], [0, 1, y], [x, 0, 1]]);
  return energy(m.apply(a)) + M.norm(M.add(a, [1, 2, 3]));
}`,
    MATH,
  ],
  [
    "an interface's method called in a module that imports only the interface (loss.ts), implemented by a class of another module (model.ts), is dispatched through an import the generated code adds (was NABLA102 ''Model' is not visible by that name in loss.ts')",
    `import { Model } from "./model.js";
import { mse } from "./loss.js";
import type { Sample } from "./types.js";
const data: Sample[] = [
  { input: [1, 2], target: 0.5 },
  { input: [-1, 0.5], target: -0.2 },
  { input: [0.3, -0.7], target: 1.1 },
];
export function f(x: number, y: number): number {
  const model = new Model({ weights: [x, y], bias: x * y });
  return mse(model, data);
}`,
    {
      "types.ts": `export interface Params { weights: number[]; bias: number }
export type Sample = { input: number[]; target: number };
export interface Predictor { predict(input: readonly number[]): number }`,
      "model.ts": `import type { Params, Predictor } from "./types.js";
export class Model implements Predictor {
  constructor(private readonly params: Params) {}
  predict(input: readonly number[]): number {
    let z = this.params.bias;
    input.forEach((v, i) => { z += v * this.params.weights[i]; });
    return Math.tanh(z);
  }
}`,
      "loss.ts": `import type { Predictor, Sample } from "./types.js";
export function mse(model: Predictor, data: Sample[]): number {
  let total = 0;
  for (const { input, target } of data) {
    const r = model.predict(input) - target;
    total += r * r;
  }
  return total / data.length;
}`,
    },
  ],
  [
    "a Sequential model holding 'Layer[]' of an interface, its implementations in other files under layers/, none imported by model.ts (was NABLA102)",
    `import { Sequential } from "./model.js";
import { Dense } from "./layers/dense.js";
import { Activation } from "./layers/activation.js";
export function f(x: number, y: number): number {
  const net = new Sequential([
    new Dense([[x, 0.5], [y, -0.3]], [0.1, 0.2]),
    new Activation("tanh"),
    new Dense([[1, y]], [x]),
  ]);
  return net.forward([0.3, -0.8])[0];
}`,
    {
      "layers/layer.ts": `export interface Layer {
  forward(input: number[]): number[];
}`,
      "layers/dense.ts": `import type { Layer } from "./layer.js";
export class Dense implements Layer {
  constructor(private w: number[][], private b: number[]) {}
  forward(input: number[]): number[] {
    return this.w.map((row, i) => row.reduce((s, wij, j) => s + wij * input[j], this.b[i]));
  }
}`,
      "layers/activation.ts": `import type { Layer } from "./layer.js";
export type Kind = "tanh" | "relu";
export class Activation implements Layer {
  constructor(private kind: Kind) {}
  forward(input: number[]): number[] {
    return input.map((v) => (this.kind === "tanh" ? Math.tanh(v) : Math.max(0, v)));
  }
}`,
      "model.ts": `import type { Layer } from "./layers/layer.js";
export class Sequential {
  constructor(private readonly layers: Layer[]) {}
  forward(input: number[]): number[] {
    let h = input;
    for (const layer of this.layers) h = layer.forward(h);
    return h;
  }
}`,
    },
  ],
  [
    "default exports: a function, a class and a constant",
    `import smoothstep from "./smoothstep.js";
import Spring from "./spring.js";
import GRAVITY from "./gravity.js";
export function f(x: number, y: number): number {
  const s = new Spring(x, 2);
  return s.energy(y) + smoothstep(0, 1, x * y) + GRAVITY * x;
}`,
    {
      "smoothstep.ts": `export default function smoothstep(a: number, b: number, t: number): number {
  const u = Math.min(1, Math.max(0, (t - a) / (b - a)));
  return u * u * (3 - 2 * u);
}`,
      "spring.ts": `export default class Spring {
  constructor(public k: number, public rest: number) {}
  energy(len: number): number {
    const d = len - this.rest;
    return 0.5 * this.k * d * d;
  }
}`,
      "gravity.ts": `const GRAVITY = 9.81;
export default GRAVITY;`,
    },
  ],
  [
    "an enum and a const object 'as const' re-exported by a config/ barrel",
    `import { Mode, CONFIG } from "./config/index.js";
function step(mode: Mode, x: number): number {
  switch (mode) {
    case Mode.Linear: return CONFIG.lr * x;
    case Mode.Square: return CONFIG.lr * x * x;
    default: return Math.sin(x) * CONFIG.momentum;
  }
}
export function f(x: number, y: number): number {
  let s = 0;
  for (const m of [Mode.Linear, Mode.Square, Mode.Sine]) s += step(m, x * y);
  return s + CONFIG.layers.reduce((a, n) => a + n * y, 0);
}`,
    {
      "config/mode.ts": `export enum Mode { Linear, Square, Sine }`,
      "config/settings.ts": `export const CONFIG = { lr: 0.1, momentum: 0.9, layers: [2, 3] } as const;`,
      "config/index.ts": `export { Mode } from "./mode.js";
export * from "./settings.js";`,
    },
  ],
  [
    "a const enum in its own module, used to index a tuple in another",
    `import { Axis } from "./axis.js";
import { component } from "./pick.js";
export function f(x: number, y: number): number {
  const p: [number, number, number] = [x, y, x * y];
  return component(p, Axis.X) * component(p, Axis.Z) + Math.exp(component(p, Axis.Y));
}`,
    {
      "axis.ts": `export const enum Axis { X = 0, Y = 1, Z = 2 }`,
      "pick.ts": `import { Axis } from "./axis.js";
export function component(p: readonly number[], a: Axis): number {
  return a === Axis.Z ? 2 * p[a] : p[a];
}`,
    },
  ],
  [
    "a registry 'Record<string, (x: number) => number>' of activations picked by names from another module's data",
    `import { activations, type ActivationName } from "./activations.js";
import { LAYERS } from "./layers.js";
export function f(x: number, y: number): number {
  let h = x;
  for (const layer of LAYERS) h = activations[layer.act](layer.w * h + y);
  const names: ActivationName[] = ["relu", "tanh", "sigmoid"];
  return h + names.reduce((s, n) => s + activations[n](x - y), 0);
}`,
    {
      "activations.ts": `export function relu(x: number): number { return x > 0 ? x : 0; }
export const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));
export type ActivationName = "relu" | "tanh" | "sigmoid";
export const activations: Record<string, (x: number) => number> = { relu, tanh: Math.tanh, sigmoid };`,
      "layers.ts": `export const LAYERS = [
  { w: 0.5, act: "tanh" },
  { w: -1.2, act: "sigmoid" },
  { w: 2, act: "relu" },
];`,
    },
  ],
  [
    "module constants computed from another module's constants (an object, Array.from)",
    `import { SCALE, OFFSETS, TAU } from "./derived.js";
export function f(x: number, y: number): number {
  return SCALE * Math.sin(TAU * x) + OFFSETS.reduce((s, o) => s + Math.cos(o * y), 0);
}`,
    {
      "base.ts": `export const BASE = { k: 1.5, n: 3 };
export const PI2 = Math.PI / 2;`,
      "derived.ts": `import { BASE, PI2 } from "./base.js";
export const TAU = 4 * PI2;
export const SCALE = BASE.k * TAU / BASE.n;
export const OFFSETS = Array.from({ length: BASE.n }, (_, i) => i * BASE.k);`,
    },
  ],
  [
    "a barrel with 'export { default as lerp }', 'export * as stats' and a renamed re-export",
    `import { lerp, stats, clamp01 } from "./lib/index.js";
export function f(x: number, y: number): number {
  const xs = [x, y, x * y, lerp(x, y, 0.25)];
  return stats.mean(xs) + stats.variance(xs) + clamp01(x * 0.3);
}`,
    {
      "lib/lerp.ts": `export default function lerp(a: number, b: number, t: number) { return a + (b - a) * t; }`,
      "lib/stats.ts": `export function mean(xs: number[]): number { return xs.reduce((a, b) => a + b, 0) / xs.length; }
export function variance(xs: number[]): number {
  const m = mean(xs);
  return mean(xs.map((v) => (v - m) ** 2));
}`,
      "lib/clamp.ts": `export const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
export const clamp01 = (v: number) => clamp(v, 0, 1);`,
      "lib/index.ts": `export { default as lerp } from "./lerp.js";
export * as stats from "./stats.js";
export { clamp01 } from "./clamp.js";`,
    },
  ],
  [
    "default and optional parameters of an imported module, omitted and given",
    `import { norm, smoothAbs, weighted } from "./norms.js";
export function f(x: number, y: number): number {
  const v = [x, y, 1];
  return norm(v) + norm(v, 1) + norm(v, 3) + smoothAbs(x - y) + smoothAbs(x, 0.5) + weighted(v) + weighted(v, [1, 2, 3]);
}`,
    {
      "norms.ts": `export function norm(v: number[], p = 2): number {
  if (p === 1) return v.reduce((s, a) => s + Math.abs(a), 0);
  return Math.pow(v.reduce((s, a) => s + Math.abs(a) ** p, 0), 1 / p);
}
export function smoothAbs(x: number, eps?: number): number {
  const e = eps ?? 1e-3;
  return Math.sqrt(x * x + e * e);
}
export function weighted(v: number[], w?: number[]): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += (w?.[i] ?? 1) * v[i] * v[i];
  return s;
}`,
    },
  ],
  [
    "a class with '#private' fields and a static constant, and a readonly tuple constant",
    `import { Integrator, WEIGHTS } from "./integrator.js";
export function f(x: number, y: number): number {
  const it = new Integrator(x);
  for (let i = 0; i < 5; i++) it.step(y);
  return it.value + WEIGHTS[0] * x + WEIGHTS[2] * y;
}`,
    {
      "integrator.ts": `export const WEIGHTS = [0.2, 0.3, 0.5] as const;
export class Integrator {
  static readonly DT = 0.1;
  #state: number;
  #steps = 0;
  constructor(initial: number) { this.#state = initial; }
  step(rate: number): void {
    this.#state += Integrator.DT * rate * Math.cos(this.#state);
    this.#steps++;
  }
  get value(): number { return this.#state * (1 + 0.01 * this.#steps); }
}`,
    },
  ],
  [
    "an rk4 integrator over a 'System' type of types.ts, the system an arrow of main.ts capturing x",
    `import { rk4 } from "./integrate.js";
import type { System } from "./types.js";
export function f(x: number, y: number): number {
  const sys: System = (t, s) => [s[1], -x * s[0] - 0.1 * s[1] + Math.sin(t)];
  const out = rk4(sys, [y, 0], 0, 0.1, 10);
  return out[0] + 0.5 * out[1];
}`,
    {
      "types.ts": `export type State = number[];
export type System = (t: number, s: State) => State;`,
      "integrate.ts": `import type { State, System } from "./types.js";
const axpy = (a: number, x: State, y: State): State => y.map((v, i) => v + a * x[i]);
export function rk4(f: System, s0: State, t0: number, h: number, n: number): State {
  let s = s0, t = t0;
  for (let i = 0; i < n; i++) {
    const k1 = f(t, s);
    const k2 = f(t + h / 2, axpy(h / 2, k1, s));
    const k3 = f(t + h / 2, axpy(h / 2, k2, s));
    const k4 = f(t + h, axpy(h, k3, s));
    s = s.map((v, j) => v + (h / 6) * (k1[j] + 2 * k2[j] + 2 * k3[j] + k4[j]));
    t += h;
  }
  return s;
}`,
    },
  ],
  [
    "a polynomial class with a static factory, getters and methods building new instances",
    `import { Poly } from "./poly.js";
export function f(x: number, y: number): number {
  const p = Poly.fromRoots([x, y, 1]);
  const q = p.derivative().add(new Poly([y, x]));
  return p.at(0.5) + q.at(x) + p.degree;
}`,
    {
      "poly.ts": `export class Poly {
  constructor(readonly coeffs: number[]) {}
  static fromRoots(roots: number[]): Poly {
    let p = new Poly([1]);
    for (const r of roots) p = p.mul(new Poly([-r, 1]));
    return p;
  }
  get degree(): number { return this.coeffs.length - 1; }
  at(x: number): number {
    let acc = 0;
    for (let i = this.coeffs.length - 1; i >= 0; i--) acc = acc * x + this.coeffs[i];
    return acc;
  }
  add(o: Poly): Poly {
    const n = Math.max(this.coeffs.length, o.coeffs.length);
    return new Poly(Array.from({ length: n }, (_, i) => (this.coeffs[i] ?? 0) + (o.coeffs[i] ?? 0)));
  }
  mul(o: Poly): Poly {
    const out = new Array<number>(this.coeffs.length + o.coeffs.length - 1).fill(0);
    this.coeffs.forEach((a, i) => o.coeffs.forEach((b, j) => { out[i + j] += a * b; }));
    return new Poly(out);
  }
  derivative(): Poly { return new Poly(this.coeffs.slice(1).map((c, i) => c * (i + 1))); }
}`,
    },
  ],
  [
    "a subclass in its own module overriding a method and calling 'super', in an 'Account[]'",
    `import { Account } from "./account.js";
import { Savings } from "./savings.js";
export function f(x: number, y: number): number {
  const accounts: Account[] = [new Account(x), new Savings(y, 0.05)];
  let total = 0;
  for (const a of accounts) { a.accrue(2); total += a.balance; }
  return total + new Savings(x * y, 0.1).projected(3);
}`,
    {
      "account.ts": `export class Account {
  constructor(public balance: number) {}
  accrue(years: number): void { this.balance *= 1 + 0.01 * years; }
}`,
      "savings.ts": `import { Account } from "./account.js";
export class Savings extends Account {
  constructor(balance: number, private rate: number) { super(balance); }
  override accrue(years: number): void {
    super.accrue(years);
    this.balance *= Math.pow(1 + this.rate, years);
  }
  projected(years: number): number {
    const copy = new Savings(this.balance, this.rate);
    copy.accrue(years);
    return copy.balance;
  }
}`,
    },
  ],
  [
    "a generic 'Stack<T>' of its own module holding points of types.ts",
    `import { Stack } from "./stack.js";
import type { Pt } from "./types.js";
export function f(x: number, y: number): number {
  const s = new Stack<Pt>();
  s.push({ x, y });
  s.push({ x: y, y: x * x });
  const top = s.pop()!;
  return top.x * top.y + s.peek()!.x + s.size;
}`,
    {
      "types.ts": `export interface Pt { x: number; y: number }`,
      "stack.ts": `export class Stack<T> {
  private items: T[] = [];
  push(t: T): void { this.items.push(t); }
  pop(): T | undefined { return this.items.pop(); }
  peek(): T | undefined { return this.items[this.items.length - 1]; }
  get size(): number { return this.items.length; }
}`,
    },
  ],
  [
    "static methods and a static instance of a class, and module constants built with them in another module",
    `import { Vec2 } from "./vec2.js";
import { ORIGIN, UNIT } from "./constants.js";
export function f(x: number, y: number): number {
  const a = Vec2.of(x, y);
  const b = Vec2.lerp(a, UNIT, 0.3);
  return Vec2.dist(a, ORIGIN) + b.len() + Vec2.ZERO.len();
}`,
    {
      "vec2.ts": `export class Vec2 {
  static readonly ZERO = new Vec2(0, 0);
  constructor(readonly x: number, readonly y: number) {}
  static of(x: number, y: number): Vec2 { return new Vec2(x, y); }
  static lerp(a: Vec2, b: Vec2, t: number): Vec2 { return new Vec2(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t); }
  static dist(a: Vec2, b: Vec2): number { return Math.hypot(a.x - b.x, a.y - b.y); }
  len(): number { return Math.hypot(this.x, this.y); }
}`,
      "constants.ts": `import { Vec2 } from "./vec2.js";
export const ORIGIN = Vec2.of(0, 0);
export const UNIT = new Vec2(1, 1);`,
    },
  ],
  [
    "a parameter store class holding a 'Map<string, number>'",
    `import { ParamStore } from "./store.js";
export function f(x: number, y: number): number {
  const store = new ParamStore();
  store.set("w", x);
  store.set("b", y);
  return store.get("w") * 3 + Math.exp(store.get("b")) + store.total();
}`,
    {
      "store.ts": `export class ParamStore {
  private values = new Map<string, number>();
  set(name: string, v: number): void { this.values.set(name, v); }
  get(name: string): number { return this.values.get(name) ?? 0; }
  total(): number {
    let s = 0;
    for (const v of this.values.values()) s += v * v;
    return s;
  }
}`,
    },
  ],
  [
    "a discriminated union of types.ts handled by a switch in one module and by conditionals in another",
    `import type { Shape } from "./types.js";
import { area } from "./area.js";
import { perimeter } from "./perimeter.js";
export function f(x: number, y: number): number {
  const shapes: Shape[] = [{ kind: "circle", r: x }, { kind: "rect", w: x, h: y }, { kind: "tri", a: x, b: y, c: 1.5 }];
  return shapes.reduce((s, sh) => s + area(sh) + 0.5 * perimeter(sh), 0);
}`,
    {
      "types.ts": `export interface Circle { kind: "circle"; r: number }
export interface Rect { kind: "rect"; w: number; h: number }
export interface Tri { kind: "tri"; a: number; b: number; c: number }
export type Shape = Circle | Rect | Tri;`,
      "area.ts": `import type { Shape } from "./types.js";
export function area(s: Shape): number {
  switch (s.kind) {
    case "circle": return Math.PI * s.r * s.r;
    case "rect": return s.w * s.h;
    case "tri": {
      const p = (s.a + s.b + s.c) / 2;
      return Math.sqrt(Math.abs(p * (p - s.a) * (p - s.b) * (p - s.c)));
    }
  }
}`,
      "perimeter.ts": `import type { Shape } from "./types.js";
export const perimeter = (s: Shape): number =>
  s.kind === "circle" ? 2 * Math.PI * s.r : s.kind === "rect" ? 2 * (s.w + s.h) : s.a + s.b + s.c;`,
    },
  ],
  [
    "a trainer module holding 'gradient(lossAt)' of an imported loss, differentiated through its steps",
    `import { train } from "./train.js";
import { lossAt } from "./loss.js";
export function f(x: number, y: number): number {
  const w = train([x, y], 3, 0.1);
  return lossAt(w) + w[0] * w[1];
}`,
    {
      "loss.ts": `export function lossAt(w: number[]): number {
  return (w[0] - 1) ** 2 + 2 * (w[1] + 0.5) ** 2 + w[0] * w[1] * 0.1;
}`,
      "train.ts": `import { gradient } from "nabla";
import { lossAt } from "./loss.js";
const grad = gradient(lossAt);
export function train(w0: number[], steps: number, lr: number): number[] {
  let w = [...w0];
  for (let i = 0; i < steps; i++) {
    const g = grad(w);
    w = w.map((v, j) => v - lr * g[j]);
  }
  return w;
}`,
    },
  ],
  [
    "a 'Record<Kind, number>' of a string enum's computed keys, built from another module's constants",
    `import { WEIGHT_OF } from "./weights.js";
import { Kind } from "./kind.js";
export function f(x: number, y: number): number {
  return WEIGHT_OF[Kind.A] * x * x + WEIGHT_OF[Kind.B] * Math.sin(y) + WEIGHT_OF[Kind.C] * x * y;
}`,
    {
      "kind.ts": `export enum Kind { A = "a", B = "b", C = "c" }`,
      "base.ts": `export const BASE = 0.5;
export const FACTORS = { a: 1, b: 2, c: 3 };`,
      "weights.ts": `import { BASE, FACTORS } from "./base.js";
import { Kind } from "./kind.js";
export const WEIGHT_OF: Record<Kind, number> = {
  [Kind.A]: BASE * FACTORS.a,
  [Kind.B]: BASE * FACTORS.b,
  [Kind.C]: BASE * FACTORS.c,
};`,
    },
  ],
];

for (const [name, body, modules] of cases)
  test(name, async () => {
    await checkAgainstPlain(body, undefined, "js", modules);
  });

// A module-level `const dE = gradient(energy)` called in differentiated code is that operator
// called there (nested, in forward mode: its value agrees with the run-time gradient's reverse
// mode to rounding, so the values are compared to 1e-14).
const GRADS = {
  "physics.ts": `export function energy(x: number, y: number): number {
  return x * x * y + Math.sin(x * y);
}`,
  "grads.ts": `import { derivative, gradient } from "nabla";
import { energy } from "./physics.js";
export { energy };
export const gradEnergy = gradient(energy);
export const dSigmoid = derivative((t: number) => 1 / (1 + Math.exp(-t)));`,
};

test("a module's 'export const gradEnergy = gradient(energy)' of an imported function, called in a function differentiated in another module, is the nested gradient (was NABLA102 'does not export a function 'gradEnergy' with visible source')", async () => {
  await checkTwoWays(
    `import { gradEnergy, energy, dSigmoid } from "./grads.js";
export function f(x: number, y: number): number {
  const g = gradEnergy(x, y);
  return energy(x, y) + g[0] * g[1] + dSigmoid(x * y);
}`,
    undefined,
    false,
    GRADS,
  );
});

test("'G.gradEnergy(x, y)' through a namespace import of the module holding it", async () => {
  await checkTwoWays(
    `import * as G from "./grads.js";
export function f(x: number, y: number): number {
  const [gx, gy] = G.gradEnergy(x, y);
  return gx * Math.cos(gy) + G.dSigmoid(x - y);
}`,
    undefined,
    false,
    GRADS,
  );
});

test("a module-level 'const dE = gradient(energy)' of the same module, its function read there even where the caller has a local of its name (was NABLA102 'it holds the closure 'gradient(…)' returned when the module ran')", async () => {
  await checkTwoWays(
    `import { gradient } from "nabla";
function energy(x: number, y: number): number {
  return x * x * y + Math.sin(x * y);
}
const dE = gradient(energy, { wrt: [1] });
export function f(x: number, y: number): number {
  const energy = x * 3;
  return dE(x, y) * energy + y;
}`,
    undefined,
    false,
  );
});

const LOSSES = {
  "types.ts": `export type LossName = "mse" | "mae" | "huber";
export type LossFn = (pred: number[], target: number[]) => number;`,
  "losses.ts": `import type { LossFn } from "./types.js";
export const mse: LossFn = (p, t) => p.reduce((s, v, i) => s + (v - t[i]) ** 2, 0) / p.length;
export function mae(p: number[], t: number[]): number {
  return p.reduce((s, v, i) => s + Math.abs(v - t[i]), 0) / p.length;
}
export const Losses = {
  huber(pred: number[], target: number[], delta = 1): number {
    let s = 0;
    for (let i = 0; i < pred.length; i++) {
      const r = Math.abs(pred[i] - target[i]);
      s += r < delta ? 0.5 * r * r : delta * (r - 0.5 * delta);
    }
    return s;
  },
};`,
};

test("a function of another module returning one of the program's functions by name ('pick(name): LossFn' with a switch), called through a name or directly ('pick(n)(p, t)') (was NABLA112 ''fn' is a local number': the call was typed a number)", async () => {
  await checkAgainstPlain(
    `import { pick } from "./pick.js";
import type { LossName } from "./types.js";
export function f(x: number, y: number): number {
  const pred = [x, y, x + y];
  const target = [0.5, -0.1, 0.2];
  const names: LossName[] = ["mse", "mae", "huber"];
  let s = 0;
  for (const n of names) s += pick(n)(pred, target);
  const chosen = pick(x > 0 ? "mae" : "mse");
  return s + chosen(target, pred);
}`,
    undefined,
    "js",
    {
      ...LOSSES,
      "pick.ts": `import { Losses, mae, mse } from "./losses.js";
import type { LossFn, LossName } from "./types.js";
export function pick(name: LossName): LossFn {
  switch (name) {
    case "mse":
      return mse;
    case "mae":
      return mae;
    case "huber":
      return Losses.huber;
  }
}`,
    },
  );
});

test("a function returning a function it writes ('return (p, t) => …' in one case of a switch) is refused where it is called, with a note at the function (was the same NABLA101 as calling any call's result)", () => {
  const result = compileFiles({
    ...LOSSES,
    "pick.ts": `import { Losses, mae, mse } from "./losses.js";
import type { LossFn, LossName } from "./types.js";
export function pick(name: LossName): LossFn {
  switch (name) {
    case "mse": return mse;
    case "mae": return mae;
    case "huber": return (p, t) => Losses.huber(p, t, 0.5);
  }
}`,
    "main.ts": `import { gradient } from "nabla";
import { pick } from "./pick.js";
export function f(x: number, y: number): number {
  return pick("huber")([x, y], [1, 2]);
}
export const g = gradient(f);`,
  });
  assert.equal(
    diagnosticsText(result),
    `main.ts:4:10: error NABLA101: 'pick' returns a function it writes ('(p, t) => Losses.huber(p, t, 0.5)'), which differentiable code cannot call once 'pick' has returned: nabla follows a returned function that is declared in the program (or written in module-level data), or one a factory returns as its last statement
  3 | export function f(x: number, y: number): number {
> 4 |   return pick("huber")([x, y], [1, 2]);
    |          ^^^^^^^^^^^^^
help: declare that function at the top level of its module and return it by name, or end 'pick' with 'return (…) => …'
pick.ts:7:26: note: the function it returns is written here
> 7 |     case "huber": return (p, t) => Losses.huber(p, t, 0.5);
    |                          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
main.ts:6:18: note: when differentiating 'f' for 'gradient'
> 6 | export const g = gradient(f);
    |                  ^^^^^^^^^^^

1 error`,
  );
});

test("a function of an 'export default { … }' object literal, called through its default import, is refused with a message saying to name the object (was 'does not export a function 'default' with visible source')", () => {
  const result = compileFiles({
    "physics.ts": `const MAX = 10;
export default {
  kinetic(m: number, v: number): number { return 0.5 * m * v * v; },
  clampSpeed: (v: number) => Math.min(v, MAX),
};`,
    "main.ts": `import { gradient } from "nabla";
import physics from "./physics.js";
export function f(x: number, y: number): number {
  return physics.kinetic(x, physics.clampSpeed(y));
}
export const g = gradient(f);`,
  });
  assert.match(
    diagnosticsText(result),
    /^main\.ts:4:10: error NABLA102: cannot differentiate 'physics\.kinetic': '\.\/physics\.js' exports it in an object written in 'export default \{ … \}', which has no name there, and nabla reads the functions of module-level data by the name of a 'const'\n[^]*help: name it in '\.\/physics\.js': 'const physics = \{ … \}; export default physics;'\n/,
  );
});

test("the same object named ('const physics = { … }; export default physics'), as the message says to write it", async () => {
  await checkAgainstPlain(
    `import physics from "./physics.js";
export function f(x: number, y: number): number {
  return physics.kinetic(x, physics.clampSpeed(y * 2));
}`,
    undefined,
    "js",
    {
      "physics.ts": `const MAX = 10;
const physics = {
  kinetic(m: number, v: number): number { return 0.5 * m * v * v; },
  clampSpeed: (v: number) => Math.min(v, MAX),
};
export default physics;`,
    },
  );
});

test("an interface's method called in a module that an implementing class's module imports stays NABLA102, its help saying where to make the call (the class extends nothing there)", () => {
  const result = compileFiles({
    "types.ts": `export interface Predictor { predict(x: number): number }`,
    "loss.ts": `import type { Predictor } from "./types.js";
export function sqLoss(p: Predictor, x: number, t: number): number {
  const r = p.predict(x) - t;
  return r * r;
}`,
    "model.ts": `import type { Predictor } from "./types.js";
import { sqLoss } from "./loss.js";
export class Model implements Predictor {
  constructor(public w: number) {}
  predict(x: number): number { return Math.tanh(this.w * x); }
  loss(x: number, t: number): number { return sqLoss(this, x, t); }
}`,
    "main.ts": `import { gradient } from "nabla";
import { Model } from "./model.js";
import { sqLoss } from "./loss.js";
export function f(w: number): number {
  return sqLoss(new Model(w), 0.5, 0.2);
}
export const g = gradient(f);`,
  });
  assert.match(
    diagnosticsText(result),
    /^loss\.ts:3:13: error NABLA102: which method this call runs depends on whether the object is a 'Model', which overrides it, but the module of 'Model' imports 'loss\.ts', so 'loss\.ts' cannot import 'Model' to test the object's class \(the two modules would import each other, and one run before the other's classes exist\)\n[^]*help: make the call in a module that the module of 'Model' does not import\n/,
  );
});
