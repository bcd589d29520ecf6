import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES, REPO_ROOT, importCompiled, writeProgram } from "./support/harness.js";
import * as gen from "./support/gradbench-inputs.js";
import { toJson } from "../gradbench/json.js";

// The GradBench evals of gradbench/evals, checked on small generated inputs (no reference data
// needed): every derivative function against finite differences of the primal, against the
// hand-written derivative where there is one (gradbench/hand), and forward mode against
// reverse mode through the operators of test/fixtures/gradbench/*.ts. At the end, when
// GradBench's reference data is present (/work/shared/gradbench or $GRADBENCH_DATA), the
// smallest workload of each eval against the reference outputs.
//
// Tolerances: finite differences are five-point central differences, accurate to ~1e-10 of
// the result here, compared at a relative 1e-6 (of the entry, plus 1e-6 of the largest entry
// for entries near zero); nabla and hand-written code agree to a relative 1e-9; forward and
// reverse mode, computing the same sums in another order, to 1e-10 of the sum of the
// magnitudes of the terms.

const EVALS_DIR = join(REPO_ROOT, "gradbench/evals");
const HAND_DIR = join(REPO_ROOT, "gradbench/hand");
const OPS_DIR = join(FIXTURES, "gradbench");
const DATA = process.env.GRADBENCH_DATA ?? "/work/shared/gradbench";

// --- loading the evals through nabla's loader -------------------------------------------------

let primed: Promise<unknown> | undefined;

/** The loader exits the process when the first program it compiles has an error (a build
 *  error of the program being run); any later one is thrown to the importer. So compile a
 *  trivial program first: an eval that does not compile then fails its own tests only. */
function primeLoader(): Promise<unknown> {
  primed ??= importCompiled(
    join(writeProgram({ "primer.ts": "export const ready = true;\n" }), "primer.ts"),
  );
  return primed;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

interface Loaded<E, O, H> {
  /** gradbench/evals/<eval>.ts */
  ev: E;
  /** gradbench/hand/<eval>.ts (undefined where there is none) */
  hand: H;
  /** test/fixtures/gradbench/<eval>.ts; throws if it did not compile */
  ops: () => O;
}

/**
 * Loads an eval once, for all its tests. The fixture with the extra operators is loaded first:
 * nabla puts the derivatives a program asks for next to the differentiated function, so the
 * eval's module must come from the fixture's compile. If the fixture does not compile, the eval
 * is compiled on its own, and only the tests that need the fixture fail.
 */
function loader<E, O = never, H = undefined>(
  name: string,
  parts: { ops?: boolean; hand?: boolean } = {},
): () => Promise<Loaded<E, O, H>> {
  let loaded: Promise<Loaded<E, O, H>> | undefined;
  return () =>
    (loaded ??= (async () => {
      await primeLoader();
      let ops: O | undefined;
      let opsError: unknown = new Error(`${name} has no fixture`);
      if (parts.ops) {
        try {
          ops = await importCompiled<O>(join(OPS_DIR, `${name}.ts`));
        } catch (error) {
          opsError = error;
        }
      }
      const ev = await importCompiled<E>(join(EVALS_DIR, `${name}.ts`));
      const hand = (
        parts.hand ? await importCompiled<H>(join(HAND_DIR, `${name}.ts`)) : undefined
      ) as H;
      return {
        ev,
        hand,
        ops: () => {
          if (ops === undefined)
            throw new Error(
              `test/fixtures/gradbench/${name}.ts did not compile:\n${message(opsError)}`,
            );
          return ops;
        },
      };
    })());
}

// --- numerical helpers ------------------------------------------------------------------------

/** An array whose entries a finite difference perturbs in place. */
type Slot = { [i: number]: number; readonly length: number };

const relativeStep = (x: number): number => 1e-4 * Math.max(1, Math.abs(x));

/**
 * ∂f/∂p for every entry p of the slots, in order (slot by slot, entry by entry), each a column
 * of ∂(all outputs of f)/∂p, by the five-point central difference
 * (8(f(p+h) − f(p−h)) − (f(p+2h) − f(p−2h))) / 12h: error O(h⁴), ~1e-12 relative here.
 */
function finiteDifferenceColumns(
  f: () => ArrayLike<number>,
  slots: Slot[],
  step: (x: number) => number = relativeStep,
): number[][] {
  const columns: number[][] = [];
  for (const slot of slots) {
    for (let i = 0; i < slot.length; i++) {
      const x = slot[i];
      const h = step(x);
      const at = (t: number): number[] => {
        slot[i] = x + t;
        const y = Array.from(f());
        slot[i] = x;
        return y;
      };
      const p1 = at(h);
      const m1 = at(-h);
      const p2 = at(2 * h);
      const m2 = at(-2 * h);
      columns.push(p1.map((_, r) => (8 * (p1[r] - m1[r]) - (p2[r] - m2[r])) / (12 * h)));
    }
  }
  return columns;
}

/** The gradient of a number-valued f by finite differences, flattened in slot order. */
function finiteDifferenceGradient(
  f: () => number,
  slots: Slot[],
  step?: (x: number) => number,
): number[] {
  return finiteDifferenceColumns(() => [f()], slots, step).map((column) => column[0]);
}

function flat(rows: ArrayLike<number>[]): number[] {
  return rows.flatMap((row) => Array.from(row));
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  assert.equal(a.length, b.length, "dot product of arrays of different lengths");
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

/**
 * Asserts |actual_i − expected_i| ≤ rtol·(|expected_i| + floor·max_j |expected_j|) for every i:
 * relative to each entry, and for entries far below the result's size (floor 1 by default)
 * relative to the largest one. NaN fails. The message lists the worst entries.
 */
function assertAllClose(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  what: string,
  options: { rtol: number; floor?: number },
): void {
  assert.equal(actual.length, expected.length, `${what}: length`);
  let scale = 0;
  for (let i = 0; i < expected.length; i++) scale = Math.max(scale, Math.abs(expected[i]));
  const atol = options.rtol * (options.floor ?? 1) * scale;
  const bad: { i: number; ratio: number }[] = [];
  for (let i = 0; i < expected.length; i++) {
    const error = Math.abs(actual[i] - expected[i]);
    const tolerance = options.rtol * Math.abs(expected[i]) + atol;
    if (!(error <= tolerance)) bad.push({ i, ratio: error / tolerance });
  }
  if (bad.length > 0) {
    bad.sort((a, b) => b.ratio - a.ratio || a.i - b.i);
    const lines = bad
      .slice(0, 6)
      .map(({ i }) => `  [${i}] expected ${expected[i]}, got ${actual[i]}`)
      .join("\n");
    assert.fail(
      `${what}: ${bad.length} of ${expected.length} entries differ beyond rtol ${options.rtol}, ` +
        `atol ${atol.toExponential(2)}:\n${lines}`,
    );
  }
}

/** A forward-mode directional derivative equals the reverse-mode gradient dotted with the
 *  direction, up to rounding: to 1e-10 of Σ|g_i·v_i|. */
function assertDirectional(
  directional: number,
  gradient: ArrayLike<number>,
  v: ArrayLike<number>,
  what: string,
): void {
  let magnitude = 0;
  for (let i = 0; i < v.length; i++) magnitude += Math.abs(gradient[i] * v[i]);
  const expected = dot(gradient, v);
  assert.ok(
    Math.abs(directional - expected) <= 1e-10 * magnitude,
    `${what}: forward mode gives ${directional}, reverse mode gradient · v gives ${expected}`,
  );
}

/** A Jacobian-vector product (forward mode) equals J·v for the rows of J, up to rounding: to
 *  1e-10 of Σ_k |J_rk·v_k| in each row. */
function assertMatVec(
  rows: ArrayLike<number>[],
  v: ArrayLike<number>,
  jvp: ArrayLike<number>,
  what: string,
): void {
  assert.equal(jvp.length, rows.length, `${what}: length`);
  for (let r = 0; r < rows.length; r++) {
    let magnitude = 0;
    for (let k = 0; k < v.length; k++) magnitude += Math.abs(rows[r][k] * v[k]);
    const expected = dot(rows[r], v);
    assert.ok(
      Math.abs(jvp[r] - expected) <= 1e-10 * magnitude,
      `${what}: row ${r}: ${jvp[r]}, J·v gives ${expected}`,
    );
  }
}

/** A vector-Jacobian product (reverse mode) equals uᵀ·J for the rows of J, up to rounding: to
 *  1e-10 of Σ_r |u_r·J_rk| in each column. */
function assertVecMat(
  u: ArrayLike<number>,
  rows: ArrayLike<number>[],
  vjp: ArrayLike<number>,
  what: string,
): void {
  const columns = rows[0].length;
  assert.equal(vjp.length, columns, `${what}: length`);
  for (let k = 0; k < columns; k++) {
    let magnitude = 0;
    let expected = 0;
    for (let r = 0; r < rows.length; r++) {
      magnitude += Math.abs(u[r] * rows[r][k]);
      expected += u[r] * rows[r][k];
    }
    assert.ok(
      Math.abs(vjp[k] - expected) <= 1e-10 * magnitude,
      `${what}: column ${k}: ${vjp[k]}, uᵀ·J gives ${expected}`,
    );
  }
}

function randomVector(rng: gen.Rng, n: number): Float64Array {
  return Float64Array.from(rng.normals(n));
}

const FD = { rtol: 1e-6 };
const HAND = { rtol: 1e-9 };

/** Asserts that a value is what JSON can carry unchanged: finite numbers, strings, booleans,
 *  null, plain arrays and plain objects of them (no typed arrays, NaN or Infinity). */
function assertPlainJson(value: unknown, path: string): void {
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    assert.ok(Number.isFinite(value), `${path} is ${value}, which JSON cannot carry`);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => assertPlainJson(v, `${path}[${i}]`));
  } else {
    assert.ok(
      typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype,
      `${path} is a ${Object.prototype.toString.call(value)}, not a plain array or object`,
    );
    for (const [k, v] of Object.entries(value)) assertPlainJson(v, `${path}.${k}`);
  }
}

