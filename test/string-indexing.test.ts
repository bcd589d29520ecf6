import { test } from "node:test";
import assert from "node:assert/strict";
import { assertClose, centralDifference, loadProgram } from "./support/harness.js";

// `name[0]`, `pattern[i]`: a character of a string, read by index, was refused (NABLA101).
// It is text with no derivative, and undefined past the end as in JavaScript (TypeScript
// types it `string`, so a program may test it against undefined or default it with `??`).

interface Program {
  f: (x: number, pattern: string) => number;
  reverse: (x: number, pattern: string) => number;
  pushforward: (x: number, pattern: string) => (dx: number) => number;
  reverseWasm: (x: number, pattern: string) => number;
  pushforwardWasm: (x: number, pattern: string) => (dx: number) => number;
}

test("a string's characters read by index steer the computation, in both modes and backends", async () => {
  const m = await loadProgram<Program>({
    "main.ts": `import { differential, gradient } from "nabla";
export function f(x: number, pattern: string): number {
  let total = 0;
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === "1") total += x * (i + 1);
    else total -= Math.sin(x);
  }
  const past = pattern[pattern.length] ?? "none";
  const initial = pattern[0]?.toUpperCase();
  const first = initial === "A" ? x * x : 0;
  return total + (past === "none" ? 1 : 0) + first + (pattern[-1] === undefined ? x : 0);
}
export const reverse = gradient(f);
export const pushforward = differential(f);
export const reverseWasm = gradient(f, { backend: "wasm" });
export const pushforwardWasm = differential(f, { backend: "wasm" });
`,
  });
  for (const pattern of ["1011", "a01", ""]) {
    const expected = centralDifference((x) => m.f(x, pattern), 0.7);
    assert.ok(Number.isFinite(expected), pattern);
    const reverse = m.reverse(0.7, pattern);
    assertClose(reverse, expected, 1e-6, `'${pattern}': reverse mode, finite differences`);
    const forward = m.pushforward(0.7, pattern)(1);
    assertClose(forward, reverse, 1e-12, `'${pattern}': forward against reverse`);
    assertClose(m.pushforwardWasm(0.7, pattern)(1), reverse, 1e-12, `'${pattern}': forward, wasm`);
    assertClose(m.reverseWasm(0.7, pattern), reverse, 1e-12, `'${pattern}': reverse, wasm`);
  }
});

test("a character read by index inside the differentiated function's own string", async () => {
  const m = await loadProgram<{ g: (x: number) => number; dg: (x: number) => number }>({
    "main.ts": `import { derivative } from "nabla";
export function g(x: number): number {
  const label = x > 0 ? "positive" : "negative";
  return label[0] === "p" ? x * x : -x;
}
export const dg = derivative(g);
`,
  });
  assertClose(m.dg(1.5), 3, 1e-12, "x > 0");
  assertClose(m.dg(-1.5), -1, 1e-12, "x < 0");
});
