import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";

// `hessian(f, { wrt: [a, b, …] })`, and `hessian(f)` of a function with several differentiable
// parameters: a tuple of rows of blocks, H[A][B] = ∂²f/∂x_A∂x_B (a number for two numbers,
// shaped like the array for a number and an array, rows shaped like x_B for two arrays), as
// JAX's `hessian(f, argnums=(a, b))`. Every block is checked against central differences of the
// gradient (reverse mode), against `jacobian` of a gradient computed inside (forward mode over
// the nested gradient), the diagonal blocks against the single-parameter `hessian` and
// `hessianVectorProduct`, and each H[A][B] against H[B][A]ᵀ.

type Arg = number | number[] | Float64Array;
type Block = number | ArrayLike<number> | ArrayLike<ArrayLike<number>>;
type Hessian = Block[][];
type Fn = (...args: unknown[]) => unknown;

/** A deep copy, so that a function writing its arguments gets fresh ones. */
function copy(a: Arg): Arg {
  return typeof a === "number" ? a : a instanceof Float64Array ? a.slice() : [...a];
}

/** The numbers of an argument, in order (one for a number). */
function size(a: Arg): number {
  return typeof a === "number" ? 1 : a.length;
}

/** `args` with element j of parameter p (the number itself when it is one) moved by h. */
function moved(args: Arg[], p: number, j: number, h: number): Arg[] {
  return args.map((a, i) => {
    const c = copy(a);
    if (i !== p) return c;
    if (typeof c === "number") return c + h;
    c[j]! += h;
    return c;
  });
}

/** Entry (i, j) of block H[A][B]: i indexes x_A, j indexes x_B (0 for a number). */
function entry(block: Block, args: Arg[], p: number, q: number, i: number, j: number): number {
  const rowIsNumber = typeof args[p] === "number";
  const columnIsNumber = typeof args[q] === "number";
  if (rowIsNumber && columnIsNumber) return block as number;
  if (rowIsNumber) return (block as ArrayLike<number>)[j]!;
  if (columnIsNumber) return (block as ArrayLike<number>)[i]!;
  return (block as ArrayLike<ArrayLike<number>>)[i]![j]!;
}

function assertNear(actual: number, expected: number, what: string, tolerance: number) {
  const scale = Math.max(1, Math.abs(actual), Math.abs(expected));
  assert.ok(
    Number.isFinite(actual) && Math.abs(actual - expected) <= tolerance * scale,
    `${what}: ${actual} vs ${expected}`,
  );
}

/** Component of a gradient tuple (or the gradient itself for one parameter) as numbers. */
function numbers(g: unknown): number[] {
  return typeof g === "number" ? [g] : Array.from(g as ArrayLike<number>);
}

/**
 * Every entry of H (wrt in the user's order) against central differences of the gradient
 * with respect to the same parameters: ∂/∂x_B,j of (∂f/∂x_A)_i is H[A][B](i, j).
 */
function checkDifferences(
  gradient: (...args: Arg[]) => unknown[],
  args: Arg[],
  wrt: number[],
  H: Hessian,
  what: string,
) {
  wrt.forEach((q, B) => {
    for (let j = 0; j < size(args[q]!); j++) {
      const h =
        1e-5 *
        Math.max(
          1,
          Math.abs(typeof args[q] === "number" ? (args[q] as number) : (args[q] as number[])[j]!),
        );
      const plus = gradient(...moved(args, q, j, h));
      const minus = gradient(...moved(args, q, j, -h));
      wrt.forEach((p, A) => {
        const [gp, gm] = [numbers(plus[A]), numbers(minus[A])];
        gp.forEach((v, i) =>
          assertNear(
            entry(H[A]![B]!, args, p, q, i, j),
            (v - gm[i]!) / (2 * h),
            `${what}: H[${A}][${B}](${i}, ${j}) against differences of the gradient`,
            1e-6,
          ),
        );
      });
    }
  });
}