/**
 * Runs a `run<Fn>` of an eval and returns its output, asserting the prepare/run convention on
 * the way: `prepared` is left unchanged (the finite differences rely on it too), and the output,
 * with typed arrays made lists as the tool does after timing (`toJson`), is plain JSON, what
 * GradBench's protocol sends.
 */
function runChecked<P, R>(run: (p: P) => R, prepared: P, what: string): R {
  const before = structuredClone(prepared);
  const output = toJson(run(prepared));
  assert.deepStrictEqual(prepared, before, `${what} changed its prepared input`);
  assertPlainJson(output, `the output of ${what}`);
  return output as R;
}

// --- hello -------------------------------------------------------------------------------------

interface HelloEval {
  prepareSquare(input: number): number;
  runSquare(x: number): number;
  prepareDouble(input: number): number;
  runDouble(x: number): number;
}
interface HelloOps {
  squareGradient(x: number): number;
}
const hello = loader<HelloEval, HelloOps>("hello", { ops: true });
const helloInputs = [1, -2.5, 0.3, 128, 16384].map(gen.helloInput);

describe("hello", () => {
  test("square is x·x and double is 2x", async () => {
    const { ev } = await hello();
    for (const x of helloInputs) {
      assert.equal(ev.runSquare(ev.prepareSquare(x)), x * x);
      assert.equal(ev.runDouble(ev.prepareDouble(x)), 2 * x);
    }
  });

  test("double matches central differences of square", async () => {
    const { ev } = await hello();
    for (const x of helloInputs) {
      const slot = [x];
      const fd = finiteDifferenceGradient(() => ev.runSquare(ev.prepareSquare(slot[0])), [slot]);
      assertAllClose([ev.runDouble(ev.prepareDouble(x))], fd, `double(${x})`, FD);
    }
  });

  test("double (forward mode) equals gradient(square) (reverse mode)", async () => {
    const { ev, ops } = await hello();
    for (const x of helloInputs) {
      assert.equal(ev.runDouble(ev.prepareDouble(x)), ops().squareGradient(x));
    }
  });
});

// --- llsq --------------------------------------------------------------------------------------

interface LlsqPrepared {
  x: Float64Array;
  n: number;
}
interface LlsqEval {
  preparePrimal(input: gen.LlsqInput): LlsqPrepared;
  runPrimal(p: LlsqPrepared): number;
  prepareGradient(input: gen.LlsqInput): LlsqPrepared;
  runGradient(p: LlsqPrepared): number[];
}
interface LlsqOps {
  llsqDirectional(x: Float64Array, n: number, v: Float64Array): number;
}
const llsq = loader<LlsqEval, LlsqOps, LlsqEval>("llsq", { ops: true, hand: true });
const llsqInputs = [gen.llsqInput(11, 6, 10), gen.llsqInput(12, 8, 25), gen.llsqInput(13, 3, 2)];

describe("llsq", () => {
  test("primal is ½ Σ_i (sign(t_i) − Σ_j x_j t_i^j)²", async () => {
    const { ev } = await llsq();
    for (const input of llsqInputs) {
      let sum = 0;
      for (let i = 0; i < input.n; i++) {
        const t = -1 + (2 * i) / (input.n - 1);
        const r = Math.sign(t) - input.x.reduce((s, xj, j) => s + xj * t ** j, 0);
        sum += r * r;
      }
      assertAllClose([ev.runPrimal(ev.preparePrimal(input))], [sum / 2], "primal", { rtol: 1e-12 });
    }
  });

  test("gradient matches central differences of the primal", async () => {
    const { ev } = await llsq();
    for (const input of llsqInputs) {
      const p = ev.prepareGradient(input);
      const gradient = runChecked(ev.runGradient, p, "runGradient");
      const fd = finiteDifferenceGradient(() => ev.runPrimal(p), [p.x]);
      assertAllClose(gradient, fd, `gradient (m=${input.x.length}, n=${input.n})`, FD);
    }
  });

  test("gradient equals the hand-written gradient", async () => {
    const { ev, hand } = await llsq();
    for (const input of llsqInputs) {
      const nabla = ev.runGradient(ev.prepareGradient(input));
      assertAllClose(nabla, hand.runGradient(hand.prepareGradient(input)), "nabla vs hand", HAND);
    }
  });

  test("gradient · v equals the forward-mode derivative along v", async () => {
    const { ev, ops } = await llsq();
    const rng = new gen.Rng(14);
    for (const input of llsqInputs) {
      const p = ev.prepareGradient(input);
      const v = randomVector(rng, p.x.length);
      const forward = ops().llsqDirectional(p.x, p.n, v);
      assertDirectional(forward, ev.runGradient(p), v, "llsq");
    }
  });
});

// --- lse ---------------------------------------------------------------------------------------

interface LseEval {
  preparePrimal(input: gen.LseInput): Float64Array;
  runPrimal(x: Float64Array): number;
  prepareGradient(input: gen.LseInput): Float64Array;
  runGradient(x: Float64Array): number[];
}
interface LseOps {
  lseDirectional(x: Float64Array, v: Float64Array): number;
}
const lse = loader<LseEval, LseOps, LseEval>("lse", { ops: true, hand: true });
// GradBench's [0, 1) and, for the stable formulation, values near 500 (exp(500) ≈ 1e217).
const lseInputs = [gen.lseInput(21, 8), gen.lseInput(22, 12, 500), gen.lseInput(23, 1)];
// The curvature of log-sum-exp does not grow with |x|: an absolute step.
const lseStep = () => 1e-3;

