import { readFileSync } from "node:fs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";
import { f64, type Stats } from "./support/wasm-backends.js";

// A function tagged `@backend wasm` that nabla cannot lower stays JavaScript, and NABLA202 says
// why: the warning at the function's head, a note at each construct it could not read, phrased
// for a function run as WebAssembly (nobody differentiates it, so "inside differentiable code"
// would mislead). A function that does lower is unaffected.

const SUM_OF_CUBES = `function cubes(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i]! * x[i]! * x[i]!;
  return s;
}`;

const HELP = (name: string, notes = "the note points at") =>
  `help: change what ${notes}, or move it out into the JavaScript code that calls '${name}'`;
const HEAD = (name: string, notes = "the note points at") =>
  `warning NABLA202: '${name}' runs as JavaScript, not WebAssembly: nabla could not read the code ${notes} (it reads a function run as WebAssembly as it reads differentiable code)`;

const warnings = (source: string) => diagnosticsText(compileFiles({ "main.ts": source }));

test("'pullback' inside: the note points at it and says it is not covered there", () => {
  const text = warnings(`import { pullback } from "nabla";
${SUM_OF_CUBES}
/** @backend wasm */
export function grads(rows: Float64Array[]): Float64Array {
  const out = new Float64Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const back = pullback(cubes)(rows[i]!);
    out[i] = back(1)[0]!;
  }
  return out;
}
`);
  assert.equal(
    text,
    `main.ts:8:8: ${HEAD("grads")}
  7 | /** @backend wasm */
> 8 | export function grads(rows: Float64Array[]): Float64Array {
    |        ^^^^^^^^^^^^^^
${HELP("grads")}
main.ts:11:18: note: 'pullback' is not covered inside a function run as WebAssembly: operators there are lowered like nested ones, which may be 'derivative', 'gradient' or their 'valueWith…' forms (call 'pullback' from code run as JavaScript instead)
> 11 |     const back = pullback(cubes)(rows[i]!);
     |                  ^^^^^^^^

1 warning`,
  );
});

test("'jacobian' inside: not covered there either", () => {
  const text = warnings(`import { jacobian } from "nabla";
function squares(x: Float64Array): Float64Array {
  const y = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) y[i] = x[i]! * x[i]!;
  return y;
}
/** @backend wasm */
export function corner(x: Float64Array): number {
  const j = jacobian(squares)(x);
  return j[0]![0]!;
}
`);
  assert.equal(
    text,
    `main.ts:8:8: ${HEAD("corner")}
  7 | /** @backend wasm */
> 8 | export function corner(x: Float64Array): number {
    |        ^^^^^^^^^^^^^^^
${HELP("corner")}
main.ts:9:13: note: 'jacobian' is not covered inside a function run as WebAssembly: operators there are lowered like nested ones, which may be 'derivative', 'gradient' or their 'valueWith…' forms (call 'jacobian' from code run as JavaScript instead)
> 9 |   const j = jacobian(squares)(x);
    |             ^^^^^^^^

1 warning`,
  );
});

test("a 'try' statement: not supported in a function run as WebAssembly", () => {
  const text = warnings(`/** @backend wasm */
export function guarded(x: number): number {
  try {
    return Math.sqrt(x);
  } catch {
    return 0;
  }
}
`);
  assert.equal(
    text,
    `main.ts:2:8: ${HEAD("guarded")}
  1 | /** @backend wasm */
> 2 | export function guarded(x: number): number {
    |        ^^^^^^^^^^^^^^^^
${HELP("guarded")}
main.ts:3:3: note: a 'try' statement is not supported in a function run as WebAssembly
> 3 |   try {
    |   ^^^^^

1 warning`,
  );
});

