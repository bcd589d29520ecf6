import { test } from "node:test";
import assert from "node:assert/strict";
import { assertClose, loadProgram } from "./support/harness.js";

// A pullback runs as often as it is called, and `jacobian` in reverse mode runs one per row.
// A backward sweep puts back the shadows its forward sweep's stores replaced (a new object
// stored where another was), so a second run found the shadows as they were before the
// forward sweep: it returned zeros (rows of zeros in a Jacobian), or threw where the stored
// slot was new. Each run now redoes what the last one put back first.

const PROGRAM = `import { pullback, jacobian } from "nabla";
interface Vel { x: number }
interface Body { vel: Vel }
interface Joint { angle: number }
interface Arm { joints: Joint[] }

// A field given a new object in a loop over an array of bodies.
export function kick(v: number[]): number[] {
  const bodies: Body[] = [{ vel: { x: 1 } }, { vel: { x: 2 } }];
  for (const body of bodies) body.vel = { x: body.vel.x * v[0] * v[1] };
  return [bodies[0].vel.x + bodies[1].vel.x, 2 * bodies[1].vel.x * v[0]];
}

function tip(arm: Arm): number[] {
  let x = 0;
  let y = 0;
  for (const j of arm.joints) {
    x += Math.cos(j.angle);
    y += Math.sin(j.angle);
  }
  return [x, y];
}
// Elements replaced in an array another object holds.
export function bend(angles: number[]): number[] {
  const arm: Arm = { joints: [{ angle: 0 }, { angle: 0 }, { angle: 0 }] };
  for (let i = 0; i < angles.length; i++) arm.joints[i] = { angle: angles[i] };
  return tip(arm);
}
// Elements pushed onto an array another object holds (slots the forward sweep added).
export function build(angles: number[]): number {
  const arm: Arm = { joints: [] };
  for (const a of angles) arm.joints.push({ angle: a * a });
  return tip(arm)[1];
}
// A map whose values are replaced.
export function rebalance(w: number[]): number {
  const book = new Map<string, Vel>([["a", { x: 1 }], ["b", { x: 2 }]]);
  book.set("a", { x: w[0] * w[1] });
  book.set("b", { x: book.get("a")!.x + w[1] });
  return book.get("a")!.x * book.get("b")!.x;
}

export const kickBack = pullback(kick);
export const bendBack = pullback(bend);
export const buildBack = pullback(build);
export const rebalanceBack = pullback(rebalance);
export const kickJacobian = jacobian(kick, { mode: "reverse" });
export const bendJacobian = jacobian(bend);
`;

type Vector = (x: number[]) => number[];
type Scalar = (x: number[]) => number;
interface Compiled {
  kick: Vector;
  bend: Vector;
  build: Scalar;
  rebalance: Scalar;
  kickBack: (x: number[]) => (dy: number[]) => number[];
  bendBack: (x: number[]) => (dy: number[]) => number[];
  buildBack: (x: number[]) => (dy: number) => number[];
  rebalanceBack: (x: number[]) => (dy: number) => number[];
  kickJacobian: (x: number[]) => number[][];
  bendJacobian: (x: number[]) => number[][];
}

/** Row i of f's Jacobian at x, by central differences. */
function differencesRow(f: Vector, x: number[], i: number): number[] {
  return x.map((_, j) => {
    const step = (h: number) => f(x.map((v, k) => (k === j ? v + h : v)))[i]!;
    return (step(1e-6) - step(-1e-6)) / 2e-6;
  });
}

test("a pullback run three times gives the same adjoints each time", async () => {
  const m = await loadProgram<Compiled>({ "main.ts": PROGRAM });
  const cases: [string, () => unknown, Scalar | Vector, number[], unknown][] = [
    ["kick", () => m.kickBack([2, 3]), m.kick, [2, 3], [1, 0]],
    ["bend", () => m.bendBack([0.3, 0.4, 0.5]), m.bend, [0.3, 0.4, 0.5], [0, 1]],
    ["build", () => m.buildBack([0.3, 0.4]), m.build, [0.3, 0.4], 1],
    ["rebalance", () => m.rebalanceBack([1.5, -0.5]), m.rebalance, [1.5, -0.5], 1],
  ];
  for (const [name, make, f, x, seed] of cases) {
    const back = make() as (dy: unknown) => number[];
    const expected = Array.isArray(seed)
      ? differencesRow(f as Vector, x, seed.indexOf(1))
      : differencesRow((v) => [(f as Scalar)(v)], x, 0);
    for (let run = 1; run <= 3; run++) {
      const got = back(seed);
      got.forEach((g, j) => assertClose(g, expected[j]!, 1e-6, `${name}, run ${run}, ∂/∂x${j}`));
    }
  }
});

test("jacobian in reverse mode: every row, not only the first", async () => {
  const m = await loadProgram<Compiled>({ "main.ts": PROGRAM });
  for (const [name, jac, f, x] of [
    ["kick", m.kickJacobian, m.kick, [2, 3]],
    ["bend", m.bendJacobian, m.bend, [0.3, 0.4, 0.5]],
  ] as const) {
    const rows = jac([...x]);
    assert.equal(rows.length, 2, name);
    rows.forEach((row, i) => {
      const expected = differencesRow(f, [...x], i);
      row.forEach((v, j) => assertClose(v, expected[j]!, 1e-6, `${name}: J[${i}][${j}]`));
    });
  }
});
