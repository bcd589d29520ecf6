import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";

// `jacobian(f, { wrt: [i, j, …] })`, and `jacobian(f)` of a function with several
// differentiable parameters: each row a tuple of blocks, one per parameter in wrt's order.
// Checked against central differences, forward mode against reverse mode (each its own
// derivative code: single-parameter forward passes side by side, one pullback with respect to
// all), and the default mode against both.

type Block = number | ArrayLike<number>;
type Row = Block[];

/** f's output with its argument `p` (an array, or a number when `element` is undefined) moved. */
function bumped(args: unknown[], p: number, element: number | undefined, h: number): unknown[] {
  return args.map((a, i) => {
    if (i !== p) return a instanceof Float64Array ? a.slice() : Array.isArray(a) ? [...a] : a;
    if (element === undefined) return (a as number) + h;
    const copy = a instanceof Float64Array ? a.slice() : [...(a as number[])];
    copy[element]! += h;
    return copy;
  });
}

function assertClose(actual: number, expected: number, what: string, tolerance: number) {
  const scale = Math.max(1, Math.abs(actual), Math.abs(expected));
  assert.ok(Math.abs(actual - expected) <= tolerance * scale, `${what}: ${actual} vs ${expected}`);
}

/** Rows (or, for a number-valued f, the one row) against central differences of f. */
function checkDifferences(
  f: (...args: unknown[]) => number | ArrayLike<number>,
  args: unknown[],
  wrt: number[],
  rows: Row[],
  what: string,
) {
  wrt.forEach((p, k) => {
    const arg = args[p];
    const elements =
      typeof arg === "number" ? [undefined] : [...Array((arg as number[]).length).keys()];
    for (const j of elements) {
      const h = 1e-6;
      const plus = f(...bumped(args, p, j, h));
      const minus = f(...bumped(args, p, j, -h));
      const column =
        typeof plus === "number"
          ? [(plus - (minus as number)) / (2 * h)]
          : Array.from(plus, (v, i) => (v - (minus as ArrayLike<number>)[i]!) / (2 * h));
      column.forEach((expected, i) => {
        const block = rows[i]![k]!;
        const actual = j === undefined ? (block as number) : (block as ArrayLike<number>)[j]!;
        assertClose(actual, expected, `${what}: row ${i}, parameter ${p}, element ${j}`, 1e-6);
      });
    }
  });
}

function assertSameRows(a: Row[], b: Row[], what: string) {
  assert.equal(a.length, b.length, `${what}: rows`);
  a.forEach((row, i) =>
    row.forEach((block, k) => {
      const other = b[i]![k]!;
      if (typeof block === "number")
        return assertClose(block, other as number, `${what}[${i}][${k}]`, 1e-12);
      Array.from(block).forEach((v, j) =>
        assertClose(v, (other as ArrayLike<number>)[j]!, `${what}[${i}][${k}][${j}]`, 1e-12),
      );
    }),
  );
}

// A camera projecting points (the extrinsics a Float64Array, the intrinsics a number[], the
// distortion a number), as a bundle adjuster writes its residuals; a spring network's energy.
const PROGRAM = {
  "main.ts": `import { jacobian } from "nabla";

export function project(pose: Float64Array, intrinsics: number[], k1: number, points: number[][]): Float64Array {
  const [rx, ry, tx, ty, tz] = pose;
  const [f, cx, cy] = intrinsics;
  const out = new Float64Array(2 * points.length);
  points.forEach(([x, y, z], i) => {
    const xr = Math.cos(ry) * x + Math.sin(ry) * z + tx;
    const yr = Math.cos(rx) * y - Math.sin(rx) * z + ty;
    const zr = -Math.sin(ry) * x + Math.cos(ry) * z + tz;
    const u = xr / zr, v = yr / zr;
    const radial = 1 + k1 * (u * u + v * v);
    out[2 * i] = f * radial * u + cx;
    out[2 * i + 1] = f * radial * v + cy;
  });
  return out;
}

export function energy(positions: number[], stiffness: number[]): number {
  let e = 0;
  for (let i = 0; i + 1 < positions.length; i++) {
    const stretch = positions[i + 1] - positions[i] - 1;
    e += 0.5 * stiffness[i] * stretch * stretch;
  }
  return e;
}

export function scaled(xs: number[], s: number): number[] {
  const out: number[] = [];
  for (const x of xs) out.push(s * x * x);
  out.push(s * s);
  return out;
}

export const projectDefault = jacobian(project, { wrt: [0, 1, 2] });
export const projectForward = jacobian(project, { wrt: [2, 0, 1], mode: "forward" });
export const projectReverse = jacobian(project, { wrt: [2, 0, 1], mode: "reverse" });
export const energyDefault = jacobian(energy);
export const energyForward = jacobian(energy, { wrt: [1, 0], mode: "forward" });
export const scaledDefault = jacobian(scaled);
export const scaledReverse = jacobian(scaled, { mode: "reverse" });
`,
};

