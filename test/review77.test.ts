import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText } from "./support/harness.js";
import { checkAgainstPlain } from "./support/two-ways.js";

// Programs written as TypeScript developers write them, each checked against the plain
// program run as JavaScript, central differences, and forward mode against reverse mode.

test("a class whose constructor takes an optional 'data?: ArrayLike<number>', built without it ('new Matrix(2, 2)') and with an array, compiles (was NABLA106 'admits several kinds of array')", async () => {
  // A call leaving the parameter out gave no array to instantiate the constructor for.
  await checkAgainstPlain(`class Matrix {
  readonly data: Float64Array;
  constructor(readonly rows: number, readonly cols: number, data?: ArrayLike<number>) {
    this.data = data ? Float64Array.from(data) : new Float64Array(rows * cols);
  }
  static identity(n: number): Matrix {
    const m = new Matrix(n, n);
    for (let i = 0; i < n; i++) m.set(i, i, 1);
    return m;
  }
  get(i: number, j: number): number { return this.data[i * this.cols + j]; }
  set(i: number, j: number, v: number): void { this.data[i * this.cols + j] = v; }
  mul(o: Matrix): Matrix {
    const r = new Matrix(this.rows, o.cols);
    for (let i = 0; i < this.rows; i++)
      for (let j = 0; j < o.cols; j++) {
        let s = 0;
        for (let k = 0; k < this.cols; k++) s += this.get(i, k) * o.get(k, j);
        r.set(i, j, s);
      }
    return r;
  }
  get trace(): number {
    let t = 0;
    for (let i = 0; i < Math.min(this.rows, this.cols); i++) t += this.get(i, i);
    return t;
  }
  det2(): number { return this.get(0, 0) * this.get(1, 1) - this.get(0, 1) * this.get(1, 0); }
}
export function f(x: number, y: number): number {
  const a = new Matrix(2, 2, [x, y, -y, x * x]);
  const b = new Matrix(2, 2, [1, 0.5, y, 2]);
  let p = Matrix.identity(2);
  for (let i = 0; i < 3; i++) p = p.mul(a);
  return p.trace + a.mul(b).det2();
}`);
});

test("a function with an optional 'ArrayLike<number>' parameter, called without it and with it", async () => {
  await checkAgainstPlain(`function g(n: number, data?: ArrayLike<number>): number {
  if (!data) return n * n;
  let s = 0;
  for (let i = 0; i < data.length; i++) s += data[i] * n;
  return s;
}
export function f(x: number, y: number): number {
  return g(x) + g(y, [x, y]);
}`);
});

test("an instance of a class with a generator '[Symbol.iterator]()', or its generator method's call, spread into an array, given to Array.from or to Math.max (was NABLA101 'spreading a Polyline is not supported')", async () => {
  await checkAgainstPlain(`class Polyline implements Iterable<[number, number]> {
  constructor(private readonly xs: number[], private readonly ys: number[]) {}
  *[Symbol.iterator](): Iterator<[number, number]> {
    for (let i = 0; i < this.xs.length; i++) yield [this.xs[i], this.ys[i]];
  }
  *segments(): Generator<[[number, number], [number, number]]> {
    let prev: [number, number] | undefined;
    for (const p of this) {
      if (prev) yield [prev, p];
      prev = p;
    }
  }
  length(): number {
    let L = 0;
    for (const [[x0, y0], [x1, y1]] of this.segments()) L += Math.hypot(x1 - x0, y1 - y0);
    return L;
  }
}
export function f(x: number, y: number): number {
  const line = new Polyline([0, x, 2, 3 + y], [0, y * y, 1, x]);
  let area = 0;
  for (const [[x0, y0], [x1, y1]] of line.segments()) area += x0 * y1 - x1 * y0;
  return line.length() + 0.5 * area + [...line].length;
}`);
  await checkAgainstPlain(`class Ring implements Iterable<number> {
  constructor(private readonly vals: number[]) {}
  *[Symbol.iterator](): Generator<number> { for (const v of this.vals) yield v; }
  *pairs(): Generator<[number, number]> {
    const xs = [...this];
    for (let i = 0; i < xs.length; i++) yield [xs[i], xs[(i + 1) % xs.length]];
  }
  max(): number { return Math.max(...this); }
}
export function f(x: number, y: number): number {
  const r = new Ring([x, y * y, 1, x * y]);
  const a = Array.from(r);
  const b = Array.from(r, (v) => v * 2);
  const ps = [...r.pairs()];
  const qs = Array.from(r.pairs(), ([p, q]) => p * q);
  return a[1] + b[3] + ps.reduce((s, [p, q]) => s + p - q * q, 0) + qs[2] + r.max();
}`);
});