describe("lse", () => {
  test("primal is log Σ exp(x_i)", async () => {
    const { ev } = await lse();
    for (const input of lseInputs) {
      const naive = Math.log(input.x.reduce((s, x) => s + Math.exp(x), 0));
      assertAllClose([ev.runPrimal(ev.preparePrimal(input))], [naive], "primal", { rtol: 1e-13 });
    }
  });

  test("gradient matches central differences of the primal", async () => {
    const { ev } = await lse();
    for (const input of lseInputs) {
      const x = ev.prepareGradient(input);
      const gradient = runChecked(ev.runGradient, x, "runGradient");
      const fd = finiteDifferenceGradient(() => ev.runPrimal(x), [x], lseStep);
      assertAllClose(gradient, fd, `gradient (n=${x.length})`, FD);
    }
  });

  test("gradient equals the hand-written gradient (softmax)", async () => {
    const { ev, hand } = await lse();
    for (const input of lseInputs) {
      const nabla = ev.runGradient(ev.prepareGradient(input));
      assertAllClose(nabla, hand.runGradient(hand.prepareGradient(input)), "nabla vs hand", HAND);
    }
  });

  test("gradient · v equals the forward-mode derivative along v", async () => {
    const { ev, ops } = await lse();
    const rng = new gen.Rng(24);
    for (const input of lseInputs) {
      const x = ev.prepareGradient(input);
      const v = randomVector(rng, x.length);
      assertDirectional(ops().lseDirectional(x, v), ev.runGradient(x), v, "lse");
    }
  });
});

// --- det ---------------------------------------------------------------------------------------

interface DetPrepared {
  a: Float64Array;
  ell: number;
}
interface DetEval {
  preparePrimal(input: gen.DetInput): DetPrepared;
  runPrimal(p: DetPrepared): number;
  prepareGradient(input: gen.DetInput): DetPrepared;
  runGradient(p: DetPrepared): number[];
}
interface DetOps {
  detDirectional(a: Float64Array, ell: number, v: Float64Array): number;
}
const det = loader<DetEval, DetOps>("det", { ops: true });
const detInputs = [gen.detInput(31, 3), gen.detInput(32, 4), gen.detInput(33, 1)];

/** det by Gaussian elimination with partial pivoting. */
function luDeterminant(a: number[], ell: number): number {
  const m = Array.from({ length: ell }, (_, i) => a.slice(i * ell, (i + 1) * ell));
  let result = 1;
  for (let c = 0; c < ell; c++) {
    let pivot = c;
    for (let r = c + 1; r < ell; r++) if (Math.abs(m[r][c]) > Math.abs(m[pivot][c])) pivot = r;
    if (pivot !== c) {
      [m[pivot], m[c]] = [m[c], m[pivot]];
      result = -result;
    }
    result *= m[c][c];
    for (let r = c + 1; r < ell; r++) {
      const factor = m[r][c] / m[c][c];
      for (let k = c; k < ell; k++) m[r][k] -= factor * m[c][k];
    }
  }
  return result;
}

describe("det", () => {
  test("primal equals the determinant by Gaussian elimination", async () => {
    const { ev } = await det();
    for (const input of detInputs) {
      const expected = luDeterminant(input.A, input.ell);
      assertAllClose([ev.runPrimal(ev.preparePrimal(input))], [expected], "det", { rtol: 1e-12 });
    }
  });

  test("gradient matches central differences of the primal", async () => {
    const { ev } = await det();
    for (const input of detInputs) {
      const p = ev.prepareGradient(input);
      const gradient = runChecked(ev.runGradient, p, "runGradient");
      const fd = finiteDifferenceGradient(() => ev.runPrimal(p), [p.a]);
      assertAllClose(gradient, fd, `gradient (ell=${p.ell})`, FD);
    }
  });

  test("gradient is the cofactor matrix: Σ_k G_ik·A_jk = det·δ_ij", async () => {
    const { ev } = await det();
    for (const input of detInputs) {
      const { A, ell } = input;
      const g = ev.runGradient(ev.prepareGradient(input));
      const d = luDeterminant(A, ell);
      const product: number[] = [];
      const identity: number[] = [];
      for (let i = 0; i < ell; i++) {
        for (let j = 0; j < ell; j++) {
          let sum = 0;
          for (let k = 0; k < ell; k++) sum += g[i * ell + k] * A[j * ell + k];
          product.push(sum);
          identity.push(i === j ? d : 0);
        }
      }
      assertAllClose(product, identity, `G·Aᵀ (ell=${ell})`, { rtol: 1e-10 });
    }
  });

  test("gradient · v equals the forward-mode derivative along v", async () => {
    const { ev, ops } = await det();
    const rng = new gen.Rng(34);
    for (const input of detInputs) {
      const p = ev.prepareGradient(input);
      const v = randomVector(rng, p.a.length);
      assertDirectional(ops().detDirectional(p.a, p.ell, v), ev.runGradient(p), v, "det");
    }
  });
});

// --- ode ---------------------------------------------------------------------------------------

interface OdePrepared {
  x: Float64Array;
  s: number;
}
interface OdeEval {
  preparePrimal(input: gen.OdeInput): OdePrepared;
  runPrimal(p: OdePrepared): number[];
  prepareGradient(input: gen.OdeInput): OdePrepared;
  runGradient(p: OdePrepared): number[];
}
interface OdeOps {
  lastComponentDirectional(x: Float64Array, s: number, v: Float64Array): number;
  solveOdeJvp(x: Float64Array, s: number, v: Float64Array): Float64Array;
  solveOdeVjp(x: Float64Array, s: number, u: Float64Array): Float64Array;
}
const ode = loader<OdeEval, OdeOps>("ode", { ops: true });
const odeInputs = [gen.odeInput(41, 4, 7), gen.odeInput(42, 8, 3), gen.odeInput(43, 5, 2)];

describe("ode", () => {
  test("primal is exact for n ≤ 4: y_i(2) = x_0⋯x_i · 2^(i+1)/(i+1)!", async () => {
    // The solution's components are polynomials in t of degree ≤ n, which RK4 integrates exactly.
    const { ev } = await ode();
    const input = odeInputs[0];
    const exact: number[] = [];
    let product = 1;
    let factor = 1;
    input.x.forEach((xi, i) => {
      product *= xi;
      factor *= 2 / (i + 1);
      exact.push(product * factor);
    });
    assertAllClose(ev.runPrimal(ev.preparePrimal(input)), exact, "y(2)", { rtol: 1e-13 });
  });

  test("gradient matches central differences of the primal's last component", async () => {
    const { ev } = await ode();
    for (const input of odeInputs) {
      const p = ev.prepareGradient(input);
      const gradient = runChecked(ev.runGradient, p, "runGradient");
      const fd = finiteDifferenceGradient(() => ev.runPrimal(p).at(-1)!, [p.x]);
      assertAllClose(gradient, fd, `gradient (n=${p.x.length}, s=${p.s})`, FD);
    }
  });

  test("gradient · v equals the forward-mode derivative along v", async () => {
    const { ev, ops } = await ode();
    const rng = new gen.Rng(44);
    for (const input of odeInputs) {
      const p = ev.prepareGradient(input);
      const v = randomVector(rng, p.x.length);
      const forward = ops().lastComponentDirectional(p.x, p.s, v);
      assertDirectional(forward, ev.runGradient(p), v, "ode");
    }
  });

  test("the whole solution: J·v (forward) and uᵀ·J (reverse) match central differences", async () => {
    const { ev, ops } = await ode();
    const rng = new gen.Rng(45);
    for (const input of odeInputs) {
      const p = ev.preparePrimal(input);
      const n = p.x.length;
      const columns = finiteDifferenceColumns(() => ev.runPrimal(p), [p.x]);
      const rows = Array.from({ length: n }, (_, r) => columns.map((column) => column[r]));
      const v = randomVector(rng, n);
      const u = randomVector(rng, n);
      const jvp = ops().solveOdeJvp(p.x, p.s, v);
      const vjp = ops().solveOdeVjp(p.x, p.s, u);
      assertAllClose(
        jvp,
        rows.map((row) => dot(row, v)),
        "J·v",
        FD,
      );
      assertAllClose(
        vjp,
        columns.map((column) => dot(u, column)),
        "uᵀ·J",
        FD,
      );
      assertAllClose([dot(u, jvp)], [dot(vjp, v)], "u·(J·v) = (uᵀ·J)·v", { rtol: 1e-12 });
    }
  });
});

