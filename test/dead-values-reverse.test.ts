import { test } from "node:test";
import assert from "node:assert/strict";
import { centralDifference, loadProgram } from "./support/harness.js";

// Values computed, then not used on the path taken: an early return, a `?:` that picked the
// other side, a branch of a loop body, an element of an array or a field of an object the
// function made and the path taken never read back. Where such a value is NaN or infinite (the square root
// or logarithm of a number out of range), reverse mode used to multiply its zero adjoint by a
// NaN partial and return NaN, where forward mode and finite differences give the derivative
// on the path taken. Each gradient here is checked against forward mode (exactly) and against
// central differences, with both backends.

const PROGRAM = (backend: string) => `import { gradient, differential } from "nabla";

export function earlyReturn(x: number, y: number): number {
  const spare = Math.sqrt(x - 10);
  if (y < 0) return y * y + x;
  return spare;
}

export function pickSide(x: number): number {
  return x > 0 ? Math.sqrt(x) : -x;
}

export function logOfPositives(xs: number[]): number {
  let total = 0;
  for (const v of xs) {
    const lg = Math.log(v);
    if (v > 0) total += lg;
    else total -= v * v;
  }
  return total;
}

export function weights(x: number, y: number): number {
  const w: Record<string, number> = { alpha: x, beta: 2 };
  delete w["alpha"];
  const copy = { ...w, beta: 3 };
  const unused = Math.tanh(copy.alpha * y);
  if (y < 0) return Math.exp(y) * copy.beta;
  return unused + x;
}

export function keptInArray(x: number, y: number): number {
  const parts = [Math.sqrt(x - 10), y];
  if (y < 0) return y * y;
  return parts[0];
}

export function pushedThenUnused(x: number, y: number): number {
  const logs: number[] = [];
  logs.push(Math.log(x - 10));
  logs[1] = Math.sqrt(x - 20);
  return y < 0 ? y * y * x : logs[0] + logs[1];
}

export function fieldUnused(x: number, y: number): number {
  const stats = { spread: 0, level: y };
  stats.spread = Math.sqrt(x - 10);
  return y < 0 ? stats.level * stats.level : stats.spread;
}

export function clampedDistance(a: number, b: number): number {
  const d = Math.sqrt(a * a - b * b);
  const r = a > b ? d : Math.log(b - a + 1);
  return r * 2;
}

export const grads = {
  earlyReturn: gradient(earlyReturn, { wrt: [0, 1], backend: "${backend}" }),
  pickSide: gradient(pickSide, { backend: "${backend}" }),
  logOfPositives: gradient(logOfPositives, { backend: "${backend}" }),
  // A Record stays JavaScript under either backend.
  weights: gradient(weights, { wrt: [0, 1] }),
  clampedDistance: gradient(clampedDistance, { wrt: [0, 1], backend: "${backend}" }),
  keptInArray: gradient(keptInArray, { wrt: [0, 1], backend: "${backend}" }),
  pushedThenUnused: gradient(pushedThenUnused, { wrt: [0, 1], backend: "${backend}" }),
  fieldUnused: gradient(fieldUnused, { wrt: [0, 1], backend: "${backend}" }),
};
export const diffs = {
  earlyReturn: differential(earlyReturn, { wrt: [0, 1] }),
  pickSide: differential(pickSide),
  weights: differential(weights, { wrt: [0, 1] }),
  clampedDistance: differential(clampedDistance, { wrt: [0, 1] }),
  keptInArray: differential(keptInArray, { wrt: [0, 1] }),
  pushedThenUnused: differential(pushedThenUnused, { wrt: [0, 1] }),
  fieldUnused: differential(fieldUnused, { wrt: [0, 1] }),
};
`;

type Fn = (...args: never[]) => unknown;
interface Program {
  earlyReturn: (x: number, y: number) => number;
  pickSide: (x: number) => number;
  logOfPositives: (xs: number[]) => number;
  weights: (x: number, y: number) => number;
  clampedDistance: (a: number, b: number) => number;
  keptInArray: (x: number, y: number) => number;
  pushedThenUnused: (x: number, y: number) => number;
  fieldUnused: (x: number, y: number) => number;
  grads: Record<string, Fn>;
  diffs: Record<string, (...xs: number[]) => (...ts: number[]) => number>;
}

function close(actual: number, expected: number, what: string): void {
  assert.ok(
    Number.isFinite(actual) &&
      Math.abs(actual - expected) <= 1e-6 * Math.max(1, Math.abs(expected)),
    `${what}: ${actual}, expected ${expected}`,
  );
}

for (const backend of ["js", "wasm"]) {
  test(`values unused on the path taken do not turn reverse mode's gradient into NaN (backend ${backend})`, async () => {
    const m = await loadProgram<Program>({ "main.ts": PROGRAM(backend) });
    const two: [keyof Program & keyof Program["diffs"], number, number][] = [
      ["earlyReturn", 0.5, -1],
      ["weights", 0.5, -1],
      ["clampedDistance", 1, 3],
      ["clampedDistance", 3, 1],
      ["keptInArray", 0.5, -1],
      ["pushedThenUnused", 0.5, -1],
      ["fieldUnused", 0.5, -1],
    ];
    for (const [name, x, y] of two) {
      const f = m[name] as (x: number, y: number) => number;
      const g = (m.grads[name] as (x: number, y: number) => number[])(x, y);
      const d = m.diffs[name]!(x, y);
      const fd = [centralDifference((t) => f(t, y), x), centralDifference((t) => f(x, t), y)];
      [d(1, 0), d(0, 1)].forEach((forward, k) => {
        // Equal as numbers (a zero may come out as -0 one way and 0 the other).
        assert.ok(
          g[k] === forward,
          `${name}(${x}, ${y}): ∂${k} reverse ${g[k]}, forward ${forward}`,
        );
        close(g[k]!, fd[k]!, `${name}(${x}, ${y}): ∂${k} against central differences`);
      });
    }
    const picked = (m.grads.pickSide as (x: number) => number)(-4);
    assert.equal(picked, m.diffs.pickSide!(-4)(1));
    assert.equal(picked, -1);
    const xs = [1, -2, 3];
    const g = (m.grads.logOfPositives as (xs: number[]) => number[])(xs);
    xs.forEach((v, i) =>
      close(
        g[i]!,
        centralDifference((t) => m.logOfPositives(xs.map((u, j) => (j === i ? t : u))), v),
        `logOfPositives: element ${i}`,
      ),
    );
  });
}