test("an unannotated generator's values spread into Math.max and Math.hypot (was NABLA101 ''range' is a generator')", async () => {
  await checkAgainstPlain(`function* range(n: number, x: number) { for (let i = 0; i < n; i++) yield Math.sin(x * i); }
export function f(x: number, y: number): number {
  return Math.max(...range(4, x)) + Math.hypot(y, ...range(3, y));
}`);
});

test("an unannotated array literal of instances of a class and its subclasses ('[new Shape(x), new Circle(y)]') is TypeScript's 'Shape[]' (was NABLA101 'calling a property access on a value nabla does not differentiate')", async () => {
  // Its elements' types differ, so nabla made it a tuple of opaque elements.
  await checkAgainstPlain(`class Shape {
  constructor(readonly size: number) {}
  area(): number { return this.size * this.size; }
}
class Circle extends Shape {
  override area(): number { return Math.PI * this.size ** 2; }
}
class Tri extends Shape {
  override area(): number { return (Math.sqrt(3) / 4) * this.size ** 2; }
}
export function f(x: number, y: number): number {
  const shapes = [new Shape(x), new Circle(y), new Tri(x * y)];
  let s = 0;
  shapes.forEach((sh) => { s += sh.area(); });
  for (const sh of shapes) s += sh.size;
  return s + shapes.map((sh) => sh.area()).reduce((a, b) => a + b, 0);
}`);
  await checkAgainstPlain(`interface Dist { logPdf(v: number): number }
class Normal implements Dist {
  constructor(readonly mu: number) {}
  logPdf(v: number) { return -0.5 * (v - this.mu) ** 2; }
}
class Laplace implements Dist {
  constructor(readonly mu: number, readonly b: number) {}
  logPdf(v: number) { return -Math.abs(v - this.mu) / this.b; }
}
export function f(x: number, y: number): number {
  const models = [new Normal(x), new Laplace(y, 2), new Normal(x * y)];
  const data = [0.1, 0.5, -0.3];
  let s = 0;
  for (const m of models) for (const d of data) s += m.logPdf(d);
  const pair = [new Normal(y), 3] as const;
  return s + pair[0].logPdf(x) + pair[1];
}`);
});

test("an array literal holding an empty array ('[[x], [y, x], []]') takes its siblings' type (was NABLA103 'cannot determine the element type of an empty array literal')", async () => {
  await checkAgainstPlain(`function clamp(v: number, lo = 0, hi = lo + 1): number { return Math.min(hi, Math.max(lo, v)); }
function swapSort(a: number[]): number[] {
  const out = [...a];
  for (let i = 0; i < out.length; i++)
    for (let j = 0; j < out.length - 1 - i; j++)
      if (out[j] > out[j + 1]) [out[j], out[j + 1]] = [out[j + 1], out[j]];
  return out;
}
function histogram(xs: readonly number[], bins: number): number[] {
  const h = Array(bins).fill(0);
  for (const v of xs) h[Math.min(bins - 1, Math.floor(clamp(v) * bins))] += v;
  return h;
}
export function f(x: number, y: number): number {
  const raw = [x, y, x * y, 0.3, Math.cos(x), y - x];
  const sorted = swapSort(raw);
  const med = (sorted[2] + sorted[3]) / 2;
  const h = histogram(raw.map((v) => clamp(v, -1, 1) * 0.5 + 0.5), 4);
  let [a, b] = [x, y];
  for (let i = 0; i < 3; i++) [a, b] = [b, a + b * 0.5];
  const flat = [[x], [y, x], []].flatMap((r) => r.map((v) => v * 2));
  const last = flat.reduceRight((acc, v) => acc * 0.9 + v, 0);
  return med + h.reduce((s, v, i) => s + v * (i + 1), 0) + a * b + last + clamp(x * 3, -2);
}`);
});

