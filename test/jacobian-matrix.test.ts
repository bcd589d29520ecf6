import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";

// `jacobian(f)` with respect to an array of rows (`number[][]`, `Float64Array[]`): each row of
// the Jacobian (for a number-valued f, the Jacobian itself) is shaped like the parameter. Checked
// against central differences of f, forward mode (`mode: "forward"`, a differential per entry)
// against reverse mode (`mode: "reverse"`, a pullback per output), and the default against both.

type Rows = ArrayLike<number>[];
type Matrix = number[][] | Float64Array[];
type Fn = (...args: unknown[]) => unknown;

function assertNear(actual: number, expected: number, what: string, tolerance: number) {
  const scale = Math.max(1, Math.abs(actual), Math.abs(expected));
  assert.ok(
    Number.isFinite(actual) && Math.abs(actual - expected) <= tolerance * scale,
    `${what}: ${actual} vs ${expected}`,
  );
}

function copyRows(m: Matrix): Matrix {
  return m[0] instanceof Float64Array
    ? (m as Float64Array[]).map((r) => r.slice())
    : (m as number[][]).map((r) => [...r]);
}

function copyArg(a: unknown): unknown {
  return Array.isArray(a) && (Array.isArray(a[0]) || a[0] instanceof Float64Array)
    ? copyRows(a as Matrix)
    : Array.isArray(a)
      ? [...(a as number[])]
      : a;
}

const outputs = (v: unknown): number[] =>
  typeof v === "number" ? [v] : Array.from(v as ArrayLike<number>);

/**
 * J (rows shaped like the matrix argument `p`, or for a number-valued f the one such row)
 * against central differences of f.
 */
function checkDifferences(f: Fn, args: unknown[], p: number, J: unknown, what: string) {
  const x = args[p] as Matrix;
  const number = typeof f(...args.map(copyArg)) === "number";
  const rows = (number ? [J] : J) as Rows[];
  x.forEach((row, r) => {
    for (let c = 0; c < row.length; c++) {
      const h = 1e-6 * Math.max(1, Math.abs(row[c]!));
      const at = (t: number) => {
        const moved = args.map(copyArg);
        (moved[p] as Matrix)[r]![c] = t;
        return outputs(f(...moved));
      };
      const [plus, minus] = [at(row[c]! + h), at(row[c]! - h)];
      plus.forEach((v, i) =>
        assertNear(
          rows[i]![r]![c]!,
          (v - minus[i]!) / (2 * h),
          `${what}: ∂y${i}/∂x[${r}][${c}]`,
          1e-6,
        ),
      );
    }
  });
}

function assertSame(a: unknown, b: unknown, what: string) {
  const flat = (v: unknown): number[] =>
    typeof v === "number" ? [v] : Array.from(v as ArrayLike<unknown>).flatMap(flat);
  const [fa, fb] = [flat(a), flat(b)];
  assert.equal(fa.length, fb.length, `${what}: entries`);
  fa.forEach((v, i) => assertNear(v, fb[i]!, `${what}: entry ${i}`, 1e-12));
}

// A linear layer's outputs in its weights, the entropies of each row's softmax, pairwise
// distances of points (Float64Array rows), a Frobenius-norm loss, and the products of a small
// matrix's entries (more outputs than entries: forward mode by default).
const PROGRAM = {
  "main.ts": `import { jacobian } from "nabla";

export function layer(weights: number[][], input: number[]): number[] {
  return weights.map((row) => Math.tanh(row.reduce((s, w, k) => s + w * input[k], 0)));
}

export function rowEntropies(logits: number[][]): number[] {
  return logits.map((row) => {
    const top = Math.max(...row);
    const exps = row.map((z) => Math.exp(z - top));
    const total = exps.reduce((s, e) => s + e, 0);
    return -exps.reduce((s, e) => s + (e / total) * Math.log(e / total), 0);
  });
}

export function distances(points: Float64Array[]): Float64Array {
  const out = new Float64Array((points.length * (points.length - 1)) / 2);
  let k = 0;
  for (let i = 0; i < points.length; i++)
    for (let j = i + 1; j < points.length; j++) {
      let s = 0;
      for (let d = 0; d < points[i].length; d++) s += (points[i][d] - points[j][d]) ** 2;
      out[k++] = Math.sqrt(s);
    }
  return out;
}

export function frobeniusLoss(m: number[][], target: number): number {
  let s = 0;
  for (const row of m) for (const v of row) s += v * v * Math.sin(v);
  return (s - target) ** 2;
}

export function products(m: number[][]): number[] {
  const out: number[] = [];
  for (const row of m) for (const a of row) for (const b of row) out.push(a * b * Math.exp(0.1 * a));
  return out;
}

export const layerJ = jacobian(layer, { wrt: 0 });
export const layerF = jacobian(layer, { wrt: 0, mode: "forward" });
export const layerR = jacobian(layer, { wrt: 0, mode: "reverse" });
export const layerBoth = jacobian(layer);
export const layerBothF = jacobian(layer, { mode: "forward" });
export const entropiesJ = jacobian(rowEntropies);
export const entropiesF = jacobian(rowEntropies, { mode: "forward" });
export const entropiesR = jacobian(rowEntropies, { mode: "reverse" });
export const distancesJ = jacobian(distances);
export const distancesF = jacobian(distances, { mode: "forward" });
export const distancesR = jacobian(distances, { mode: "reverse" });
export const lossJ = jacobian(frobeniusLoss, { wrt: 0 });
export const lossF = jacobian(frobeniusLoss, { wrt: 0, mode: "forward" });
export const productsJ = jacobian(products);
export const productsF = jacobian(products, { mode: "forward" });
export const productsR = jacobian(products, { mode: "reverse" });
`,
};

