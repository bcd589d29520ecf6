import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";
import { checkBackends, f64, type Stats } from "./support/wasm-backends.js";

// Math.sin and Math.cos computed by the wasm code itself (compiler/emit/wasm/trig.ts): fdlibm,
// the engine's bits on every argument, used only where the runtime found the two agree
// (runtime/wasm-math.ts).

interface Program {
  trig: (x: Float64Array) => Float64Array;
  wasmStats: Stats;
}

const TRIG = {
  "main.ts": `export { wasmStats } from "nabla";
/** @backend wasm */
export function trig(x: Float64Array): Float64Array {
  const out = new Float64Array(2 * x.length);
  for (let i = 0; i < x.length; i++) {
    out[2 * i] = Math.sin(x[i]);
    out[2 * i + 1] = Math.cos(x[i]);
  }
  return out;
}
`,
};

/** Arguments over every range of the algorithm and its edges: near multiples of π/2 above all. */
function arguments_(): Float64Array {
  const out: number[] = [0, -0, 5e-324, -5e-324, 1e-300, 2 ** -27, -(2 ** -27), 2 ** -28];
  out.push(0.3, 0.29999999999999993, 0.78125, 0.7853981633974483, 0.7853981633974484);
  out.push(2.356194490192345, 1e6, 823549.6, 823550.1, 823550.2, 1e9, -1e9, 1e300, -1e300);
  out.push(NaN, Infinity, -Infinity, Math.PI, -Math.PI);
  // n·π/2 and the doubles around it: the cancellations that need fdlibm's second and third parts.
  for (let n = 1; n <= 2000; n++) {
    const x = (n * Math.PI) / 2;
    for (const d of [0, 2 ** -52, -(2 ** -52), 2 ** -40, -(2 ** -30), 2 ** -20])
      out.push(x * (1 + d), -x * (1 + d));
  }
  // Deterministic and dense, over several scales.
  let state = 12345;
  for (let k = 0; k < 100_000; k++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const u = state / 2 ** 32 - 0.5;
    out.push(u * 2, u * 20, u * 2e3, u * 2e6, u * 2 ** (40 * u));
  }
  return Float64Array.from(out);
}

test("the wasm code's own sin and cos give Math.sin's and Math.cos's bits on 500,000 arguments", async () => {
  assert.equal(diagnosticsText(compileFiles(TRIG)), "");
  const m = await loadProgram<Program>(TRIG);
  const before = { ...m.wasmStats };
  const x = arguments_();
  const y = m.trig(x);
  assert.equal(m.wasmStats.wasm - before.wasm, 1);
  assert.ok(m.wasmStats.instances > before.instances);
  assert.equal(
    m.wasmStats.ownTrig - before.ownTrig,
    m.wasmStats.instances - before.instances,
    "every instance computes sin and cos itself",
  );
  for (let i = 0; i < x.length; i++) {
    assert.ok(Object.is(y[2 * i], Math.sin(x[i]!)), `sin(${x[i]}): ${y[2 * i]}`);
    assert.ok(Object.is(y[2 * i + 1], Math.cos(x[i]!)), `cos(${x[i]}): ${y[2 * i + 1]}`);
  }
});

test("where the engine's Math.sin differs from the module's, the module calls the engine's", async () => {
  const engine = Math.sin;
  // An engine whose sin differs from fdlibm's in the last bit, at π (one of the probes).
  const other = (x: number) => (x === Math.PI ? 1.2246467991473535e-16 : engine(x));
  Math.sin = other;
  try {
    const m = await loadProgram<Program>(TRIG);
    const before = { ...m.wasmStats };
    const y = m.trig(f64(Math.PI, 0.5));
    assert.ok(Object.is(y[0], 1.2246467991473535e-16));
    assert.ok(Object.is(y[2], engine(0.5)));
    assert.equal(m.wasmStats.ownTrig - before.ownTrig, 0, "the engine's sin and cos are called");
  } finally {
    Math.sin = engine;
  }
});

test("a rotation and a pendulum with the own sin and cos: gradients and differentials equal JavaScript's, against differences", async () => {
  await checkBackends(
    `function f(x: Float64Array, t: number): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    const a = x[i] * t;
    s += Math.sin(a) * Math.cos(x[i]) - Math.cos(a + 10 * t) * Math.sin(3 * x[i]);
  }
  return s;
}`,
    [
      [f64(0.5, -1, 2, 1), 1],
      [f64(70, 3, 0, -40), -0.25],
      [f64(1.5707963267948966, Math.PI, 0), 3],
    ],
  );
});
