import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";
import { kmeansCostSource, SQUARED_DISTANCE } from "./support/wasm-backends.js";

// The WebAssembly backend under the second-order operators: `hessian`,
// `hessianVectorProduct`, `gradientAndHessianVectorProduct` (reverse over forward, both sweeps
// in wasm) and `jacobian` of a function returning one number. Each is checked against the
// JavaScript backend (within 1e-12 relative), against central differences of the first-order
// derivative, and for really running in wasm; a Jacobian the backend does not cover says so.

type Rows = Float64Array[];

interface Stats {
  wasm: number;
  javascript: number;
}

const f64 = (...xs: number[]) => Float64Array.from(xs);

function assertRelative(actual: ArrayLike<number>, expected: ArrayLike<number>, what: string) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < actual.length; i++) {
    const [a, e] = [actual[i]!, expected[i]!];
    const scale = Math.max(Math.abs(a), Math.abs(e), 1e-300);
    assert.ok(Object.is(a, e) || Math.abs(a - e) <= 1e-12 * scale, `${what}[${i}]: ${a} vs ${e}`);
  }
}

/** Central differences of a vector function g at x along each coordinate: columns ∂g/∂x_j. */
function differencesOf(g: (x: Float64Array) => Float64Array, x: Float64Array): Float64Array[] {
  return Array.from(x, (xj, j) => {
    const h = 1e-6 * Math.max(1, Math.abs(xj));
    const at = (t: number) => g(x.map((v, i) => (i === j ? t : v)));
    const [plus, minus] = [at(xj + h), at(xj - h)];
    return plus.map((p, i) => (p - minus[i]!) / (2 * h));
  });
}

function assertNear(actual: number, expected: number, what: string, tolerance = 1e-5) {
  const scale = Math.max(1, Math.abs(actual), Math.abs(expected));
  assert.ok(Math.abs(actual - expected) <= tolerance * scale, `${what}: ${actual} vs ${expected}`);
}

// A chained Rosenbrock energy, as one would write it for an optimizer.
const ENERGY = `
export function energy(x: Float64Array): number {
  let total = 0;
  for (let i = 0; i + 1 < x.length; i++) {
    const bend = x[i + 1] - x[i] * x[i];
    const pull = 1 - x[i];
    total += 100 * bend * bend + pull * pull + Math.sin(x[i] * x[i + 1]);
  }
  return total;
}`;

interface SecondOrder {
  hessianJs: (x: Float64Array) => Rows;
  hessianWasm: (x: Float64Array) => Rows;
  hvpJs: (x: Float64Array, v: Float64Array) => Float64Array;
  hvpWasm: (x: Float64Array, v: Float64Array) => Float64Array;
  bothJs: (x: Float64Array, v: Float64Array) => Record<string, Float64Array>;
  bothWasm: (x: Float64Array, v: Float64Array) => Record<string, Float64Array>;
  gradientJs: (x: Float64Array) => Float64Array;
  jacobianForward: (x: Float64Array) => Float64Array;
  jacobianReverse: (x: Float64Array) => Float64Array;
  wasmStats: Stats;
}

const SECOND_ORDER = {
  "main.ts": `import {
  gradient,
  gradientAndHessianVectorProduct,
  hessian,
  hessianVectorProduct,
  jacobian,
} from "nabla";
export { wasmStats } from "nabla";
${ENERGY}
export const hessianJs = hessian(energy);
export const hessianWasm = hessian(energy, { backend: "wasm" });
export const hvpJs = hessianVectorProduct(energy);
export const hvpWasm = hessianVectorProduct(energy, { backend: "wasm" });
export const bothJs = gradientAndHessianVectorProduct(energy);
export const bothWasm = gradientAndHessianVectorProduct(energy, { backend: "wasm" });
export const gradientJs = gradient(energy);
export const jacobianForward = jacobian(energy, { backend: "wasm", mode: "forward" });
export const jacobianReverse = jacobian(energy, { backend: "wasm", mode: "reverse" });
`,
};

