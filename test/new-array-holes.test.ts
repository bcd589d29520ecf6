import { test } from "node:test";
import assert from "node:assert/strict";
import {
  assertClose,
  centralDifference,
  compileFiles,
  diagnosticsText,
  loadProgram,
} from "./support/harness.js";

// `new Array(n)` makes n holes, which forEach, map, reduce… skip and a read gives as undefined.
// Derivative code used to make n zeros instead: a reduce over [x, hole, hole] gave the
// derivative of x·0·0. Now an array read before all its elements are written keeps its holes
// and a hole met is a RangeError naming the `new Array`, the same in both modes and both
// backends (such a function runs as JavaScript under backend "wasm"); an array filled in order
// by a counted loop before any read stays as it was: zeros overwritten, no check, WebAssembly.

interface Program {
  f: (x: number) => number;
  forward: (x: number) => number;
  reverse: (x: number) => number;
  pushforward: (x: number) => (dx: number) => number;
  pull: (x: number) => (seed: number) => number;
  forwardWasm: (x: number) => number;
  reverseWasm: (x: number) => number;
  wasmStats: { wasm: number; javascript: number };
}

/** Helpers every variant may call, then `f(x)` at line 16 with `body` from line 17 on. */
const HEADER = `import { derivative, differential, gradient, pullback } from "nabla";
export { wasmStats } from "nabla";
function total(xs: number[]): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i];
  return s;
}
function make(x: number): number[] {
  const a = new Array<number>(3);
  a[0] = x;
  return a;
}
function sum(xs: number[]): number {
  return xs.reduce((s, v) => s + v, 0);
}
`;

const OPERATORS = `
export const forward = derivative(f);
export const reverse = gradient(f);
export const pushforward = differential(f);
export const pull = pullback(f);
export const forwardWasm = derivative(f, { backend: "wasm" });
export const reverseWasm = gradient(f, { backend: "wasm" });
`;

function source(body: string): Record<string, string> {
  return { "main.ts": `${HEADER}export function f(x: number): number {\n${body}\n}\n${OPERATORS}` };
}

const compile = (body: string) => loadProgram<Program>(source(body));

/** How the messages name `new Array<number>(3)` at line 17, column 13 (f's first line; f is at 16:8). */
const MADE = "'new Array<number>(3)' at main.ts:17:13, which makes an array of holes";

function methodMessage(method: string, line: number, column: number, made = MADE): string {
  return (
    `nabla: '.${method}' at main.ts:${line}:${column} met a hole (an element never written, ` +
    `left by ${made}); JavaScript skips holes, nabla's derivative code does not. Write every ` +
    `element before the call, e.g. with push or fill.`
  );
}

function readMessage(shown: string, line: number, column: number): string {
  return (
    `nabla: ${shown} main.ts:${line}:${column} met a hole (an element never written, left by ` +
    `${MADE}); JavaScript reads undefined there, which nabla's derivative code has no ` +
    `derivative for. Write every element before reading it, e.g. with push or fill.`
  );
}

function handsOnMessage(who: string, hole: string, to: string, made = MADE): string {
  return (
    `nabla: ${who} hands on an array with a hole at ${hole}${to} (an element never written, ` +
    `left by ${made}); JavaScript's array methods skip holes and reading one gives ` +
    `undefined, nabla's derivative code does neither. Write every element, e.g. with push or fill.`
  );
}

/** Both modes, each through two operators, and both backends stop with `message`. */
function checkRefused(m: Program, x: number, message: string): void {
  const error = { name: "RangeError", message };
  assert.throws(() => m.forward(x), error, "derivative");
  assert.throws(() => m.pushforward(x)(1), error, "differential");
  assert.throws(() => m.reverse(x), error, "gradient");
  assert.throws(() => m.pull(x)(1), error, "pullback");
  const before = m.wasmStats.wasm;
  assert.throws(() => m.forwardWasm(x), error, "derivative, backend wasm");
  assert.throws(() => m.reverseWasm(x), error, "gradient, backend wasm");
  assert.equal(m.wasmStats.wasm, before, "no WebAssembly ran");
}

