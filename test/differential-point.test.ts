import assert from "node:assert/strict";
import { test } from "node:test";
import { assertClose, loadProgram } from "./support/harness.js";

// `differential(f)(x)` and `valueWithDifferential(f)(x)` give the differential at the point x
// as it was when they were taken, as a pullback does, even when the caller changes x in place
// afterwards: an optimizer updating its parameters, a solver reusing one state array. Before,
// the differential ran the function on the caller's live arrays when it was called, and gave
// the derivative at wherever they had moved to, silently.

interface Program {
  /** Takes the differential at p, moves p as the caller does, then applies the differential. */
  afterMove: (p: number[], moved: number[], tangent: number[]) => number[];
  afterMoveValue: (p: number[], moved: number[], tangent: number[]) => number[];
  objectAfterMove: (scale: number, tangent: { a: number; b: number[] }) => number[];
  float64AfterMove: (tangent: number[]) => number[];
  float64AfterMoveWasm: (tangent: number[]) => number[];
  dataAfterMove: () => number;
  captureAfterMove: () => number[];
}

const program = `import { differential, valueWithDifferential } from "nabla";
function f(p: number[], xs: number[]): number[] {
  return xs.map((x) => p[0] * Math.exp(-p[1] * x) + p[0] * p[0]);
}
const XS = [0.5, 2];
export function afterMove(p: number[], moved: number[], tangent: number[]): number[] {
  const d = differential(f, { wrt: 0 })(p, XS);
  for (let i = 0; i < p.length; i++) p[i] = moved[i];
  return [...d(tangent), ...d(tangent)];
}
export function afterMoveValue(p: number[], moved: number[], tangent: number[]): number[] {
  const { differential: d } = valueWithDifferential(f, { wrt: 0 })(p, XS);
  p.splice(0, p.length, ...moved);
  return d(tangent);
}
interface Params {
  a: number;
  b: number[];
}
function g(params: Params, t: number): number {
  return params.a * params.b[0] * params.b[1] * t;
}
export function objectAfterMove(scale: number, tangent: Params): number[] {
  const params: Params = { a: 2, b: [3, 5] };
  const d = differential(g)(params, 1);
  params.a *= scale;
  params.b[1] *= scale;
  return [d(tangent, 0), d(tangent, 1)];
}
function h(u: Float64Array): number {
  return u[0] * u[1] * u[1];
}
export function float64AfterMove(tangent: number[]): number[] {
  const u = new Float64Array([2, 3]);
  const d = differential(h)(u);
  u.fill(10);
  return [d(Float64Array.from(tangent))];
}
export function float64AfterMoveWasm(tangent: number[]): number[] {
  const u = new Float64Array([2, 3]);
  const d = differential(h, { backend: "wasm" })(u);
  const at = valueWithDifferential(h, { backend: "wasm" })(u);
  u.fill(10);
  return [d(Float64Array.from(tangent)), at.differential(Float64Array.from(tangent))];
}
// The data it is not differentiated with respect to, and what a lambda captures, are part of
// the point too.
function fit(p: number[], xs: number[]): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += p[0] * xs[i] * xs[i] + p[1] * Math.exp(p[0] * xs[i]);
  return s;
}
export function dataAfterMove(): number {
  const xs = [1, 2];
  const d = differential(fit, { wrt: 0 })([0.5, 0.25], xs);
  xs[0] = 7;
  return d([1, 0]);
}
export function captureAfterMove(): number[] {
  const q = [2, 3];
  let scale = 1;
  const d = differential((s: number) => scale * s * q[0] * q[1])(1.5);
  q[0] = 10;
  scale = 4;
  return [d(1)];
}
`;

function assertAll(actual: number[], expected: number[], what: string): void {
  assert.equal(actual.length, expected.length, `${what}: length`);
  actual.forEach((a, i) => assertClose(a, expected[i]!, 1e-14, `${what} [${i}]`));
}

test("a differential taken at x stays the one at x when the caller changes x in place afterwards", async () => {
  const m = await loadProgram<Program>({ "main.ts": program });
  // ∂f/∂p at p = (2, 0.5), for x = 0.5 and 2: (e^{−x/2} + 2·p0, −p0·x·e^{−x/2}).
  const at = (x: number, t: number[]) =>
    (Math.exp(-0.5 * x) + 4) * t[0]! - 2 * x * Math.exp(-0.5 * x) * t[1]!;
  const expected = [at(0.5, [1, 0.25]), at(2, [1, 0.25])];
  assertAll(m.afterMove([2, 0.5], [7, -3], [1, 0.25]), [...expected, ...expected], "differential");
  assertAll(m.afterMoveValue([2, 0.5], [7, -3], [1, 0.25]), expected, "valueWithDifferential");
  // g = a·b0·b1·t at a = 2, b = (3, 5), t = 1: along (da, db) = (1, (0, 1)), 15 + 6 = 21; along
  // dt as well, + a·b0·b1 = 30.
  assertAll(m.objectAfterMove(4, { a: 1, b: [0, 1] }), [21, 51], "object");
  // h = u0·u1² at (2, 3): along (1, 1), 9 + 12 = 21.
  assertAll(m.float64AfterMove([1, 1]), [21], "Float64Array");
  assertAll(m.float64AfterMoveWasm([1, 1]), [21, 21], "Float64Array, WebAssembly backend");
  // ∂fit/∂p0 at p = (0.5, 0.25), xs = (1, 2): Σ x² + p1·x·e^{p0·x}.
  const dFit = [1, 2].reduce((s, x) => s + x * x + 0.25 * x * Math.exp(0.5 * x), 0);
  assertClose(m.dataAfterMove(), dFit, 1e-14, "data not differentiated");
  assertAll(m.captureAfterMove(), [6], "captures of a lambda");
});