/** Shapes: H[A][B] as the doc says, and H[A][B] = H[B][A]ᵀ entry by entry. */
function checkShapesAndSymmetry(args: Arg[], wrt: number[], H: Hessian, what: string) {
  assert.equal(H.length, wrt.length, `${what}: rows of blocks`);
  wrt.forEach((p, A) => {
    assert.equal(H[A]!.length, wrt.length, `${what}: blocks in row ${A}`);
    wrt.forEach((q, B) => {
      const block = H[A]![B]!;
      const [rowNumber, columnNumber] = [typeof args[p] === "number", typeof args[q] === "number"];
      if (rowNumber && columnNumber) assert.equal(typeof block, "number", `${what}: H[${A}][${B}]`);
      else if (rowNumber || columnNumber)
        assert.equal(
          (block as ArrayLike<number>).length,
          size(args[rowNumber ? q : p]!),
          `${what}: H[${A}][${B}] length`,
        );
      else {
        assert.equal(
          (block as ArrayLike<number>).length,
          size(args[p]!),
          `${what}: H[${A}][${B}] rows`,
        );
        for (const row of Array.from(block as ArrayLike<ArrayLike<number>>))
          assert.equal(row.length, size(args[q]!), `${what}: H[${A}][${B}] row length`);
      }
      for (let i = 0; i < size(args[p]!); i++)
        for (let j = 0; j < size(args[q]!); j++)
          assertNear(
            entry(block, args, p, q, i, j),
            entry(H[B]![A]!, args, q, p, j, i),
            `${what}: H[${A}][${B}](${i}, ${j}) against H[${B}][${A}](${j}, ${i})`,
            1e-12,
          );
    });
  });
}

/** The diagonal block of parameter p against the single-parameter Hessian. */
function checkDiagonal(block: Block, single: Block, what: string) {
  if (typeof block === "number") return assertNear(block, single as number, what, 1e-12);
  const rows = Array.from(block as ArrayLike<ArrayLike<number>>);
  rows.forEach((row, i) =>
    Array.from(row).forEach((v, j) =>
      assertNear(v, (single as ArrayLike<ArrayLike<number>>)[i]![j]!, `${what}(${i}, ${j})`, 1e-12),
    ),
  );
}

/** Block H[A][B] times v (shaped like x_B), as numbers (one for a number x_A). */
function blockTimes(block: Block, args: Arg[], p: number, q: number, v: number[]): number[] {
  return Array.from({ length: size(args[p]!) }, (_, i) =>
    v.reduce((s, vj, j) => s + entry(block, args, p, q, i, j) * vj, 0),
  );
}

