import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";
import { checkBackends, f64, type Stats } from "./support/wasm-backends.js";

// Module-level values read by code in wasm (`const GRAVITY = 9.81`, a `let` the program
// changes, a constant imported from another module, a table or a settings object): wasm
// globals the runtime sets before each call (arrays and objects copied in with the
// arguments), so every call sees the value JavaScript would.

test("a module-level const, and one computed from others: wasm, the JavaScript backend's results, two ways", async () => {
  const counts = await checkBackends(
    `const GRAVITY = 9.81;
const HALF = 0.5;
const SPRING = 4 * HALF + Math.PI / 10;
export function f(heights: Float64Array, masses: Float64Array): number {
  let energy = 0;
  for (let i = 0; i < heights.length; i++) {
    energy += masses[i] * GRAVITY * heights[i] + HALF * SPRING * heights[i] * heights[i];
  }
  return energy;
}`,
    [[f64(1, 2.5, -0.5), f64(3, 0.25, 1.5)]],
  );
  assert.equal(counts.wasm, 3);
});

interface Program {
  energy: (x: Float64Array) => { value: number; gradient: Float64Array };
  energyJs: (x: Float64Array) => { value: number; gradient: Float64Array };
  setStiffness: (k: number) => void;
  setClamped: (on: boolean) => void;
  wasmStats: Stats;
}

const CHANGING = {
  "units.ts": `export const SCALE = 2.5;\n`,
  "main.ts": `import { valueWithGradient } from "nabla";
import { SCALE } from "./units.js";
export { wasmStats } from "nabla";
let stiffness = 1;
let clamped = false;
export function setStiffness(k: number): void {
  stiffness = k;
}
export function setClamped(on: boolean): void {
  clamped = on;
}
function springs(x: Float64Array): number {
  let e = 0;
  for (let i = 0; i < x.length; i++) {
    const stretch = clamped ? Math.min(x[i], 1) : x[i];
    e += 0.5 * stiffness * SCALE * stretch * stretch;
  }
  return e;
}
export const energy = valueWithGradient(springs, { backend: "wasm" });
export const energyJs = valueWithGradient(springs);
`,
};

test("a module-level let the program changes, a boolean and an imported const: each call reads them", async () => {
  const compiled = compileFiles(CHANGING);
  assert.doesNotMatch(diagnosticsText(compiled), /NABLA202/, diagnosticsText(compiled));
  const m = await loadProgram<Program>(CHANGING);
  const x = f64(0.5, 2, -1.5);
  const before = { ...m.wasmStats };
  const check = (what: string) => {
    const wasm = m.energy(x);
    const js = m.energyJs(x);
    assert.ok(Object.is(wasm.value, js.value), `${what}: value ${wasm.value} against ${js.value}`);
    assert.deepEqual([...wasm.gradient], [...js.gradient], `${what}: gradient`);
    return wasm.value;
  };
  const first = check("stiffness 1");
  m.setStiffness(3);
  assert.equal(check("stiffness 3"), 3 * first, "the new stiffness, not the one at the first call");
  m.setClamped(true);
  check("clamped");
  assert.equal(m.wasmStats.wasm - before.wasm, 3);
  assert.equal(m.wasmStats.javascript - before.javascript, 0);
});

test("a module-level value of another type, or a let set to a string at run time, stays or reruns JavaScript", async () => {
  const files = {
    "main.ts": `import { valueWithGradient } from "nabla";
export { wasmStats } from "nabla";
const LABEL = "spring";
let scale: number = 2;
export function breakScale(): void {
  (scale as unknown as { v: string }) = { v: "no" } as never;
}
function named(x: Float64Array): number {
  return LABEL.length * x[0];
}
function scaled(x: Float64Array): number {
  return scale * x[0] * x[0];
}
export const n = valueWithGradient(named, { backend: "wasm" });
export const s = valueWithGradient(scaled, { backend: "wasm" });
`,
  };
  const text = diagnosticsText(compileFiles(files));
  assert.match(
    text,
    /'valueWithGradient' runs as JavaScript, not WebAssembly: the module-level value 'LABEL' \(of type string\) in 'named'/,
  );
  const m = await loadProgram<{
    s: (x: Float64Array) => { value: number; gradient: Float64Array };
    breakScale: () => void;
    wasmStats: Stats;
  }>(files);
  const before = { ...m.wasmStats };
  assert.equal(m.s(f64(3)).value, 18);
  assert.equal(m.wasmStats.wasm - before.wasm, 1);
  m.breakScale();
  const broken = m.s(f64(3));
  assert.ok(Number.isNaN(broken.value), "JavaScript's answer: an object times a number is NaN");
  assert.equal(m.wasmStats.javascript - before.javascript, 1, "not a number: rerun as JavaScript");
});