// --- kmeans ------------------------------------------------------------------------------------

interface KmeansPrepared {
  points: Float64Array[];
  centroids: Float64Array[];
}
interface KmeansEval {
  prepareCost(input: gen.KmeansInput): KmeansPrepared;
  runCost(p: KmeansPrepared): number;
  prepareDir(input: gen.KmeansInput): KmeansPrepared;
  runDir(p: KmeansPrepared): number[][];
}
interface KmeansOps {
  kmeansGradient(points: Float64Array[], centroids: Float64Array[]): Float64Array[];
  kmeansHvp(points: Float64Array[], centroids: Float64Array[], v: Float64Array[]): Float64Array[];
  kmeansDirectional(points: Float64Array[], centroids: Float64Array[], v: Float64Array[]): number;
}
const kmeans = loader<KmeansEval, KmeansOps>("kmeans", { ops: true });
const kmeansInputs = [gen.kmeansInput(51, 3, 20, 2), gen.kmeansInput(52, 4, 30, 3)];

/** The index of each point's nearest centroid. */
function assignments(input: gen.KmeansInput): number[] {
  return input.points.map((p) => {
    let best = 0;
    let nearest = Infinity;
    input.centroids.forEach((c, j) => {
      const d = c.reduce((s, cj, t) => s + (p[t] - cj) ** 2, 0);
      if (d < nearest) [best, nearest] = [j, d];
    });
    return best;
  });
}

function unitRows(centroids: Float64Array[], j: number, i: number): Float64Array[] {
  return centroids.map((c, r) => Float64Array.from(c, (_, t) => (r === j && t === i ? 1 : 0)));
}

describe("kmeans", () => {
  test("cost is Σ_i min_j ‖P_i − C_j‖²", async () => {
    const { ev } = await kmeans();
    for (const input of kmeansInputs) {
      const nearest = assignments(input);
      const cost = input.points.reduce(
        (s, p, i) => s + p.reduce((t, pt, k) => t + (pt - input.centroids[nearest[i]][k]) ** 2, 0),
        0,
      );
      assertAllClose([ev.runCost(ev.prepareCost(input))], [cost], "cost", { rtol: 1e-13 });
    }
  });

  test("dir is C_j minus the mean of the points nearest to C_j", async () => {
    const { ev } = await kmeans();
    for (const input of kmeansInputs) {
      const p = ev.prepareDir(input);
      const dir = runChecked(ev.runDir, p, "runDir");
      const nearest = assignments(input);
      const expected = input.centroids.map((c, j) => {
        const members = input.points.filter((_, i) => nearest[i] === j);
        return c.map((cj, t) => cj - members.reduce((s, q) => s + q[t], 0) / members.length);
      });
      assertAllClose(flat(dir), flat(expected), "dir", { rtol: 1e-12 });
    }
  });

  test("the gradient J matches central differences of the cost", async () => {
    const { ev, ops } = await kmeans();
    for (const input of kmeansInputs) {
      const p = ev.prepareCost(input);
      const gradient = flat(ops().kmeansGradient(p.points, p.centroids));
      const fd = finiteDifferenceGradient(() => ev.runCost(p), p.centroids);
      assertAllClose(gradient, fd, "J", FD);
    }
  });

  test("the Hessian (Hessian-vector products) matches central differences of the gradient", async () => {
    const { ev, ops } = await kmeans();
    const rng = new gen.Rng(53);
    for (const input of kmeansInputs) {
      const { points, centroids } = ev.prepareCost(input);
      // column (j, i) of the Hessian: ∂(gradient)/∂C_ji
      const columns = finiteDifferenceColumns(
        () => flat(ops().kmeansGradient(points, centroids)),
        centroids,
      );
      const d = centroids[0].length;
      columns.forEach((column, c) => {
        const hvp = ops().kmeansHvp(
          points,
          centroids,
          unitRows(centroids, Math.floor(c / d), c % d),
        );
        assertAllClose(flat(hvp), column, `Hessian column ${c}`, FD);
      });
      // H of the eval: the Hessian times ones, its diagonal (the Hessian is diagonal)
      const ones = centroids.map((c) => new Float64Array(c.length).fill(1));
      const diagonal = columns.map((column, c) => column[c]);
      assertAllClose(flat(ops().kmeansHvp(points, centroids, ones)), diagonal, "H", FD);
      const v = centroids.map((c) => randomVector(rng, c.length));
      const hv = columns[0].map((_, r) =>
        dot(
          columns.map((column) => column[r]),
          flat(v),
        ),
      );
      assertAllClose(flat(ops().kmeansHvp(points, centroids, v)), hv, "H·v", FD);
    }
  });

  test("dir is J ⊘ H with J and H from central differences", async () => {
    const { ev } = await kmeans();
    for (const input of kmeansInputs) {
      const p = ev.prepareDir(input);
      const cost = () => ev.runCost(p);
      const gradient = finiteDifferenceGradient(cost, p.centroids);
      // the Hessian's diagonal: second central differences, exact for this piecewise quadratic
      const diagonal: number[] = [];
      for (const c of p.centroids) {
        for (let i = 0; i < c.length; i++) {
          const x = c[i];
          const h = 1e-3;
          const f0 = cost();
          c[i] = x + h;
          const fp = cost();
          c[i] = x - h;
          const fm = cost();
          c[i] = x;
          diagonal.push((fp - 2 * f0 + fm) / (h * h));
        }
      }
      const expected = gradient.map((g, i) => g / diagonal[i]);
      assertAllClose(flat(ev.runDir(p)), expected, "dir", FD);
    }
  });

  test("J · v equals the forward-mode derivative along v", async () => {
    const { ev, ops } = await kmeans();
    const rng = new gen.Rng(54);
    for (const input of kmeansInputs) {
      const { points, centroids } = ev.prepareCost(input);
      const v = centroids.map((c) => randomVector(rng, c.length));
      const forward = ops().kmeansDirectional(points, centroids, v);
      assertDirectional(forward, flat(ops().kmeansGradient(points, centroids)), flat(v), "kmeans");
    }
  });
});

// --- gmm ---------------------------------------------------------------------------------------

interface GmmParams {
  alpha: Float64Array;
  mu: Float64Array[];
  q: Float64Array[];
  l: Float64Array[];
}
interface GmmPrepared {
  params: GmmParams;
  x: Float64Array[];
  wishart: { gamma: number; m: number };
}
interface GmmGradient {
  alpha: number[];
  mu: number[][];
  q: number[][];
  l: number[][];
}
interface GmmEval {
  prepareObjective(input: gen.GmmInput): GmmPrepared;
  runObjective(p: GmmPrepared): number;
  prepareJacobian(input: gen.GmmInput): GmmPrepared;
  runJacobian(p: GmmPrepared): GmmGradient;
}
interface GmmOps {
  gmmDirectional(
    params: GmmParams,
    x: Float64Array[],
    wishart: { gamma: number; m: number },
    dparams: GmmParams,
  ): number;
}
const gmm = loader<GmmEval, GmmOps, GmmEval>("gmm", { ops: true, hand: true });
const gmmInputs = [gen.gmmInput(61, 2, 3, 10), gen.gmmInput(62, 3, 5, 10, 2, 1.5)];