test("two constructs it cannot read: a note at each, and the module's comment says both", () => {
  const source = `import { gradient } from "nabla";
${SUM_OF_CUBES}
/** @backend wasm */
export function first(x: Float64Array): number {
  let s = 0;
  try {
    s = x[0]!;
  } catch {
    s = 1;
  }
  // Held in a \`let\` (it could change), not the \`const\` held-operators.ts reads.
  let g = gradient(cubes);
  return s + g(x)[0]!;
}
`;
  const compiled = compileFiles({ "main.ts": source });
  assert.equal(
    diagnosticsText(compiled),
    `main.ts:8:8: ${HEAD("first", "the notes point at")}
  7 | /** @backend wasm */
> 8 | export function first(x: Float64Array): number {
    |        ^^^^^^^^^^^^^^
${HELP("first", "the notes point at")}
main.ts:10:3: note: a 'try' statement is not supported in a function run as WebAssembly
> 10 |   try {
     |   ^^^^^
main.ts:16:11: note: 'gradient' returns a function; inside a function run as WebAssembly, where operators are lowered like nested ones, call it where it is made, as in 'gradient(f)(x)', or hold it in a 'const' and call that
> 16 |   let g = gradient(cubes);
     |           ^^^^^^^^

1 warning`,
  );
  const code = [...compiled.outputs.values()][0]!.code;
  assert.ok(
    code.includes(
      `// first (@backend wasm) at main.ts:8:8: JavaScript, not WebAssembly: nabla could not read it
// a 'try' statement is not supported in a function run as WebAssembly (main.ts:10:3)
// 'gradient' returns a function; inside a function run as WebAssembly, where operators are lowered like nested ones, call it where it is made, as in 'gradient(f)(x)', or hold it in a 'const' and call that (main.ts:16:11)
`,
    ),
    code,
  );
});

test("in differentiated code the same 'pullback' still says 'inside differentiable code'", () => {
  const text = warnings(`import { gradient, pullback } from "nabla";
${SUM_OF_CUBES}
function viaPullback(x: Float64Array): number {
  return pullback(cubes)(x)(1)[0]!;
}
export const g = gradient(viaPullback);
`);
  assert.match(
    text,
    /main\.ts:8:10: error NABLA116: 'pullback' cannot be used inside differentiable code; inside, use 'derivative', 'gradient' or their 'valueWith…' forms \(nabla differentiates those again\)/,
  );
  assert.doesNotMatch(text, /WebAssembly/);
});

test("an inner 'gradient' with respect to an array in a helper it calls runs in reverse mode in wasm too, with the right derivatives", async () => {
  // As in the tagged function itself (test/wasm-inner-gradients.test.ts): helpers taking such
  // a gradient, called directly or through another, are lowered for wasm too. The same helpers
  // called from JavaScript keep their JavaScript form.
  const files = {
    "main.ts": `import { derivative, gradient } from "nabla";
export { wasmStats } from "nabla";
${SUM_OF_CUBES}
function firstPartial(row: Float64Array): number {
  return gradient(cubes)(row)[0]!;
}
function slope(row: Float64Array, k: number): number {
  const g = gradient(cubes)(row);
  return g[k]! - firstPartial(row);
}
/** The first partial of the sum of cubes at each row, computed inside. @backend wasm */
export function firstPartials(rows: Float64Array[]): Float64Array {
  const out = new Float64Array(rows.length);
  for (let i = 0; i < rows.length; i++) out[i] = firstPartial(rows[i]!);
  return out;
}
/** Through a helper calling a helper, both taking gradients. @backend wasm */
export function slopes(rows: Float64Array[]): number[] {
  const out: number[] = [];
  for (const row of rows) out.push(slope(row, row.length - 1));
  return out;
}
function scaledCubes(x: Float64Array, w: number): number {
  return w * cubes(x);
}
function both(row: Float64Array, w: number): [Float64Array, number] {
  return gradient(scaledCubes, { wrt: [0, 1] })(row, w);
}
/** A helper's tuple of an array and a number, taken apart. @backend wasm */
export function mixed(rows: Float64Array[], w: number): number[] {
  const out: number[] = [];
  for (const row of rows) {
    const [g, dw] = both(row, w);
    out.push(g[0]! + dw);
  }
  return out;
}
export const bothJs = both;
export const slopeJs = slope;
export const reverse = gradient(cubes);
export const along = (x: Float64Array, k: number) =>
  derivative((t: number) => {
    const y = Float64Array.from(x);
    y[k] = t;
    return cubes(y);
  })(x[k]!);
export { cubes };
`,
  };
  const compiled = compileFiles(files);
  assert.equal(diagnosticsText(compiled), "");
  const m = await loadProgram<{
    firstPartials: (rows: Float64Array[]) => Float64Array;
    slopes: (rows: Float64Array[]) => number[];
    slopeJs: (row: Float64Array, k: number) => number;
    mixed: (rows: Float64Array[], w: number) => number[];
    bothJs: (row: Float64Array, w: number) => [Float64Array, number];
    reverse: (x: Float64Array) => Float64Array;
    along: (x: Float64Array, k: number) => number;
    cubes: (x: Float64Array) => number;
    wasmStats: Stats;
  }>(files);
  const rows = [f64(1, 2, 3), f64(-0.5, 4, 0.25), f64(2.5, -1)];
  const before = { ...m.wasmStats };
  const partials = m.firstPartials(rows);
  const slopes = m.slopes(rows);
  const mixed = m.mixed(rows, 0.75);
  assert.equal(m.wasmStats.wasm - before.wasm, 3, "all three ran in wasm");
  rows.forEach((row, i) => {
    // The same bits as reverse mode from JavaScript; forward mode along the element, central
    // differences.
    const g = m.reverse(row);
    assert.equal(partials[i], g[0]);
    assert.equal(slopes[i], g[row.length - 1]! - g[0]!);
    assert.equal(slopes[i], m.slopeJs(row, row.length - 1));
    const [g2, dw] = m.bothJs(row, 0.75);
    assert.equal(mixed[i], g2[0]! + dw);
    assert.equal(dw, m.cubes(row));
    assert.ok(Math.abs(partials[i]! - m.along(row, 0)) <= 1e-12 * Math.abs(partials[i]!));
    const h = 1e-5;
    const plus = Float64Array.from(row);
    const minus = Float64Array.from(row);
    plus[0]! += h;
    minus[0]! -= h;
    const central = (m.cubes(plus) - m.cubes(minus)) / (2 * h);
    assert.ok(Math.abs(partials[i]! - central) <= 1e-6 * Math.max(1, Math.abs(central)));
  });
});

