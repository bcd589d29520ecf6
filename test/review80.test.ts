import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";
import { checkAgainstPlain } from "./support/two-ways.js";

// An adversarial review of the changes of one day (operators on function parameters, recursive
// local functions lifted, the helper reviews merged): programs written as TypeScript developers
// write them, each checked against the plain program run as JavaScript, central differences,
// and forward mode against reverse mode, or, where nabla refuses, the message it gives.

test("a recursive local arrow with a default parameter, called with and without it (was NABLA101 'must be a plain function with simple parameters', whose help said defaults were fine)", async () => {
  await checkAgainstPlain(`
export function f(x: number, y: number): number {
  const rec = (n: number, acc: number = 1): number => (n === 0 ? acc : rec(n - 1, acc * x + y));
  const scaled = (n: number, k = x): number => (n <= 0 ? k : k * scaled(n - 1) + Math.sin(n * y));
  return rec(3) + rec(2, y) + scaled(3) + scaled(2, y);
}`);
});

test("a recursive local function differentiating itself ('derivative' of a lambda calling it) is refused (the compiler ran without end, growing to gigabytes)", () => {
  // Its derivative needs its derivative of the next order, and that one the next: the demands
  // for ever higher orders never ended.
  const result = compileFiles({
    "main.ts": `import { derivative, gradient } from "nabla";
export function f(x: number, y: number): number {
  const rec = (n: number, t: number): number =>
    n === 0 ? t : derivative((s: number) => Math.sin(s * y) * rec(n - 1, s))(t);
  return rec(2, x);
}
export const g = gradient(f);
`,
  });
  const text = diagnosticsText(result);
  assert.match(
    text,
    /^main\.ts:4:30: error NABLA116: this function calls itself inside a function it gives an operator \('derivative\(\(s\) => … f\(n - 1, s\)\)'\), so its derivative needs its derivative of the next order, and that one the next, without end; nabla compiles derivatives of a fixed order\n/,
  );
  assert.match(text, /\n1 error$/);
});

test("a top-level function differentiating itself ('derivative' of a lambda calling it) is refused (the module called a derivative never generated, and failed to load with a SyntaxError)", () => {
  const result = compileFiles({
    "main.ts": `import { derivative, gradient } from "nabla";
function rec(n: number, t: number, y: number): number {
  return n === 0 ? t : derivative((s: number) => Math.sin(s * y) * rec(n - 1, s, y))(t);
}
export function f(x: number, y: number): number {
  return rec(2, x, y);
}
export const g = gradient(f);
`,
  });
  const text = diagnosticsText(result);
  assert.match(
    text,
    /^main\.ts:3:35: error NABLA116: this function calls itself inside a function it gives an operator .* without end; nabla compiles derivatives of a fixed order\nhelp|\n/,
  );
  assert.match(text, /\n1 error$/);
});

test("an operator given options on a function parameter in plain code says it takes none (was NABLA108 'a variable holding a function value, which nabla cannot follow', which the same call without options could)", () => {
  const result = compileFiles({
    "lib.ts": `import { gradient, hessian } from "nabla";
export type Scalar = (x: number[]) => number;
export function newton(f: Scalar, x: number[]) {
  const g = gradient(f)(x);
  const h = hessian(f, { backend: "wasm" })(x);
  return [g, h];
}
`,
    "main.ts": `import { newton } from "./lib.js";
export const r = newton((p: number[]) => Math.sin(p[0]) * p[1] ** 3, [0.3, 0.5]);
`,
  });
  assert.equal(
    diagnosticsText(result),
    `lib.ts:5:24: error NABLA116: 'hessian' of a function value takes no options: it differentiates with respect to every parameter
  4 |   const g = gradient(f)(x);
> 5 |   const h = hessian(f, { backend: "wasm" })(x);
    |                        ^^^^^^^^^^^^^^^^^^^

1 error`,
  );
});

test("recursive local functions destructuring their parameters ('({ v, kids }: T)', '([c, ...rest], t, { scale } = …)', '([a, b]: [number, number])') (was NABLA101 'must be a plain function with simple parameters', whose help said patterns were fine)", async () => {
  await checkAgainstPlain(`
type T = { v: number; kids: T[] };
export function f(x: number, y: number): number {
  const sum = ({ v, kids }: T): number => v + kids.reduce((s, k) => s + sum(k), 0) * y;
  const horner = ([c, ...rest]: number[], t: number, { scale } = { scale: y }): number =>
    rest.length === 0 ? c * scale : c * scale + t * horner(rest, t);
  const go = ([a, b]: [number, number], n: number): number =>
    n === 0 ? a * b : go([b, a + b * x], n - 1);
  return (
    sum({ v: x, kids: [{ v: y, kids: [] }, { v: x * y, kids: [{ v: 1, kids: [] }] }] }) +
    horner([x, y, 2, x * y], x - y) +
    horner([1, x], y, { scale: 2 }) +
    go([x, y], 5)
  );
}`);
});