test("second-order operators with backend wasm: every call in wasm, each named in the module", () => {
  const compiled = compileFiles(SECOND_ORDER);
  const text = diagnosticsText(compiled);
  assert.doesNotMatch(text, /NABLA202/, text);
  const code = [...compiled.outputs.values()][0]!.code;
  for (const operator of [
    "hessian",
    "hessianVectorProduct",
    "gradientAndHessianVectorProduct",
    "jacobian",
  ])
    assert.match(
      code,
      new RegExp(`// ${operator}\\(energy\\) at main\\.ts:\\d+:\\d+: WebAssembly`),
    );
});

test("hessian, Hessian-vector products and Jacobians in wasm: equal to JavaScript's, and to differences", async () => {
  const m = await loadProgram<SecondOrder>(SECOND_ORDER);
  const before = { ...m.wasmStats };
  const points = [f64(0.5, -0.3, 1.2, 0.8), f64(-1.1, 0.4, 0.9, 2.2, -0.7, 0.05)];
  let wasmCalls = 0;
  for (const x of points) {
    const n = x.length;
    const v = x.map((_, i) => Math.cos(3 * i + 1));
    // The Hessian: wasm equals JavaScript, and its columns are differences of the gradient.
    const hWasm = m.hessianWasm(x);
    const hJs = m.hessianJs(x);
    hWasm.forEach((row, i) => assertRelative(row, hJs[i]!, `hessian row ${i}`));
    const columns = differencesOf(m.gradientJs, x);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) assertNear(hWasm[i]![j]!, columns[j]![i]!, `H[${i}][${j}]`);
    // H·v three ways: the wasm product, JavaScript's, and the Hessian times v.
    const hvp = m.hvpWasm(x, v);
    assertRelative(hvp, m.hvpJs(x, v), "hessianVectorProduct");
    hWasm.forEach((row, i) =>
      assertNear(
        hvp[i]!,
        row.reduce((s, h, j) => s + h * v[j]!, 0),
        `(H·v)[${i}]`,
        1e-10,
      ),
    );
    // The gradient and H·v from one pass: both equal JavaScript's; the gradient is f's.
    const both = m.bothWasm(x, v);
    const bothJs = m.bothJs(x, v);
    assertRelative(both.gradient!, bothJs.gradient!, "gradient of gradientAndHessianVectorProduct");
    assertRelative(both.hessianVectorProduct!, hvp, "H·v of gradientAndHessianVectorProduct");
    assertRelative(both.gradient!, m.gradientJs(x), "the gradient against gradient's");
    // The Jacobian of a number-valued function is its gradient, in both modes, in wasm.
    assertRelative(m.jacobianReverse(x), m.gradientJs(x), "jacobian, reverse mode");
    assertRelative(m.jacobianForward(x), m.gradientJs(x), "jacobian, forward mode");
    // hessian: n products; hvp and both: one each; jacobian: one gradient, and in forward mode
    // the value then n differentials.
    wasmCalls += n + 1 + 1 + 1 + (n + 1);
  }
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "calls that fell back");
  assert.equal(m.wasmStats.wasm - before.wasm, wasmCalls, "calls run in wasm");
});

// kmeans' Newton step as GradBench's kmeans eval writes it: rows of Float64Arrays, a minimum
// chosen per point, the gradient and the Hessian's diagonal (H·1) from one pass.
const KMEANS = {
  "main.ts": `import { gradientAndHessianVectorProduct } from "nabla";
export { wasmStats } from "nabla";

${SQUARED_DISTANCE}

${kmeansCostSource("kmeansCost")}

function newtonStep(backend: "js" | "wasm") {
  return (points: Float64Array[], centroids: Float64Array[]): Float64Array[] => {
    const ones = centroids.map((c) => new Float64Array(c.length).fill(1));
    const step =
      backend === "wasm"
        ? gradientAndHessianVectorProduct(kmeansCost, { wrt: 1, backend: "wasm" })
        : gradientAndHessianVectorProduct(kmeansCost, { wrt: 1 });
    const { gradient, hessianVectorProduct } = step(points, centroids, ones);
    return gradient.map((g, j) => g.map((gi, i) => gi / hessianVectorProduct[j][i]));
  };
}
export const stepJs = newtonStep("js");
export const stepWasm = newtonStep("wasm");
`,
};