// A regularized logistic loss of weights and a bias (the data passed in), a spring chain's
// energy of positions (a Float64Array) and a stiffness, and a Gaussian log-likelihood of a mean
// vector and a log-variance (the samples a module constant): as one writes them for an
// optimizer or a Laplace approximation.
const PROGRAM = {
  "main.ts": `import { gradient, hessian, hessianVectorProduct, jacobian } from "nabla";

export function logisticLoss(w: number[], b: number, xs: number[][], ys: number[]): number {
  let total = 0;
  for (let k = 0; k < xs.length; k++) {
    let z = b;
    for (let i = 0; i < w.length; i++) z += w[i] * xs[k][i];
    const p = 1 / (1 + Math.exp(-z));
    total -= ys[k] * Math.log(p) + (1 - ys[k]) * Math.log(1 - p);
  }
  let norm = 0;
  for (const wi of w) norm += wi * wi;
  return total / xs.length + 0.01 * norm;
}

export function chainEnergy(positions: Float64Array, stiffness: number): number {
  let e = 0;
  for (let i = 0; i + 1 < positions.length; i++) {
    const stretch = positions[i + 1] - positions[i] - 1;
    e += 0.5 * stiffness * stretch * stretch + 0.1 * Math.cos(stiffness * positions[i]);
  }
  return e;
}

const samples = [0.3, -1.2, 0.8, 2.1, -0.4];

export function logLikelihood(logVariance: number, mean: number[]): number {
  const variance = Math.exp(logVariance);
  let total = 0;
  for (const s of samples) {
    let q = 0;
    for (let i = 0; i < mean.length; i++) {
      const d = s * (i + 1) - mean[i];
      q += d * d;
    }
    total += -0.5 * q / variance - 0.5 * mean.length * (Math.log(2 * Math.PI) + logVariance);
  }
  return total;
}

/** Three parameters of three kinds. */
export function mixed(a: number, x: number[], y: Float64Array): number {
  let s = a * a * a;
  for (let i = 0; i < x.length; i++) s += Math.sin(a * x[i]) * y[i % y.length] + x[i] * x[i] * y[0];
  for (const v of y) s += Math.exp(0.3 * v * a);
  return s;
}

export const logisticH = hessian(logisticLoss, { wrt: [0, 1] });
export const logisticG = gradient(logisticLoss, { wrt: [0, 1] });
export const logisticW = hessian(logisticLoss, { wrt: 0 });
export const logisticB = hessian(logisticLoss, { wrt: 1 });
export const logisticHvpW = hessianVectorProduct(logisticLoss, { wrt: 0 });
export const logisticBW = jacobian(
  (w: number[], b: number, xs: number[][], ys: number[]) => gradient(logisticLoss, { wrt: 1 })(w, b, xs, ys),
  { wrt: 0 },
);
export const logisticWB = jacobian(
  (w: number[], b: number, xs: number[][], ys: number[]) => gradient(logisticLoss, { wrt: 0 })(w, b, xs, ys),
  { wrt: 1 },
);

export const energyH = hessian(chainEnergy);
export const energyG = gradient(chainEnergy);
export const energyP = hessian(chainEnergy, { wrt: 0 });
export const energyK = hessian(chainEnergy, { wrt: 1 });
export const energyHvpP = hessianVectorProduct(chainEnergy, { wrt: 0 });
export const energyPK = jacobian((p: Float64Array, k: number) => gradient(chainEnergy, { wrt: 0 })(p, k), { wrt: 1 });

export const likelihoodH = hessian(logLikelihood, { wrt: [1, 0] });
export const likelihoodG = gradient(logLikelihood, { wrt: [1, 0] });
export const likelihoodM = hessian(logLikelihood, { wrt: 1 });
export const likelihoodV = hessian(logLikelihood, { wrt: 0 });
export const likelihoodHvpM = hessianVectorProduct(logLikelihood, { wrt: 1 });
export const likelihoodVM = jacobian((v: number, m: number[]) => gradient(logLikelihood, { wrt: 0 })(v, m), { wrt: 1 });

export const mixedH = hessian(mixed, { wrt: [2, 0, 1] });
export const mixedG = gradient(mixed, { wrt: [2, 0, 1] });
export const mixedDefault = hessian(mixed);
export const mixedX = hessian(mixed, { wrt: 1 });
export const mixedY = hessian(mixed, { wrt: 2 });
export const mixedA = hessian(mixed, { wrt: 0 });
`,
};

type Program = Record<string, Fn>;

/** The checks of every block: differences, symmetry, shapes. */
function checkAll(m: Program, name: string, args: Arg[], wrt: number[], what: string): Hessian {
  const H = (m[`${name}H`] as (...a: Arg[]) => Hessian)(...args.map(copy));
  const gradient = (...a: Arg[]) => (m[`${name}G`] as (...a: Arg[]) => unknown[])(...a);
  checkShapesAndSymmetry(args, wrt, H, what);
  checkDifferences(gradient, args, wrt, H, what);
  return H;
}

const call = (m: Program, name: string, ...args: Arg[]) =>
  (m[name] as (...a: Arg[]) => Block)(...args.map(copy));