test("a recursive local function writing a captured array it reads, called twice, and one reading a 'let' the enclosing loop reassigns between calls, in JavaScript and WebAssembly", async () => {
  const body = `
export function f(x: number, y: number): number {
  const a = [x, y, x * y, x - y, 2];
  const smooth = (i: number): void => {
    if (i >= a.length - 1) return;
    a[i + 1] = 0.5 * (a[i] + a[i + 1]) * y;
    smooth(i + 1);
  };
  smooth(0);
  smooth(2);
  let total = 0;
  let scale = x;
  const deep = (n: number, k = 1): number => (n === 0 ? scale * k : scale * deep(n - 1) + y);
  for (let i = 1; i < 4; i++) {
    total += deep(i);
    scale = scale * y + 0.1;
  }
  return a.reduce((s, v) => s + v * v, 0) + total;
}`;
  await checkAgainstPlain(body);
  await checkAgainstPlain(body, undefined, "wasm");
});

for (const [keeps, emits, type] of [
  [
    "this.listeners.push({ fn: l });",
    "for (const e of this.listeners) e.fn(v);",
    "{ fn: Listener }",
  ],
  ["this.listeners = [...this.listeners, l];", "for (const m of this.listeners) m(v);", "Listener"],
  ["this.listeners.push((v) => l(v));", "for (const m of this.listeners) m(v);", "Listener"],
  ["this.listeners.push(l as Listener);", "for (const m of this.listeners) m(v);", "Listener"],
]) {
  test(`a function passed to a method that keeps it in data as '${keeps}' is refused at the call (was a warning that the derivative is always zero, and 'is not a function' at run time)`, () => {
    const text = diagnosticsText(
      compileFiles({
        "main.ts": `import { gradient } from "nabla";
type Listener = (v: number) => void;
class Signal {
  private listeners: (${type})[] = [];
  subscribe(l: Listener): void {
    ${keeps}
  }
  emit(v: number): void {
    ${emits}
  }
}
export function f(x: number): number {
  const s = new Signal();
  let sum = 0;
  s.subscribe((v) => {
    sum += v * v * x;
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
      /^main\.ts:15:15: error NABLA112: 'Signal\.subscribe' keeps the function given for its parameter 'l' in data/,
    );
    assert.match(text, /\n1 error$/);
  });
}

test("a constructor keeping a number it computes with the function given ('this.area = integrate(f, 0, 1)') is not taken for one keeping the function", async () => {
  await checkAgainstPlain(`
type F = (t: number) => number;
function integrate(f: F, a: number, b: number): number {
  let s = 0;
  const n = 8;
  for (let i = 0; i < n; i++) s += f(a + ((i + 0.5) * (b - a)) / n);
  return (s * (b - a)) / n;
}
class Region {
  area: number;
  constructor(f: F, public scale: number) {
    this.area = integrate(f, 0, 1) * scale;
  }
}
export function f(x: number, y: number): number {
  return new Region((t) => Math.sin(t * x) * y, y).area;
}`);
});

test("operators on a function parameter typed by a type parameter ('loss: T' of 'T extends Loss') in plain code, as a generic solver writes them (was NABLA108 'a variable holding a function value, which nabla cannot follow')", async () => {
  const m = await loadProgram<{ run: () => number[] }>({
    "solvers.ts": `import { derivative, gradient, hessian } from "nabla";
export type Loss = (p: number[]) => number;
export function curvature<T extends Loss>(loss: T, p: number[]): number[][] {
  return hessian(loss)(p);
}
export function descend<F extends (p: number[]) => number>(f: F, p: number[]): number[] {
  const g = gradient(f)(p);
  return p.map((v, i) => v - 0.5 * g[i]);
}
export function slope<F extends (t: number) => number>(f: F, t: number): number {
  return derivative((s: number) => f(s) * 2)(t);
}`,
    "main.ts": `import { curvature, descend, slope } from "./solvers.js";
const k = 3;
export function run(): number[] {
  const bowl = (p: number[]) => p[0] ** 4 + k * p[0] * p[1] + 2 * p[1] ** 2;
  return [
    ...curvature(bowl, [0.5, 1]).flat(),
    ...descend((p: number[]) => k * p[0] * p[1] + p[1] ** 2, [1, 2]),
    slope((t: number) => Math.sin(t), 0.5),
  ];
}`,
  });
  assert.deepEqual(m.run(), [3, 3, 3, 4, -2, -1.5, 2 * Math.cos(0.5)]);
});

test("a recursive local function passed on as a value ('applyTwice(rec, x)'), and called by a lambda passed on (was NABLA101 'a local function cannot pass itself on; recursive local functions are not supported')", async () => {
  await checkAgainstPlain(`
function applyTwice(g: (t: number) => number, t: number) {
  return g(g(t));
}
function integrate(g: (t: number) => number, a: number, b: number) {
  let s = 0;
  for (let i = 0; i < 4; i++) s += g(a + ((i + 0.5) * (b - a)) / 4);
  return (s * (b - a)) / 4;
}
export function f(x: number, y: number): number {
  const rec = (t: number): number => (t > 3 ? t * y : rec(t + 1) * x);
  const pw = (n: number, t: number): number => (n === 0 ? 1 : t * pw(n - 1, t));
  return applyTwice(rec, x) + integrate((t) => pw(3, t * x) + y * t, 0, y);
}`);
});