type Program = Record<string, Fn>;

/** Default, forward and reverse against each other, and the default against differences. */
async function checkThreeWays(name: string, f: string, args: unknown[], p: number) {
  const m = await loadProgram<Program>(PROGRAM);
  const run = (which: string) => m[`${name}${which}`]!(...args.map(copyArg));
  const [byDefault, forward, reverse] = [run("J"), run("F"), m[`${name}R`] ? run("R") : undefined];
  checkDifferences(m[f]!, args, p, byDefault, `${name} by default`);
  checkDifferences(m[f]!, args, p, forward, `${name} forward`);
  assertSame(forward, byDefault, `${name}: forward against the default`);
  if (reverse !== undefined) assertSame(forward, reverse, `${name}: forward against reverse`);
  // The default again, once the call site knows m.
  assertSame(run("J"), byDefault, `${name}: the second call`);
  return byDefault;
}

test("a linear layer in its weights (m < n: reverse by default): rows shaped like the weights", async () => {
  const weights = [
    [0.2, -0.5, 0.1],
    [0.7, 0.3, -0.2],
  ];
  const J = (await checkThreeWays("layer", "layer", [weights, [1, -2, 0.5]], 0)) as number[][][];
  assert.equal(J.length, 2);
  for (const row of J)
    assert.deepEqual(
      row.map((r) => r.length),
      [3, 3],
    );
  // ∂yᵢ/∂W[r][c] is zero for r ≠ i.
  assert.deepEqual(J[0]![1], [0, 0, 0]);
});

test("a linear layer in its weights and its input: row tuples of a matrix and a vector", async () => {
  const m = await loadProgram<Program>(PROGRAM);
  const args = [
    [
      [0.2, -0.5, 0.1],
      [0.7, 0.3, -0.2],
    ],
    [1, -2, 0.5],
  ];
  const both = m.layerBoth!(...args.map(copyArg)) as [number[][], number[]][];
  const forward = m.layerBothF!(...args.map(copyArg)) as [number[][], number[]][];
  assertSame(both, forward, "default against forward");
  checkDifferences(
    m.layer!,
    args,
    0,
    both.map((row) => row[0]),
    "the weights' blocks",
  );
  const inputBlocks = both.map((row) => row[1]);
  const input = args[1] as number[];
  input.forEach((x, k) => {
    const at = (t: number) =>
      m.layer!(
        args[0],
        input.map((v, j) => (j === k ? t : v)),
      ) as number[];
    const [plus, minus] = [at(x + 1e-6), at(x - 1e-6)];
    plus.forEach((v, i) =>
      assertNear(inputBlocks[i]![k]!, (v - minus[i]!) / 2e-6, `∂y${i}/∂input${k}`, 1e-6),
    );
  });
});

test("row entropies of logits, distances of Float64Array points, products (forward by default)", async () => {
  const logits = [
    [1.2, -0.3, 0.5, 2],
    [0.1, 0.1, -1, 0.4],
    [3, 0, -2, 1],
  ];
  await checkThreeWays("entropies", "rowEntropies", [logits], 0);
  const points = [
    Float64Array.from([0, 0.5, 1]),
    Float64Array.from([1.2, -0.3, 0.4]),
    Float64Array.from([-0.7, 0.9, 2]),
    Float64Array.from([0.3, 0.3, -1]),
  ];
  const J = (await checkThreeWays("distances", "distances", [points], 0)) as Float64Array[][];
  assert.ok(J[0]![0] instanceof Float64Array, "rows of Float64Array rows, like the points");
  await checkThreeWays(
    "products",
    "products",
    [
      [
        [0.5, -1],
        [2, 0.25],
      ],
    ],
    0,
  );
});