/** ∂f/∂x at x: central differences, forward against reverse, and both backends. */
function checkAt(m: Program, x: number): void {
  const expected = centralDifference(m.f, x);
  assert.ok(Number.isFinite(expected), "the program's own difference is finite");
  const reverse = m.reverse(x);
  assertClose(reverse, expected, 1e-6, `at ${x}: reverse mode, finite differences`);
  assertClose(m.forward(x), reverse, 1e-12, `at ${x}: forward mode against reverse`);
  assertClose(m.pushforward(x)(1), reverse, 1e-12, `at ${x}: differential`);
  assertClose(m.pull(x)(1), reverse, 1e-12, `at ${x}: pullback`);
  assertClose(m.forwardWasm(x), reverse, 1e-12, `at ${x}: forward mode, backend wasm`);
  assertClose(m.reverseWasm(x), reverse, 1e-12, `at ${x}: reverse mode, backend wasm`);
}

test("the reported program: reduce over new Array<number>(3) with one element written", async () => {
  const m = await compile(`  const a = new Array<number>(3);
  a[0] = x;
  return a.reduce((s, v) => s * v, 1);`);
  // JavaScript skips the holes: f(x) = x. Derivative code used to give 0 in both modes.
  assert.equal(m.f(2), 2);
  checkRefused(m, 2, methodMessage("reduce", 19, 10));
});

test("Array(3) and new Array(3) without a type argument: the same", async () => {
  for (const made of ["Array(3)", "new Array(3)"]) {
    const m = await compile(`  const a = ${made};
  a[0] = x;
  return a.reduce((s: number, v: number) => s * v, 1);`);
    assert.equal(m.f(2), 2, made);
    const named = `'${made}' at main.ts:17:13, which makes an array of holes`;
    checkRefused(m, 2, methodMessage("reduce", 19, 10, named));
  }
});

test("the methods that skip holes stop at one: map, forEach, filter, indexOf, some, every", async () => {
  const cases: [string, string, number, number][] = [
    ["map", "  return a.map((v) => v * v).length * x;", 19, 10],
    ["forEach", "  let s = 0;\n  a.forEach((v) => {\n    s += v;\n  });\n  return s;", 20, 3],
    ["filter", "  return a.filter((v) => v > 0).length * x;", 19, 10],
    ["indexOf", "  return (a.indexOf(5) + 1) * x;", 19, 11],
    ["some", "  return a.some((v) => v > 100) ? 0 : x;", 19, 10],
    ["every", "  return a.every((v) => v > 0) ? x : 2 * x;", 19, 10],
  ];
  for (const [method, rest, line, column] of cases) {
    const m = await compile(`  const a = new Array<number>(3);\n  a[0] = x;\n${rest}`);
    assert.ok(Number.isFinite(m.f(2)), `${method}: JavaScript gives a number`);
    checkRefused(m, 2, methodMessage(method, line, column));
  }
});

test("for…of, a direct read, Array.from and a spread meet the hole as they read it", async () => {
  const forOf = await compile(`  const a = new Array<number>(3);
  a[0] = x;
  let s = 0;
  for (const v of a) s += v;
  return s;`);
  assert.ok(Number.isNaN(forOf.f(2)), "JavaScript: undefined + number is NaN");
  checkRefused(forOf, 2, readMessage("the element read at", 20, 3));

  const read = await compile(`  const a = new Array<number>(3);
  a[0] = x;
  return a[0] * x + a[1];`);
  assert.ok(Number.isNaN(read.f(2)));
  checkRefused(read, 2, readMessage("'a[1]' at", 19, 21));

  const from = await compile(`  const a = new Array<number>(3);
  a[0] = x;
  const b = Array.from(a);
  return b[0] * x;`);
  assert.equal(from.f(2), 4);
  checkRefused(from, 2, readMessage("the element read at", 19, 13));

  // Math.max of a spread reads as a reduce over the array.
  const spread = await compile(`  const a = new Array<number>(3);
  a[0] = x;
  return Math.max(...a) + x;`);
  assert.ok(Number.isNaN(spread.f(2)));
  checkRefused(spread, 2, methodMessage("reduce", 19, 10));
});

