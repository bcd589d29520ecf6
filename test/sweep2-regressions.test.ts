import { test } from "node:test";
import {
  assertGradientTwoWays,
  loadProgram,
  type Differential,
  type Fn,
} from "./support/harness.js";

// Ordinary TypeScript a sweep of realistic programs found nabla refusing or getting wrong.
// Each function takes numbers; its gradient is checked against central differences and
// against forward mode along each coordinate.

interface Compiled {
  f: Fn;
  g: (...xs: number[]) => number[];
  d: Differential;
}

async function checkProgram(body: string, points: number[][]): Promise<void> {
  const m = await loadProgram<Compiled>({
    "main.ts": `import { differential, gradient } from "nabla";
${body}
export const g = gradient(f);
export const d = differential(f);
`,
  });
  for (const xs of points) assertGradientTwoWays("f", m.f, m.g(...xs), m.d, xs, 1e-6, 1e-12);
}

test("a generic helper whose type parameter only its function argument's result gives", async () => {
  await checkProgram(
    `
function zipWith<A, B, C>(a: readonly A[], b: readonly B[], fn: (x: A, y: B) => C): C[] {
  const n = Math.min(a.length, b.length);
  const out: C[] = [];
  for (let i = 0; i < n; i++) out.push(fn(a[i], b[i]));
  return out;
}
function sampleCurve<T>(n: number, fn: (t: number) => T): T[] {
  return Array.from({ length: n + 1 }, (_, i) => fn(i / n));
}
export function f(x: number, y: number, z: number): number {
  const products = zipWith([x, y], [y, z], (a, b) => a * b * b);
  const points = sampleCurve(3, (t) => ({ px: x * t, py: Math.sin(y * t) }));
  return products.reduce((s, p) => s + p, 0) + points.reduce((s, p) => s + p.px * p.py, 0);
}
`,
    [
      [0.7, -0.4, 1.3],
      [1.1, 0.9, -0.2],
    ],
  );
});

test("an array spread into arguments after a tuple type assertion", async () => {
  await checkProgram(
    `
function blend(a: number, b: number, c: number, t: number): number {
  return a * (1 - t) * (1 - t) + 2 * b * t * (1 - t) + c * t * t;
}
export function f(x: number, y: number, z: number): number {
  const weights = [x, y * x, z].map((v) => v * 2);
  return blend(...(weights as [number, number, number]), 0.3) +
    blend(...(weights.slice(1) as readonly [number, number]), x, y);
}
`,
    [
      [0.7, -0.4, 1.3],
      [1.1, 0.9, -0.2],
    ],
  );
});
