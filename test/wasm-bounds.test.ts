import { test } from "node:test";
import assert from "node:assert/strict";
import { loadProgram } from "./support/harness.js";
import { lower, sweepsOf } from "./support/ir.js";
import { checkBackends, type Stats } from "./support/wasm-backends.js";
import { integerValues } from "../src/compiler/emit/wasm/integers.js";
import { integerBounds } from "../src/compiler/emit/wasm/integer-bounds.js";
import { loopPrechecks } from "../src/compiler/emit/wasm/loop-prechecks.js";
import type { IRFunction, Op } from "../src/compiler/ir/types.js";
import { forEachOp } from "../src/compiler/ir/walk.js";

// Index checks the WebAssembly backend leaves out (emit/wasm/integer-bounds.ts) or makes once
// before a loop (emit/wasm/loop-prechecks.ts). Every program reads at the edge of its arrays:
// inputs that fit exactly must run in wasm with JavaScript's results, and the same programs on
// inputs one element short must read past the end, where JavaScript reads undefined (NaN): a
// check wrongly left out would read the next array in wasm memory instead. Loops of 3 and of
// 12 iterations take the two versions of a loop the emitter makes (checked at each iteration,
// or on entry).

const REVERSED = `export function f(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = b.length; i > 0; i--) s += a[i - 1] * (b[i - 1] + i);
  return s;
}`;

const STRIDED = `export function f(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0, k = 0; i < b.length; i++, k += 2) s += a[k] * a[k + 1] * b[i];
  return s;
}`;

const SCALED = `export function f(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < b.length; i++) s += a[2 * i] * a[2 * i + 1] * b[i];
  return s;
}`;

/** A row-major matrix times a vector: m[i * n + j], i * n made in the inner loop. */
const ROW_MAJOR = `export function f(m: Float64Array, v: Float64Array, r: Float64Array): number {
  const n = v.length;
  let s = 0;
  for (let i = 0; i < r.length; i++) {
    let dot = 0;
    for (let j = 0; j < n; j++) dot += m[i * n + j] * v[j];
    s += r[i] * dot * dot;
  }
  return s;
}`;

const BLOCKS = `export function f(m: Float64Array, v: Float64Array): number {
  const cols = v.length;
  let s = 0;
  for (let r = 0; r < 2; r++) {
    const base = 3 * r + 1;
    for (let c = 0; c < cols; c++) s += Math.sin(m[base + c] * v[c]);
  }
  return s;
}`;

const TRIANGLE = `export function f(packed: Float64Array, x: Float64Array): number {
  const n = x.length;
  const y = new Float64Array(n);
  let k = 0;
  for (let col = 0; col < n; col++) {
    for (let row = col + 1; row < n; row++) {
      y[row] += packed[k] * x[col];
      k++;
    }
  }
  let s = 0;
  for (let i = 0; i < n; i++) s += y[i] * y[i];
  return s;
}`;

const FIXED_INDEX = `export function f(a: Float64Array, w: Float64Array): number {
  const j = w.length - 1;
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * w[j] + a[i] * a[i] * w[0];
  return s;
}`;

const INCLUSIVE = `export function f(a: Float64Array, b: Float64Array): number {
  const last = b.length - 1;
  let s = 0;
  for (let i = 0; i <= last; i++) s += a[i] * b[i];
  return s;
}`;

/** Reads a[i - pad] counting down to 0 inclusive: before the start when pad = 1. */
const INCLUSIVE_DOWN = `export function f(a: Float64Array, b: Float64Array, c: Float64Array): number {
  const pad = c.length;
  let s = 0;
  for (let i = b.length - 1; i >= 0; i--) s += b[i] * a[i - pad] * a[i - pad];
  return s;
}`;

/** Reads a[i + pad]: past the end at the last iteration when pad = 1. */
const SHIFTED_UP = `export function f(a: Float64Array, b: Float64Array, c: Float64Array): number {
  const pad = c.length;
  let s = 0;
  for (let i = 0; i < b.length; i++) s += b[i] * a[i + pad];
  return s;
}`;