test("a helper of another module that calls a function that module does not export: in wasm, not inlined", async () => {
  // The tagged function's JavaScript fallback is emitted from the form wasm runs: a helper of
  // another module inlined there would call 'scale', which that module does not export.
  const files = {
    "b.ts": `import { gradient } from "nabla";
${SUM_OF_CUBES}
function scale(v: number): number {
  return 2 * v;
}
export function firstPartial(row: Float64Array): number {
  return scale(gradient(cubes)(row)[0]!);
}
`,
    "main.ts": `import { firstPartial } from "./b.js";
export { wasmStats } from "nabla";
/** @backend wasm */
export function partials(rows: Float64Array[]): Float64Array {
  const out = new Float64Array(rows.length);
  for (let i = 0; i < rows.length; i++) out[i] = firstPartial(rows[i]!);
  return out;
}
`,
  };
  assert.equal(diagnosticsText(compileFiles(files)), "");
  const m = await loadProgram<{
    partials: (rows: Float64Array[]) => Float64Array;
    wasmStats: Stats;
  }>(files);
  const before = m.wasmStats.wasm;
  assert.deepEqual(m.partials([f64(1, 2, 3), f64(-0.5, 4)]), f64(6, 1.5));
  assert.equal(m.wasmStats.wasm - before, 1);
});

test("helpers calling each other in a cycle are inlined only up to a size: the module stays one V8 accepts", async () => {
  // Nine helpers, each calling the next twice: inlined without a bound, the function grew to
  // a 1.8 MB module V8 refused ("local count too large"), and every call ran as JavaScript.
  const helpers = Array.from(
    { length: 9 },
    (_, k) => `function h${k}(m: number): number {
  const g = gradient(energy)(Float64Array.of(m, ${k}));
  return m <= 0 ? g[0]! : g[1]! + h${(k + 1) % 9}(m - 1) + 0.5 * h${(k + 1) % 9}(m - 2);
}`,
  );
  const files = {
    "main.ts": `import { gradient } from "nabla";
export { wasmStats } from "nabla";
function energy(x: Float64Array): number {
  let e = 0;
  for (let i = 0; i < x.length; i++) e += Math.sin(x[i]!) * x[i]!;
  return e;
}
${helpers.join("\n")}
/** @backend wasm */
export function chain(m: number): number {
  return h0(m);
}
export const chainJs = (m: number) => h0(m);
`,
  };
  const compiled = compileFiles(files);
  assert.equal(diagnosticsText(compiled), "");
  const bytes = Number(
    /WebAssembly \((\d+) bytes\)/.exec(
      compiled.outputs.get(join(compiled.dir, "main.ts"))!.code,
    )?.[1],
  );
  assert.ok(bytes < 500_000, `${bytes} bytes`);
  const m = await loadProgram<{
    chain: (m: number) => number;
    chainJs: (m: number) => number;
    wasmStats: Stats;
  }>(files);
  for (const n of [0, 3, 7]) {
    const before = { ...m.wasmStats };
    assert.equal(m.chain(n), m.chainJs(n));
    assert.equal(m.wasmStats.wasm - before.wasm, 1, `chain(${n}) in wasm`);
  }
});