test("a logistic loss of weights and a bias: every block against differences, jacobian of the gradient, hessian and hessianVectorProduct", async () => {
  const m = await loadProgram<Program>(PROGRAM);
  const xs = [
    [0.5, -1.2, 0.3],
    [1.1, 0.4, -0.7],
    [-0.2, 0.9, 1.5],
    [0.8, -0.3, 0.1],
  ];
  const ys = [1, 0, 1, 0];
  for (const [w, b] of [
    [[0.2, -0.4, 0.7], 0.1],
    [[-1.3, 0.5, 0.05], -0.8],
  ] as [number[], number][]) {
    const args: Arg[] = [w, b, xs as never, ys];
    const H = checkAll(m, "logistic", args, [0, 1], `logistic at ${w}, ${b}`);
    checkDiagonal(H[0]![0]!, call(m, "logisticW", ...args), "H[w][w] against hessian wrt w");
    checkDiagonal(H[1]![1]!, call(m, "logisticB", ...args), "H[b][b] against hessian wrt b");
    // Forward mode over the nested gradient: the off-diagonal blocks.
    const bw = call(m, "logisticBW", ...args) as ArrayLike<number>;
    const wb = call(m, "logisticWB", ...args) as ArrayLike<number>;
    w.forEach((_, i) => {
      assertNear(
        (H[1]![0] as number[])[i]!,
        bw[i]!,
        `H[b][w][${i}] against jacobian of ∂f/∂b`,
        1e-12,
      );
      assertNear(
        (H[0]![1] as number[])[i]!,
        wb[i]!,
        `H[w][b][${i}] against jacobian of ∂f/∂w`,
        1e-12,
      );
    });
    const v = [0.3, -1.1, 0.6];
    const hv = m.logisticHvpW!(w, b, xs, ys, v) as number[];
    blockTimes(H[0]![0]!, args, 0, 0, v).forEach((x, i) =>
      assertNear(x, hv[i]!, `H[w][w]·v [${i}] against hessianVectorProduct`, 1e-12),
    );
  }
});

test("a spring chain's energy of positions (Float64Array) and a stiffness, by default: blocks, typed rows", async () => {
  const m = await loadProgram<Program>(PROGRAM);
  for (const [p, k] of [
    [Float64Array.from([0, 1.1, 1.9, 3.2]), 2.5],
    [Float64Array.from([0.2, 0.9, 2.4]), 0.7],
  ] as [Float64Array, number][]) {
    const args: Arg[] = [p, k];
    const H = checkAll(m, "energy", args, [0, 1], `energy at ${p}, ${k}`);
    const rows = H[0]![0] as Float64Array[];
    assert.ok(
      Array.isArray(rows) && rows[0] instanceof Float64Array,
      "H[p][p]: rows of Float64Array",
    );
    assert.ok(H[0]![1] instanceof Float64Array, "H[p][k]: shaped like the positions");
    assert.ok(H[1]![0] instanceof Float64Array, "H[k][p]: shaped like the positions");
    checkDiagonal(H[0]![0]!, call(m, "energyP", ...args), "H[p][p] against hessian wrt p");
    checkDiagonal(H[1]![1]!, call(m, "energyK", ...args), "H[k][k] against hessian wrt k");
    const pk = call(m, "energyPK", ...args) as ArrayLike<number>;
    for (let i = 0; i < p.length; i++)
      assertNear(
        (H[0]![1] as Float64Array)[i]!,
        pk[i]!,
        `H[p][k][${i}] against jacobian of ∂f/∂p`,
        1e-12,
      );
    const v = Array.from(p, (_, i) => Math.cos(i + 0.5));
    const hv = m.energyHvpP!(p, k, Float64Array.from(v)) as Float64Array;
    blockTimes(H[0]![0]!, args, 0, 0, v).forEach((x, i) =>
      assertNear(x, hv[i]!, `H[p][p]·v [${i}] against hessianVectorProduct`, 1e-12),
    );
  }
});