test("join of an array with holes: refused as the array is handed to join", async () => {
  const m = await compile(`  const a = new Array<number>(3);
  a[0] = x;
  const text = a.join(",");
  return text === "" ? 0 : x * a[0];`);
  assert.equal(m.f(2), 4);
  // join is JavaScript's own, given the array as it is: looked through at the function's end.
  checkRefused(m, 2, handsOnMessage("'f' (main.ts:16:8)", "a[1]", ""));
});

test("an array with holes passed on or returned: refused where it leaves", async () => {
  const passed = await compile(`  const a = new Array<number>(3);
  a[0] = x;
  return total(a);`);
  assert.ok(Number.isNaN(passed.f(2)));
  checkRefused(
    passed,
    2,
    handsOnMessage("'f' (main.ts:16:8)", "a[1]", " to 'total' at main.ts:19:10"),
  );

  const returned = await compile("  return sum(make(x));");
  assert.equal(returned.f(2), 2);
  const made = "'new Array<number>(3)' at main.ts:9:13, which makes an array of holes";
  checkRefused(returned, 2, handsOnMessage("'make' (main.ts:8:1)", "a[1]", "", made));
});

test("a loop that reads ahead of its writes (a[i + 1]) is refused at the hole", async () => {
  const m = await compile(`  const a = new Array<number>(3);
  for (let i = 0; i < 3; i++) a[i] = x + a[i + 1];
  return a[0];`);
  assert.ok(Number.isNaN(m.f(2)));
  checkRefused(m, 2, readMessage("the element read at", 18, 42));
});

test("a loop that skips an element (continue) before the reduce: refused", async () => {
  const m = await compile(`  const a = new Array<number>(3);
  for (let i = 0; i < a.length; i++) {
    if (i === 1) continue;
    a[i] = x * x;
  }
  return a.reduce((s, v) => s + v, 0);`);
  assert.equal(m.f(2), 8);
  checkRefused(m, 2, methodMessage("reduce", 22, 10));
});

test("holes the program tests for (v ?? 0): JavaScript's answer, in both modes", async () => {
  const m = await compile(`  const a = new Array<number>(4);
  a[1] = x * x;
  a[3] = Math.sin(x);
  let s = 0;
  for (const v of a) s += v ?? 0;
  return s;`);
  assert.equal(m.f(0.7), 0.49 + Math.sin(0.7));
  checkAt(m, 0.7);
  checkAt(m, -1.3);
});

test("filled completely in another order (from the end, every other element): right", async () => {
  const back = await compile(`  const a = new Array<number>(4);
  for (let i = a.length - 1; i >= 0; i--) a[i] = Math.sin(x * (i + 1));
  return a.reduce((s, v) => s * v, 1) + a.map((v) => v * v).reduce((s, v) => s + v, 0);`);
  checkAt(back, 0.6);
  checkAt(back, -0.9);

  const strided = await compile(`  const a = new Array<number>(5);
  for (let i = 0; i < a.length; i += 2) a[i] = x * i;
  for (let i = 1; i < a.length; i += 2) a[i] = Math.exp(x / i);
  let s = 0;
  for (const v of a) s += v * v;
  return total(a) + s;`);
  checkAt(strided, 0.4);
});

interface Fills {
  wasmStats: { wasm: number; javascript: number };
  [name: string]: unknown;
}

/** The functions of the next test, each filling its `new Array` before reading it. */
const FILLED_IN_ORDER = [
  "counted",
  "prefix",
  "constants",
  "grid",
  "substitution",
  "piecewise",
  "filled",
  "fromLength",
];