interface Compiled {
  project: (...a: unknown[]) => Float64Array;
  energy: (...a: unknown[]) => number;
  scaled: (...a: unknown[]) => number[];
  projectDefault: (...a: unknown[]) => Row[];
  projectForward: (...a: unknown[]) => Row[];
  projectReverse: (...a: unknown[]) => Row[];
  energyDefault: (...a: unknown[]) => Row;
  energyForward: (...a: unknown[]) => Row;
  scaledDefault: (...a: unknown[]) => Row[];
  scaledReverse: (...a: unknown[]) => Row[];
}

test("jacobian with respect to several parameters: a camera's residuals, each mode, against differences", async () => {
  const m = await loadProgram<Compiled>(PROGRAM);
  const points = [
    [0.5, -0.2, 4],
    [-1, 0.3, 5],
    [0.2, 0.8, 3.5],
  ];
  const args = [Float64Array.from([0.05, -0.1, 0.2, -0.1, 0.5]), [800, 320, 240], -0.05, points];
  // Default mode: 9 inputs, 6 outputs, so reverse mode (one pullback per output).
  const rows = m.projectDefault(...args);
  assert.equal(rows.length, 6);
  assert.ok(rows[0]![0] instanceof Float64Array, "the pose block is a Float64Array, as the pose");
  assert.ok(Array.isArray(rows[0]![1]), "the intrinsics block is a number[]");
  assert.equal(typeof rows[0]![2], "number", "the distortion block is a number");
  checkDifferences(m.project, args, [0, 1, 2], rows, "default mode");
  // Forward and reverse mode in another order: the blocks follow wrt.
  const forward = m.projectForward(...args);
  const reverse = m.projectReverse(...args);
  assertSameRows(forward, reverse, "forward against reverse");
  assertSameRows(
    forward.map(([k1, pose, intrinsics]) => [pose!, intrinsics!, k1!]),
    rows,
    "wrt [2, 0, 1] against [0, 1, 2]",
  );
});

test("jacobian with respect to several parameters: a number-valued energy, and default wrt", async () => {
  const m = await loadProgram<Compiled>(PROGRAM);
  const args = [
    [0, 1.2, 2.1, 3.5],
    [10, 20, 5],
  ];
  // The Jacobian of a number-valued function is its gradient: one tuple.
  const row = m.energyDefault(...args);
  checkDifferences(m.energy, args, [0, 1], [row], "energy");
  const [byStiffness, byPositions] = m.energyForward(...args);
  assertSameRows([[byPositions!, byStiffness!]], [row], "forward mode, wrt [1, 0]");
  // A number parameter among arrays, called twice at one site (the second call knows m).
  const scaledArgs = [[0.5, -1.5, 2], 1.3];
  for (let round = 0; round < 2; round++) {
    const rows = m.scaledDefault(...scaledArgs);
    checkDifferences(m.scaled, scaledArgs, [0, 1], rows, `scaled, call ${round + 1}`);
    assertSameRows(rows, m.scaledReverse(...scaledArgs), "scaled: default against reverse");
  }
});