test("'Math[this.fn](x)' of a key typed as a union of Math functions' names, in a recursive expression tree over an interface (was NABLA111 'cannot find 'Math'')", async () => {
  await checkAgainstPlain(`interface Expr { eval(env: Map<string, number>): number; toString(): string }
class Num implements Expr {
  constructor(readonly v: number) {}
  eval() { return this.v; }
  toString() { return String(this.v); }
}
class Var implements Expr {
  constructor(readonly name: string) {}
  eval(env: Map<string, number>) {
    const v = env.get(this.name);
    if (v === undefined) throw new Error(\`unbound \${this.name}\`);
    return v;
  }
  toString() { return this.name; }
}
class BinOp implements Expr {
  constructor(readonly op: "+" | "*" | "-", readonly l: Expr, readonly r: Expr) {}
  eval(env: Map<string, number>): number {
    const a = this.l.eval(env), b = this.r.eval(env);
    return this.op === "+" ? a + b : this.op === "*" ? a * b : a - b;
  }
  toString() { return \`(\${this.l} \${this.op} \${this.r})\`; }
}
class Call implements Expr {
  constructor(readonly fn: "sin" | "exp", readonly arg: Expr) {}
  eval(env: Map<string, number>): number { return Math[this.fn](this.arg.eval(env)); }
  toString() { return \`\${this.fn}(\${this.arg})\`; }
}
export function f(x: number, y: number): number {
  const e = new BinOp("+", new BinOp("*", new Var("x"), new Call("sin", new Var("y"))),
    new Call("exp", new BinOp("-", new Num(0.5), new BinOp("*", new Var("x"), new Var("x")))));
  const env = new Map([["x", x], ["y", y]]);
  return e.eval(env);
}`);
});