const gmmSlots = (p: GmmParams): Slot[] => [p.alpha, ...p.mu, ...p.q, ...p.l];
const gmmFlat = (g: GmmGradient | GmmParams): number[] => [
  ...g.alpha,
  ...flat(g.mu),
  ...flat(g.q),
  ...flat(g.l),
];

/** log Γ(a) for a positive multiple of ½, exactly: Γ(1) = 1, Γ(½) = √π, Γ(a+1) = a·Γ(a). */
function logGammaHalfInteger(a: number): number {
  let result = 0;
  for (; a > 1; a -= 1) result += Math.log(a - 1);
  return a === 1 ? result : result + 0.5 * Math.log(Math.PI);
}

/** The log-posterior written from GradBench's formula, with each Q_k as a full matrix. */
function gmmReference(input: gen.GmmInput): number {
  const { d, k, n, m, gamma } = input;
  const logSumExp = (v: number[]) => {
    const max = Math.max(...v);
    return max + Math.log(v.reduce((s, x) => s + Math.exp(x - max), 0));
  };
  const Q = input.q.map((qk, c) => {
    const matrix = Array.from({ length: d }, (_, i) =>
      Array.from({ length: d }, (_, j) => (i === j ? Math.exp(qk[i]) : 0)),
    );
    let idx = 0;
    for (let col = 0; col < d; col++)
      for (let row = col + 1; row < d; row++) matrix[row][col] = input.l[c][idx++];
    return matrix;
  });
  let total = -n * d * 0.5 * Math.log(2 * Math.PI) - n * logSumExp(input.alpha);
  for (const xi of input.x) {
    const terms = Q.map((Qk, c) => {
      const centered = xi.map((v, t) => v - input.mu[c][t]);
      const z = Qk.map((row) => dot(row, centered));
      return input.alpha[c] + input.q[c].reduce((s, v) => s + v, 0) - 0.5 * dot(z, z);
    });
    total += logSumExp(terms);
  }
  const N = d + m + 1;
  let logMultiGamma = 0.25 * d * (d - 1) * Math.log(Math.PI);
  for (let j = 1; j <= d; j++) logMultiGamma += logGammaHalfInteger(N / 2 + (1 - j) / 2);
  for (let c = 0; c < k; c++) {
    const frobenius = flat(Q[c]).reduce((s, v) => s + v * v, 0);
    total +=
      N * d * (Math.log(gamma) - 0.5 * Math.log(2)) -
      logMultiGamma -
      0.5 * gamma * gamma * frobenius +
      m * input.q[c].reduce((s, v) => s + v, 0);
  }
  return total;
}

describe("gmm", () => {
  test("objective matches the log-posterior written from GradBench's formula", async () => {
    const { ev } = await gmm();
    for (const input of gmmInputs) {
      const objective = ev.runObjective(ev.prepareObjective(input));
      assertAllClose([objective], [gmmReference(input)], "objective", { rtol: 1e-12 });
    }
  });

  test("jacobian matches central differences of the objective", async () => {
    const { ev } = await gmm();
    for (const input of gmmInputs) {
      const p = ev.prepareJacobian(input);
      const gradient = runChecked(ev.runJacobian, p, "runJacobian");
      const fd = finiteDifferenceGradient(() => ev.runObjective(p), gmmSlots(p.params));
      assertAllClose(gmmFlat(gradient), fd, `jacobian (d=${input.d}, k=${input.k})`, FD);
    }
  });

  test("jacobian equals the hand-written gradient", async () => {
    const { ev, hand } = await gmm();
    for (const input of gmmInputs) {
      const nabla = ev.runJacobian(ev.prepareJacobian(input));
      const byHand = hand.runJacobian(hand.prepareJacobian(input));
      assert.deepStrictEqual(Object.keys(nabla).sort(), Object.keys(byHand).sort());
      assertAllClose(gmmFlat(nabla), gmmFlat(byHand), "nabla vs hand", HAND);
    }
  });

  test("jacobian · v equals the forward-mode derivative along v", async () => {
    const { ev, ops } = await gmm();
    const rng = new gen.Rng(63);
    for (const input of gmmInputs) {
      const p = ev.prepareJacobian(input);
      const rows = (m: Float64Array[]) => m.map((r) => randomVector(rng, r.length));
      const v: GmmParams = {
        alpha: randomVector(rng, p.params.alpha.length),
        mu: rows(p.params.mu),
        q: rows(p.params.q),
        l: rows(p.params.l),
      };
      const forward = ops().gmmDirectional(p.params, p.x, p.wishart, v);
      assertDirectional(forward, gmmFlat(ev.runJacobian(p)), gmmFlat(v), "gmm");
    }
  });
});

// --- ba ----------------------------------------------------------------------------------------

interface BaProblem {
  cams: Float64Array[];
  points: Float64Array[];
  weights: Float64Array;
  obs: { camera: number; point: number }[];
  feats: Float64Array[];
}
interface SparseMatrix {
  nrows: number;
  ncols: number;
  rows: Int32Array;
  cols: Int32Array;
  vals: Float64Array;
}
interface BaCompressedJacobian {
  rows: number[];
  cols: number[];
  vals: number[];
}
interface BaEval {
  baObjective(problem: BaProblem): { reprojErr: Float64Array; wErr: Float64Array };
  baJacobian(problem: BaProblem): SparseMatrix;
  prepareObjective(input: gen.BaInput): BaProblem;
  runObjective(problem: BaProblem): unknown;
  prepareJacobian(input: gen.BaInput): BaProblem;
  runJacobian(problem: BaProblem): BaCompressedJacobian;
}
interface BaOps {
  reprojectionJvp(
    cam: Float64Array,
    x: Float64Array,
    w: number,
    feat: Float64Array,
    dcam: Float64Array,
    dx: Float64Array,
    dw: number,
  ): [number, number];
}
const ba = loader<BaEval, BaOps, BaEval>("ba", { ops: true, hand: true });
const baFull = [gen.baFullProblem(71, 3, 4, 7), gen.baFullProblem(72, 2, 2, 3)];
const baCompressed = [gen.baInput(73, 2, 3, 5), gen.baInput(74, 1, 1, 1)];
// Jacobian entries span 1e-3 (radial distortion) to 1e3 (focal length): compared relative to
// each entry, down to 1e-4 of the largest.
const BA_FD = { rtol: 1e-6, floor: 1e-4 };
const BA_HAND = { rtol: 1e-9, floor: 1e-4 };

function toProblem(full: gen.BaFullProblem): BaProblem {
  return {
    cams: full.cams.map((c) => Float64Array.from(c)),
    points: full.points.map((x) => Float64Array.from(x)),
    weights: Float64Array.from(full.weights),
    obs: full.obs.map((o) => ({ ...o })),
    feats: full.feats.map((f) => Float64Array.from(f)),
  };
}

/** The CSR structure GradBench prescribes: rows 2i and 2i+1 hold observation i's 11 camera
 *  columns, 3 point columns and its weight column; row 2p+i the weight column alone. */
function baStructure(problem: BaProblem): { rows: number[]; cols: number[]; rowOf: number[] } {
  const n = problem.cams.length;
  const m = problem.points.length;
  const p = problem.obs.length;
  const rows = [0];
  const cols: number[] = [];
  const rowOf: number[] = [];
  problem.obs.forEach(({ camera, point }, i) => {
    for (let r = 0; r < 2; r++) {
      for (let j = 0; j < 11; j++) cols.push(11 * camera + j);
      for (let j = 0; j < 3; j++) cols.push(11 * n + 3 * point + j);
      cols.push(11 * n + 3 * m + i);
      while (rowOf.length < cols.length) rowOf.push(2 * i + r);
      rows.push(cols.length);
    }
  });
  for (let i = 0; i < p; i++) {
    cols.push(11 * n + 3 * m + i);
    rowOf.push(2 * p + i);
    rows.push(cols.length);
  }
  return { rows, cols, rowOf };
}