test("a number-valued loss of a matrix: the gradient, in forward and reverse mode", async () => {
  const m = await loadProgram<Program>(PROGRAM);
  const args = [
    [
      [0.4, -1.3],
      [2.2, 0.7],
      [0.1, 1.9],
    ],
    0.5,
  ];
  const J = m.lossJ!(...args.map(copyArg));
  checkDifferences(m.frobeniusLoss!, args, 0, J, "loss");
  assertSame(m.lossF!(...args.map(copyArg)), J, "forward against reverse");
});

test("a function normalizing its rows in place: the Jacobian as for a copy, rows written once", async () => {
  const m = await loadProgram<Program>({
    "main.ts": `import { jacobian } from "nabla";

/** Scales each row to unit sum in place, then returns a weighted sum per column. */
export function normalized(m: number[][]): number[] {
  for (const row of m) {
    const total = row.reduce((s, v) => s + v, 0);
    for (let i = 0; i < row.length; i++) row[i] /= total;
  }
  const out: number[] = [];
  for (let c = 0; c < m[0].length; c++) out.push(m.reduce((s, row, r) => s + (r + 1) * row[c] * row[c], 0));
  return out;
}

export function onCopy(m: number[][]): number[] {
  return normalized(m.map((row) => [...row]));
}

export const writtenJ = jacobian(normalized);
export const writtenF = jacobian(normalized, { mode: "forward" });
export const writtenR = jacobian(normalized, { mode: "reverse" });
export const copyJ = jacobian(onCopy);
`,
  });
  const x = [
    [1, 2, 0.5],
    [0.3, 0.9, 1.4],
  ];
  const expected = m.copyJ!(copyRows(x));
  checkDifferences(m.onCopy!, [x], 0, expected, "on a copy");
  const normalizedX = x.map((row) => row.map((v) => v / row.reduce((s, w) => s + w, 0)));
  for (const which of ["writtenJ", "writtenJ", "writtenF", "writtenR"]) {
    const arg = copyRows(x) as number[][];
    assertSame(m[which]!(arg), expected, `${which} as for a copy`);
    assertSame(arg, normalizedX, `${which}: the rows normalized once`);
  }
});

test("what jacobian still refuses: arrays of arrays of arrays", () => {
  const compiled = compileFiles({
    "main.ts": `import { jacobian } from "nabla";

export function volume(grid: number[][][]): number[] {
  return grid.map((plane) => plane[0][0] * plane[1][1]);
}

export const j = jacobian(volume);
`,
  });
  assert.equal(
    diagnosticsText(compiled),
    `main.ts:3:24: error NABLA108: 'jacobian' needs the differentiated parameter to be a number, a number[], a tuple of numbers, a typed array, an array of those (number[][]) or an object, not a number[][][]
  2 |
> 3 | export function volume(grid: number[][][]): number[] {
    |                        ^^^^^^^^^^^^^^^^^^

1 error`,
  );
});

test("a lambda writing an array it captures: written once per call, in every mode", async () => {
  const m = await loadProgram<Program>({
    "main.ts": `import { jacobian } from "nabla";

export function counted(calls: number[], grid: number[][]) {
  return jacobian((x: number[][]): number[] => {
    calls[0] += 1;
    return [calls[0] * x[0][0] * x[1][1]];
  })(grid);
}
export function countedForward(calls: number[], grid: number[][]) {
  return jacobian(
    (x: number[][]): number[] => {
      calls[0] += 1;
      return [calls[0] * x[0][0] * x[1][1]];
    },
    { mode: "forward" },
  )(grid);
}
`,
  });
  const grid = [
    [2, 5],
    [7, 3],
  ];
  for (const name of ["counted", "countedForward"]) {
    const calls = [0];
    for (const c of [1, 2]) {
      const J = m[name]!(calls, grid);
      assert.deepEqual(calls, [c], `${name} call ${c}: the lambda's write ran once`);
      // c·x₀₀·x₁₁, with c the count after the write.
      assert.deepEqual(J, [
        [
          [c * 3, 0],
          [0, c * 2],
        ],
      ]);
    }
  }
});