test("a function passed to a method that keeps it in a field ('this.listeners.push(l)'), to be called by another method, is refused at the call (the specialization called the method's original with the closure's cells: 'l is not a function' at run time, and a zero gradient)", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { gradient } from "nabla";
class Signal {
  private listeners: ((v: number) => void)[] = [];
  subscribe(l: (v: number) => void): void {
    this.listeners.push(l);
  }
  emit(v: number): void {
    for (const l of this.listeners) l(v);
  }
}
export function f(x: number): number {
  const s = new Signal();
  let sum = 0;
  s.subscribe((v) => {
    sum += v * v;
  });
  s.emit(x);
  return sum;
}
export const g = gradient(f);
`,
    }),
  );
  assert.match(
    text,
    /main\.ts:14:15: error NABLA112: 'Signal\.subscribe' keeps the function given for its parameter 'l' in data \('\.push\(…, l\)'\); a function passed to code nabla differentiates can be called there, or passed on as an argument, but not kept to be called later\n/,
  );
  assert.match(
    text,
    /help: declare the function at the top level of a module and pass it by name \('const square = \(z: number\) => z \* z;' there, then 'square'\): such a function may be kept; or call it where it is given, or pass it as an argument to the code that calls it/,
  );
});

test("programs of other domains, which already compiled right: a ray tracer with a Vec3 class, a DFT of Complex numbers, a layer hierarchy, distributions behind an interface, a PID controller with defaulted Partial gains, compound assignments on optional fields, optional chaining, aliased graph nodes", async () => {
  await checkAgainstPlain(`class Vec3 {
  constructor(public x: number, public y: number, public z: number) {}
  static zero(): Vec3 { return new Vec3(0, 0, 0); }
  add(o: Vec3): Vec3 { return new Vec3(this.x + o.x, this.y + o.y, this.z + o.z); }
  sub(o: Vec3): Vec3 { return new Vec3(this.x - o.x, this.y - o.y, this.z - o.z); }
  scale(k: number): Vec3 { return new Vec3(this.x * k, this.y * k, this.z * k); }
  dot(o: Vec3): number { return this.x * o.x + this.y * o.y + this.z * o.z; }
  get length(): number { return Math.sqrt(this.dot(this)); }
  normalized(): Vec3 { const l = this.length; return l === 0 ? Vec3.zero() : this.scale(1 / l); }
}
interface Ray { origin: Vec3; dir: Vec3 }
interface Hit { t: number; normal: Vec3 }
class Sphere {
  constructor(readonly center: Vec3, readonly radius: number) {}
  intersect(ray: Ray): Hit | null {
    const oc = ray.origin.sub(this.center);
    const b = oc.dot(ray.dir);
    const c = oc.dot(oc) - this.radius * this.radius;
    const disc = b * b - c;
    if (disc < 0) return null;
    const t = -b - Math.sqrt(disc);
    if (t < 1e-6) return null;
    const p = ray.origin.add(ray.dir.scale(t));
    return { t, normal: p.sub(this.center).normalized() };
  }
}
class Plane {
  constructor(readonly normal: Vec3, readonly offset: number) {}
  intersect(ray: Ray): Hit | null {
    const denom = this.normal.dot(ray.dir);
    if (Math.abs(denom) < 1e-9) return null;
    const t = (this.offset - this.normal.dot(ray.origin)) / denom;
    return t > 1e-6 ? { t, normal: this.normal } : null;
  }
}
type Shape = Sphere | Plane;
function trace(ray: Ray, scene: Shape[]): number {
  let closest: Hit | null = null;
  for (const s of scene) {
    const h = s.intersect(ray);
    if (h && (!closest || h.t < closest.t)) closest = h;
  }
  if (!closest) return 0;
  const light = new Vec3(1, 1, -1).normalized();
  return Math.max(0, closest.normal.dot(light)) + 0.1 / closest.t;
}
export function f(x: number, y: number): number {
  const scene: Shape[] = [new Sphere(new Vec3(0, 0, 5), 1 + 0.1 * x), new Plane(new Vec3(0, 1, 0), -2)];
  let total = 0;
  for (let i = -2; i <= 2; i++) {
    const dir = new Vec3(i * 0.1 + 0.05 * y, 0.02 * i, 1).normalized();
    total += trace({ origin: Vec3.zero(), dir }, scene);
  }
  return total;
}`);
  await checkAgainstPlain(`class Complex {
  constructor(public readonly re: number, public readonly im: number) {}
  static fromPolar(r: number, theta: number): Complex { return new Complex(r * Math.cos(theta), r * Math.sin(theta)); }
  add(o: Complex): Complex { return new Complex(this.re + o.re, this.im + o.im); }
  mul(o: Complex): Complex { return new Complex(this.re * o.re - this.im * o.im, this.re * o.im + this.im * o.re); }
  abs(): number { return Math.hypot(this.re, this.im); }
  get conj(): Complex { return new Complex(this.re, -this.im); }
  toString(): string { return \`\${this.re}+\${this.im}i\`; }
}
const ZERO = new Complex(0, 0);
function dft(signal: readonly number[]): Complex[] {
  const n = signal.length;
  return Array.from({ length: n }, (_, k) =>
    signal.reduce((acc, v, t) => acc.add(Complex.fromPolar(v, (-2 * Math.PI * k * t) / n)), ZERO),
  );
}
export function f(x: number, y: number): number {
  const signal = [x, y, x * y, 1, -x, Math.sin(y), 0.5, x - y];
  const spectrum = dft(signal);
  const power = spectrum.map((c) => c.mul(c.conj).re);
  const peak = spectrum.slice(1).reduce((best, c) => (c.abs() > best.abs() ? c : best));
  return power.reduce((a, b) => a + b, 0) / signal.length + peak.abs();
}`);
  await checkAgainstPlain(`abstract class Layer {
  abstract forward(x: number[]): number[];
  get name(): string { return this.constructor.name; }
}
class Dense extends Layer {
  constructor(private readonly w: number[][], private readonly b: number[]) { super(); }
  forward(x: number[]): number[] {
    return this.w.map((row, i) => row.reduce((s, wij, j) => s + wij * x[j], this.b[i]));
  }
}
class ReLU extends Layer {
  forward(x: number[]): number[] { return x.map((v) => Math.max(0, v)); }
}
class Tanh extends Layer {
  forward(x: number[]): number[] { return x.map(Math.tanh); }
}
class Sequential {
  private layers: Layer[] = [];
  add(l: Layer): this { this.layers.push(l); return this; }
  forward(x: number[]): number[] { return this.layers.reduce((h, l) => l.forward(h), x); }
}
function softmax(z: number[]): number[] {
  const m = Math.max(...z);
  const e = z.map((v) => Math.exp(v - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / s);
}
export function f(x: number, y: number): number {
  const net = new Sequential()
    .add(new Dense([[x, 0.5], [-0.3, y], [0.2, 0.1]], [0.1, -0.2, 0.05]))
    .add(new ReLU())
    .add(new Dense([[1, -1, 0.5], [0.3, y, -x]], [0, 0.1]))
    .add(new Tanh());
  const inputs = [[1, 2], [0.5, -1], [-0.7, 0.3]];
  const labels = [0, 1, 1];
  let loss = 0;
  for (const [i, input] of inputs.entries()) {
    const p = softmax(net.forward(input));
    loss -= Math.log(p[labels[i]]);
  }
  return loss / inputs.length;
}`);
  await checkAgainstPlain(`interface Distribution {
  readonly name: string;
  logPdf(x: number): number;
}
class Normal implements Distribution {
  readonly name = "normal";
  constructor(private mu: number, private sigma: number) {}
  logPdf(x: number): number {
    const z = (x - this.mu) / this.sigma;
    return -0.5 * z * z - Math.log(this.sigma) - 0.5 * Math.log(2 * Math.PI);
  }
}
class Laplace implements Distribution {
  readonly name = "laplace";
  constructor(private mu: number, private b: number) {}
  logPdf(x: number): number { return -Math.abs(x - this.mu) / this.b - Math.log(2 * this.b); }
}
function lgamma(z: number): number {
  // Lanczos approximation
  const g = 7;
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  z -= 1;
  let a = c[0];
  const t = z + g + 0.5;
  for (let i = 1; i < g + 2; i++) a += c[i] / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}
class StudentT implements Distribution {
  readonly name = "student-t";
  constructor(private nu: number, private mu = 0, private scale = 1) {}
  logPdf(x: number): number {
    const { nu, mu, scale } = this;
    const z = (x - mu) / scale;
    return lgamma((nu + 1) / 2) - lgamma(nu / 2) - 0.5 * Math.log(nu * Math.PI) - Math.log(scale)
      - ((nu + 1) / 2) * Math.log1p((z * z) / nu);
  }
}
const data = [0.3, -1.2, 2.5, 0.8, -0.1, 1.7, 0.05];
const logLikelihood = (d: Distribution, xs: readonly number[]) => xs.reduce((s, v) => s + d.logPdf(v), 0);
export function f(x: number, y: number): number {
  const models: Distribution[] = [new Normal(x, Math.exp(y)), new Laplace(x, 1 + y * y), new StudentT(3 + x * x, y)];
  const scores: Record<string, number> = {};
  for (const m of models) scores[m.name] = logLikelihood(m, data);
  return Object.values(scores).reduce((a, b) => a + b) + scores["normal"] * 0.5;
}`);
  await checkAgainstPlain(`interface Gains { kp: number; ki: number; kd: number; limit?: number }
class PID {
  private integral = 0;
  private prevError: number | undefined;
  constructor(private readonly gains: Gains) {}
  update(error: number, dt: number): number {
    const { kp, ki, kd, limit = Infinity } = this.gains;
    this.integral += error * dt;
    const derivative = this.prevError === undefined ? 0 : (error - this.prevError) / dt;
    this.prevError = error;
    const u = kp * error + ki * this.integral + kd * derivative;
    return Math.min(limit, Math.max(-limit, u));
  }
}
function simulate({ kp = 1, ki = 0, kd = 0, limit }: Partial<Gains> = {}, steps = 50): number {
  const pid = new PID({ kp, ki, kd, limit });
  let pos = 0, vel = 0, cost = 0;
  const target = 1, dt = 0.05;
  for (let i = 0; i < steps; i++) {
    const u = pid.update(target - pos, dt);
    vel += (u - 0.3 * vel) * dt;
    pos += vel * dt;
    cost += (target - pos) ** 2 * dt;
  }
  return cost;
}
export function f(x: number, y: number): number {
  return simulate({ kp: 2 + x, ki: 0.5 * y * y, kd: 0.1 }) + simulate({ kp: 1 + x * x, limit: 3 }) + simulate();
}`);
  await checkAgainstPlain(`interface Acc { total?: number; best?: number; scale: number; count: number; label?: string }
function accumulate(acc: Acc, v: number): Acc {
  acc.total ??= 0;
  acc.total += v;
  acc.best ||= v;
  acc.best = Math.max(acc.best, v);
  acc.scale **= 1.01;
  acc.count++;
  acc.label ??= "first";
  return acc;
}
export function f(x: number, y: number): number {
  const acc: Acc = { scale: 1 + x * x, count: 0 };
  const values = [x, y, x * y, x - y, 2 * y];
  for (const v of values) accumulate(acc, v);
  const o = { a: x, b: 0, c: y };
  o.a *= o.c;
  o.b ||= x + 1;
  o.c **= 2;
  o.a -= o.b / 2;
  o.b &&= o.b * y;
  return (acc.total ?? 0) * acc.scale + (acc.best ?? 0) + o.a + o.b + o.c + acc.count;
}`);
  await checkAgainstPlain(`interface Config { damping?: number; spring?: { k: number; rest?: number }; mass?: number }
interface State { x: number; v: number; history?: number[] }
function force(s: State, cfg: Config): number {
  const k = cfg.spring?.k ?? 0;
  const rest = cfg.spring?.rest ?? 1;
  const c = cfg.damping ?? 0.1;
  return -k * (s.x - rest) - c * s.v;
}
function run(cfg: Config, x0: number, steps: number): State {
  const s: State = { x: x0, v: 0 };
  const m = cfg.mass || 1;
  for (let i = 0; i < steps; i++) {
    s.v += (force(s, cfg) / m) * 0.05;
    s.x += s.v * 0.05;
    (s.history ??= []).push(s.x);
  }
  return s;
}
export function f(x: number, y: number): number {
  const a = run({ spring: { k: 2 + y }, damping: 0.3 }, x, 20);
  const b = run({ spring: { k: 1, rest: y }, mass: 2 }, x * 0.5, 15);
  const c = run({}, y, 5);
  const lastA = a.history?.at(-1) ?? 0;
  const firstB = b.history?.[0] ?? 0;
  return a.x + b.x * b.v + c.x + lastA * firstB + (c.history?.length ?? 0);
}`);
  await checkAgainstPlain(`interface Node2 { x: number; y: number; neighbors: Node2[] }
export function f(x: number, y: number): number {
  const a: Node2 = { x, y, neighbors: [] };
  const b: Node2 = { x: y, y: x * x, neighbors: [a] };
  const c: Node2 = { x: 1, y: 2, neighbors: [a, b] };
  a.neighbors.push(b, c);
  const nodes = [a, b, c];
  // Laplacian smoothing in place: each node moves toward the mean of its neighbors
  for (let it = 0; it < 3; it++) {
    const targets = nodes.map((n) => {
      const mx = n.neighbors.reduce((s, m) => s + m.x, 0) / n.neighbors.length;
      const my = n.neighbors.reduce((s, m) => s + m.y, 0) / n.neighbors.length;
      return [mx, my] as const;
    });
    nodes.forEach((n, i) => {
      n.x += 0.5 * (targets[i][0] - n.x);
      n.y += 0.5 * (targets[i][1] - n.y);
    });
  }
  const alias = nodes[0];
  alias.x *= 2;
  return a.x + b.neighbors[0].x * c.y + nodes.reduce((s, n) => s + n.x * n.y, 0);
}`);
});

