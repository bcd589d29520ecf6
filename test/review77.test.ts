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
    /help: call the function where it is given, or pass it as an argument to the code that calls it/,
  );
});
