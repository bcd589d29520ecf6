import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";
import type { Stats } from "./support/wasm-backends.js";

// Random drivers tagged `@backend wasm`, written as people write optimisation loops: a gradient
// taken inside a loop (made once before it, or where it is called), scratch arrays, rows kept
// in a list grown from `[]`, the last gradient carried to the next step, copies of arrays,
// gradients taken in helpers. Each is compiled twice from one text, tagged and not; the
// untagged one runs as JavaScript, and the two must agree to the bit (but for what a gradient
// with respect to the number alone adds, forward mode in wasm: to rounding). This exercises the inner gradients' reverse mode in wasm
// (differentiate/inner-gradients.ts) and the heap an iteration puts back
// (emit/wasm/iteration-heap.ts): an array kept past its iteration and then reused would
// change the results. `NABLA_SEED` and `NABLA_PROGRAMS` choose other programs.

const SEED = Number(process.env.NABLA_SEED ?? 20261129);
const PROGRAMS = Number(process.env.NABLA_PROGRAMS ?? 12);

const LOSSES = [
  `function energy(x: Float64Array, w: number): number {
  let e = 0;
  for (let i = 0; i < x.length; i++) e += Math.sin(x[i]! * w) * x[i]!;
  return e + w * w;
}`,
  `function energy(x: Float64Array, w: number): number {
  let s = 0;
  for (const v of x) s += Math.exp(-v * v) * Math.cos(w + v);
  return Math.log(1 + s * s) + 0.5 * w;
}`,
  `function energy(x: Float64Array, w: number): number {
  const n = x.length;
  let s = 0;
  for (let i = 1; i < n; i++) s += (x[i]! - x[i - 1]!) ** 2 * w;
  return s + (n > 0 ? Math.sin(x[0]!) : 0);
}`,
];

/** A seeded generator of the driver's pieces. */
function random(seed: number) {
  let state = seed >>> 0 || 1;
  const next = () => ((state = Math.imul(state ^ (state >>> 15), 2246822519) + 1) >>> 0) / 2 ** 32;
  return { pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!, next };
}

/** One driver: its body (a function of `x: Float64Array, w: number` returning a Float64Array). */
function driver(rng: ReturnType<typeof random>): string {
  const held = rng.next() < 0.5;
  // Sometimes through helpers of the module, which take the gradients themselves: one
  // returning both parts (a tuple of an array and a number), or one per part.
  const viaHelper = !held && rng.next() < 0.5;
  const oneHelper = viaHelper && rng.next() < 0.5;
  const call = held ? "grad(at, w)" : "gradient(energy, { wrt: [0, 1] })(at, w)";
  const lines: string[] = [];
  if (held) lines.push("const grad = gradient(energy, { wrt: [0, 1] });");
  lines.push("const at = Float64Array.from(x);");
  lines.push("const kept: Float64Array[] = [];");
  lines.push("let last = new Float64Array(at.length);");
  lines.push("let total = 0;");
  lines.push(`for (let step = 0; step < ${1 + Math.floor(rng.next() * 4)}; step++) {`);
  lines.push(
    oneHelper
      ? "  const [g, dw] = gradientsAt(at, w);"
      : viaHelper
        ? "  const g = gradientAt(at, w);\n  const dw = slopeAt(at, w);"
        : `  const [g, dw] = ${call};`,
  );
  const pieces = [
    // A scratch array made and read within the step.
    `  const scratch = new Float64Array(at.length);
  for (let i = 0; i < at.length; i++) scratch[i] = g[i]! * g[i]!;
  for (const v of scratch) total += v;`,
    // A row kept past the step, in a list grown from [].
    `  kept.push(Float64Array.from(g));`,
    // The gradient carried to the next step.
    `  for (let i = 0; i < at.length; i++) total += last[i]! * g[i]!;
  last = g;`,
    // A copy made with a spread, read at once.
    `  const copy = [...g];
  total += copy.length > 0 ? copy[0]! : dw;`,
  ];
  for (const piece of pieces) if (rng.next() < 0.6) lines.push(piece);
  lines.push(
    `  for (let i = 0; i < at.length; i++) at[i] -= ${rng.pick(["0.1", "0.05", "0.01"])} * g[i]!;`,
  );
  lines.push("  total += dw;");
  lines.push("}");
  lines.push("const out = new Float64Array(1 + at.length * (kept.length + 2));");
  lines.push("out[0] = total;");
  lines.push("let k = 1;");
  lines.push("for (const row of [at, last, ...kept]) for (const v of row) out[k++] = v;");
  lines.push("return out;");
  return lines.map((l) => `  ${l}`).join("\n");
}

test(`random drivers tagged @backend wasm (seed ${SEED}, ${PROGRAMS} programs): JavaScript's results to the bit, in wasm`, async () => {
  const rng = random(SEED);
  const modules: Record<string, string> = {};
  for (let p = 0; p < PROGRAMS; p++) {
    const body = driver(rng);
    const head = (name: string) => `${name}(x: Float64Array, w: number): Float64Array`;
    modules[`p${p}.ts`] = `import { gradient } from "nabla";
${rng.pick(LOSSES)}
function gradientAt(x: Float64Array, w: number): Float64Array {
  return gradient(energy, { wrt: [0] })(x, w);
}
function slopeAt(x: Float64Array, w: number): number {
  return gradient(energy, { wrt: [1] })(x, w);
}
function gradientsAt(x: Float64Array, w: number): [Float64Array, number] {
  return gradient(energy, { wrt: [0, 1] })(x, w);
}
/** @backend wasm */
export function ${head("run")} {
${body}
}
export function ${head("runJs")} {
${body}
}
`;
  }
  const names = Object.keys(modules);
  const files = {
    ...modules,
    "main.ts": `export { wasmStats } from "nabla";\n${names
      .map((n, p) => `export * as p${p} from "./${n.replace(/\.ts$/, ".js")}";`)
      .join("\n")}\n`,
  };
  const compiled = compileFiles(files);
  assert.equal(diagnosticsText(compiled), "", Object.values(modules).join("\n"));
  type Run = (x: Float64Array, w: number) => Float64Array;
  const m = await loadProgram<Record<string, { run: Run; runJs: Run }> & { wasmStats: Stats }>(
    files,
  );
  const points: [Float64Array, number][] = [
    [Float64Array.of(0.5, -1.25, 2), 0.75],
    [Float64Array.of(1), -0.5],
    [Float64Array.of(), 1.5],
    [Float64Array.from({ length: 9 }, (_, i) => Math.cos(i * 1.7)), 2],
  ];
  names.forEach((name, p) => {
    const { run, runJs } = m[`p${p}`]!;
    for (const [x, w] of points) {
      const before = m.wasmStats.wasm;
      const got = run(x, w);
      assert.equal(m.wasmStats.wasm - before, 1, `${name} ran in wasm:\n${modules[name]}`);
      const want = runJs(x, w);
      assert.equal(got.length, want.length, modules[name]);
      // A gradient with respect to the number alone (slopeAt) is forward mode in wasm, reverse
      // mode in JavaScript: the total it adds into agrees to rounding, the rest to the bit.
      const rounded = modules[name]!.includes("slopeAt(at, w)");
      for (let i = 0; i < got.length; i++)
        assert.ok(
          Object.is(got[i], want[i]) ||
            (rounded && i === 0 && Math.abs(got[i]! - want[i]!) <= 1e-12 * Math.abs(want[i]!)),
          `${name} at [${x}], ${w}: [${i}] ${got[i]} vs ${want[i]}\n${modules[name]}`,
        );
    }
  });
});