/** Reads a[i - 1 - pad] counting down: before the start at the last iteration when pad = 1. */
const SHIFTED_DOWN = `export function f(a: Float64Array, b: Float64Array, c: Float64Array): number {
  const pad = c.length;
  let s = 0;
  for (let i = b.length; i > 0; i--) s += b[i - 1] * Math.exp(a[i - 1 - pad]);
  return s;
}`;

const range = (n: number, scale = 1) =>
  Float64Array.from({ length: n }, (_, i) => scale * Math.sin(1.7 * i + 0.3) + 0.1 * i);

test("loops counted down, by steps of 2, over blocks, a triangle, at a fixed index, to an inclusive bound: wasm's results", async () => {
  for (const n of [3, 12]) {
    await checkBackends(REVERSED, [[range(n), range(n, 0.5)]]);
    await checkBackends(STRIDED, [[range(2 * n), range(n, 0.5)]]);
    await checkBackends(SCALED, [[range(2 * n), range(n, 0.5)]]);
    await checkBackends(ROW_MAJOR, [[range(3 * n), range(n, 0.5), range(3)]]);
    await checkBackends(BLOCKS, [[range(n + 4), range(n, 0.5)]]);
    await checkBackends(TRIANGLE, [[range((n * (n - 1)) / 2), range(n, 0.5)]]);
    await checkBackends(FIXED_INDEX, [[range(n), range(n, 0.5)]]);
    await checkBackends(INCLUSIVE, [[range(n), range(n, 0.5)]]);
    await checkBackends(INCLUSIVE_DOWN, [[range(n), range(n, 0.5), range(0)]]);
    await checkBackends(SHIFTED_UP, [[range(n), range(n, 0.5), range(0)]]);
    await checkBackends(SHIFTED_DOWN, [[range(n), range(n, 0.5), range(0)]]);
  }
});

/**
 * `f` of `source` at `args`, in JavaScript and in wasm, by reverse mode and by forward mode
 * (whose one function would hide no read the other sweep's trap reruns); and how many of the
 * two wasm calls fell back.
 */
async function bothValues(source: string, args: (Float64Array | number)[], wrt = "") {
  const m = await loadProgram<{
    js: (...x: (Float64Array | number)[]) => { value: number };
    wasm: (...x: (Float64Array | number)[]) => { value: number };
    forward: (...x: (Float64Array | number)[]) => { value: number };
    wasmStats: Stats;
  }>({
    "main.ts": `import { valueWithDifferential, valueWithGradient } from "nabla";
export { wasmStats } from "nabla";
${source}
export const js = valueWithGradient(f${wrt && `, { ${wrt} }`});
export const wasm = valueWithGradient(f, { ${wrt && `${wrt}, `}backend: "wasm" });
export const forward = valueWithDifferential(f, { ${wrt && `${wrt}, `}backend: "wasm" });
`,
  });
  const before = m.wasmStats.javascript;
  const wasm = [m.wasm(...args).value, m.forward(...args).value];
  return { js: m.js(...args).value, wasm, fellBack: m.wasmStats.javascript - before };
}

