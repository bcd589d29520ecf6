import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";

// `jacobian` of a function returning several numbers, with backend "wasm": its forward passes
// along many directions at once (`f$jvps`) run as WebAssembly (emit/wasm/lanes.ts). Each
// Jacobian is checked against the JavaScript backend's (to 1e-12 relative: in fact to the
// bit), against central differences, and for having run in wasm.

type Rows = ArrayLike<number>[];

interface Stats {
  wasm: number;
  javascript: number;
}

function assertSame(actual: Rows, expected: Rows, what: string) {
  assert.equal(actual.length, expected.length, `${what}: rows`);
  actual.forEach((row, i) => {
    assert.equal(row.length, expected[i]!.length, `${what}: row ${i}'s length`);
    for (let j = 0; j < row.length; j++) {
      const [a, e] = [row[j]!, expected[i]![j]!];
      const scale = Math.max(Math.abs(a), Math.abs(e), 1e-300);
      assert.ok(
        Object.is(a, e) || Math.abs(a - e) <= 1e-12 * scale,
        `${what}[${i}][${j}]: ${a} vs ${e}`,
      );
    }
  });
}

/** J[i][j] against central differences of f along coordinate j. */
function assertDifferences(
  f: (x: Float64Array) => ArrayLike<number>,
  x: Float64Array,
  jacobian: Rows,
  what: string,
) {
  for (let j = 0; j < x.length; j++) {
    const h = 1e-6 * Math.max(1, Math.abs(x[j]!));
    const at = (t: number) => f(x.map((v, i) => (i === j ? t : v)));
    const [plus, minus] = [at(x[j]! + h), at(x[j]! - h)];
    for (let i = 0; i < plus.length; i++) {
      const expected = (plus[i]! - minus[i]!) / (2 * h);
      const actual = jacobian[i]![j]!;
      const scale = Math.max(1, Math.abs(actual), Math.abs(expected));
      assert.ok(
        Math.abs(actual - expected) <= 1e-5 * scale,
        `${what}: J[${i}][${j}] = ${actual}, differences ${expected}`,
      );
    }
  }
}

// A planar arm as a robotics developer writes it: rotation matrices as nested arrays, a matrix
// product that pushes its rows, the joints' frames chained in a loop; the end effector and
// every joint's position as the result.
const ARM = `
type Matrix = number[][];

function matMul(a: Matrix, b: Matrix): Matrix {
  const out: Matrix = [];
  for (let i = 0; i < a.length; i++) {
    const row: number[] = [];
    for (let j = 0; j < b[0].length; j++) {
      let sum = 0;
      for (let k = 0; k < b.length; k++) sum += a[i][k] * b[k][j];
      row.push(sum);
    }
    out.push(row);
  }
  return out;
}

function joint(angle: number, length: number): Matrix {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  return [
    [c, -s, length * c],
    [s, c, length * s],
    [0, 0, 1],
  ];
}

export function positions(angles: Float64Array): Float64Array {
  const out = new Float64Array(2 * angles.length);
  let frame: Matrix = [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
  ];
  for (let i = 0; i < angles.length; i++) {
    frame = matMul(frame, joint(angles[i], 1 + 0.25 * i));
    out[2 * i] = frame[0][2];
    out[2 * i + 1] = frame[1][2];
  }
  return out;
}
`;

// A damped oscillator integrated by explicit Euler steps: state carried around a loop, a
// branch on the state (a wall the mass bounces off), a ternary, and Math in the step.
const OSCILLATOR = `
export function trajectory(p: Float64Array): Float64Array {
  const [k, c, x0] = [p[0], p[1], p[2]];
  const steps = 40;
  const dt = 0.05;
  const out = new Float64Array(steps);
  let x = x0;
  let v = 0;
  for (let s = 0; s < steps; s++) {
    const force = -k * x - c * v + 0.1 * Math.sin(s * dt * p[3]);
    v += dt * force;
    x += dt * v;
    if (x < -0.5) {
      x = -1 - x;
      v = -0.8 * v;
    }
    out[s] = x > 0 ? x * x : -x;
  }
  return out;
}
`;

