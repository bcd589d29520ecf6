import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { compileFiles, importCompiled } from "./support/harness.js";

// Forward mode on data-heavy code: data a differentiated function only reads gets no tangent
// (alias classes do not merge an argument with the others just because the callee stores
// arrays into it), and `jacobian` carries several directions through one forward pass.

/** A seeded generator (mulberry32): the same "random" inputs on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = seeded(20_260_517);
const randoms = (n: number, lo = -1, hi = 1) =>
  Array.from({ length: n }, () => lo + (hi - lo) * random());

/** Compiles `files`, loads main.ts, and returns its exports and generated code. */
async function build(files: Record<string, string>) {
  const result = compileFiles(files);
  assert.deepEqual(
    result.diagnostics.filter((d) => d.severity === "error").map((d) => d.message),
    [],
  );
  const code = result.outputs.get(join(result.dir, "main.ts"))!.code;
  const mod = await importCompiled<Record<string, (...args: unknown[]) => unknown>>(
    join(result.dir, "main.ts"),
  );
  return { mod, code };
}

/** The body of the generated function `name` in `code`. */
function functionText(code: string, name: string): string {
  const start = code.indexOf(`function ${name}(`);
  assert.ok(start >= 0, `no function ${name} in the output`);
  const end = code.indexOf("\n}\n", start);
  return code.slice(start, end + 2);
}

describe("inactive data stays without tangents", () => {
  // `collect` stores arrays of `rel` into its result, which aliases `rel`; `parents` is only
  // read. Before, any call to a callee that stores arrays into an argument merged all of its
  // arguments into one alias class, so the model (where `parents` comes from) became active
  // and every call built a zero shadow of all of it.
  const source = `
export interface Model { parents: number[]; base: number[][]; weights: number[] }

function collect(rel: number[][], parents: number[]): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < rel.length; i++) out.push(parents[i] < 0 ? rel[i] : rel[parents[i]]);
  return out;
}

export function f(x: Float64Array, m: Model): Float64Array {
  const rel = m.base.map((row) => row.map((v, j) => v * x[j % x.length]));
  const abs = collect(rel, m.parents);
  const r = new Float64Array(abs.length);
  for (let i = 0; i < abs.length; i++) {
    let s = 0;
    for (let j = 0; j < abs[i].length; j++) s += abs[i][j] * m.weights[j];
    r[i] = Math.sin(s);
  }
  return r;
}
`;
  const model = () => ({
    parents: [-1, 0, 0, 1],
    base: [randoms(3), randoms(3), randoms(3), randoms(3)],
    weights: randoms(3),
  });

  test("no shadow of the model, and the same derivative", async () => {
    const { mod, code } = await build({
      "main.ts": `import { differential } from "nabla";\n${source}
export const df = (x: Float64Array, m: Model, dx: Float64Array) => differential(f, { wrt: 0 })(x, m)(dx);
`,
    });
    const jvp = functionText(code, "f$jvp_0");
    assert.doesNotMatch(jvp, /\bdm\b|weights: /, "no zero shadow of the model");
    assert.doesNotMatch(functionText(code, "collect$jvp_0"), /dparents/);
    const m = model();
    const x = new Float64Array(randoms(3));
    const dx = new Float64Array(randoms(3));
    const got = mod.df!(x, m, dx) as Float64Array;
    const h = 1e-6;
    const plus = mod.f!(
      x.map((v, i) => v + h * dx[i]!),
      m,
    ) as Float64Array;
    const minus = mod.f!(
      x.map((v, i) => v - h * dx[i]!),
      m,
    ) as Float64Array;
    got.forEach((g, i) =>
      assert.ok(Math.abs(g - (plus[i]! - minus[i]!) / (2 * h)) < 1e-7, `element ${i}`),
    );
  });

  test("a callee that stores one argument's arrays into another still merges those two", async () => {
    // `into` receives `rows` arrays: writing into them later must make `rows` active.
    const { mod } = await build({
      "main.ts": `import { differential } from "nabla";
function link(into: number[][], rows: number[][], skip: number[]): void {
  for (let i = 0; i < rows.length; i++) if (skip[i] === 0) into.push(rows[i]);
}
export function g(x: number[], rows: number[][], skip: number[]): number {
  const into: number[][] = [];
  link(into, rows, skip);
  for (const r of into) r[0] = r[0] * x[0];
  let s = 0;
  for (const r of rows) s += r[0] * r[1];
  return s;
}
export const dg = (x: number[], rows: number[][], skip: number[]) =>
  differential(g, { wrt: 0 })(x, rows, skip)([1]);
`,
    });
    const rows = () => [
      [0.5, 2],
      [1.5, -1],
      [3, 0.25],
    ];
    // s = Σ_{kept} x·r0·r1 + Σ_{skipped} r0·r1, so ds/dx = Σ_{kept} r0·r1.
    assert.equal(mod.dg!([2], rows(), [0, 1, 0]), 0.5 * 2 + 3 * 0.25);
  });
});