test("jacobian with respect to an object: a pullback per output, rows shaped like the object", async () => {
  const m = await loadProgram<{
    residuals: (p: unknown, xs: number[], ys: number[]) => number[];
    rows: (p: unknown, xs: number[], ys: number[]) => Record<string, number | number[]>[];
    column: (p: unknown, xs: number[], ys: number[]) => (dp: unknown) => number[];
    both: (p: unknown, xs: number[], ys: number[]) => [Record<string, unknown>, number[]][];
    lossJacobian: (p: unknown) => Record<string, number | number[]>;
  }>({
    "main.ts": `import { differential, jacobian } from "nabla";
interface Curve { slope: number; intercept: number; bumps: number[] }
export function residuals(p: Curve, xs: number[], ys: number[]): number[] {
  return xs.map((x, i) => p.slope * x + p.intercept + p.bumps[i % p.bumps.length] * Math.sin(x) - ys[i]);
}
export function loss(p: Curve): number {
  return p.slope * p.slope + p.intercept * p.bumps[0];
}
export const rows = jacobian(residuals, { wrt: 0 });
export const column = differential(residuals, { wrt: 0 });
export const both = jacobian(residuals, { wrt: [0, 1] });
export const lossJacobian = jacobian(loss);
`,
  });
  const p = { slope: 1.5, intercept: -0.3, bumps: [0.1, 0.2] };
  const xs = [1, 2, 3];
  const ys = [2, 3, 5];
  const rows = m.rows(p, xs, ys);
  assert.equal(rows.length, 3);
  // Each field's column two ways: the rows, against a forward differential along that field,
  // and against central differences.
  const directions: [string, number | undefined][] = [
    ["slope", undefined],
    ["intercept", undefined],
    ["bumps", 0],
    ["bumps", 1],
  ];
  for (const [field, element] of directions) {
    const unit = { slope: 0, intercept: 0, bumps: [0, 0] };
    const moved = (h: number) => {
      const q = { ...p, bumps: [...p.bumps] };
      if (element === undefined)
        (q as Record<string, unknown>)[field] =
          (p as unknown as Record<string, number>)[field]! + h;
      else q.bumps[element]! += h;
      return m.residuals(q, xs, ys);
    };
    if (element === undefined) (unit as Record<string, unknown>)[field] = 1;
    else unit.bumps[element] = 1;
    const forward = m.column(p, xs, ys)(unit);
    const [plus, minus] = [moved(1e-6), moved(-1e-6)];
    rows.forEach((row, i) => {
      const value = row[field]!;
      const entry = element === undefined ? (value as number) : (value as number[])[element]!;
      assertClose(
        entry,
        forward[i]!,
        `${field}${element ?? ""} row ${i} against the differential`,
        1e-12,
      );
      assertClose(
        entry,
        (plus[i]! - minus[i]!) / 2e-6,
        `${field}${element ?? ""} row ${i} against differences`,
        1e-6,
      );
    });
  }
  // With the xs too: tuples of the object's block and the array's.
  const both = m.both(p, xs, ys);
  both.forEach(([byCurve, byXs], i) => {
    assert.deepEqual(byCurve, rows[i]);
    byXs.forEach((d, j) => {
      const bumpedXs = (h: number) =>
        m.residuals(
          p,
          xs.map((x, k) => (k === j ? x + h : x)),
          ys,
        )[i]!;
      assertClose(d, (bumpedXs(1e-6) - bumpedXs(-1e-6)) / 2e-6, `d r${i} / d x${j}`, 1e-6);
    });
  });
  // A number-valued function: its gradient, shaped like the object.
  assert.deepEqual(m.lossJacobian(p), { slope: 3, intercept: 0.1, bumps: [-0.3, 0] });
});

test("jacobian with respect to an object in forward mode says it runs in reverse mode", () => {
  const compiled = compileFiles({
    "main.ts": `import { jacobian } from "nabla";
interface Line { slope: number; intercept: number }
export function residuals(p: Line, xs: number[]): number[] {
  return xs.map((x) => p.slope * x + p.intercept);
}
export const j = jacobian(residuals, { wrt: 0, mode: "forward" });
`,
  });
  assert.equal(
    diagnosticsText(compiled).replace(/^.*main\.ts/gm, "main.ts"),
    `main.ts:6:38: error NABLA108: 'jacobian' with respect to an object (Line) runs in reverse mode, a pullback per output
  5 | }
> 6 | export const j = jacobian(residuals, { wrt: 0, mode: "forward" });
    |                                      ^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: leave out 'mode: "forward"', or pass the numbers as an array

1 error`,
  );
});

test("jacobian with respect to several parameters of a closure that writes what it captures: written once, in every mode", async () => {
  // A residual function that keeps a log of the parameters it was called with and reuses a
  // scratch buffer of the enclosing function, as code written without nabla in mind does.
  const m = await loadProgram<{
    fit: (
      mode: string,
      gain: number,
      offsets: number[],
    ) => { rows: Row[]; log: number[]; scratch: number[] };
    residuals: (gain: number, offsets: number[]) => number[];
  }>({
    "main.ts": `import { jacobian } from "nabla";
const samples = [0.5, 1.5, 2.5];
export function residuals(gain: number, offsets: number[]): number[] {
  return samples.map((t, i) => gain * Math.sin(t) + offsets[i % offsets.length]! * t - 1);
}
export function fit(mode: string, gain: number, offsets: number[]) {
  const log: number[] = [];
  const scratch = [0, 0];
  const model = (g: number, o: number[]): number[] => {
    log.push(g);
    scratch[0] = g * 2;
    return samples.map((t, i) => (scratch[0]! / 2) * Math.sin(t) + o[i % o.length]! * t - 1);
  };
  const rows =
    mode === "forward"
      ? jacobian(model, { mode: "forward" })(gain, offsets)
      : mode === "reverse"
        ? jacobian(model, { mode: "reverse" })(gain, offsets)
        : jacobian(model)(gain, offsets);
  return { rows, log, scratch };
}
`,
  });
  const args: [number, number[]] = [1.7, [0.25, -0.5]];
  const results = ["forward", "reverse", "default"].map((mode) => m.fit(mode, ...args));
  for (const [k, { rows, log, scratch }] of results.entries()) {
    const what = ["forward", "reverse", "default"][k]!;
    checkDifferences(m.residuals as never, args, [0, 1], rows, what);
    assert.deepEqual(log, [1.7], `${what}: the log holds one call`);
    assert.deepEqual(scratch, [3.4, 0], `${what}: the scratch buffer written once`);
  }
  assertSameRows(results[0]!.rows, results[1]!.rows, "forward against reverse");
  assertSameRows(results[2]!.rows, results[1]!.rows, "default against reverse");
});
