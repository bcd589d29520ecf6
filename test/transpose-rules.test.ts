import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { compileProgram } from "../src/compiler/compile.js";
import type { PassObserver } from "../src/compiler/differentiate/pipeline.js";
import { forEachOp } from "../src/compiler/ir/walk.js";
import { TRANSPOSE_RULES } from "../src/compiler/rules/transpose.js";
import { assertClose, finiteGradient, importCompiled, writeProgram } from "./support/harness.js";

/** Each element of `actual` close to the same element of `expected`. */
function assertAllClose(actual: number[], expected: number[], what: string): void {
  assert.equal(actual.length, expected.length, `${what}: length`);
  actual.forEach((a, i) => assertClose(a, expected[i]!, 1e-5, `${what} [${i}]`));
}

// Every rule of the transpose table (rules/transpose.ts) run by a backward sweep, and its
// gradient checked two ways: against central differences, and against forward mode (the
// differential along each basis direction). A coverage check makes sure each rule of the table
// is among the tangent ops these programs transpose, so a new rule needs a case here.

const PROGRAM = `
import { differential, gradient, withDerivative } from "nabla";

interface Line {
  w: number;
  b: number;
}

// add, sub, neg, and mul by a primal value (a quotient is a product with its reciprocal)
export function arith(x: number, y: number): number {
  const s = x + y;
  const d = x - y;
  return (s * d) / y + -x * 3;
}
// a branch on active values (an if, transposed by the sweep around the table's rules)
export function larger(x: number, y: number): number {
  const m = x > y ? x : y;
  return m * x;
}
// adjust: the derivative of x·y passes through f(d) = 2d on its way
export function scaled(x: number, y: number): number {
  return withDerivative(x * y, (d: number) => 2 * d) + x;
}
// field: reads of an object's numbers
export function fit(p: Line, x: number): number {
  return p.w * x + p.b * p.b;
}
// index, and const (the sum starts at a zero tangent)
export function neighbours(xs: number[]): number {
  let s = 0;
  for (let i = 0; i + 1 < xs.length; i++) s += xs[i] * xs[i + 1];
  return s;
}

export const grads = {
  arith: gradient(arith),
  larger: gradient(larger),
  scaled: gradient(scaled),
  fit: gradient(fit),
  neighbours: gradient(neighbours),
};
export const diffs = {
  arith: differential(arith),
  larger: differential(larger),
  scaled: differential(scaled),
  fit: differential(fit),
  neighbours: differential(neighbours),
};
`;

/** Rules no lowering reaches today (see below). */
const UNREACHABLE = new Set(["select", "div"]);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- compiled exports of several shapes
type Numbers = (...xs: any[]) => any;

test("every transpose rule is checked against central differences and forward mode", async () => {
  const dir = writeProgram({ "main.ts": PROGRAM });
  // The tangent ops of every JVP reverse mode transposes, as the reverse pipeline leaves them.
  const transposed = new Set<string>();
  const observe: PassObserver = (pass, fn, pipeline) => {
    if (pipeline !== "reverse" || pass !== "verify") return;
    forEachOp(fn.body, (op) => {
      if (op.tangent) transposed.add(op.opcode);
    });
  };
  const result = compileProgram([join(dir, "main.ts")], { observe });
  assert.deepEqual(result.diagnostics, []);
  for (const opcode of TRANSPOSE_RULES.keys()) {
    // No TypeScript program makes a tangent `select` or `div` today: the JVP rules scale by
    // coefficients (a quotient by its reciprocal) and pick coefficients with a primal
    // `select`, whose operands are constants; lowering's only `select` picks a slice bound.
    // Their rules are kept for IR that has them, and are not run here.
    if (UNREACHABLE.has(opcode)) continue;
    assert.ok(transposed.has(opcode), `no case transposes '${opcode}'`);
  }

  const m = await importCompiled<{
    grads: Record<string, Numbers>;
    diffs: Record<string, Numbers>;
    [name: string]: unknown;
  }>(join(dir, "main.ts"));
  const scalar = (name: string, at: number[]) => {
    const f = m[name] as (...xs: number[]) => number;
    const reverse = m.grads[name]!(...at) as number[];
    assertAllClose(reverse, finiteGradient(f, at), `${name}: gradient against central differences`);
    const along = m.diffs[name]!(...at) as Numbers;
    const forward = at.map((_, i) => along(...at.map((__, j) => (i === j ? 1 : 0))));
    assertAllClose(reverse, forward as number[], `${name}: reverse against forward mode`);
  };
  scalar("arith", [1.3, 0.7]);
  scalar("larger", [1.3, 0.7]);
  scalar("larger", [0.4, 0.9]);
  // withDerivative doubles the derivative of x·y, not of the `+ x`: (2y + 1, 2x).
  const [x, y] = [1.3, 0.7];
  assertAllClose(
    m.grads.scaled!(x, y) as number[],
    [2 * y + 1, 2 * x],
    "scaled: the adjusted rule",
  );
  assertAllClose(
    [0, 1].map((i) => (m.diffs.scaled!(x, y) as Numbers)(i === 0 ? 1 : 0, i === 1 ? 1 : 0)),
    [2 * y + 1, 2 * x],
    "scaled: forward mode sees the same adjustment",
  );

  const fit = m.fit as (p: { w: number; b: number }, x: number) => number;
  const p = { w: 0.8, b: -0.3 };
  const [gp, gx] = m.grads.fit!(p, 1.7) as [{ w: number; b: number }, number];
  const fd = finiteGradient((w, b, xx) => fit({ w, b }, xx!), [p.w, p.b, 1.7]);
  assertAllClose([gp.w, gp.b, gx], fd, "fit: gradient against central differences");
  const dFit = (dw: number, db: number, dx: number) =>
    (m.diffs.fit!(p, 1.7) as (dp: object, dx: number) => number)({ w: dw, b: db }, dx);
  assertAllClose([gp.w, gp.b, gx], [dFit(1, 0, 0), dFit(0, 1, 0), dFit(0, 0, 1)], "fit: forward");

  const neighbours = m.neighbours as (xs: number[]) => number;
  const xs = [0.5, -1.2, 2.0, 0.3];
  const gxs = m.grads.neighbours!(xs) as number[];
  assertAllClose(
    gxs,
    finiteGradient((...v) => neighbours(v), xs),
    "neighbours: differences",
  );
  const dN = (i: number) =>
    (m.diffs.neighbours!(xs) as (dxs: number[]) => number)(xs.map((_, j) => (i === j ? 1 : 0)));
  assertAllClose(
    gxs,
    xs.map((_, i) => dN(i)),
    "neighbours: forward",
  );
});
