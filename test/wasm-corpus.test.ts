import { test } from "node:test";
import assert from "node:assert/strict";
import { corpusPrograms, corpusWrt, stageCorpus } from "./support/corpus-check.js";
import { importCompiled } from "./support/harness.js";

// The corpus (test/corpus/, TypeScript as people write it) with backend "wasm": each program's
// gradient and forward derivative, from the WebAssembly backend where it takes the program
// and as JavaScript where it does not (or where a call falls back), must equal the
// JavaScript backend's to the bit. The programs that run in wasm are listed, so that one
// leaving wasm, or joining it, is seen (docs/native-gap.md gives the reasons of the others).

// The program's backend (as `NABLA_BACKEND=wasm` gives it): no warning per call that stays
// JavaScript. Set before the module hooks start, which read it.
process.env.NABLA_BACKEND = "wasm";

/** The corpus programs whose gradient runs in wasm with the arguments of their `args`. */
const IN_WASM = [
  "bezier-fit",
  "camera-reprojection",
  "gp-nll",
  "heat-equation",
  "poly-lsq",
  "projectile-drag",
  "quaternion",
  "sdf-rasterizer",
  "soft-kmeans",
];

interface Backends {
  args: unknown[];
  gradientJs: (...a: unknown[]) => unknown;
  gradientWasm: (...a: unknown[]) => unknown;
  forwardJs: (...a: unknown[]) => { value: unknown };
  forwardWasm: (...a: unknown[]) => { value: unknown };
  wasmStats: { wasm: number; javascript: number };
}

/** Numbers, arrays and objects as text, typed arrays as arrays, -0 told from 0. */
const exact = (x: unknown) =>
  JSON.stringify(x, (_, v: unknown) =>
    ArrayBuffer.isView(v)
      ? Array.from(v as Float64Array)
      : Object.is(v, -0)
        ? "-0"
        : typeof v === "number" && !Number.isFinite(v)
          ? String(v)
          : v,
  );

test("corpus programs with backend wasm: the JavaScript backend's results, to the bit", async () => {
  const ranInWasm: string[] = [];
  for (const name of corpusPrograms()) {
    const wrt = `wrt: [${(await corpusWrt(name)).join(", ")}]`;
    const { check } = stageCorpus(name, [
      `import { valueWithGradient, valueWithDifferential } from "nabla";`,
      `export { wasmStats } from "nabla";`,
      `export const gradientJs = valueWithGradient(objective, { ${wrt}, backend: "js" });`,
      `export const gradientWasm = valueWithGradient(objective, { ${wrt} });`,
      `export const forwardJs = valueWithDifferential(objective, { ${wrt}, backend: "js" });`,
      `export const forwardWasm = valueWithDifferential(objective, { ${wrt} });`,
    ]);
    const m = await importCompiled<Backends>(check);
    const before = m.wasmStats.wasm;
    const wasm = m.gradientWasm(...m.args);
    if (m.wasmStats.wasm > before) ranInWasm.push(name);
    assert.equal(exact(wasm), exact(m.gradientJs(...m.args)), `${name}: the gradient`);
    assert.equal(
      exact(m.forwardWasm(...m.args).value),
      exact(m.forwardJs(...m.args).value),
      `${name}: the value in forward mode`,
    );
  }
  assert.deepEqual(ranInWasm.sort(), IN_WASM, "the programs whose gradient ran in wasm");
});