test("a function of the program by name or a Math function kept in a field by a constructor is a value, and runs (the kept-function check refused it)", async () => {
  await checkAgainstPlain(`
const relu = (z: number) => (z > 0 ? z : 0.01 * z);
class Layer {
  private act: (z: number) => number;
  constructor(private readonly w: number, act: (z: number) => number) {
    this.act = act;
  }
  forward(x: number): number {
    return this.act(this.w * x);
  }
}
export function f(x: number, y: number): number {
  const layers = [new Layer(y, Math.tanh), new Layer(2, relu)];
  let h = x;
  for (const l of layers) h = l.forward(h);
  return h;
}`);
});

test("an arrow given to a constructor keeping it as a parameter property is NABLA112 at the arrow (the generated call was invalid JavaScript: a SyntaxError at load)", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { gradient } from "nabla";
class Layer {
  constructor(private readonly w: number, private readonly act: (z: number) => number) {}
  forward(x: number): number { return this.act(this.w * x); }
}
export function f(x: number, y: number): number {
  const layers = [new Layer(y, Math.tanh), new Layer(0.5, (z) => z * z)];
  let h = x;
  for (const l of layers) h = l.forward(h);
  return h;
}
export const g = gradient(f);
`,
    }),
  );
  assert.match(
    text,
    /^main\.ts:7:59: error NABLA112: 'Layer\.constructor' keeps the function given for its parameter 'act' in data \(the parameter property 'act', a field of the instance\)/,
  );
});