test("a helper's inner 'gradient' of a function that changes its arguments keeps the tagged function JavaScript, the warning naming the helper", async () => {
  const files = {
    "main.ts": `import { gradient } from "nabla";
function squash(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    x[i] = Math.tanh(x[i]!);
    s += x[i]! * x[i]!;
  }
  return s;
}
function rowGradient(row: Float64Array): Float64Array {
  return gradient(squash)(row.slice());
}
/** @backend wasm */
export function firstSlopes(rows: Float64Array[]): number[] {
  const out: number[] = [];
  for (const row of rows) out.push(rowGradient(row)[0]!);
  return out;
}
export const slope = (row: Float64Array) => rowGradient(row)[0]!;
`,
  };
  assert.match(
    diagnosticsText(compileFiles(files)),
    /^main\.ts:14:8: warning NABLA202: 'firstSlopes' runs as JavaScript, not WebAssembly: the inner 'gradient' of 'squash' in 'rowGradient', which it calls, cannot run in reverse mode there: 'squash' may change its arguments\n/,
  );
  const m = await loadProgram<{
    firstSlopes: (rows: Float64Array[]) => number[];
    slope: (row: Float64Array) => number;
  }>(files);
  const rows = [f64(0.5, 1), f64(-1, 2)];
  assert.deepEqual(
    m.firstSlopes(rows),
    rows.map((row) => m.slope(row)),
  );
  // d/dx tanh(x)² = 2 tanh(x) (1 - tanh(x)²)
  const t = Math.tanh(0.5);
  assert.ok(Math.abs(m.firstSlopes(rows)[0]! - 2 * t * (1 - t * t)) < 1e-12);
});

test("a function whose inner operators take numbers runs as WebAssembly, with the right derivatives", async () => {
  const files = {
    "main.ts": `import { derivative, gradient } from "nabla";
export { wasmStats } from "nabla";
function energy(x: number, y: number): number {
  return x * x * y + Math.sin(x * y);
}
/** Newton steps on x for each row's y, the derivatives computed inside. @backend wasm */
export function slopes(ys: Float64Array, x: number): Float64Array {
  const out = new Float64Array(ys.length);
  for (let i = 0; i < ys.length; i++) {
    const g = gradient(energy)(x, ys[i]!);
    out[i] = g[0]! + derivative((t: number) => energy(x, t))(ys[i]!);
  }
  return out;
}
export const jsSlopes = (ys: Float64Array, x: number) =>
  Float64Array.from(ys, (y) => 2 * x * y + Math.cos(x * y) * y + x * x + Math.cos(x * y) * x);
`,
  };
  const compiled = compileFiles(files);
  assert.equal(diagnosticsText(compiled), "");
  assert.match([...compiled.outputs.values()][0]!.code, /slopes \(@backend wasm\).*: WebAssembly/);
  const m = await loadProgram<{
    slopes: (ys: Float64Array, x: number) => Float64Array;
    jsSlopes: (ys: Float64Array, x: number) => Float64Array;
    wasmStats: Stats;
  }>(files);
  const ys = f64(0.5, -1.25, 2, 3.5);
  const before = { ...m.wasmStats };
  const got = m.slopes(ys, 0.75);
  assert.equal(m.wasmStats.wasm - before.wasm, 1, "ran in wasm");
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "did not fall back");
  const closed = m.jsSlopes(ys, 0.75);
  closed.forEach((c, i) => assert.ok(Math.abs(got[i]! - c) <= 1e-12 * Math.max(1, Math.abs(c))));
});

test("a reason names the user's types and variables, not the compiler's temporaries and tangent types", () => {
  // Sweep 3's training step (a loss returning [mse, metrics]) under backend "wasm".
  const read = (name: string) =>
    readFileSync(new URL(`../../sweep/s3/${name}`, import.meta.url), "utf8");
  const compiled = compileFiles({
    "main.ts": read("s34-train-objects.ts"),
    "check.ts": read("check.ts"),
  });
  const text = diagnosticsText(compiled);
  assert.match(
    text,
    /warning NABLA202: 'gradient' runs as JavaScript, not WebAssembly: a derivative in 'lossOnly' is of type \[number, \{ accuracy: number; predictions: number\[\] \}\] \(its elements are of different kinds\)/,
    text,
  );
  assert.doesNotMatch(text, /Tangent<|'dt'|\(dt\)/);
});