// Skinning with sparse weights: a vertex moves with the bones whose weight is not zero, as
// GradBench's hand model does (the update d[i] += e · w is skipped where w = 0, in both
// backends, which keeps them equal where a lane of e is infinite: √0's derivative).
const SKINNING = `
export function skin(bones: Float64Array, weights: number[][], rest: number[]): Float64Array {
  const out = new Float64Array(rest.length);
  for (let v = 0; v < rest.length; v++) {
    for (let b = 0; b < bones.length; b++) {
      out[v] = out[v] + Math.sqrt(bones[b]) * rest[v] * weights[v][b];
    }
  }
  return out;
}
`;

interface Programs {
  positions(angles: Float64Array): Float64Array;
  trajectory(p: Float64Array): Float64Array;
  skin(bones: Float64Array, weights: number[][], rest: number[]): Float64Array;
  armWasm(angles: Float64Array): Float64Array[];
  armJs(angles: Float64Array): Float64Array[];
  oscillatorWasm(p: Float64Array): Float64Array[];
  oscillatorJs(p: Float64Array): Float64Array[];
  skinWasm(bones: Float64Array, weights: number[][], rest: number[]): Float64Array[];
  skinJs(bones: Float64Array, weights: number[][], rest: number[]): Float64Array[];
  wasmStats: Stats;
}

const PROGRAMS = {
  "main.ts": `import { jacobian } from "nabla";
export { wasmStats } from "nabla";
${ARM}
${OSCILLATOR}
${SKINNING}
export const armWasm = jacobian(positions, { backend: "wasm", mode: "forward" });
export const armJs = jacobian(positions, { mode: "forward" });
export const oscillatorWasm = jacobian(trajectory, { backend: "wasm", mode: "forward" });
export const oscillatorJs = jacobian(trajectory, { mode: "forward" });
export const skinWasm = jacobian(skin, { backend: "wasm", wrt: 0, mode: "forward" });
export const skinJs = jacobian(skin, { wrt: 0, mode: "forward" });
`,
};

test("jacobian's forward passes in wasm: a chain of rotation matrices, equal to JavaScript's and to differences", async () => {
  const m = await loadProgram<Programs>(PROGRAMS);
  const before = { ...m.wasmStats };
  // 1, 3 and 40 joints: one direction, a few, and more than one pass of 32 directions.
  const sizes = [1, 3, 40];
  for (const n of sizes) {
    const angles = Float64Array.from({ length: n }, (_, i) => 0.3 * Math.sin(1.7 * i + 0.4));
    const wasm = m.armWasm(angles);
    assertSame(wasm, m.armJs(angles), `arm of ${n}`);
    assertDifferences(m.positions, angles, wasm, `arm of ${n}`);
  }
  // 40 joints: 80 results for 40 directions, so forward mode, in two passes (32 and 8).
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "calls that fell back");
  assert.equal(m.wasmStats.wasm - before.wasm, 1 + 1 + 2, "passes run in wasm");
});

test("jacobian's forward passes in wasm: state carried around a loop, through branches", async () => {
  const m = await loadProgram<Programs>(PROGRAMS);
  const before = { ...m.wasmStats };
  for (const p of [
    Float64Array.from([4, 0.3, 1, 2]),
    Float64Array.from([9, 0.05, 0.8, 5]),
    Float64Array.from([1, 1.5, -0.2, 0.5]),
  ]) {
    const wasm = m.oscillatorWasm(p);
    assertSame(wasm, m.oscillatorJs(p), `oscillator at ${p.join(", ")}`);
    assertDifferences(m.trajectory, p, wasm, `oscillator at ${p.join(", ")}`);
  }
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "calls that fell back");
  assert.equal(m.wasmStats.wasm - before.wasm, 3, "passes run in wasm");
});

test("jacobian's forward passes in wasm: updates with a zero coefficient skipped as in JavaScript", async () => {
  const m = await loadProgram<Programs>(PROGRAMS);
  const before = { ...m.wasmStats };
  const weights = [
    [0.5, 0, 0.5, 0],
    [0, 0, 1, 0],
    [0.2, 0.3, 0, 0.5],
  ];
  const rest = [1.5, -2, 0.75];
  const bones = Float64Array.from([0.5, 2, 1.25, 3]);
  const wasm = m.skinWasm(bones, weights, rest);
  assertSame(wasm, m.skinJs(bones, weights, rest), "skinning");
  assertDifferences((b) => m.skin(b, weights, rest), bones, wasm, "skinning");
  // √x has an infinite derivative at 0: where that bone's weight is 0, the update is skipped,
  // so the Jacobian is 0 there in both backends (not NaN, which ∞ · 0 would give).
  const atZero = Float64Array.from([0, 2, 1.25, 0]);
  const withInfinity = m.skinWasm(atZero, weights, rest);
  assertSame(withInfinity, m.skinJs(atZero, weights, rest), "skinning with √0");
  assert.equal(withInfinity[1]![0], 0, "a bone of weight 0 with an infinite derivative");
  assert.equal(withInfinity[0]![0], Infinity, "a bone of weight 0.5 with an infinite derivative");
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "calls that fell back");
  assert.equal(m.wasmStats.wasm - before.wasm, 2, "passes run in wasm");
});

