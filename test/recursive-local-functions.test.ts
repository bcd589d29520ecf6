import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText } from "./support/harness.js";
import { checkAgainstPlain } from "./support/two-ways.js";

// Local functions that call themselves, as code walking a tree or memoizing a recursion inside
// the function it serves writes them. A local function is otherwise inlined where it is called;
// one calling itself runs as a function of its own, given what it reads of the enclosing
// function (lower/function-values.ts, liftRecursiveLocal). They were NABLA101 ("recursive local
// functions are not supported"). Each program is checked against itself run as plain
// JavaScript (the value, to the bit), central differences, and forward against reverse mode.

test("a tree summed by a local arrow recursing through reduce, reading the enclosing function's parameter", async () => {
  await checkAgainstPlain(`
type Tree = { value: number; children?: Tree[] };
export function f(x: number, y: number): number {
  const tree: Tree = {
    value: x,
    children: [{ value: y }, { value: x * y, children: [{ value: 2 }, { value: Math.sin(x) }] }],
  };
  const total = (t: Tree): number =>
    t.value * y + (t.children ?? []).reduce((s, c) => s + total(c), 0);
  return total(tree) + total(tree.children![1]!);
}`);
});

test("a memoized recursion keeping its cache in a Map of the enclosing function", async () => {
  await checkAgainstPlain(`
export function f(x: number, y: number): number {
  const cache = new Map<number, number>();
  const fib = (n: number): number => {
    if (n < 2) return n === 0 ? y : x;
    const hit = cache.get(n);
    if (hit !== undefined) return hit;
    const v = fib(n - 1) + 0.5 * y * fib(n - 2);
    cache.set(n, v);
    return v;
  };
  return fib(12) / 100;
}`);
});

test("a local function declaration recursing with a depth, and a captured 'let' reassigned between calls", async () => {
  await checkAgainstPlain(`
interface Node2 { w: number; left?: Node2; right?: Node2 }
export function f(x: number, y: number): number {
  let decay = 0.5 * x;
  function weigh(n: Node2 | undefined, depth: number): number {
    if (!n) return 0;
    return n.w * decay ** depth + weigh(n.left, depth + 1) + weigh(n.right, depth + 1);
  }
  const root: Node2 = { w: y, left: { w: x, right: { w: x * y } }, right: { w: 1 } };
  const first = weigh(root, 0);
  decay = y;
  return first + weigh(root, 1);
}`);
});

test("a recursive local function counting its calls in a captured 'let', and one passed to map by name", async () => {
  await checkAgainstPlain(`
type Expr = { op: "num"; v: number } | { op: "add" | "mul"; args: Expr[] };
export function f(x: number, y: number): number {
  let visited = 0;
  const evaluate = (e: Expr): number => {
    visited++;
    if (e.op === "num") return e.v;
    const values = e.args.map(evaluate);
    return e.op === "add" ? values.reduce((a, b) => a + b, 0) : values.reduce((a, b) => a * b, 1);
  };
  const e: Expr = {
    op: "add",
    args: [{ op: "num", v: x }, { op: "mul", args: [{ op: "num", v: y }, { op: "num", v: x }, { op: "num", v: 3 }] }],
  };
  const r = evaluate(e);
  return r * visited;
}`);
});

test("a recursive local arrow in WebAssembly", async () => {
  await checkAgainstPlain(
    `
export function f(x: number, y: number): number {
  const xs = new Float64Array([x, y, x * y, 1.5, y - x]);
  const sum = (lo: number, hi: number): number => {
    if (hi - lo === 1) return xs[lo] * xs[lo];
    const mid = Math.floor((lo + hi) / 2);
    return sum(lo, mid) + sum(mid, hi);
  };
  return sum(0, xs.length);
}`,
    undefined,
    "wasm",
  );
});

