import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";

// The WebAssembly backend on arrays of arrays a function makes itself (`rows.map((r) =>
// r.slice())`, `new Array(n)` filled by index): the same values and gradients as the
// JavaScript backend, gradients that agree with central differences and with forward mode,
// and a row read before it is set giving JavaScript's TypeError, not a number.

type Rows = Float64Array[];

interface Stats {
  wasm: number;
  javascript: number;
}

interface Program {
  gradientJs: (...args: Rows[]) => Rows[];
  gradientWasm: (...args: Rows[]) => Rows[];
  differentialWasm: (...args: Rows[]) => (...tangents: Rows[]) => number;
  f: (...args: Rows[]) => number;
  wasmStats: Stats;
}

const f64 = (...xs: number[]) => Float64Array.from(xs);

const program = (source: string, arity: number) => {
  const wrt = `[${[...Array(arity).keys()].join(", ")}]`;
  return {
    "main.ts": `import { differential, gradient } from "nabla";
export { wasmStats } from "nabla";
${source}
export const gradientJs = gradient(f, { wrt: ${wrt} });
export const gradientWasm = gradient(f, { wrt: ${wrt}, backend: "wasm" });
export const differentialWasm = differential(f, { wrt: ${wrt}, backend: "wasm" });
`,
  };
};

/** Every argument's rows with pseudo-random numbers of the same shape. */
function directions(args: Rows[], seed = 99): Rows[] {
  let s = seed;
  const next = () => ((s = (s * 16807) % 2147483647) / 2147483647) * 2 - 1;
  return args.map((rows) => rows.map((row) => row.map(() => next())));
}

async function checkMadeRows(source: string, args: Rows[]) {
  const files = program(source, args.length);
  const compiled = compileFiles(files);
  assert.doesNotMatch(diagnosticsText(compiled), /NABLA202/, diagnosticsText(compiled));
  const m = await loadProgram<Program>(files);
  const before = { ...m.wasmStats };
  // One argument: its gradient alone; several: one per argument.
  const each = (g: Rows[] | Rows) => (args.length === 1 ? [g as Rows] : (g as Rows[]));
  const wasm = each(m.gradientWasm(...args));
  const js = each(m.gradientJs(...args));
  wasm.forEach((rows, a) =>
    rows.forEach((row, i) =>
      row.forEach((g, j) => assert.equal(g, js[a]![i]![j], `∂f/∂args[${a}][${i}][${j}]`)),
    ),
  );
  // Central differences, one number at a time.
  args.forEach((rows, a) =>
    rows.forEach((row, i) =>
      row.forEach((x, j) => {
        const h = 1e-6 * Math.max(1, Math.abs(x));
        const at = (t: number) =>
          m.f(
            ...args.map((r, b) =>
              b === a ? r.map((q, k) => (k === i ? q.map((y, c) => (c === j ? t : y)) : q)) : r,
            ),
          );
        const fd = (at(x + h) - at(x - h)) / (2 * h);
        const g = wasm[a]![i]![j]!;
        assert.ok(
          Math.abs(fd - g) <= 1e-5 * Math.max(1, Math.abs(fd)),
          `∂f/∂args[${a}][${i}][${j}]: wasm ${g}, differences ${fd}`,
        );
      }),
    ),
  );
  // Forward mode in wasm against the gradient along a direction.
  const tangents = directions(args);
  const along = m.differentialWasm(...args)(...tangents);
  let dot = 0;
  let scale = 0;
  tangents.forEach((rows, a) =>
    rows.forEach((row, i) =>
      row.forEach((t, j) => {
        dot += t * wasm[a]![i]![j]!;
        scale += Math.abs(t * wasm[a]![i]![j]!);
      }),
    ),
  );
  assert.ok(Math.abs(along - dot) <= 1e-10 * scale, `forward ${along}, reverse ${dot}`);
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "calls that fell back");
  assert.equal(m.wasmStats.wasm - before.wasm, 2, "gradient and differential in wasm");
}

test("a recurrent state copied row by row (`map` + `slice`), updated in place by a callee", async () => {
  await checkMadeRows(
    `function step(weights: Float64Array, hidden: Float64Array, input: Float64Array): void {
  for (let i = 0; i < hidden.length; i++) {
    hidden[i] = Math.tanh(weights[i] * hidden[i] + input[i]);
  }
}

export function f(weights: Float64Array[], initial: Float64Array[], inputs: Float64Array[]): number {
  const state = initial.map((s) => s.slice());
  let loss = 0;
  for (const input of inputs) {
    step(weights[0], state[0], input);
    for (let layer = 1; layer < state.length; layer++) {
      step(weights[layer], state[layer], state[layer - 1]);
    }
    const last = state[state.length - 1];
    for (let i = 0; i < last.length; i++) loss += last[i] * last[i];
  }
  return loss;
}`,
    [
      [f64(0.5, -0.3, 0.8), f64(0.2, 0.9, -0.4)],
      [f64(0.1, 0.2, 0.3), f64(-0.5, 0.05, 0.4)],
      [f64(1, 0, -1), f64(0.3, 0.6, 0.9), f64(-0.2, 0.4, 0.1)],
    ],
  );
});