test("one element short: each access reads past the end, and wasm gives JavaScript's NaN", async () => {
  for (const n of [3, 12]) {
    const cases: [string, string, Float64Array[]][] = [
      ["counted down", REVERSED, [range(n - 1), range(n)]],
      ["by steps of 2", STRIDED, [range(2 * n - 1), range(n)]],
      ["at twice the counter", SCALED, [range(2 * n - 1), range(n)]],
      ["row-major", ROW_MAJOR, [range(3 * n - 1), range(n), range(3)]],
      ["over blocks", BLOCKS, [range(n + 3), range(n)]],
      ["to 0 inclusive", INCLUSIVE_DOWN, [range(n), range(n), range(1)]],
      ["shifted up", SHIFTED_UP, [range(n), range(n), range(1)]],
      ["shifted down", SHIFTED_DOWN, [range(n), range(n), range(1)]],
      ["a triangle", TRIANGLE, [range((n * (n - 1)) / 2 - 1), range(n)]],
      ["at a fixed index", FIXED_INDEX, [range(n), new Float64Array(0)]],
      ["to an inclusive bound", INCLUSIVE, [range(n - 1), range(n)]],
    ];
    for (const [what, source, args] of cases) {
      const { js, wasm, fellBack } = await bothValues(source, args);
      assert.ok(Number.isNaN(js), `${what}, ${n}: JavaScript reads undefined`);
      assert.ok(wasm.every(Number.isNaN), `${what}, ${n}: wasm gives ${wasm}`);
      assert.equal(fellBack, 2, `${what}, ${n}: the wasm calls trapped and reran`);
    }
  }
});

test("an index out of range at an iteration that never runs: no trap", async () => {
  // w[j] is read only inside the loop, which does not run on an empty a.
  const { js, wasm, fellBack } = await bothValues(FIXED_INDEX, [
    new Float64Array(0),
    new Float64Array(0),
  ]);
  assert.equal(js, 0);
  assert.deepEqual(wasm, [0, 0]);
  assert.equal(fellBack, 0);
});

test("i <= a.length, and a counter from a.length - 1 of an empty a: checked at each index", async () => {
  // Differentiated by t only: a has no tangent or adjoint, whose own checks would trap.
  const through = `export function f(a: Float64Array, t: number): number {
  let s = 0;
  for (let i = 0; i <= a.length; i++) s += a[i] * a[i] * t;
  return s;
}`;
  const fromLast = `export function f(a: Float64Array, b: Float64Array, t: number): number {
  let s = 0;
  for (let i = a.length - 1; i < b.length; i++) s += b[i] * b[i] * t;
  return s;
}`;
  for (const n of [3, 12]) {
    const past = await bothValues(through, [range(n), 2], "wrt: 1");
    assert.ok(Number.isNaN(past.js) && past.wasm.every(Number.isNaN), `${past.wasm}`);
    assert.equal(past.fellBack, 2);
    const fits = await bothValues(fromLast, [range(1), range(n), 2], "wrt: 2");
    assert.deepEqual(fits.wasm, [fits.js, fits.js]);
    assert.equal(fits.fellBack, 0);
    const before = await bothValues(fromLast, [range(0), range(n), 2], "wrt: 2");
    assert.ok(Number.isNaN(before.js) && before.wasm.every(Number.isNaN), `${before.wasm}`);
    assert.equal(before.fellBack, 2);
  }
});

test("a counter from below 0 is checked at each index", async () => {
  const source = `export function f(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = a.length - b.length; i < a.length; i++) s += a[i] * a[i];
  return s;
}`;
  for (const n of [3, 12]) {
    const fits = await bothValues(source, [range(n), range(n)]);
    assert.deepEqual(fits.wasm, [fits.js, fits.js]);
    assert.equal(fits.fellBack, 0);
    const before = await bothValues(source, [range(n), range(n + 1)]);
    assert.ok(Number.isNaN(before.js) && before.wasm.every(Number.isNaN));
    assert.equal(before.fellBack, 2);
  }
});

/** The loops of `fn`, outermost first. */
function loops(fn: IRFunction): Op[] {
  const found: Op[] = [];
  forEachOp(fn.body, (op) => {
    if (op.opcode === "loop") found.push(op);
  });
  return found;
}

function analyses(fn: IRFunction) {
  const ints = integerValues(fn);
  const definitions = new Map<number, Op>();
  forEachOp(fn.body, (op) => op.results.forEach((r) => definitions.set(r.id, op)));
  return { ints, bounds: integerBounds(fn, ints), definitions };
}

