import assert from "node:assert/strict";
import { assertClose, centralDifference, loadProgram } from "./harness.js";

// What the tests of writes outside arrays and of holes share (test/out-of-bounds-writes.test.ts,
// test/holes-across-calls.test.ts): a program `f(x, k)` differentiated in x by each mode and
// backend, and the check that all four agree with central differences.

export interface Program {
  f: (x: number, k: number) => number;
  forward: (x: number, k: number) => (dx: number) => number;
  reverse: (x: number, k: number) => number;
  forwardWasm: (x: number, k: number) => (dx: number) => number;
  reverseWasm: (x: number, k: number) => number;
}

/** `f(x, k)` differentiated in x by each mode and backend. */
export async function compile(source: string): Promise<Program> {
  return loadProgram<Program>({
    "main.ts": `import { differential, gradient } from "nabla";
${source}
export const forward = differential(f, { wrt: [0] });
export const reverse = gradient(f, { wrt: [0] });
export const forwardWasm = differential(f, { wrt: [0], backend: "wasm" });
export const reverseWasm = gradient(f, { wrt: [0], backend: "wasm" });
`,
  });
}

/** ∂f/∂x at (x, k) by both modes and backends, against central differences and each other. */
export function checkAt(m: Program, x: number, k = 0): void {
  const what = `at x = ${x}, k = ${k}`;
  const expected = centralDifference((t) => m.f(t, k), x);
  assert.ok(Number.isFinite(expected), `${what}: the program's own difference is finite`);
  const reverse = m.reverse(x, k);
  assertClose(reverse, expected, 1e-6, `${what}: reverse mode, finite differences`);
  assertClose(m.forward(x, k)(1), reverse, 1e-12, `${what}: forward mode against reverse`);
  assertClose(m.reverseWasm(x, k), reverse, 1e-12, `${what}: wasm reverse mode`);
  assertClose(m.forwardWasm(x, k)(1), reverse, 1e-12, `${what}: wasm forward mode`);
}