test("jacobian's forward passes in wasm: an object's fields added into, skipped where the weight is 0", async () => {
  const files = {
    "main.ts": `import { jacobian } from "nabla";
export { wasmStats } from "nabla";
interface Acc { x: number; y: number }
function addInto(acc: Acc, v: number, weight: number): void {
  acc.x = acc.x + Math.sqrt(v) * weight;
  acc.y = acc.y + v * v * weight;
}
export function blend(w: Float64Array, weights: number[]): Float64Array {
  const acc: Acc = { x: 0, y: 0 };
  for (let i = 0; i < w.length; i++) addInto(acc, w[i], weights[i]);
  const out = new Float64Array(2);
  out[0] = acc.x;
  out[1] = acc.y;
  return out;
}
export const inWasm = jacobian(blend, { wrt: 0, mode: "forward", backend: "wasm" });
export const inJs = jacobian(blend, { wrt: 0, mode: "forward" });
`,
  };
  type J = (w: Float64Array, weights: number[]) => Float64Array[];
  const m = await loadProgram<{ inWasm: J; inJs: J; wasmStats: Stats }>(files);
  const before = { ...m.wasmStats };
  // √0 has an infinite derivative; its weight is 0, so both backends skip the update: 0, not NaN.
  const w = Float64Array.from([0, 1.5]);
  const rows = m.inWasm(w, [0, 2]);
  assertSame(rows, m.inJs(w, [0, 2]), "blend");
  assert.equal(rows[0]![0], 0);
  assert.ok(Math.abs(rows[0]![1]! - 1 / Math.sqrt(1.5)) < 1e-15);
  const dense = Float64Array.from([0.25, 1.5, 4]);
  assertSame(m.inWasm(dense, [1, 2, 0.5]), m.inJs(dense, [1, 2, 0.5]), "blend, no zero weight");
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "calls that fell back");
  assert.equal(m.wasmStats.wasm - before.wasm, 2, "passes run in wasm");
});

test("jacobian with respect to a number in wasm: one differential", async () => {
  const files = {
    "main.ts": `import { jacobian } from "nabla";
export { wasmStats } from "nabla";
export function spiral(t: number): number[] {
  const r = Math.exp(0.1 * t);
  return [r * Math.cos(t), r * Math.sin(t), 0.5 * t];
}
export const inWasm = jacobian(spiral, { backend: "wasm" });
export const inJs = jacobian(spiral);
`,
  };
  assert.doesNotMatch(diagnosticsText(compileFiles(files)), /NABLA202/);
  const m = await loadProgram<{
    spiral: (t: number) => number[];
    inWasm: (t: number) => number[];
    inJs: (t: number) => number[];
    wasmStats: Stats;
  }>(files);
  const before = { ...m.wasmStats };
  for (const t of [0, 1.3, -2.5]) {
    const column = m.inWasm(t);
    assertSame([column], [m.inJs(t)], `at ${t}`);
    const h = 1e-6;
    const [plus, minus] = [m.spiral(t + h), m.spiral(t - h)];
    column.forEach((d, i) =>
      assert.ok(Math.abs(d - (plus[i]! - minus[i]!) / (2 * h)) < 1e-6, `d[${i}] at ${t}`),
    );
  }
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "calls that fell back");
  assert.equal(m.wasmStats.wasm - before.wasm, 3, "calls run in wasm");
});