test("what is known before the loops of a packed triangular product and of its backward sweep", () => {
  const primal = lower(TRIANGLE, "f");
  const { ints, definitions } = analyses(primal);
  const inner = loops(primal).map((l) => loopPrechecks(l, definitions, ints));
  // The triangle's inner loop: y[row] read and written, packed[k] (k moves with row), and
  // x[col], the same at every iteration.
  const triangle = inner.find((p) => p?.accesses.length === 4);
  assert.ok(triangle, "the inner loop's accesses are checked on entry");
  assert.equal(triangle.counter.relation, "lt");
  assert.deepEqual(
    triangle.accesses.map((a) => `${a.array.hint}:${a.step}`),
    ["y:1", "packed:1", "x:0", "y:1"],
  );

  // The backward sweep counts its loops down from their trip counts.
  const [, bwd] = sweepsOf(TRIANGLE, "f", [0, 1]);
  const backward = analyses(bwd);
  const down = loops(bwd)
    .map((l) => loopPrechecks(l, backward.definitions, backward.ints))
    .filter((p) => p?.counter.relation === "gt");
  // The inner one: dy[row], dx[col] (the same at every iteration) and dpacked[k], row and k
  // moving down with the trip count.
  assert.equal(down.length, 1, "the reversed inner loop is counted down");
  assert.deepEqual(
    down[0]!.accesses.map((a) => `${a.array.hint}:${a.step}`),
    ["dy:-1", "dx:0", "dpacked:-1"],
  );
  // No difference `i - 1` of a counter tested i > 0 keeps an overflow check.
  const decrements: number[] = [];
  forEachOp(bwd.body, (op) => {
    const k = op.operands[1] && backward.definitions.get(op.operands[1].id);
    if (op.opcode === "sub" && k?.opcode === "const" && k.attrs.value === 1)
      decrements.push(op.results[0]!.id);
  });
  assert.ok(decrements.length > 0);
  for (const id of decrements)
    if (backward.ints.has(id)) assert.ok(backward.bounds.cannotOverflow.has(id), `%${id}`);
});

test("bounds the rules must not claim: a sum of two counters, a counter from a difference", () => {
  const source = `export function f(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = a.length - b.length; i < a.length; i++) {
    for (let j = 0; j < b.length; j++) s += a[i + j];
  }
  return s;
}`;
  const fn = lower(source, "f");
  const { ints, bounds, definitions } = analyses(fn);
  // i may start below 0: no index of it is known within bounds.
  const [outer] = loops(fn);
  const i = outer!.regions[1]!.params.find((p) => ints.has(p.id))!;
  assert.ok(i);
  assert.equal(bounds.inBounds.get(i.id), undefined);
  // i + j of two counters may overflow: its check stays.
  forEachOp(fn.body, (op) => {
    if (op.opcode !== "add" || !ints.has(op.results[0]!.id)) return;
    const [x, y] = op.operands.map((v) => definitions.get(v.id)?.opcode);
    if (x !== "const" && y !== "const") assert.ok(!bounds.cannotOverflow.has(op.results[0]!.id));
  });
});

test("a reverse sweep's element 1 + (trips - 1), and the one below it, are checked on entry", () => {
  const source = `export function f(x: Float64Array, y: Float64Array): number {
  let s = 0;
  for (let i = 1; i < x.length; i++) s += x[i] * y[i - 1];
  return s;
}`;
  const [, bwd] = sweepsOf(source, "f", [0, 1]);
  const { ints, definitions } = analyses(bwd);
  const down = loops(bwd)
    .map((l) => loopPrechecks(l, definitions, ints))
    .filter((p) => p?.counter.relation === "gt");
  assert.equal(down.length, 1, "the reversed loop");
  // Each access as array:step:constant, its index trips − 1 + 1 (+ 0) or one below (− 1).
  assert.deepEqual(down[0]!.accesses.map((a) => `${a.array.hint}:${a.step}:${a.constant}`).sort(), [
    "dx:-1:0",
    "dy:-1:-1",
  ]);
});