test("a Gaussian log-likelihood of a mean vector and a log-variance, wrt in reverse order", async () => {
  const m = await loadProgram<Program>(PROGRAM);
  const mean = [0.1, -0.5, 1.2];
  for (const logVariance of [0.3, -1.1]) {
    const args: Arg[] = [logVariance, mean];
    // wrt [1, 0]: H[0] is the mean's row, H[1] the log-variance's.
    const H = checkAll(m, "likelihood", args, [1, 0], `log-likelihood at ${logVariance}`);
    checkDiagonal(H[0]![0]!, call(m, "likelihoodM", ...args), "H[mean][mean]");
    checkDiagonal(H[1]![1]!, call(m, "likelihoodV", ...args), "H[logVariance][logVariance]");
    const vm = call(m, "likelihoodVM", ...args) as ArrayLike<number>;
    mean.forEach((_, i) =>
      assertNear((H[1]![0] as number[])[i]!, vm[i]!, `H[v][mean][${i}] against jacobian`, 1e-12),
    );
    // Known in closed form: ∂²/∂μᵢ² = −N/σ², ∂²/∂μᵢ∂s = −Σ (kᵢ − μᵢ)/σ².
    const variance = Math.exp(logVariance);
    const samples = [0.3, -1.2, 0.8, 2.1, -0.4];
    mean.forEach((mu, i) => {
      assertNear(
        (H[0]![0] as number[][])[i]![i]!,
        -samples.length / variance,
        `H[μ][μ](${i}, ${i})`,
        1e-12,
      );
      const residual = samples.reduce((s, x) => s + x * (i + 1) - mu, 0);
      assertNear((H[0]![1] as number[])[i]!, -residual / variance, `H[μ][s](${i})`, 1e-12);
    });
    const v = [0.5, 0.25, -1];
    const hv = m.likelihoodHvpM!(logVariance, mean, v) as number[];
    blockTimes(H[0]![0]!, args, 1, 1, v).forEach((x, i) =>
      assertNear(x, hv[i]!, `H[mean][mean]·v [${i}]`, 1e-12),
    );
  }
});

test("three parameters of three kinds, in wrt's order and by default", async () => {
  const m = await loadProgram<Program>(PROGRAM);
  const args: Arg[] = [0.7, [0.4, -0.9, 1.3, 0.2], Float64Array.from([0.5, -0.25])];
  const H = checkAll(m, "mixed", args, [2, 0, 1], "mixed, wrt [2, 0, 1]");
  checkDiagonal(H[0]![0]!, call(m, "mixedY", ...args), "H[y][y]");
  checkDiagonal(H[1]![1]!, call(m, "mixedA", ...args), "H[a][a]");
  checkDiagonal(H[2]![2]!, call(m, "mixedX", ...args), "H[x][x]");
  // By default, every parameter in order: the same blocks, permuted.
  const D = call(m, "mixedDefault", ...args) as unknown as Hessian;
  const order = [1, 2, 0]; // parameter i's place in wrt [2, 0, 1]
  for (let a = 0; a < 3; a++)
    for (let b = 0; b < 3; b++)
      for (let i = 0; i < size(args[a]!); i++)
        for (let j = 0; j < size(args[b]!); j++)
          assertNear(
            entry(D[a]![b]!, args, a, b, i, j),
            entry(H[order[a]!]![order[b]!]!, args, a, b, i, j),
            `default H[${a}][${b}](${i}, ${j})`,
            0,
          );
});

test("a function writing its argument: the Hessian as for a copy, the argument written once", async () => {
  const m = await loadProgram<Program>({
    "main.ts": `import { gradient, hessian } from "nabla";

/** Centers x in place, then sums a cubic and a sine of the centered values. */
export function centeredLoss(x: number[], scale: number): number {
  let mean = 0;
  for (const v of x) mean += v;
  mean /= x.length;
  for (let i = 0; i < x.length; i++) x[i] -= mean;
  let s = 0;
  for (const v of x) s += scale * v * v * v + Math.sin(scale * v);
  return s;
}

export function onCopy(x: number[], scale: number): number {
  return centeredLoss([...x], scale);
}

export const writtenH = hessian(centeredLoss);
export const copyH = hessian(onCopy);
export const copyG = gradient(onCopy);
`,
  });
  const x = [0.4, -1.1, 0.9, 0.3];
  const args: Arg[] = [x, 1.7];
  const arg = [...x];
  const H = m.writtenH!(arg, 1.7) as Hessian;
  const mean = x.reduce((s, v) => s + v, 0) / x.length;
  assert.deepEqual(
    arg,
    x.map((v) => v - mean),
    "the argument is centered once",
  );
  const C = m.copyH!([...x], 1.7) as Hessian;
  for (let a = 0; a < 2; a++)
    for (let b = 0; b < 2; b++)
      for (let i = 0; i < size(args[a]!); i++)
        for (let j = 0; j < size(args[b]!); j++)
          assertNear(
            entry(H[a]![b]!, args, a, b, i, j),
            entry(C[a]![b]!, args, a, b, i, j),
            `H[${a}][${b}](${i}, ${j}) as for a copy`,
            0,
          );
  checkShapesAndSymmetry(args, [0, 1], H, "centered loss");
  checkDifferences((...a: Arg[]) => m.copyG!(...a) as unknown[], args, [0, 1], H, "centered loss");
});

