import { test } from "node:test";
import assert from "node:assert/strict";
import { assertClose, centralDifference, loadProgram } from "./support/harness.js";
import { checkTwoWays } from "./support/two-ways.js";

// `xs.map((v, i, arr) => { …; arr.pop(); … })`: JavaScript does not visit the elements the
// callback removed before their turn and leaves holes in the result there. nabla visited them
// as undefined: NaN in the result, and a reverse-mode gradient counting them. Now the result
// keeps those holes: reading one, or a method meeting one, is a RangeError naming the map, in
// both modes and both backends; a program that never meets them gets JavaScript's numbers.

interface Program {
  f: (x: number) => number;
  forward: (x: number) => number;
  reverse: (x: number) => number;
  forwardWasm: (x: number) => number;
  reverseWasm: (x: number) => number;
}

const compile = (body: string) =>
  loadProgram<Program>({
    "main.ts": `import { derivative, gradient } from "nabla";
export function f(x: number): number {
${body}
}
export const forward = derivative(f);
export const reverse = gradient(f);
export const forwardWasm = derivative(f, { backend: "wasm" });
export const reverseWasm = gradient(f, { backend: "wasm" });
`,
  });

test("a map whose callback pops the array it maps: the elements removed become holes, never read", async () => {
  // ys is [2x, 2y, hole]: its length is 3, for…of gives the hole as undefined.
  await checkTwoWays(`export function f(x: number, y: number): number {
  const xs = [x, y, x * y];
  const ys = xs.map((v, i, arr) => {
    if (i === 0) arr.pop();
    return v * 2;
  });
  let product = 1;
  for (const v of ys) product *= v ?? 1;
  return product + ys[0] + ys.length;
}`);
});

test("a map whose callback pops another array (a stack) still maps every element", async () => {
  await checkTwoWays(`export function f(x: number, y: number): number {
  const stack = [y, x, y * y];
  const scaled = [x, y, x + y].map((v) => v * (stack.pop() ?? 1));
  return scaled.reduce((s, v) => s + v, 0);
}`);
});

test("a hole a shortening map left, met by reduce or read, is a RangeError naming the map", async () => {
  const made =
    "'.map' at main.ts:4:14, whose callback shortens the array it maps: JavaScript leaves a " +
    "hole in its result for each element removed before its turn";
  const cases: [string, string][] = [
    [
      "  return ys.reduce((s, v) => s + v, 0);",
      `nabla: '.reduce' at main.ts:8:10 met a hole (an element never written, left by ${made}); ` +
        `JavaScript skips holes, nabla's derivative code does not. Write every element before ` +
        `the call, e.g. with push or fill.`,
    ],
    [
      "  return ys[0] + ys[2];",
      `nabla: 'ys[2]' at main.ts:8:18 met a hole (an element never written, left by ${made}); ` +
        `JavaScript reads undefined there, which nabla's derivative code has no derivative ` +
        `for. Write every element before reading it, e.g. with push or fill.`,
    ],
  ];
  for (const [last, message] of cases) {
    const m = await compile(`  const xs = [x, 2 * x, x * x];
  const ys = xs.map((v, i, arr) => {
    if (i === 0) arr.splice(1);
    return v * 3;
  });
${last}`);
    const error = { name: "RangeError", message };
    assert.throws(() => m.forward(1.5), error, "forward mode");
    assert.throws(() => m.reverse(1.5), error, "reverse mode");
    assert.throws(() => m.forwardWasm(1.5), error, "forward mode, backend wasm");
    assert.throws(() => m.reverseWasm(1.5), error, "reverse mode, backend wasm");
  }
});

test("a shortening map whose result is not read past what was visited: both backends agree", async () => {
  const m = await compile(`  const queue = [x, x * x, 3];
  const firsts = queue.map((v, i, arr) => {
    arr.length = 2;
    return Math.sin(v) + i;
  });
  return firsts[0] * firsts[1];`);
  const expected = centralDifference(m.f, 0.8);
  assertClose(m.reverse(0.8), expected, 1e-6, "reverse mode, finite differences");
  assertClose(m.forward(0.8), m.reverse(0.8), 1e-12, "forward mode against reverse");
  assertClose(m.forwardWasm(0.8), m.reverse(0.8), 1e-12, "forward mode, backend wasm");
  assertClose(m.reverseWasm(0.8), m.reverse(0.8), 1e-12, "reverse mode, backend wasm");
});

test("a callback shortening the array through a function it calls: a helper, a local function, a method, or passed by name", async () => {
  // They visited the removed elements as undefined (NaN, and a gradient counting them).
  await checkTwoWays(`function dropLast(a: number[]): void {
  a.pop();
}
function halve(v: number, i: number, arr: number[]): number {
  if (i === 0) arr.pop();
  return v / 2;
}
class Queue {
  drop(a: number[]): void {
    a.shift();
  }
}
export function f(x: number, y: number): number {
  const drop = (a: number[]) => {
    a.pop();
  };
  const q = new Queue();
  const a = [x, y, x * y, x + y].map((v, i, arr) => {
    if (i === 0) dropLast(arr);
    return v * 2;
  });
  const b = [x, y, x * y].map((v, i, arr) => {
    if (i === 0) drop(arr);
    return v * v;
  });
  const c = [y, x, x - y].map(halve);
  let s = 0;
  for (const v of a) s += v ?? 1000;
  for (const v of b) s += v ?? 100;
  for (const v of c) s += v ?? 10;
  [x, y, x * y].forEach((v, i, arr) => {
    if (i === 0) q.drop(arr);
    s += v * y;
  });
  return s;
}`);
});