test("written in order before any read: zero-filled, unchecked, right, and WebAssembly", async () => {
  const program = `import { differential, gradient } from "nabla";
export { wasmStats } from "nabla";
export function counted(x: number, n: number): number {
  const a = new Array<number>(n);
  for (let i = 0; i < n; i++) a[i] = Math.sin(x * (i + 1));
  return a.reduce((s, v) => s + v * v, 0);
}
export function prefix(x: number, n: number): number {
  const a = new Array(n);
  a[0] = x;
  for (let i = 1; i < a.length; i++) a[i] = a[i - 1] * x;
  let s = 0;
  for (const v of a) s += v;
  return s;
}
export function constants(x: number, n: number): number {
  const a = new Array<number>(3);
  a[0] = x;
  a[1] = x * x;
  a[2] = n;
  return a.reduce((s, v) => s * v, 1);
}
export function grid(x: number, n: number): number {
  const g: number[][] = new Array(n);
  for (let i = 0; i < n; i++) {
    const row = new Array<number>(n);
    for (let j = 0; j < n; j++) row[j] = Math.cos(x * (i + j));
    g[i] = row;
  }
  return g.reduce((s, row) => s + row.reduce((t, v) => t + v, 0), 0);
}
export function substitution(x: number, n: number): number {
  const b = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    let s = x + i;
    for (let j = 0; j < i; j++) s -= 0.5 * b[j] * x;
    b[i] = s;
  }
  return b.reduce((t, v) => t + v * v, 0);
}
export function piecewise(x: number, n: number): number {
  const a: number[] = new Array(n);
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) a[i] = x * x + i;
    else a[i] = Math.exp(x) - i;
  }
  return a.reduce((s, v) => s + v * v, 0);
}
export function filled(x: number, n: number): number {
  const a = new Array<number>(n).fill(x);
  return a.reduce((s, v) => s * v, 1);
}
export function fromLength(x: number, n: number): number {
  const a = Array.from({ length: n }, (_, i) => x * i);
  return a.reduce((s, v) => s + v * v, 0);
}
${FILLED_IN_ORDER.map(
  (name) => `export const ${name}Forward = differential(${name}, { wrt: [0], backend: "wasm" });
export const ${name}Reverse = gradient(${name}, { wrt: [0], backend: "wasm" });
export const ${name}ForwardJs = differential(${name}, { wrt: [0] });
export const ${name}ReverseJs = gradient(${name}, { wrt: [0] });`,
).join("\n")}
`;
  const compiled = compileFiles({ "main.ts": program });
  assert.equal(diagnosticsText(compiled), "", "no warning: every function runs as WebAssembly");
  const m = await loadProgram<Fills>({ "main.ts": program });
  type F = (x: number, n: number) => number;
  type D = (x: number, n: number) => (dx: number) => number;
  for (const name of FILLED_IN_ORDER) {
    const f = m[name] as F;
    for (const x of [0.7, -1.2]) {
      const n = 4;
      const what = `${name} at ${x}`;
      const expected = centralDifference((t) => f(t, n), x);
      const before = m.wasmStats.wasm;
      const reverse = (m[`${name}Reverse`] as F)(x, n);
      const forward = (m[`${name}Forward`] as D)(x, n)(1);
      assert.equal(m.wasmStats.wasm - before, 2, `${what}: both ran as WebAssembly`);
      assertClose(reverse, expected, 1e-6, `${what}: reverse mode, finite differences`);
      assertClose(forward, reverse, 1e-12, `${what}: forward mode against reverse`);
      assertClose(
        (m[`${name}ReverseJs`] as F)(x, n),
        reverse,
        1e-12,
        `${what}: JavaScript reverse`,
      );
      assertClose(
        (m[`${name}ForwardJs`] as D)(x, n)(1),
        reverse,
        1e-12,
        `${what}: JavaScript forward`,
      );
    }
  }
});