test("a lambda writing an array it captures: written once per call", async () => {
  const m = await loadProgram<Program>({
    "main.ts": `import { hessian } from "nabla";

export function counted(calls: number[], x: number[], k: number) {
  return hessian((y: number[], c: number) => {
    calls[0] += 1;
    return calls[0] * c * y[0] * y[0] * y[1];
  })(x, k);
}
`,
  });
  const calls = [0];
  const [y0, y1, c] = [0.5, 2, 3];
  for (const n of [1, 2]) {
    const H = m.counted!(calls, [y0, y1], c) as Hessian;
    assert.deepEqual(calls, [n], `call ${n}: the lambda's write ran once`);
    // n·c·y₀²·y₁: H[y][y] = n·c·[[2y₁, 2y₀], [2y₀, 0]], H[y][c] = n·[2y₀y₁, y₀²], H[c][c] = 0.
    assert.deepEqual(H, [
      [
        [
          [n * c * 2 * y1, n * c * 2 * y0],
          [n * c * 2 * y0, 0],
        ],
        [n * 2 * y0 * y1, n * y0 * y0],
      ],
      [[n * 2 * y0 * y1, n * y0 * y0], 0],
    ]);
  }
});

test("with backend wasm: every pass in WebAssembly, equal to JavaScript's", async () => {
  const files = {
    "main.ts": `import { hessian } from "nabla";
export { wasmStats } from "nabla";
${PROGRAM["main.ts"].split("export const")[0]!.replace(/^import .*$/m, "")}
export const energyJs = hessian(chainEnergy);
export const energyWasm = hessian(chainEnergy, { backend: "wasm" });
export const logisticJs = hessian(logisticLoss, { wrt: [1, 0] });
export const logisticWasm = hessian(logisticLoss, { wrt: [1, 0], backend: "wasm" });
`,
  };
  const compiled = compileFiles(files);
  const text = diagnosticsText(compiled);
  assert.doesNotMatch(text, /NABLA202/, text);
  const m = await loadProgram<Program & { wasmStats: { wasm: number } }>(files);
  const before = m.wasmStats.wasm;
  const cases: [string, Arg[]][] = [
    ["energy", [Float64Array.from([0, 1.1, 1.9, 3.2]), 2.5]],
    [
      "logistic",
      [
        [0.2, -0.4],
        0.1,
        [
          [0.5, -1.2],
          [1.1, 0.4],
          [-0.2, 0.9],
        ] as never,
        [1, 0, 1],
      ],
    ],
  ];
  for (const [name, args] of cases) {
    const wasm = JSON.stringify(call(m, `${name}Wasm`, ...args), (_, v: unknown) =>
      v instanceof Float64Array ? Array.from(v) : v,
    );
    const js = JSON.stringify(call(m, `${name}Js`, ...args), (_, v: unknown) =>
      v instanceof Float64Array ? Array.from(v) : v,
    );
    const [w, j] = [JSON.parse(wasm) as unknown, JSON.parse(js) as unknown];
    const flat = (h: unknown): number[] => (Array.isArray(h) ? h.flatMap(flat) : [h as number]);
    const [fw, fj] = [flat(w), flat(j)];
    assert.equal(fw.length, fj.length, name);
    fw.forEach((v, i) =>
      assertNear(v, fj[i]!, `${name}: entry ${i}, wasm against JavaScript`, 1e-12),
    );
  }
  assert.ok(m.wasmStats.wasm > before, "the products ran in wasm");
});

