import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { compileFiles, diagnosticsText, importCompiled } from "./support/harness.js";
import { randomProgram } from "./support/random-program.js";
import { join } from "node:path";

// Random programs (branches, loops with break/continue, early returns, helper calls): the
// compiler must accept every one, and forward mode must agree with finite differences
// wherever the function is smooth. Set NABLA_SEED to explore other programs.

const seed = Number(process.env.NABLA_SEED ?? 20261122);
const seeds = [...new Set(fc.sample(fc.integer({ min: 1, max: 2 ** 30 }), { numRuns: 60, seed }))];
const programs = seeds.map(randomProgram);

type Jvp = (x: number, y: number) => (dx: number, dy: number) => number;
type Primal = (x: number, y: number) => number;

const source = [
  `import { differential } from "nabla";`,
  ...programs.map((p) => p.source),
  `export const jvps = { ${programs.map((p) => `${p.name}: differential(${p.name})`).join(", ")} };`,
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
  const agree = (a: number, b: number) => Math.abs(a - b) <= 1e-3 * Math.max(1, Math.abs(fine));
  const h = 1e-5;
  const left = (f(t) - f(t - h)) / h;
  const right = (f(t + h) - f(t)) / h;
  if (!Number.isFinite(fine) || !agree(central(1e-4), fine) || !agree(left, right))
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