/** The Jacobian in GradBench's CSR structure with values from central differences of the
 *  residuals (2p reprojection errors, then p weight errors). */
function baFiniteDifferenceJacobian(ev: BaEval, problem: BaProblem) {
  const structure = baStructure(problem);
  const columns = finiteDifferenceColumns(
    () => {
      const e = ev.baObjective(problem);
      return [...e.reprojErr, ...e.wErr];
    },
    // in column order: cameras, points, weights
    [...problem.cams, ...problem.points, problem.weights],
  );
  const vals = structure.cols.map((col, k) => columns[col][structure.rowOf[k]]);
  return { ...structure, vals };
}

/** GradBench's compression: the first 30 entries (observation 0) and the last. */
function compress(j: {
  rows: ArrayLike<number>;
  cols: ArrayLike<number>;
  vals: ArrayLike<number>;
}) {
  const part = (a: ArrayLike<number>) => [...Array.from(a).slice(0, 30), a[a.length - 1]];
  return { rows: part(j.rows), cols: part(j.cols), vals: part(j.vals) };
}

/** Rotates pt by the angle-axis r with the rotation matrix cos θ·I + sin θ·[w]× + (1 − cos θ)·wwᵀ,
 *  and by pt + r × pt for r = 0, as GradBench prescribes. */
function baReferenceResiduals(problem: BaProblem): number[] {
  const reproj: number[] = [];
  const wErr: number[] = [];
  problem.obs.forEach(({ camera, point }, i) => {
    const cam = problem.cams[camera];
    const X = problem.points[point];
    const y = [X[0] - cam[3], X[1] - cam[4], X[2] - cam[5]];
    const theta = Math.hypot(cam[0], cam[1], cam[2]);
    let p: number[];
    if (theta === 0) {
      p = [
        y[0] + (cam[1] * y[2] - cam[2] * y[1]),
        y[1] + (cam[2] * y[0] - cam[0] * y[2]),
        y[2] + (cam[0] * y[1] - cam[1] * y[0]),
      ];
    } else {
      const [a, b, c] = [cam[0] / theta, cam[1] / theta, cam[2] / theta];
      const [co, si] = [Math.cos(theta), Math.sin(theta)];
      const R = [
        [co + a * a * (1 - co), a * b * (1 - co) - c * si, a * c * (1 - co) + b * si],
        [b * a * (1 - co) + c * si, co + b * b * (1 - co), b * c * (1 - co) - a * si],
        [c * a * (1 - co) - b * si, c * b * (1 - co) + a * si, co + c * c * (1 - co)],
      ];
      p = R.map((row) => dot(row, y));
    }
    const u = p[0] / p[2];
    const v = p[1] / p[2];
    const rsq = u * u + v * v;
    const distortion = 1 + cam[9] * rsq + cam[10] * rsq * rsq;
    const w = problem.weights[i];
    reproj.push(w * (cam[6] * distortion * u + cam[7] - problem.feats[i][0]));
    reproj.push(w * (cam[6] * distortion * v + cam[8] - problem.feats[i][1]));
    wErr.push(1 - w * w);
  });
  return [...reproj, ...wErr];
}

describe("ba", () => {
  test("objective matches residuals computed with rotation matrices", async () => {
    const { ev } = await ba();
    for (const full of baFull) {
      const problem = toProblem(full);
      const e = ev.baObjective(problem);
      const expected = baReferenceResiduals(problem);
      assertAllClose([...e.reprojErr, ...e.wErr], expected, "residuals", { rtol: 1e-12 });
    }
    for (const input of baCompressed) {
      const problem = ev.prepareObjective(input);
      const r = baReferenceResiduals(problem);
      const output = runChecked(ev.runObjective, problem, "runObjective");
      const expected = {
        reproj_error: { elements: [r[0], r[1]], repeated: input.p },
        w_err: { element: r[2 * input.p], repeated: input.p },
      };
      assert.deepStrictEqual(Object.keys(output as object).sort(), ["reproj_error", "w_err"]);
      const o = output as typeof expected;
      assert.equal(o.reproj_error.repeated, input.p);
      assert.equal(o.w_err.repeated, input.p);
      const got = [...o.reproj_error.elements, o.w_err.element];
      const want = [...expected.reproj_error.elements, expected.w_err.element];
      assertAllClose(got, want, "compressed objective", { rtol: 1e-12 });
    }
  });

  test("jacobian (full CSR) has GradBench's structure and matches central differences", async () => {
    const { ev } = await ba();
    for (const full of baFull) {
      const problem = toProblem(full);
      const jac = ev.baJacobian(problem);
      const expected = baFiniteDifferenceJacobian(ev, problem);
      assert.equal(jac.nrows, 3 * problem.obs.length);
      assert.equal(
        jac.ncols,
        11 * problem.cams.length + 3 * problem.points.length + problem.obs.length,
      );
      assert.deepStrictEqual(Array.from(jac.rows), expected.rows, "CSR row offsets");
      assert.deepStrictEqual(Array.from(jac.cols), expected.cols, "CSR columns");
      assertAllClose(jac.vals, expected.vals, "CSR values", BA_FD);
    }
  });

  test("jacobian on GradBench-shaped (replicated) input: compressed CSR matches central differences", async () => {
    const { ev } = await ba();
    for (const input of baCompressed) {
      const problem = ev.prepareJacobian(input);
      const output = runChecked(ev.runJacobian, problem, "runJacobian");
      const expected = compress(baFiniteDifferenceJacobian(ev, problem));
      assert.deepStrictEqual(Object.keys(output).sort(), ["cols", "rows", "vals"]);
      assert.deepStrictEqual(output.rows, expected.rows, "rows");
      assert.deepStrictEqual(output.cols, expected.cols, "cols");
      assertAllClose(output.vals, expected.vals, "vals", BA_FD);
    }
  });

  test("jacobian equals the hand-written Jacobian", async () => {
    const { ev, hand } = await ba();
    for (const full of baFull) {
      const a = ev.baJacobian(toProblem(full));
      const b = hand.baJacobian(toProblem(full));
      assert.deepStrictEqual(a.rows, b.rows);
      assert.deepStrictEqual(a.cols, b.cols);
      assertAllClose(a.vals, b.vals, "nabla vs hand (full CSR)", BA_HAND);
    }
    for (const input of baCompressed) {
      const a = ev.runJacobian(ev.prepareJacobian(input));
      const b = hand.runJacobian(hand.prepareJacobian(input));
      assert.deepStrictEqual([a.rows, a.cols], [b.rows, b.cols]);
      assertAllClose(a.vals, b.vals, "nabla vs hand (compressed)", BA_HAND);
    }
  });

  test("J·v from the pullbacks equals forward-mode Jacobian-vector products", async () => {
    const { ev, ops } = await ba();
    const rng = new gen.Rng(75);
    for (const full of baFull) {
      const problem = toProblem(full);
      const jac = ev.baJacobian(problem);
      const n = problem.cams.length;
      const m = problem.points.length;
      const v = randomVector(rng, jac.ncols);
      const jv: number[] = [];
      for (let r = 0; r < jac.nrows; r++) {
        let sum = 0;
        for (let k = jac.rows[r]; k < jac.rows[r + 1]; k++) sum += jac.vals[k] * v[jac.cols[k]];
        jv.push(sum);
      }
      const forward: number[] = [];
      problem.obs.forEach(({ camera, point }, i) => {
        const dcam = v.subarray(11 * camera, 11 * camera + 11);
        const dx = v.subarray(11 * n + 3 * point, 11 * n + 3 * point + 3);
        const dw = v[11 * n + 3 * m + i];
        const w = problem.weights[i];
        forward.push(
          ...ops().reprojectionJvp(
            problem.cams[camera],
            problem.points[point],
            w,
            problem.feats[i],
            dcam,
            dx,
            dw,
          ),
        );
      });
      problem.weights.forEach((w, i) => forward.push(-2 * w * v[11 * n + 3 * m + i]));
      assertAllClose(jv, forward, "J·v", { rtol: 1e-10, floor: 1e-4 });
    }
  });
});