test("what hessian still refuses: Hessian-vector products with respect to several, arrays of arrays, objects", () => {
  const compiled = compileFiles({
    "main.ts": `import { hessian, hessianVectorProduct } from "nabla";

interface Params {
  w: number[];
  b: number;
}

export function loss(p: Params, x: number[]): number {
  return p.b * x[0] * x[0] + p.w[0];
}

export function frobenius(m: number[][], s: number): number {
  return s * m[0][0] * m[1][1];
}

export const hvp = hessianVectorProduct((x: number[], y: number) => x[0] * y * y, { wrt: [0, 1] });
export const ofObject = hessian(loss, { wrt: [0, 1] });
export const ofMatrix = hessian(frobenius);
`,
  });
  assert.equal(
    diagnosticsText(compiled),
    `main.ts:8:22: error NABLA108: 'hessian' needs the differentiated parameter to be a number, a number[], a tuple of numbers or a typed array, not a Params
  7 |
> 8 | export function loss(p: Params, x: number[]): number {
    |                      ^^^^^^^^^

main.ts:12:27: error NABLA108: 'hessian' needs the differentiated parameter to be a number, a number[], a tuple of numbers or a typed array, not a number[][]
  11 |
> 12 | export function frobenius(m: number[][], s: number): number {
     |                           ^^^^^^^^^^^^^

main.ts:16:83: error NABLA108: 'hessianVectorProduct' differentiates with respect to one parameter; this function has 2 differentiable ones, so pick one with '{ wrt: i }'
  15 |
> 16 | export const hvp = hessianVectorProduct((x: number[], y: number) => x[0] * y * y, { wrt: [0, 1] });
     |                                                                                   ^^^^^^^^^^^^^^^

3 errors`,
  );
});

test("a tuple and a number, a lambda capturing a constant: blocks in closed form and against differences", async () => {
  const m = await loadProgram<Program>({
    "main.ts": `import { gradient, hessian } from "nabla";

export function springH(anchor: number[], point: [number, number], k: number) {
  return hessian((p: [number, number], stiffness: number) => {
    const dx = p[0] - anchor[0], dy = p[1] - anchor[1];
    return 0.5 * stiffness * (dx * dx + dy * dy) * Math.exp(0.1 * stiffness);
  })(point, k);
}
export function springG(anchor: number[], point: [number, number], k: number) {
  return gradient((p: [number, number], stiffness: number) => {
    const dx = p[0] - anchor[0], dy = p[1] - anchor[1];
    return 0.5 * stiffness * (dx * dx + dy * dy) * Math.exp(0.1 * stiffness);
  })(point, k);
}
`,
  });
  const anchor = [0.5, -1];
  const args: Arg[] = [[1.5, 2], 3];
  const H = m.springH!(anchor, ...args) as Hessian;
  checkShapesAndSymmetry(args, [0, 1], H, "spring");
  checkDifferences(
    (...a: Arg[]) => m.springG!(anchor, ...a) as unknown[],
    args,
    [0, 1],
    H,
    "spring",
  );
  // f = ½·k·|p − a|²·e^{k/10}: H[p][p] = k·e^{k/10}·I, H[p][k] = (p − a)·(1 + k/10)·e^{k/10}.
  const [k, e] = [3, Math.exp(0.3)];
  assert.deepEqual(
    (H[0]![0] as number[][]).map((row) => row.map((v) => Math.round(v * 1e9) / 1e9)),
    [
      [Math.round(k * e * 1e9) / 1e9, 0],
      [0, Math.round(k * e * 1e9) / 1e9],
    ],
  );
  [1, 3].forEach((d, i) =>
    assertNear((H[0]![1] as number[])[i]!, d * (1 + k / 10) * e, `H[p][k][${i}]`, 1e-12),
  );
});