test("a function of another module reading its own module-level value stays JavaScript: the name means something else here", async () => {
  const files = {
    "geometry.ts": `export const K = 3;
export function area(r: Float64Array): number {
  let s = 0;
  for (let i = 0; i < r.length; i++) s += Math.PI * r[i] * r[i] * K;
  return s;
}
`,
    "main.ts": `import { valueWithGradient } from "nabla";
import { area } from "./geometry.js";
export { wasmStats } from "nabla";
// A K of this module's own, which area must not see.
const K = 100;
export const scale = K;
export const g = valueWithGradient(area, { backend: "wasm" });
`,
  };
  const text = diagnosticsText(compileFiles(files));
  assert.match(
    text,
    /'valueWithGradient' runs as JavaScript, not WebAssembly: it reads the module-level value 'K' of another module \(geometry\.ts\)/,
  );
  const m = await loadProgram<{
    g: (r: Float64Array) => { value: number; gradient: Float64Array };
    wasmStats: Stats;
  }>(files);
  assert.equal(m.g(f64(1, 2)).value, Math.PI * 5 * 3, "geometry's K, 3");
});

const TABLES = {
  "main.ts": `import { valueWithGradient } from "nabla";
export { wasmStats } from "nabla";
const WEIGHTS = [0.5, 1.25, 2];
const SETTINGS = { gain: 1.5, offsets: new Float64Array([0.25, -0.5, 1]), robust: true };
export const history: number[] = [1, 2, 3];
function fit(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    const r = SETTINGS.gain * x[i] - SETTINGS.offsets[i] - history[i];
    s += WEIGHTS[i] * (SETTINGS.robust ? Math.log(1 + r * r) : r * r);
  }
  return s;
}
export const fitWasm = valueWithGradient(fit, { backend: "wasm" });
export const fitJs = valueWithGradient(fit);
`,
};

test("module-level arrays and objects (a table, a settings object): copied in at each call", async () => {
  const text = diagnosticsText(compileFiles(TABLES));
  assert.doesNotMatch(text, /NABLA202/, text);
  const m = await loadProgram<{
    fitWasm: (x: Float64Array) => { value: number; gradient: Float64Array };
    fitJs: (x: Float64Array) => { value: number; gradient: Float64Array };
    history: number[];
    wasmStats: Stats;
  }>(TABLES);
  const before = { ...m.wasmStats };
  const x = f64(0.5, 2, -1.5);
  const check = (what: string) => {
    const wasm = m.fitWasm(x);
    const js = m.fitJs(x);
    assert.ok(Object.is(wasm.value, js.value), `${what}: value ${wasm.value} against ${js.value}`);
    assert.deepEqual([...wasm.gradient], [...js.gradient], `${what}: gradient`);
    return wasm.value;
  };
  const first = check("as declared");
  // The program changes the module-level array between calls: the next call sees it.
  m.history[1] = -4;
  assert.notEqual(check("history changed"), first);
  assert.equal(m.wasmStats.wasm - before.wasm, 2);
  assert.equal(m.wasmStats.javascript - before.javascript, 0);
  // A module-level array with a string in it where the type says numbers: JavaScript's answer.
  (m.history as unknown[])[0] = "one";
  check("a string in the table");
  assert.equal(m.wasmStats.javascript - before.javascript, 1, "rerun as JavaScript");
});

test("a function tagged @backend wasm that writes a module-level array stays JavaScript", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `const totals = new Float64Array(3);
/** @backend wasm */
export function accumulate(x: Float64Array): number {
  for (let i = 0; i < x.length; i++) totals[i] += x[i];
  return totals[0];
}
`,
    }),
  );
  assert.match(
    text,
    /runs as JavaScript, not WebAssembly: it writes the module-level 'totals'/,
    text,
  );
});
