import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";
import { checkBackends, f64, type Stats } from "./support/wasm-backends.js";

// Math.exp computed by the wasm code itself (compiler/emit/wasm/exp.ts): the engine's bits on
// every argument, used only where the runtime found the two agree (runtime/wasm-math.ts).

interface Program {
  expAll: (x: Float64Array) => Float64Array;
  wasmStats: Stats;
}

const EXP_ALL = {
  "main.ts": `export { wasmStats } from "nabla";
/** @backend wasm */
export function expAll(x: Float64Array): Float64Array {
  const out = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = Math.exp(x[i]);
  return out;
}
`,
};

/** Arguments over every range of the algorithm, and its edges. */
function arguments_(): Float64Array {
  const edges = [
    0,
    -0,
    1,
    -1,
    0.5,
    2,
    -2,
    1e-300,
    5e-324,
    -5e-324,
    2 ** -28,
    -(2 ** -28),
    2 ** -27,
    0.34657359027997264,
    0.3465735902799727,
    -0.34657359027997264,
    1.0397207708399179,
    1.039720770839918,
    -1.0397207708399179,
    709.782712893384,
    709.7827128933841,
    709.78,
    -708.3964185322641,
    -708.4,
    -709.1,
    -744.44,
    -745.1332191019411,
    -745.1332191019412,
    1000,
    -1000,
    NaN,
    Infinity,
    -Infinity,
    Math.LN2,
    -Math.LN2,
    1 + 2 ** -52,
    1 - 2 ** -53,
  ];
  const out: number[] = [...edges];
  // Deterministic and dense: 300,000 arguments spread over [-750, 750], [-20, 20], [-1, 1].
  let state = 12345;
  for (let k = 0; k < 100_000; k++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const u = state / 2 ** 32 - 0.5;
    out.push(u * 1500, u * 40, u * 2);
  }
  return Float64Array.from(out);
}

test("the wasm code's own exp gives Math.exp's bits on 300,000 arguments, edges and specials included", async () => {
  assert.equal(diagnosticsText(compileFiles(EXP_ALL)), "");
  const m = await loadProgram<Program>(EXP_ALL);
  const before = { ...m.wasmStats };
  const x = arguments_();
  const y = m.expAll(x);
  assert.equal(m.wasmStats.wasm - before.wasm, 1);
  // (More than one instance: the heap for the result grows by new instances.)
  assert.ok(m.wasmStats.instances > before.instances);
  assert.equal(
    m.wasmStats.ownExp - before.ownExp,
    m.wasmStats.instances - before.instances,
    "every instance computes exp itself",
  );
  for (let i = 0; i < x.length; i++)
    assert.ok(Object.is(y[i], Math.exp(x[i]!)), `exp(${x[i]}): ${y[i]} against ${Math.exp(x[i]!)}`);
});

test("where the engine's Math.exp differs from the module's, the module calls the engine's", async () => {
  const engine = Math.exp;
  // An engine whose exp(1) is fdlibm's own result rather than Math.E (as some are).
  const other = (x: number) => (x === 1 ? 2.7182818284590455 : engine(x));
  Math.exp = other;
  try {
    const m = await loadProgram<Program>(EXP_ALL);
    const before = { ...m.wasmStats };
    const x = f64(1, 0.5, -3);
    assert.deepEqual(m.expAll(x), f64(2.7182818284590455, engine(0.5), engine(-3)));
    assert.equal(m.wasmStats.wasm - before.wasm, 1);
    assert.equal(m.wasmStats.instances - before.instances, 1);
    assert.equal(m.wasmStats.ownExp - before.ownExp, 0, "the engine's exp is called");
  } finally {
    Math.exp = engine;
  }
});

test("log-sum-exp and a softplus with the own exp: gradients and differentials equal JavaScript's, against differences", async () => {
  await checkBackends(
    `function f(x: Float64Array, t: number): number {
  let max = -Infinity;
  for (const v of x) if (v > max) max = v;
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += Math.exp(x[i] - max) * Math.exp(t * 0.5);
  return max + Math.log(sum) + Math.log1p(Math.exp(-t * t)) + Math.exp(Math.exp(-t));
}`,
    [
      [f64(0.5, -1, 2, 1), 1],
      [f64(-700, 3, 0), -0.25],
      [f64(1, 1, 1), 0],
    ],
  );
});