// nabla's alias analysis joins what one \`?:\` may give: an argument's row passed where a
// made row is, to a callee writing that parameter, counts as written. The call stays
// JavaScript (an honest NABLA202, not a wrong result); an inclusion-based analysis would see
// that only made rows are written.
test("an argument's row and a made row through one ?: into a writing callee: stays JavaScript", async () => {
  const files = program(
    `function step(weights: Float64Array, hidden: Float64Array, input: Float64Array): void {
  for (let i = 0; i < hidden.length; i++) {
    hidden[i] = Math.tanh(weights[i] * hidden[i] + input[i]);
  }
}

export function f(weights: Float64Array[], initial: Float64Array[], inputs: Float64Array[]): number {
  const state = initial.map((s) => s.slice());
  let loss = 0;
  for (const input of inputs) {
    for (let layer = 0; layer < state.length; layer++) {
      step(weights[layer], state[layer], layer === 0 ? input : state[layer - 1]);
    }
    const last = state[state.length - 1];
    for (let i = 0; i < last.length; i++) loss += last[i] * last[i];
  }
  return loss;
}`,
    3,
  );
  const text = diagnosticsText(compileFiles(files));
  assert.match(
    text,
    /warning NABLA202: 'gradient' runs as JavaScript, not WebAssembly: it may write its argument 'inputs' \(the backend copies arguments in, not back\)/,
  );
  const m = await loadProgram<Program>(files);
  const args = [
    [f64(0.5, -0.3), f64(0.2, 0.9)],
    [f64(0.1, 0.2), f64(-0.5, 0.05)],
    [f64(1, 0), f64(0.3, 0.6)],
  ];
  const copies = args.map((rows) => rows.map((r) => r.slice()));
  assert.deepEqual(m.gradientWasm(...args), m.gradientJs(...args));
  assert.deepEqual(args, copies, "the arguments are unchanged");
});

test("a table made with new Array(n) and filled by index, then read row by row", async () => {
  await checkMadeRows(
    `export function f(points: Float64Array[]): number {
  const n = points.length;
  const gaps: Float64Array[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const row = new Float64Array(n);
    for (let j = 0; j < n; j++) {
      let d = 0;
      for (let k = 0; k < points[i].length; k++) d += (points[i][k] - points[j][k]) ** 2;
      row[j] = Math.sqrt(d + 1);
    }
    gaps[i] = row;
  }
  let energy = 0;
  for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) energy += 1 / gaps[i][j];
  return energy;
}`,
    [[f64(0, 0), f64(1, 0.5), f64(-0.3, 2), f64(0.7, -1.1)]],
  );
});

test("a row read before it is set: JavaScript's TypeError, from either backend", async () => {
  const files = program(
    `export function f(points: Float64Array[]): number {
  const rows: Float64Array[] = new Array(points.length);
  rows[0] = points[0].slice();
  let s = 0;
  for (let i = 0; i < rows.length; i++) s += rows[i].length * points[i][0];
  return s;
}`,
    1,
  );
  const m = await loadProgram<Program>(files);
  const points = [f64(1, 2), f64(3, 4)];
  const before = { ...m.wasmStats };
  assert.throws(() => m.gradientJs(points), TypeError);
  assert.throws(() => m.gradientWasm(points), TypeError);
  // The wasm call trapped on the hole and ran again as JavaScript, which threw.
  assert.equal(m.wasmStats.javascript - before.javascript, 1);
  assert.equal(m.wasmStats.wasm - before.wasm, 0);
});

test("an array the function lengthens (push) runs in wasm (growing-arrays.ts)", async () => {
  const files = program(
    `export function f(points: Float64Array[]): number {
  const norms: number[] = [];
  for (const p of points) norms.push(Math.hypot(p[0], p[1]));
  let s = 0;
  for (let i = 0; i < norms.length; i++) s += norms[i] * (i + 1);
  return s;
}`,
    1,
  );
  const text = diagnosticsText(compileFiles(files));
  assert.doesNotMatch(text, /NABLA202/);
  const m = await loadProgram<Program>(files);
  const points = [f64(3, 4), f64(1, 0)];
  const before = { ...m.wasmStats };
  const g = m.gradientWasm(points) as unknown as Rows;
  assert.deepEqual(g, m.gradientJs(points));
  // d/dp of 1·|p₀| + 2·|p₁|: p₀/|p₀| and 2·p₁/|p₁|.
  const exact = [
    [0.6, 0.8],
    [2, 0],
  ];
  g.forEach((row, i) => row.forEach((d, j) => assert.ok(Math.abs(d - exact[i]![j]!) < 1e-15)));
  assert.equal(m.wasmStats.wasm - before.wasm, 1, "the call ran in wasm");
  assert.equal(m.wasmStats.javascript - before.javascript, 0);
});
