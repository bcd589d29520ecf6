import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";
import type { Stats } from "./support/wasm-backends.js";

// Random loops of the shapes the wasm backend runs two elements at a time
// (emit/wasm/elementwise-pairs.ts), written as people write them: counting up or down, from 0
// or 1 or 2, reading a neighbour (`a[i - 1]`), writing an output or adding into it, a ternary
// on a comparison, Math.exp, a running sum, and called with one array passed for two
// parameters (the pairs must then fall back to the scalar loop where iterations interact).
// Each function runs tagged `@backend wasm` and as JavaScript; values, outputs and gradients
// must agree to the bit. `NABLA_SEED` and `NABLA_PROGRAMS` choose other loops.

const SEED = Number(process.env.NABLA_SEED ?? 2);
const PROGRAMS = Number(process.env.NABLA_PROGRAMS ?? 40);

/** A seeded generator of the loops' pieces. */
function random(seed: number) {
  let state = seed >>> 0 || 1;
  const next = () => ((state = Math.imul(state ^ (state >>> 15), 2246822519) + 1) >>> 0) / 2 ** 32;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  return { pick, next };
}

/** A number expression of the element `i` and its lower neighbours (down to `i - reach`). */
function expression(rng: ReturnType<typeof random>, reach: number, depth = 0): string {
  const at = () =>
    reach > 0 && rng.next() < 0.4 ? `i - ${1 + Math.floor(rng.next() * reach)}` : "i";
  const leaf = () =>
    rng.pick([
      () => `a[${at()}]`,
      () => `b[${at()}]`,
      () => "s",
      () => rng.pick(["0.5", "2", "1.25", "-3"]),
    ])();
  if (depth >= 2 || rng.next() < 0.3) return leaf();
  const x = expression(rng, reach, depth + 1);
  const y = expression(rng, reach, depth + 1);
  return rng.pick([
    () => `(${x} + ${y})`,
    () => `(${x} - ${y})`,
    () => `(${x} * ${y})`,
    () => `(${x} / (1.5 + ${y} * ${y}))`,
    () => `Math.exp(0.125 * ${x})`,
    () => `(${x} > ${y} ? ${x} : 0.01 * ${y})`,
    () => `-(${x})`,
  ])();
}

/** One function of `(a, b, out, s)` returning a number: a loop, then the sum it carried. */
function loopFunction(rng: ReturnType<typeof random>, name: string): string {
  const start = rng.pick([0, 1, 2]);
  // Reads reach as far below i as the loop's start allows.
  const reach = start;
  const down = rng.next() < 0.5;
  const header = down
    ? `for (let i = a.length - 1; i >= ${start}; i--)`
    : `for (let i = ${start}; i < a.length; i++)`;
  const body: string[] = [];
  const statements = 1 + Math.floor(rng.next() * 3);
  for (let k = 0; k < statements; k++) {
    const target = rng.pick(["out[i]", "out[i]", "b[i]"]);
    body.push(
      rng.pick([
        () => `${target} = ${expression(rng, reach)};`,
        () => `${target} += ${expression(rng, reach)};`,
        () => `total += ${expression(rng, reach)};`,
        () =>
          `const v${k} = ${expression(rng, reach)};\n    out[i] = v${k} > 0 ? v${k} : 0.5 * v${k};`,
      ])(),
    );
  }
  return `function ${name}(a: Float64Array, b: Float64Array, out: Float64Array, s: number): number {
  let total = 0;
  ${header} {
    ${body.join("\n    ")}
  }
  return total + out.reduce((x, y) => x + y, 0) * 0.5;
}`;
}

test("random elementwise loops: wasm's values, outputs and gradients are JavaScript's to the bit", async () => {
  const rng = random(SEED);
  const names = Array.from({ length: PROGRAMS }, (_, k) => `loop${k}`);
  const sources = names.map((name) => loopFunction(rng, name));
  const exports = names.map(
    (name) => `export const ${name}Js = ${name};
/** @backend wasm */
export function ${name}Wasm(a: Float64Array, b: Float64Array, out: Float64Array, s: number): number {
  return ${name}(a, b, out, s);
}
// Its arguments copied first: a gradient is taken of a function that writes none.
function ${name}Fresh(a: Float64Array, b: Float64Array, s: number): number {
  return ${name}(a, Float64Array.from(b), new Float64Array(a.length), s);
}
export const ${name}GradientJs = gradient(${name}Fresh, { wrt: [0, 1] });
export const ${name}GradientWasm = gradient(${name}Fresh, { wrt: [0, 1], backend: "wasm" });`,
  );
  const files = {
    "main.ts": `import { gradient } from "nabla";
export { wasmStats } from "nabla";
${sources.join("\n")}
${exports.join("\n")}
`,
  };
  const text = diagnosticsText(compileFiles(files));
  // (NABLA201: a loop whose result does not depend on a or b, which the generator may write.)
  assert.doesNotMatch(text, /NABLA202|error/, `${text}\n${sources.join("\n")}`);
  type Loop = (a: Float64Array, b: Float64Array, out: Float64Array, s: number) => number;
  type Gradient = (a: Float64Array, b: Float64Array, s: number) => Float64Array[];
  const m = await loadProgram<Record<string, Loop | Gradient> & { wasmStats: Stats }>(files);
  const same = (wasm: number, js: number, what: string) =>
    assert.ok(Object.is(wasm, js), `${what}: wasm ${wasm}, JavaScript ${js}`);
  const before = m.wasmStats.javascript;
  for (const [k, name] of names.entries()) {
    for (const n of [0, 1, 2, 3, 5, 8, 9]) {
      const a = Float64Array.from({ length: n }, (_, i) => Math.sin(k + 1.3 * i) * 2);
      const b = Float64Array.from({ length: n }, (_, i) => Math.cos(k - 0.7 * i));
      const s = 0.75 - k / PROGRAMS;
      // Apart, and one array for all three: aliasing changes what later iterations read.
      for (const shared of [false, true]) {
        const what = `${name}, n = ${n}${shared ? ", one array for a, b and out" : ""}\n${sources[k]}`;
        const [aJ, bJ, oJ] = shared
          ? Array(3).fill(Float64Array.from(a))
          : [Float64Array.from(a), Float64Array.from(b), new Float64Array(n)];
        const [aW, bW, oW] = shared
          ? Array(3).fill(Float64Array.from(a))
          : [Float64Array.from(a), Float64Array.from(b), new Float64Array(n)];
        same(
          (m[`${name}Wasm`] as Loop)(aW, bW, oW, s),
          (m[`${name}Js`] as Loop)(aJ, bJ, oJ, s),
          what,
        );
        for (let i = 0; i < n; i++) {
          same(oW[i]!, oJ[i]!, `${what}\nout[${i}]`);
          same(bW[i]!, bJ[i]!, `${what}\nb[${i}]`);
        }
        if (shared) continue;
        const gJ = (m[`${name}GradientJs`] as Gradient)(a, b, s);
        const gW = (m[`${name}GradientWasm`] as Gradient)(a, b, s);
        for (const [p, part] of ["a", "b"].entries())
          for (let i = 0; i < n; i++) same(gW[p]![i]!, gJ[p]![i]!, `${what}\nd/d${part}[${i}]`);
      }
    }
  }
  assert.equal(m.wasmStats.javascript, before, "calls that fell back to JavaScript");
});