test("a recursive local function declaration assigning the enclosing function's 'let's, only ever called", async () => {
  // Run as a function of its own, it writes them through cells (lower/cells.ts), as a closure
  // passed on does: it was NABLA112 "this function is passed to another function".
  await checkAgainstPlain(`
type Tree = { value: number; children?: Tree[] };
export function f(x: number, y: number): number {
  const tree: Tree = { value: x, children: [{ value: y }, { value: x * y, children: [{ value: 2 }] }] };
  let count = 0;
  let acc = 0;
  function walk(t: Tree): void {
    count++;
    acc += t.value * count;
    for (const c of t.children ?? []) walk(c);
  }
  walk(tree);
  return acc * count;
}`);
});

test("a recursive local function with a defaulted depth ('function walk(n, depth = 0)') or an optional one ('n?: number'), called with and without it, in JavaScript and WebAssembly (was NABLA101 'must be a plain function with simple parameters', whose help said defaults were fine)", async () => {
  // Found by the idioms fuzzer (recursive-locals).
  const body = `
type Tree = { value: number; children?: Tree[] };
export function f(x: number, y: number): number {
  const tree: Tree = { value: x, children: [{ value: y }, { value: x * y, children: [{ value: 2 }] }] };
  let count = 0;
  function visit(t: Tree, depth = 0, scale = y): void {
    count++;
    acc += t.value * scale ** depth;
    t.children?.forEach((c) => visit(c, depth + 1));
  }
  let acc = 0;
  visit(tree);
  visit(tree.children![1]!, 2, x);
  const refine = (v: number, depth = 3): number =>
    depth <= 0 ? v : refine(Math.tanh(v * 0.5 + x), depth - 1) * 0.7 + v;
  return acc * count + refine(y) + refine(x, 1);
}`;
  await checkAgainstPlain(body);
  // Given to map by name, it gets the index for its defaulted parameter, as in JavaScript.
  await checkAgainstPlain(`
type Tree = { value: number; children?: Tree[] };
export function f(x: number, y: number): number {
  const tree: Tree = { value: x, children: [{ value: y }, { value: x * y, children: [{ value: 2 }, { value: y }] }] };
  const walk = (t: Tree, depth = 0): number =>
    t.value * (depth + 1) + (t.children ?? []).map(walk).reduce((a, b) => a + b * 0.5, 0);
  return walk(tree);
}`);
  await checkAgainstPlain(
    `
export function f(x: number, y: number): number {
  function refine(v: number, depth = 3, k = x): number {
    if (depth <= 0) return v * k;
    return refine(Math.tanh(v * 0.5 + x), depth - 1) * 0.7 + v;
  }
  function halve(v: number, n?: number): number {
    const m = n ?? 2;
    return m <= 0 ? v : halve(Math.sin(v) * y, m - 1) + v;
  }
  return refine(y) + refine(x, 1, y) + halve(x) + halve(y, 1);
}`,
    undefined,
    "wasm",
  );
});

test("two local functions calling each other are still refused, with a message saying so", () => {
  const result = compileFiles({
    "main.ts": `import { gradient } from "nabla";
export function f(x: number): number {
  const even = (n: number): number => (n === 0 ? x : odd(n - 1) * x);
  const odd = (n: number): number => (n === 0 ? 1 : even(n - 1) + x);
  return even(4);
}
export const g = gradient(f);
`,
  });
  assert.equal(
    diagnosticsText(result),
    `main.ts:4:53: error NABLA101: the local function 'even' is called again by a local function it calls; local functions calling each other are not supported in differentiable code (one calling itself is)
  3 |   const even = (n: number): number => (n === 0 ? x : odd(n - 1) * x);
> 4 |   const odd = (n: number): number => (n === 0 ? 1 : even(n - 1) + x);
    |                                                     ^^^^^^^^^^^
help: declare them at the top level of the module, where functions may call each other, and pass them what they read of this function
main.ts:7:18: note: when differentiating 'f' for 'gradient'
> 7 | export const g = gradient(f);
    |                  ^^^^^^^^^^^

1 error`,
  );
});
