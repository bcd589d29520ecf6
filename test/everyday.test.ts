import assert from "node:assert/strict";
import { test } from "node:test";
import { assertClose, finiteGradient, loadProgram } from "./support/harness.js";

// Everyday syntax inside differentiated code, each construct in a program written as
// TypeScript developers write it, checked against central differences and forward mode
// against reverse mode.

interface Compiled {
  f: (x: number, y: number) => number;
  vg: (x: number, y: number) => { value: number; gradient: [number, number] };
  d: (x: number, y: number) => (dx: number, dy: number) => number;
}

/** `exact`: nabla's values are the plain program's to the bit (else to 1e-14 relative). */
async function checkTwoWays(body: string, points: [number, number][], exact = true): Promise<void> {
  const m = await loadProgram<Compiled>({
    "main.ts": `import { differential, valueWithGradient } from "nabla";
${body}
export const vg = valueWithGradient(f);
export const d = differential(f);
`,
  });
  for (const [x, y] of points) {
    const { value, gradient } = m.vg(x, y);
    if (exact) assert.equal(value, m.f(x, y));
    else assertClose(value, m.f(x, y), 1e-14, "value");
    const expected = finiteGradient(m.f, [x, y]);
    gradient.forEach((g, i) => {
      assertClose(g, expected[i]!, 1e-6, `∂f/∂x${i} at (${x}, ${y}), finite differences`);
      assertClose(m.d(x, y)(i === 0 ? 1 : 0, i === 1 ? 1 : 0), g, 1e-12, "forward mode");
    });
  }
}

test("Math.max, Math.min and Math.hypot over spread arrays and tuples, with other arguments", async () => {
  await checkTwoWays(
    `export function f(x: number, y: number) {
  const xs = [x, y * 2, x * y];
  const v: [number, number, number] = [x, y, 1];
  const logits = xs.map((t) => t * t - y);
  const top = Math.max(...logits);
  return Math.max(...xs) + Math.min(0.5, ...xs, y) + Math.hypot(...v) + top + Math.log(Math.hypot(...xs, ...v));
}`,
    [
      [0.7, 1.3],
      [-0.4, 0.9],
    ],
    // Math.hypot over a spread is taken pairwise: its last digit may differ from one call's.
    false,
  );
});

test("filter and reduceRight, with destructured callback parameters", async () => {
  await checkTwoWays(
    `export function f(x: number, y: number) {
  const pts = [{ v: x, keep: true }, { v: y, keep: false }, { v: x * y, keep: true }];
  const kept = pts.filter(({ keep }) => keep).map((p) => p.v);
  const big = [x, y, 2, x * y].filter((t, i) => t > 0.5 && i < 3);
  const horner = [1, x, y, 0.5].reduceRight((acc, c) => acc * x + c, 0);
  const pairs: [number, number][] = [[x, y], [y, 2]];
  return kept.reduce((a, b) => a + b * b, 0) + big.length * y + big.reduce((a, b) => a + b, 0) +
    horner + pairs.map(([a, b]) => a * b).reduce((s, t) => s + t, 0);
}`,
    [
      [0.7, 1.3],
      [1.4, 0.2],
    ],
  );
});

test("text: template literals, '+' with a string, a number's toFixed, in values and messages", async () => {
  await checkTwoWays(
    `export function f(x: number, y: number) {
  const names = [x, y].map((_, i) => \`good\${i}\`);
  const label = "w" + names.length + (x > 1);
  if (x > 100) throw new Error(\`too big: \${x.toFixed(3)} for \${label}\`);
  return names[0] === "good0" && label === "w2false" ? x * y + Math.sin(x) : 0;
}`,
    [
      [0.7, 1.3],
      [0.2, -0.5],
    ],
  );
});

test("flat: the rows of an array of arrays, in order", async () => {
  await checkTwoWays(
    `export function f(x: number, y: number) {
  const rows = [[x, y], [x * y], [2, Math.sin(x)]];
  const all = rows.flat();
  return all.reduce((s, v, i) => s + v * (i + 1), 0) * all.length;
}`,
    [
      [0.7, 1.3],
      [-0.2, 0.5],
    ],
  );
});