test("the generated code of a counted fill: the zero-filled allocation, no hole check", () => {
  const compiled = compileFiles({
    "main.ts": `import { gradient } from "nabla";
export function f(x: number, n: number): number {
  const a = new Array<number>(n);
  for (let i = 0; i < n; i++) a[i] = x * i;
  return a.reduce((s, v) => s + v * v, 0);
}
export const g = gradient(f, { wrt: [0] });
`,
  });
  const code = [...compiled.outputs.values()].map((o) => o.code).join("\n");
  assert.ok(!code.includes("met a hole"), "no hole check");
  assert.ok(code.includes("new Array(n).fill(0)"), "the derivative code's zero-filled array");
});

test("under backend wasm, a function keeping its holes says why it runs as JavaScript", () => {
  const compiled = compileFiles(
    source(`  const a = new Array<number>(3);
  a[0] = x;
  return a.reduce((s, v) => s * v, 1);`),
  );
  const text = diagnosticsText(compiled);
  assert.match(
    text,
    /warning NABLA202: 'derivative' runs as JavaScript, not WebAssembly: 'new Array\(n\)' read before all its elements are written \(its holes\) in 'f'/,
  );
});

test("new Array(xs.length) filled while i < xs.length, after a call that pops xs: refused", async () => {
  const m = await loadProgram<{
    f: (xs: number[]) => number;
    reverse: (xs: number[]) => number[];
    forward: (xs: number[]) => (dxs: number[]) => number;
  }>({
    "main.ts": `import { differential, gradient } from "nabla";
function dropLast(xs: number[]): void {
  xs.pop();
}
export function f(xs: number[]): number {
  const a = new Array(xs.length);
  dropLast(xs);
  for (let i = 0; i < xs.length; i++) a[i] = xs[i] * xs[i];
  return a.reduce((s, v) => s + v, 0);
}
export const reverse = gradient(f);
export const forward = differential(f);
`,
  });
  assert.equal(m.f([1, 2, 3]), 5, "JavaScript skips the hole left at a[2]");
  const made = "'new Array(xs.length)' at main.ts:6:13, which makes an array of holes";
  const error = { name: "RangeError", message: methodMessage("reduce", 9, 10, made) };
  assert.throws(() => m.reverse([1, 2, 3]), error);
  assert.throws(() => m.forward([1, 2, 3])([1, 0, 0]), error);
});

test("second order: the same RangeError; an array filled from its end, right", async () => {
  const m = await loadProgram<{
    f: (x: number) => number;
    h: (x: number) => number;
    d2f: (x: number) => number;
    d2h: (x: number) => number;
    hh: (xs: number[]) => number[][];
  }>({
    "main.ts": `import { derivative, hessian } from "nabla";
export function f(x: number): number {
  const a = new Array<number>(3);
  a[0] = x;
  return a.reduce((s, v) => s * v, 1);
}
export function h(x: number): number {
  const a = new Array<number>(4);
  for (let i = a.length - 1; i >= 0; i--) a[i] = Math.sin(x * (i + 1));
  return a.reduce((s, v) => s * v, 1);
}
export const d2f = derivative(derivative(f));
export const d2h = derivative(derivative(h));
export const hh = hessian((xs: number[]) => h(xs[0]));
`,
  });
  const made = "'new Array<number>(3)' at main.ts:3:13, which makes an array of holes";
  assert.throws(() => m.d2f(2), {
    name: "RangeError",
    message: methodMessage("reduce", 5, 10, made),
  });
  for (const x of [0.7, -0.4]) {
    const second = centralDifference((t) => centralDifference(m.h, t, 1e-4), x, 1e-4);
    assertClose(m.d2h(x), second, 1e-5, `at ${x}: forward over forward, second differences`);
    assertClose(
      m.hh([x])[0]![0]!,
      m.d2h(x),
      1e-12,
      `at ${x}: hessian against forward over forward`,
    );
  }
});
