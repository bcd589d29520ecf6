import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { compileFiles, diagnosticsText, importCompiled } from "./support/harness.js";
import { randomProgram } from "./support/random-program.js";
import { join } from "node:path";

// Random programs (branches, loops with break/continue, early returns, helper calls): the
// compiler must accept every one, forward and reverse mode must agree with finite differences
// wherever the function is smooth, and with each other everywhere (the dot-product identity
// ⟨J·v, w⟩ = ⟨v, Jᵀ·w⟩). Set NABLA_SEED to explore other programs.

const seed = Number(process.env.NABLA_SEED ?? 20261122);
const seeds = [...new Set(fc.sample(fc.integer({ min: 1, max: 2 ** 30 }), { numRuns: 60, seed }))];
const programs = seeds.map(randomProgram);

type Jvp = (x: number, y: number) => (dx: number, dy: number) => number;
type Primal = (x: number, y: number) => number;
type Gradient = (x: number, y: number) => [number, number];

const source = [
  `import { differential, gradient } from "nabla";`,
  ...programs.map((p) => p.source),
  `export const jvps = { ${programs.map((p) => `${p.name}: differential(${p.name})`).join(", ")} };`,
  `export const gradients = { ${programs.map((p) => `${p.name}: gradient(${p.name})`).join(", ")} };`,
  `export const primals = { ${programs.map((p) => p.name).join(", ")} };`,
].join("\n\n");

/**
 * The central difference at t, or undefined when f is not smooth near t: when differences at
 * two step sizes, or one-sided differences from the left and the right, disagree (a kink of
 * `Math.abs` or a branch boundary within the step).
 */
function smoothDerivative(f: (t: number) => number, t: number): number | undefined {
  const central = (h: number) => (f(t + h) - f(t - h)) / (2 * h);
  const fine = central(1e-6);
  const agree = (a: number, b: number, tolerance: number) =>
    Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(fine));
  // One-sided slopes must agree more closely than the comparison tolerance, or a small kink
  // (|y| with a tiny coefficient) would pass for a smooth point.
  const h = 1e-7;
  const left = (f(t) - f(t - h)) / h;
  const right = (f(t + h) - f(t)) / h;
  if (!Number.isFinite(fine) || !agree(central(1e-4), fine, 1e-3) || !agree(left, right, 2e-5))
    return undefined;
  return fine;
}

test(`compiles ${programs.length} random programs without errors (seed ${seed})`, () => {
  const result = compileFiles({ "main.ts": source });
  const errors = result.diagnostics.filter((d) => d.severity === "error");
  assert.equal(errors.length, 0, diagnosticsText(result));
});

test("forward mode agrees with finite differences on every random program", async () => {
  const { dir } = compileFiles({ "main.ts": source });
  const m = await importCompiled<{ jvps: Record<string, Jvp>; primals: Record<string, Primal> }>(
    join(dir, "main.ts"),
  );
  let checked = 0;
  for (const p of programs) {
    const coordinate = fc.double({ min: -2, max: 2, noNaN: true });
    const points = fc.sample(fc.tuple(coordinate, coordinate), { numRuns: 6, seed: p.seed });
    for (const [x, y] of points) {
      const primal = m.primals[p.name]!;
      const jvp = m.jvps[p.name]!(x, y);
      const expected = [
        smoothDerivative((t) => primal(t, y), x),
        smoothDerivative((t) => primal(x, t), y),
      ];
      const actual = [jvp(1, 0), jvp(0, 1)];
      expected.forEach((e, i) => {
        if (e === undefined) return;
        checked++;
        const ok = Math.abs(actual[i]! - e) <= 1e-4 * Math.max(1, Math.abs(e));
        assert.ok(
          ok,
          `seed ${p.seed} at (${x}, ${y}), d/d${i ? "y" : "x"}: forward ${actual[i]}, finite differences ${e}\n${p.source}`,
        );
      });
    }
  }
  assert.ok(checked > programs.length * 6, `too few smooth points checked (${checked})`);
});

test("reverse mode agrees with finite differences and with forward mode on every random program", async () => {
  const { dir } = compileFiles({ "main.ts": source });
  const m = await importCompiled<{
    jvps: Record<string, Jvp>;
    gradients: Record<string, Gradient>;
    primals: Record<string, Primal>;
  }>(join(dir, "main.ts"));
  let checked = 0;
  for (const p of programs) {
    const coordinate = fc.double({ min: -2, max: 2, noNaN: true });
    const direction = fc.double({ min: -1, max: 1, noNaN: true });
    const samples = fc.sample(fc.tuple(coordinate, coordinate, direction, direction, direction), {
      numRuns: 6,
      seed: p.seed + 1,
    });
    for (const [x, y, vx, vy, w] of samples) {
      const primal = m.primals[p.name]!;
      const [gx, gy] = m.gradients[p.name]!(x, y);
      const where = `seed ${p.seed} at (${x}, ${y})`;
      // ⟨J·v, w⟩ = ⟨v, Jᵀ·w⟩, with Jᵀ·w = w·∇f for a scalar function.
      const forward = m.jvps[p.name]!(x, y)(vx, vy) * w;
      const reverse = vx * (w * gx) + vy * (w * gy);
      // Where an intermediate is NaN or infinite, 0·NaN makes the modes differ: not compared.
      const finite = Number.isFinite(forward) && Number.isFinite(reverse);
      assert.ok(
        !finite || Math.abs(forward - reverse) <= 1e-9 * Math.max(1, Math.abs(forward)),
        `${where}: ⟨J·v, w⟩ = ${forward} but ⟨v, Jᵀ·w⟩ = ${reverse}\n${p.source}`,
      );
      const expected = [
        smoothDerivative((t) => primal(t, y), x),
        smoothDerivative((t) => primal(x, t), y),
      ];
      [gx, gy].forEach((g, i) => {
        const e = expected[i];
        if (e === undefined) return;
        checked++;
        assert.ok(
          Math.abs(g - e) <= 1e-4 * Math.max(1, Math.abs(e)),
          `${where}, d/d${i ? "y" : "x"}: reverse ${g}, finite differences ${e}\n${p.source}`,
        );
      });
    }
  }
  assert.ok(checked > programs.length * 6, `too few smooth points checked (${checked})`);
});
