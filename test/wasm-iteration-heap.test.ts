import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";
import { lower } from "./support/ir.js";
import { f64, type Stats } from "./support/wasm-backends.js";
import { releasesHeap } from "../src/compiler/emit/wasm/iteration-heap.js";
import { forEachOp } from "../src/compiler/ir/walk.js";
import type { Op } from "../src/compiler/ir/types.js";

// The heap an iteration takes is put back after it when nothing it made can outlive it
// (emit/wasm/iteration-heap.ts). Which loops qualify is read from the IR; that the others
// must not is checked by running them: an array kept past its iteration and then overwritten
// by the next would change the results, which must equal JavaScript's to the bit.

/** Whether no loop of function `name` releases (it has one at least). */
const none = (source: string, name: string) => {
  const found = releases(source, name);
  return found.length > 0 && found.every((r) => !r);
};

/** Per loop of function `name` (outermost first, in program order): whether it releases. */
function releases(source: string, name: string): boolean[] {
  const fn = lower(source, name);
  const loops: Op[] = [];
  forEachOp(fn.body, (op) => {
    if (op.opcode === "loop") loops.push(op);
  });
  return loops.map((loop) => releasesHeap(loop, new Set()));
}

const SCRATCH = `function smooth(x: Float64Array): number {
  let s = 0;
  for (let t = 0; t < 4; t++) {
    const scratch = new Float64Array(x.length);
    for (let i = 0; i < x.length; i++) scratch[i] = x[i]! * (t + 1);
    s += scratch[0]! + scratch[x.length - 1]!;
  }
  return s;
}`;

test("a loop whose iterations make scratch arrays and keep none releases; the others do not", () => {
  // The inner loop makes nothing: nothing to put back.
  assert.deepEqual(releases(SCRATCH, "smooth"), [true, false]);
  // Each new row is stored into the result: kept.
  assert.ok(
    none(
      `function rows(n: number): Float64Array[] {
  const out: Float64Array[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const row = new Float64Array(2);
    row[0] = i;
    out[i] = row;
  }
  return out;
}`,
      "rows",
    ),
  );
  // The array made in one iteration is carried to the next.
  assert.ok(
    none(
      `function last(n: number): number {
  let prev = new Float64Array(1);
  for (let i = 0; i < n; i++) {
    const next = new Float64Array(1);
    next[0] = prev[0]! + i;
    prev = next;
  }
  return prev[0]!;
}`,
      "last",
    ),
  );
  // Returned from inside the loop.
  assert.ok(
    none(
      `function first(n: number): Float64Array {
  for (let i = 0; i < n; i++) {
    const row = Float64Array.of(i, i * i);
    if (row[1]! > 10) return row;
  }
  return new Float64Array(0);
}`,
      "first",
    ),
  );
  // Handed to a function of the program, which could keep it.
  assert.ok(
    none(
      `function keep(all: Float64Array[][], row: Float64Array): number {
  all[0]!.push(row);
  return row.length;
}
function each(all: Float64Array[][], n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += keep(all, new Float64Array(i));
  return s;
}`,
      "each",
    ),
  );
});

test("programs whose iterations keep what they make give JavaScript's results; scratch arrays too", async () => {
  const body = {
    smooth: SCRATCH.replace("function smooth", "export function smooth"),
    rows: `export function rows(x: Float64Array): Float64Array[] {
  const out: Float64Array[] = [];
  for (let i = 0; i < x.length; i++) {
    const row = new Float64Array(2);
    row[0] = x[i]!;
    row[1] = x[i]! * x[i]!;
    out.push(row);
  }
  return out;
}`,
    carried: `export function carried(x: Float64Array): Float64Array {
  let prev = new Float64Array(x.length);
  for (let t = 0; t < 3; t++) {
    const next = new Float64Array(x.length);
    for (let i = 0; i < x.length; i++) next[i] = prev[i]! * 0.5 + x[i]! * t;
    prev = next;
  }
  return prev;
}`,
  };
  const tagged = Object.values(body)
    .map((text) => `/** @backend wasm */\n${text}`)
    .join("\n");
  const plain = Object.values(body)
    .map((text) => text.replace(/export function (\w+)/, "export function $1Js"))
    .join("\n");
  const files = { "main.ts": `export { wasmStats } from "nabla";\n${tagged}\n${plain}\n` };
  assert.equal(diagnosticsText(compileFiles(files)), "");
  type Fns = Record<string, (x: Float64Array) => unknown> & { wasmStats: Stats };
  const m = await loadProgram<Fns>(files);
  const flat = (v: unknown): number[] =>
    v instanceof Float64Array ? [...v] : Array.isArray(v) ? v.flatMap(flat) : [v as number];
  for (const x of [f64(1.5), f64(0.5, -2, 3, 0.25, 7), f64(-1, 2)]) {
    for (const name of Object.keys(body)) {
      const before = m.wasmStats.wasm;
      const got = flat(m[name]!(x));
      assert.equal(m.wasmStats.wasm - before, 1, `${name} ran in wasm`);
      const want = flat(m[`${name}Js`]!(x));
      assert.equal(got.length, want.length);
      got.forEach((g, i) => assert.ok(Object.is(g, want[i]), `${name}[${i}]: ${g} vs ${want[i]}`));
    }
  }
});

test("a forward sweep's loop calling a sweep that saves what it makes for the backward sweep keeps its heap", async () => {
  // Reverse over forward mode: the loop's forward sweep calls the inner derivative's forward
  // sweep, which makes `v` and saves it on the tape for the backward sweep, after the loop.
  // Released after each iteration, the next would overwrite it (this gave wrong gradients).
  const { h, dhWasm, dhJs, dhForward } = await loadProgram<{
    h: (x: number, y: number) => number;
    dhWasm: (x: number, y: number) => { value: number; gradient: number[] };
    dhJs: (x: number, y: number) => { value: number; gradient: number[] };
    dhForward: (x: number, y: number) => number;
  }>({
    "main.ts": `import { derivative, valueWithGradient } from "nabla";
function f(a: number, b: number): number {
  const v = [a * b, Math.sin(a), b];
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[(i + 1) % 3]!;
  return s;
}
export function h(x: number, y: number): number {
  let s = y;
  for (let k = 0; k < 3; k++) s = Math.tanh(s + 0.5 * derivative((t: number) => f(t, s * k))(x));
  return s * x;
}
export const dhWasm = valueWithGradient(h, { backend: "wasm" });
export const dhJs = valueWithGradient(h);
export const dhForward = (x: number, y: number) => derivative((t: number) => h(t, y))(x);
`,
  });
  for (const [x, y] of [
    [0.5, -1.2],
    [2, 0.3],
    [-1.4, -0.1],
  ] as const) {
    const wasm = dhWasm(x, y).gradient;
    const js = dhJs(x, y).gradient;
    wasm.forEach((g, i) => assert.ok(Object.is(g, js[i]), `∂h/∂${"xy"[i]}: ${g} vs ${js[i]}`));
    const forward = dhForward(x, y);
    assert.ok(Math.abs(wasm[0]! - forward) <= 1e-12 * Math.max(1, Math.abs(forward)));
    const step = 1e-6;
    const central = (h(x + step, y) - h(x - step, y)) / (2 * step);
    assert.ok(Math.abs(wasm[0]! - central) <= 1e-6 * Math.max(1, Math.abs(central)));
  }
});
