import { test } from "node:test";
import assert from "node:assert/strict";
import wabtModule from "wabt";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";
import { checkBackends, f64, type Stats } from "./support/wasm-backends.js";

// Math.exp two elements at a time (compiler/emit/wasm/exp.ts' expPairStatements, run by
// elementwise-pairs.ts): every lane must get the engine's bits, as the scalar exp does,
// including around the edges where the scalar code changes path and the vector code's one
// path had to be shown equal, and log-sum-exp's forward sweep (exps saved on the tape and
// summed) must give JavaScript's value and gradient to the bit.

const PROGRAM = {
  "main.ts": `import { gradient } from "nabla";
export { wasmStats } from "nabla";
/** @backend wasm */
export function expAll(x: Float64Array): Float64Array {
  const out = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = Math.exp(x[i]);
  return out;
}
function logSumExp(x: Float64Array): number {
  let max = -Infinity;
  for (let i = 0; i < x.length; i++) if (x[i] > max) max = x[i];
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += Math.exp(x[i] - max);
  return max + Math.log(sum);
}
export const lseJs = gradient(logSumExp);
export const lseWasm = gradient(logSumExp, { backend: "wasm" });
export const valueJs = logSumExp;
/** @backend wasm */
export function valueWasm(x: Float64Array): number {
  return logSumExp(x);
}
`,
};

interface Program {
  expAll: (x: Float64Array) => Float64Array;
  lseJs: (x: Float64Array) => Float64Array;
  lseWasm: (x: Float64Array) => Float64Array;
  valueJs: (x: Float64Array) => number;
  valueWasm: (x: Float64Array) => number;
  wasmStats: Stats;
}

/** The number `steps` representable doubles away from `x`. */
function ulpsAway(x: number, steps: number): number {
  const bits = new BigInt64Array(new Float64Array([x]).buffer);
  bits[0] = bits[0]! + BigInt(steps);
  return new Float64Array(bits.buffer)[0]!;
}

/** The edges of the scalar code's paths and of the vector code's cover, ±3000 ulps, both signs. */
function edgeArguments(): number[] {
  const edges = [
    0x162e42 * 2 ** -22, // the vector code's lower edge (below ln2/2)
    Math.LN2 / 2,
    0x162e43 * 2 ** -22, // the scalar code's k = 0 edge (high word 0x3fd62e42)
    0x10a2b2 * 2 ** -20, // the scalar code's k = ±1 edge (high word 0x3ff0a2b2)
    1.5 * Math.LN2,
    1,
    2 ** -28,
    708,
    709.782712893384,
    745.1332191019411,
  ];
  const out: number[] = [];
  for (const edge of edges)
    for (const sign of [1, -1])
      for (let j = -3000; j <= 3000; j++) out.push(ulpsAway(sign * edge, j));
  // Between the two lower edges, densely: where x/ln2 + 1/2 may round up to 1.
  const [low, , high] = edges as [number, number, number];
  for (let j = 0; j <= 20_000; j++) {
    const x = low + ((high - low) * j) / 20_000;
    out.push(x, -x);
  }
  return out;
}

/** Specials, and a deterministic spread over [-750, 750], [-20, 20] and [-1, 1]. */
function spreadArguments(): number[] {
  const out = [0, -0, NaN, Infinity, -Infinity, 5e-324, -5e-324, 1e-300, Math.E, -1, 2, 0.5];
  let state = 4242;
  for (let k = 0; k < 60_000; k++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const u = state / 2 ** 32 - 0.5;
    out.push(u * 1500, u * 40, u * 2);
  }
  return out;
}

const sameBits = (got: ArrayLike<number>, want: ArrayLike<number>, what: string) => {
  assert.equal(got.length, want.length, what);
  for (let i = 0; i < want.length; i++)
    assert.ok(Object.is(got[i], want[i]), `${what}[${i}]: wasm ${got[i]}, JavaScript ${want[i]}`);
};

/** The text of the program's WebAssembly modules (wabt's disassembly). */
async function moduleTexts(): Promise<string> {
  const code = [...compileFiles(PROGRAM).outputs.values()].map((o) => o.code).join("\n");
  const wabt = await wabtModule();
  return [...code.matchAll(/"bytes":"([^"]+)"/g)]
    .map((m) =>
      wabt.readWasm(new Uint8Array(Buffer.from(m[1]!, "base64")), { simd: true }).toText({}),
    )
    .join("\n");
}

test("the loops with an exp run two elements at a time", async () => {
  assert.equal(diagnosticsText(compileFiles(PROGRAM)), "");
  const text = await moduleTexts();
  // The pair's cover test: once in expAll, in the gradient's forward sweep and in the value.
  assert.equal(text.match(/i64x2\.all_true/g)?.length, 3, "paired exps");
});

test("two exps at a time give Math.exp's bits on every edge of both codes, and on 180,000 others", async () => {
  const m = await loadProgram<Program>(PROGRAM);
  const before = { ...m.wasmStats };
  for (const [what, xs] of [
    ["edges", edgeArguments()],
    ["spread", spreadArguments()],
  ] as const) {
    const x = Float64Array.from(xs);
    sameBits(m.expAll(x), x.map(Math.exp), what);
    // Shifted by one: each argument in the other lane.
    const shifted = Float64Array.from([0.25, ...xs]);
    sameBits(m.expAll(shifted), shifted.map(Math.exp), `${what}, shifted`);
  }
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "calls that fell back");
  assert.ok(m.wasmStats.ownExp > before.ownExp, "the module's own exp ran");
});

test("log-sum-exp's value and gradient equal JavaScript's to the bit at every length, with lanes the vector code leaves to the scalar one", async () => {
  const m = await loadProgram<Program>(PROGRAM);
  const before = { ...m.wasmStats };
  let calls = 0;
  for (let n = 0; n <= 17; n++) {
    const x = Float64Array.from({ length: n }, (_, i) => Math.sin(3 + 1.3 * i) * (2 + i));
    // An element equal to the largest (exp(0) = 1: below 2^-28) and one far below (underflow).
    if (n > 4) x[n - 2] = x.reduce((a, b) => Math.max(a, b), -Infinity);
    if (n > 6) x[1] = -800;
    sameBits([m.valueWasm(x)], [m.valueJs(x)], `value, n = ${n}`);
    sameBits(m.lseWasm(x), m.lseJs(x), `gradient, n = ${n}`);
    calls += 2;
  }
  assert.equal(m.wasmStats.wasm - before.wasm, calls, "calls run in wasm");
});

test("log-sum-exp with paired exps, checked two ways", async () => {
  await checkBackends(
    `function f(x: Float64Array, shift: number): number {
  let max = -Infinity;
  for (let i = 0; i < x.length; i++) if (x[i] > max) max = x[i];
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += Math.exp(x[i] - max + shift);
  return max + Math.log(sum);
}`,
    [
      [f64(0.5, -1, 2, 1, 0.25), 0.5],
      [f64(3, -2, 7, 1.5, -0.5, 2, 4), -1],
      [f64(1, 1, 1), 0],
    ],
  );
});