test("jacobian's forward passes in wasm: objects and class instances among the tangents", async () => {
  const files = {
    "main.ts": `import { jacobian } from "nabla";
export { wasmStats } from "nabla";
interface Vec2 { x: number; y: number }
class Link {
  constructor(public length: number, public angle = 0) {}
  tip(base: { x: number; y: number; a: number }) {
    const a = base.a + this.angle;
    return { x: base.x + this.length * Math.cos(a), y: base.y + this.length * Math.sin(a), a };
  }
}
export function corners(angles: Float64Array): Float64Array {
  const points: Vec2[] = [];
  for (const a of angles) points.push({ x: Math.cos(a) - 0.5 * Math.sin(a), y: Math.sin(a) + 0.5 * Math.cos(a) });
  const out = new Float64Array(2 * points.length);
  points.forEach((q, i) => {
    out[2 * i] = q.x;
    out[2 * i + 1] = q.y;
  });
  return out;
}
export function arm(q: Float64Array): Float64Array {
  const links = [new Link(q[2], q[0]), new Link(q[3], q[1])];
  const points: { x: number; y: number; a: number }[] = [{ x: 0, y: 0, a: 0 }];
  for (const l of links) points.push(l.tip(points[points.length - 1]));
  const out = new Float64Array(2 * links.length);
  for (let i = 1; i < points.length; i++) {
    out[2 * i - 2] = points[i].x;
    out[2 * i - 1] = points[i].y;
  }
  return out;
}
export const cornersWasm = jacobian(corners, { backend: "wasm", mode: "forward" });
export const cornersJs = jacobian(corners, { mode: "forward" });
export const armWasm = jacobian(arm, { backend: "wasm", mode: "forward" });
export const armJs = jacobian(arm, { mode: "forward" });
`,
  };
  assert.doesNotMatch(diagnosticsText(compileFiles(files)), /NABLA202/);
  type J = (x: Float64Array) => Float64Array[];
  const m = await loadProgram<{
    corners: (x: Float64Array) => Float64Array;
    arm: (x: Float64Array) => Float64Array;
    cornersWasm: J;
    cornersJs: J;
    armWasm: J;
    armJs: J;
    wasmStats: Stats;
  }>(files);
  const before = { ...m.wasmStats };
  const angles = Float64Array.from([0.4, -1.1, 2.3]);
  const rows = m.cornersWasm(angles);
  assertSame(rows, m.cornersJs(angles), "corners");
  assertDifferences(m.corners, angles, rows, "corners");
  const q = Float64Array.from([0.3, -0.7, 1.2, 0.8]);
  const arm = m.armWasm(q);
  assertSame(arm, m.armJs(q), "arm of links");
  assertDifferences(m.arm, q, arm, "arm of links");
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "calls that fell back");
  assert.equal(m.wasmStats.wasm - before.wasm, 2, "passes run in wasm");
});

test("jacobian in wasm: tuples of mixed elements stay JavaScript and say why; reverse passes run in wasm", async () => {
  const files = {
    "main.ts": `import { jacobian } from "nabla";
export function spans(x: Float64Array): Float64Array {
  const out = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const pair: [number, number[]] = [x[i] * x[i], [x[i], 2 * x[i]]];
    out[i] = pair[0] + pair[1][1];
  }
  return out;
}
export function residuals(x: Float64Array): Float64Array {
  const r = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) r[i] = Math.sin(x[i]) * x[(i + 1) % x.length];
  return r;
}
export const mixed = jacobian(spans, { backend: "wasm", mode: "forward" });
export const reverse = jacobian(residuals, { backend: "wasm", mode: "reverse" });
`,
  };
  const compiled = compileFiles(files);
  const text = diagnosticsText(compiled);
  assert.match(
    text,
    /warning NABLA202: 'jacobian' runs as JavaScript, not WebAssembly: an array literal in 'spans' is of type \[number, number\[\]\] \(its elements are of different kinds\)/,
  );
  // The reverse Jacobian's pullbacks run in wasm (wasm-pullback.test.ts): no warning.
  assert.equal(text.match(/NABLA202/g)?.length, 1, text);
  const m = await loadProgram<{
    mixed: (x: Float64Array) => Float64Array[];
    reverse: (x: Float64Array) => Float64Array[];
  }>(files);
  const rows = m.mixed(Float64Array.from([0.5, -2]));
  assertSame(rows, [Float64Array.from([3, 0]), Float64Array.from([0, -2])], "mixed tuples");
  const x = Float64Array.from([0.3, -0.8, 1.4]);
  const r = m.reverse(x);
  assert.ok(Math.abs(r[0]![0]! - Math.cos(0.3) * -0.8) < 1e-12, "reverse Jacobian");
});