test("kmeans' Newton step (gradient and H·1 from one pass) in wasm equals JavaScript's and the differences", async () => {
  const m = await loadProgram<{
    kmeansCost: (p: Rows, c: Rows) => number;
    stepJs: (p: Rows, c: Rows) => Rows;
    stepWasm: (p: Rows, c: Rows) => Rows;
    wasmStats: Stats;
  }>(KMEANS);
  // Points and centroids from a fixed generator, centroids apart from every point.
  let s = 7;
  const next = () => ((s = (s * 48271) % 2147483647) / 2147483647) * 4 - 2;
  const points = Array.from({ length: 40 }, () => f64(next(), next(), next()));
  const centroids = Array.from({ length: 5 }, () => f64(next(), next(), next()));
  const before = { ...m.wasmStats };
  const wasm = m.stepWasm(points, centroids);
  const js = m.stepJs(points, centroids);
  assert.equal(m.wasmStats.wasm - before.wasm, 1, "the step ran in wasm");
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "nothing fell back");
  wasm.forEach((row, j) => assertRelative(row, js[j]!, `step row ${j}`));
  // Against differences: the gradient of the cost, and its second derivative along a
  // coordinate (the cost is piecewise quadratic, so central differences are exact up to
  // rounding where no point changes its nearest centroid).
  for (let j = 0; j < centroids.length; j++)
    for (let i = 0; i < 3; i++) {
      const h = 1e-4;
      const at = (t: number) =>
        m.kmeansCost(
          points,
          centroids.map((c, k) => (k === j ? c.map((x, q) => (q === i ? t : x)) : c)),
        );
      const c = centroids[j]![i]!;
      const [plus, mid, minus] = [at(c + h), at(c), at(c - h)];
      const gradient = (plus - minus) / (2 * h);
      const second = (plus - 2 * mid + minus) / (h * h);
      if (second === 0) continue; // a centroid no point is nearest to: the step is 0/0
      assertNear(wasm[j]![i]!, gradient / second, `step[${j}][${i}]`, 1e-4);
    }
});

test("a Jacobian of a function returning several numbers: its forward passes and its pullbacks in wasm", async () => {
  const files = (backend: string) => ({
    "main.ts": `import { jacobian } from "nabla";
export function residuals(x: Float64Array): Float64Array {
  const r = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) r[i] = Math.sin(x[i]) * x[(i + 1) % x.length];
  return r;
}
export const jac = jacobian(residuals, { backend: "${backend}" });
`,
  });
  const compiled = compileFiles(files("wasm"));
  assert.doesNotMatch(diagnosticsText(compiled), /NABLA202/);
  const code = [...compiled.outputs.values()][0]!.code;
  assert.match(
    code,
    /\/\/ jacobian\(residuals\) at main\.ts:7:20 \(its forward passes\): WebAssembly \(\d+ bytes\); per call it copies in parameters 0, 1, copies out its array results/,
  );
  assert.match(
    code,
    /\/\/ jacobian\(residuals\) at main\.ts:7:20 \(its pullback\): WebAssembly \(\d+ bytes\); per call it copies in parameters 0, 1, copies back parameters 1, copies out its array results \(taken: the forward sweep, whose memory it keeps; at each seed: the backward sweep on it, the arguments copied in again\)/,
  );
  // "auto" warns of nothing either; the Jacobian is right either way (wasm-lanes.test.ts
  // compares the two backends).
  assert.doesNotMatch(diagnosticsText(compileFiles(files("auto"))), /NABLA202/);
  const m = await loadProgram<{ jac: (x: Float64Array) => Rows }>(files("wasm"));
  const x = f64(0.3, -0.8, 1.4);
  const rows = m.jac(x);
  const expected = [
    [Math.cos(0.3) * -0.8, Math.sin(0.3), 0],
    [0, Math.cos(-0.8) * 1.4, Math.sin(-0.8)],
    [Math.sin(1.4), 0, Math.cos(1.4) * 0.3],
  ];
  rows.forEach((row, i) => row.forEach((d, j) => assertNear(d, expected[i]![j]!, `J[${i}][${j}]`)));
});