// --- lstm --------------------------------------------------------------------------------------

interface LstmPrepared {
  mainParams: Float64Array[];
  extraParams: Float64Array[];
  state: Float64Array[];
  sequence: Float64Array[];
}
interface LstmEval {
  prepareObjective(input: gen.LstmInput): LstmPrepared;
  runObjective(p: LstmPrepared): number;
  prepareJacobian(input: gen.LstmInput): LstmPrepared;
  runJacobian(p: LstmPrepared): number[];
}
interface LstmOps {
  lstmDirectional(
    mainParams: Float64Array[],
    extraParams: Float64Array[],
    state: Float64Array[],
    sequence: Float64Array[],
    dmain: Float64Array[],
    dextra: Float64Array[],
  ): number;
}
const lstm = loader<LstmEval, LstmOps, LstmEval>("lstm", { ops: true, hand: true });
const lstmInputs = [
  gen.lstmInput(81, 2, 4, 4),
  gen.lstmInput(82, 1, 5, 3),
  gen.lstmInput(83, 3, 3, 2),
];

describe("lstm", () => {
  test("jacobian matches central differences of the objective", async () => {
    const { ev } = await lstm();
    for (const input of lstmInputs) {
      const p = ev.prepareJacobian(input);
      const gradient = runChecked(ev.runJacobian, p, "runJacobian");
      const b = input.sequence[0].length;
      assert.equal(gradient.length, 8 * (input.main_params.length / 2) * b + 3 * b);
      const fd = finiteDifferenceGradient(
        () => ev.runObjective(p),
        [...p.mainParams, ...p.extraParams],
      );
      assertAllClose(gradient, fd, `jacobian (l=${input.main_params.length / 2}, b=${b})`, FD);
    }
  });

  test("jacobian equals the hand-written gradient", async () => {
    const { ev, hand } = await lstm();
    for (const input of lstmInputs) {
      const nabla = ev.runJacobian(ev.prepareJacobian(input));
      assertAllClose(nabla, hand.runJacobian(hand.prepareJacobian(input)), "nabla vs hand", HAND);
    }
  });

  test("jacobian · v equals the forward-mode derivative along v", async () => {
    const { ev, ops } = await lstm();
    const rng = new gen.Rng(84);
    for (const input of lstmInputs) {
      const p = ev.prepareJacobian(input);
      const dmain = p.mainParams.map((r) => randomVector(rng, r.length));
      const dextra = p.extraParams.map((r) => randomVector(rng, r.length));
      const forward = ops().lstmDirectional(
        p.mainParams,
        p.extraParams,
        p.state,
        p.sequence,
        dmain,
        dextra,
      );
      assertDirectional(forward, ev.runJacobian(p), [...flat(dmain), ...flat(dextra)], "lstm");
    }
  });
});

// --- ht ----------------------------------------------------------------------------------------

interface HtPrepared {
  theta: Float64Array;
  us: Float64Array | null;
  data: unknown;
}
interface HtEval {
  prepareObjective(input: gen.HtInput): HtPrepared;
  runObjective(p: HtPrepared): number[];
  prepareJacobian(input: gen.HtInput): HtPrepared;
  runJacobian(p: HtPrepared): number[][];
}
interface HtOps {
  simpleJvp(theta: Float64Array, data: unknown, v: Float64Array): Float64Array;
  simpleVjp(theta: Float64Array, data: unknown, u: Float64Array): Float64Array;
  complicatedJvp(
    theta: Float64Array,
    us: Float64Array,
    data: unknown,
    vTheta: Float64Array,
    vUs: Float64Array,
  ): Float64Array;
  complicatedVjp(
    theta: Float64Array,
    us: Float64Array,
    data: unknown,
    u: Float64Array,
  ): [Float64Array, Float64Array];
}
const ht = loader<HtEval, HtOps>("ht", { ops: true });
const htInputs = [
  gen.htInput(91, "simple"),
  gen.htInput(92, "complicated"),
  gen.htInput(93, "simple", { mirrored: true, points: 5 }),
  gen.htInput(94, "complicated", { mirrored: true, points: 6 }),
];
const htName = (input: gen.HtInput) =>
  `${input.us.length === 0 ? "simple" : "complicated"}${input.data.model.is_mirrored ? ", mirrored" : ""}`;

/**
 * The Jacobian of the residuals with respect to theta, then (complicated variant) every u_i0,
 * u_i1, by central differences: one row per residual.
 */
function htFiniteDifferenceRows(ev: HtEval, p: HtPrepared): number[][] {
  const slots: Slot[] = p.us === null ? [p.theta] : [p.theta, p.us];
  const columns = finiteDifferenceColumns(() => ev.runObjective(p), slots);
  return columns[0].map((_, r) => columns.map((column) => column[r]));
}

/** The eval's complicated Jacobian rows [∂/∂u_i0, ∂/∂u_i1, ∂/∂theta…] (i the row's point)
 *  spread over all of theta and us, as htFiniteDifferenceRows orders them. */
function htFullRows(rows: number[][], us: Float64Array): number[][] {
  return rows.map((row, r) => {
    const i = Math.floor(r / 3);
    const du = new Array<number>(us.length).fill(0);
    du[2 * i] = row[0];
    du[2 * i + 1] = row[1];
    return [...row.slice(2), ...du];
  });
}

describe("ht", () => {
  test("jacobian matches central differences of the objective", async () => {
    const { ev } = await ht();
    for (const input of htInputs) {
      const p = ev.prepareJacobian(input);
      const residuals = runChecked(ev.runObjective, p, "runObjective");
      assert.equal(residuals.length, 3 * input.data.points.length);
      const rows = runChecked(ev.runJacobian, p, "runJacobian");
      assert.equal(rows.length, residuals.length);
      for (const row of rows) assert.equal(row.length, p.us === null ? 26 : 28);
      const fd = htFiniteDifferenceRows(ev, p);
      const full = p.us === null ? rows : htFullRows(rows, p.us);
      assertAllClose(flat(full), flat(fd), `jacobian (${htName(input)})`, FD);
    }
  });

  test("jacobian rows agree with forward-mode J·v and reverse-mode uᵀ·J", async () => {
    const { ev, ops } = await ht();
    const rng = new gen.Rng(95);
    for (const input of htInputs) {
      const p = ev.prepareJacobian(input);
      const rows = ev.runJacobian(p);
      const u = randomVector(rng, rows.length);
      const vTheta = randomVector(rng, 26);
      if (p.us === null) {
        assertMatVec(
          rows,
          vTheta,
          ops().simpleJvp(p.theta, p.data, vTheta),
          `J·v (${htName(input)})`,
        );
        assertVecMat(u, rows, ops().simpleVjp(p.theta, p.data, u), `uᵀ·J (${htName(input)})`);
      } else {
        const full = htFullRows(rows, p.us);
        const vUs = randomVector(rng, p.us.length);
        const jvp = ops().complicatedJvp(p.theta, p.us, p.data, vTheta, vUs);
        assertMatVec(full, [...vTheta, ...vUs], jvp, `J·v (${htName(input)})`);
        const [dTheta, dUs] = ops().complicatedVjp(p.theta, p.us, p.data, u);
        assertVecMat(u, full, [...dTheta, ...dUs], `uᵀ·J (${htName(input)})`);
      }
    }
  });
});

// --- particle ----------------------------------------------------------------------------------

interface Point {
  x: number;
  y: number;
}
interface ParticleEval {
  naiveEuler(w: number, force: (charges: Point[], p: Point) => Point): number;
  [fn: string]: unknown;
}
const particle = loader<ParticleEval>("particle");
const PARTICLE_W = 0.2071918746486116; // GradBench's expected output, the same for all four

