import { test } from "node:test";
import assert from "node:assert/strict";
import { sweepsOf } from "./support/ir.js";
import { TRIANGULAR } from "./support/triangular-product.js";
import { checkBackends, f64 } from "./support/wasm-backends.js";
import type { Op, Region } from "../src/compiler/ir/types.js";
import { forEachOp, someOp } from "../src/compiler/ir/walk.js";

// Element reads that move out of a loop before reverse mode splits a function (ir/licm.ts):
// `x[col]` read in every iteration of an inner loop over rows, the way gmm's triangular
// product reads it, is taped once per column instead of once per element. Every program is
// checked two ways, on both backends (checkBackends), including the ones where the read must
// stay: the array written in the loop is the one read, at an index the write may reach. gmm's
// sum over points (TRIANGULAR_SUM) is checked the same way in wasm-promoted-slots.test.ts.

const loopsOf = (region: Region): Op[] => {
  const loops: Op[] = [];
  forEachOp(region, (op) => op.opcode === "loop" && loops.push(op));
  return loops;
};

test("x[col] of a triangular product is taped once per column, not per element", () => {
  // qdiag and l unchanged until the backward sweep (as gmm's caller keeps them): read again there.
  const [fwd] = sweepsOf(TRIANGULAR, "qTimesX", [0, 1, 2], [0, 1]);
  const innermost = loopsOf(fwd.body).filter(
    (loop) => !loop.regions.some((r) => someOp(r, (op) => op.opcode === "loop")),
  );
  const pushes = (loop: Op) => loop.regions.some((r) => someOp(r, (op) => op.opcode === "push"));
  // The diagonal loop tapes x[i]; the loop over rows tapes nothing: x[col] moved out of it.
  assert.deepEqual(
    innermost.map(pushes),
    [true, false],
    "the diagonal loop pushes x[i], the loop over rows pushes nothing",
  );
});

test("the product in place (x and out the same array): x[col] still moves, the rows written are below it", async () => {
  await checkBackends(
    `${TRIANGULAR}

export function f(qdiag: Float64Array, l: Float64Array, x: Float64Array): number {
  const v = Float64Array.from(x);
  qTimesX(qdiag, l, v, v);
  let s = 0;
  for (const y of v) s += y * y;
  return s;
}`,
    [
      [
        f64(1.5, -0.5, 2, 0.25, 1),
        f64(0.1, 0.2, -0.3, 0.4, 0.5, -0.6, 0.7, 0.8, 0.9, -1),
        f64(1, 2, 3, 4, 5),
      ],
    ],
  );
});

test("a read the loop may overwrite stays in the loop: rows from col itself, in place", async () => {
  // row starts at col: with x and out the same array, the first write changes x[col].
  const source = `function lowerTimes(l: Float64Array, x: Float64Array, out: Float64Array): void {
  const d = x.length;
  let idx = 0;
  for (let col = 0; col < d; col++) {
    for (let row = col; row < d; row++) {
      out[row] += l[idx] * x[col];
      idx++;
    }
  }
}

export function f(l: Float64Array, x: Float64Array): number {
  const v = Float64Array.from(x);
  lowerTimes(l, v, v);
  let s = 0;
  for (const y of v) s += y * y;
  return s;
}`;
  await checkBackends(source, [
    [
      f64(0.1, 0.2, -0.3, 0.4, 0.5, -0.6, 0.7, 0.8, 0.9, -1, 0.3, 0.2, 0.1, 0.4, -0.2),
      f64(1, 2, 3, 4, 5),
    ],
  ]);
  const [fwd] = sweepsOf(source, "lowerTimes", [0, 1]);
  const rows = loopsOf(fwd.body).at(-1)!;
  assert.ok(
    rows.regions.some((r) =>
      someOp(r, (op) => op.opcode === "index" && op.operands[0]!.hint === "x"),
    ),
    "x[col] is read in the loop over rows",
  );
});

test("a read whose index may be past the end stays in a loop that may not run", async () => {
  // w[j] with j = w.length - 1 (-1 for an empty w): JavaScript reads undefined only if the
  // loop runs; moved before it, wasm would trap on an empty w and rerun in JavaScript.
  const [fwd] = sweepsOf(
    `export function f(a: Float64Array, w: Float64Array): number {
  const j = w.length - 1;
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * w[j];
  return s;
}`,
    "f",
    [0, 1],
  );
  const loop = loopsOf(fwd.body)[0]!;
  assert.ok(
    loop.regions.some((r) =>
      someOp(r, (op) => op.opcode === "index" && op.operands[0]!.hint === "w"),
    ),
    "w[j] is read in the loop",
  );
});

test("every start and direction of the rows, with out the same array as a, as b, or its own", async () => {
  // The read a[c] may move out of the loop over rows only where no write out[r] reaches a[c]:
  // rows from c + 1 or c + 2 upwards, or from c - 1 downwards, never from c itself when out
  // is a. Each program is checked two ways on both backends, whatever the compiler decided.
  const rows = {
    "c + 1 up": "for (let r = c + 1; r < n; r++)",
    "c + 2 up": "for (let r = c + 2; r < n; r++)",
    "c up": "for (let r = c; r < n; r++)",
    "c - 1 down": "for (let r = c - 1; r >= 0; r--)",
    "c down": "for (let r = c; r >= 0; r--)",
  };
  const outs = { "out is a": "u, v, u", "out is b": "u, v, v", "out its own": "u, v, w" };
  for (const [rowsName, loop] of Object.entries(rows))
    for (const [outName, args] of Object.entries(outs)) {
      const source = `function kernel(a: Float64Array, b: Float64Array, out: Float64Array): void {
  const n = a.length;
  for (let c = 0; c < n; c++) {
    ${loop} {
      out[r] += 0.25 * a[c] * b[r] + 0.125 * a[c] * a[c];
    }
  }
}

export function f(x: Float64Array, y: Float64Array): number {
  const u = Float64Array.from(x);
  const v = Float64Array.from(y);
  const w = new Float64Array(x.length);
  kernel(${args});
  let s = 0;
  for (let i = 0; i < u.length; i++) s += u[i] * v[i] + w[i] * w[i];
  return s;
}`;
      await checkBackends(
        source,
        [[f64(0.5, -1, 0.25, 0.75, -0.5, 1.25), f64(1, 0.5, -0.25, 2, 0.125, -1)]],
        1e-4,
      ).catch((error: unknown) => {
        throw new Error(`rows ${rowsName}, ${outName}: ${String(error)}`);
      });
    }
});
