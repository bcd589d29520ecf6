import assert from "node:assert/strict";
import { test } from "node:test";
import {
  assertGradientTwoWays,
  loadProgram,
  type Differential,
  type Fn,
} from "./support/harness.js";

// Ordinary numeric TypeScript a front end must take as JavaScript runs it: built-in functions
// as callbacks, `sort()` without a comparator, getters of object literals, deep copies. Each
// `f` takes numbers; its value is checked against the plain function's, its gradient against
// central differences and against forward mode along each coordinate.

interface Compiled {
  f: Fn;
  g: (...xs: number[]) => number[];
  d: Differential;
}

async function checkProgram(body: string, points: number[][]): Promise<void> {
  const m = await loadProgram<Compiled & { value: Fn }>({
    "main.ts": `import { differential, gradient } from "nabla";
${body}
export const g = gradient(f);
export const d = differential(f);
`,
  });
  for (const xs of points) {
    assert.equal(m.d(...xs)(...xs.map(() => 0)), 0, `f at ${xs}: a zero tangent`);
    assertGradientTwoWays("f", m.f, m.g(...xs), m.d, xs, 1e-6, 1e-12);
  }
}

test("'.sort()' without a comparator orders numbers as text, as JavaScript does, derivatives moving with them", async () => {
  await checkProgram(
    `
function median(values: number[]): number {
  const sorted = values.slice().sort();
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
export function f(a: number, b: number, c: number): number {
  const weights = [a * 10, b, c * c, 0.5];
  const ranked = weights.toSorted();
  const picked = new Float64Array([a, b, c, -c]);
  picked.sort();
  let s = median([a, b, c]) + median(weights);
  ranked.forEach((w, i) => (s += w * (i + 1)));
  picked.forEach((w, i) => (s += w * (i + 3)));
  return s;
}
`,
    [
      [1.1, 8.5, 3],
      [0.7, -2.5, 1.3],
      [-0.2, 12, 2.9],
    ],
  );
});

test("'.sort()' without a comparator: the permutation is JavaScript's ([10, 9, 1] gives [1, 10, 9])", async () => {
  const m = await loadProgram<{ g: (xs: number[]) => number[]; plain: (xs: number[]) => number }>({
    "main.ts": `import { gradient } from "nabla";
function positional(xs: number[]): number {
  const s = [...xs].sort();
  return s.reduce((acc, v, i) => acc + v * (i + 1), 0);
}
export const plain = positional;
export const g = gradient(positional);
`,
  });
  // Each value's derivative is its place (1-based) in JavaScript's order.
  for (const xs of [
    [10, 9, 1],
    [-1, 2, -0.5, 100, 25],
    [1e21, 3, 2e-7, 0.4],
  ]) {
    const order = [...xs].sort();
    assert.deepEqual(
      m.g(xs),
      xs.map((x) => order.indexOf(x) + 1),
      `at ${xs}`,
    );
  }
});