/** −∇p for p(x) = Σ 1/‖x − charge‖, by hand (plain JavaScript, no nabla). */
function coulombForce(charges: Point[], p: Point): Point {
  const force = { x: 0, y: 0 };
  for (const c of charges) {
    const r3 = Math.hypot(p.x - c.x, p.y - c.y) ** 3;
    force.x += (p.x - c.x) / r3;
    force.y += (p.y - c.y) / r3;
  }
  return force;
}

describe("particle", () => {
  for (const fn of ["ff", "fr", "rf", "rr"]) {
    const title = `${fn} finds w = ${PARTICLE_W}, where the particle lands at x = 0`;
    test(title, async () => {
      const { ev } = await particle();
      const name = fn[0].toUpperCase() + fn.slice(1);
      const prepare = ev[`prepare${name}`] as (input: gen.ParticleInput) => unknown;
      const run = ev[`run${name}`] as (prepared: unknown) => number;
      const w = runChecked(run, prepare(gen.particleInput()), `run${name}`);
      assertAllClose([w], [PARTICLE_W], fn, { rtol: 1e-9 });
      // Independently of the constant: w minimizes the squared landing position.
      const landing = (v: number) => ev.naiveEuler(v, coulombForce);
      assert.ok(landing(w) < 1e-6, `lands at x² = ${landing(w)}`);
      assert.ok(landing(w - 0.01) > landing(w) && landing(w + 0.01) > landing(w));
    });
  }
});

// --- saddle ------------------------------------------------------------------------------------

const saddle = loader<Record<string, unknown>>("saddle");
const SADDLE_VALUE = 8.246324826140356e-6; // GradBench's expected output, 4 times, for all four
const SADDLE_TEXT = "8.246324826140356e-6";

describe("saddle", () => {
  for (const fn of ["ff", "fr", "rf", "rr"]) {
    test(`${fn} finds [p1*, p2*] = [${SADDLE_TEXT} ×4]`, async () => {
      const { ev } = await saddle();
      const name = fn[0].toUpperCase() + fn.slice(1);
      const prepare = ev[`prepare${name}`] as (input: gen.SaddleInput) => unknown;
      const run = ev[`run${name}`] as (prepared: unknown) => number[];
      const point = runChecked(run, prepare(gen.saddleInput()), `run${name}`);
      assertAllClose(point, [SADDLE_VALUE, SADDLE_VALUE, SADDLE_VALUE, SADDLE_VALUE], fn, {
        rtol: 1e-6,
      });
    });
  }
});

// --- GradBench's reference outputs ------------------------------------------------------------

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** GradBench's comparison: the same JSON structure (key sets, array lengths, types), and for
 *  numbers |x − y| / max(1, |x| + |y|) ≤ 1e-4 (numpy's isclose for hello). */
function gradbenchMismatches(expected: Json, actual: Json, hello: boolean, path = ""): string[] {
  const kind = (v: Json) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
  if (kind(expected) !== kind(actual))
    return [`${path}: expected ${kind(expected)}, got ${kind(actual)}`];
  if (typeof expected === "number") {
    const x = expected;
    const y = actual as number;
    const ok = hello
      ? Math.abs(y - x) <= 1e-8 + 1e-5 * Math.abs(x)
      : Math.abs(x - y) / Math.max(1, Math.abs(x) + Math.abs(y)) <= 1e-4;
    return ok ? [] : [`${path}: expected ${x}, got ${y}`];
  }
  if (Array.isArray(expected)) {
    const ys = actual as Json[];
    if (expected.length !== ys.length)
      return [`${path}: expected length ${expected.length}, got ${ys.length}`];
    return expected.flatMap((x, i) => gradbenchMismatches(x, ys[i], hello, `${path}[${i}]`));
  }
  if (expected !== null && typeof expected === "object") {
    const yo = actual as { [key: string]: Json };
    const keys = Object.keys(expected).sort();
    if (keys.join() !== Object.keys(yo).sort().join())
      return [`${path}: expected keys ${keys}, got ${Object.keys(yo).sort()}`];
    return keys.flatMap((k) => gradbenchMismatches(expected[k], yo[k], hello, `${path}.${k}`));
  }
  return expected === actual
    ? []
    : [`${path}: expected ${String(expected)}, got ${String(actual)}`];
}

/** Flattens a JSON value's numbers, for comparing nabla with hand-written code. */
function jsonNumbers(v: Json): number[] {
  if (typeof v === "number") return [v];
  if (Array.isArray(v)) return v.flatMap(jsonNumbers);
  if (v !== null && typeof v === "object")
    return Object.keys(v)
      .sort()
      .flatMap((k) => jsonNumbers(v[k]));
  return [];
}

const REFERENCE_EVALS: [string, () => Promise<{ ev: unknown; hand: unknown }>][] = [
  ["hello", hello],
  ["llsq", llsq],
  ["lse", lse],
  ["det", det],
  ["ode", ode],
  ["kmeans", kmeans],
  ["gmm", gmm],
  ["ba", ba],
  ["ht", ht],
  ["lstm", lstm],
  ["particle", particle],
  ["saddle", saddle],
];

/** The smallest workload file of an eval (for ht, of each variant: simple and complicated). */
function smallestWorkloads(dir: string, name: string): string[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort(
      (a, b) => statSync(join(dir, a)).size - statSync(join(dir, b)).size || a.localeCompare(b),
    );
  const variants = name === "ht" ? ["simple", "complicated"] : [""];
  return variants.flatMap((v) => files.filter((f) => f.startsWith(v)).slice(0, 1));
}

describe(`GradBench reference outputs, smallest workload of each eval (${DATA})`, () => {
  for (const [name, load] of REFERENCE_EVALS) {
    test(name, async (t) => {
      const dir = join(DATA, name);
      if (!existsSync(dir)) {
        t.skip(`${existsSync(DATA) ? dir : DATA} not found`);
        return;
      }
      const { ev, hand } = await load();
      const failures: string[] = [];
      for (const file of smallestWorkloads(dir, name)) {
        const record = JSON.parse(readFileSync(join(dir, file), "utf8")) as {
          input: Json;
          expected: { [fn: string]: Json };
        };
        for (const fn of Object.keys(record.expected)) {
          const outputs: Json[] = [];
          for (const [label, mod] of [
            ["nabla", ev],
            ["hand", hand],
          ] as const) {
            if (mod === undefined) continue;
            const Fn = fn[0].toUpperCase() + fn.slice(1);
            const prepare = (mod as Record<string, (x: unknown) => unknown>)[`prepare${Fn}`];
            const run = (mod as Record<string, (x: unknown) => unknown>)[`run${Fn}`];
            if (typeof prepare !== "function" || typeof run !== "function") {
              failures.push(`${file} ${fn} ${label}: no prepare${Fn}/run${Fn}`);
              continue;
            }
            const input = structuredClone(record.input);
            // as sent by the protocol: JSON turns NaN into null and typed arrays into objects
            const output = JSON.parse(JSON.stringify(toJson(run(prepare(input))) ?? null)) as Json;
            outputs.push(output);
            const mismatches = gradbenchMismatches(
              record.expected[fn],
              output,
              name === "hello",
              fn,
            );
            if (mismatches.length > 0)
              failures.push(
                `${file} ${fn} ${label}: ${mismatches.length} mismatches\n  ${mismatches.slice(0, 5).join("\n  ")}`,
              );
          }
          if (outputs.length === 2) {
            try {
              assertAllClose(
                jsonNumbers(outputs[0]),
                jsonNumbers(outputs[1]),
                `${file} ${fn} nabla vs hand`,
                { rtol: 1e-9, floor: 1e-4 },
              );
            } catch (error) {
              failures.push(message(error));
            }
          }
        }
      }
      assert.deepStrictEqual(failures, []);
    });
  }
});
