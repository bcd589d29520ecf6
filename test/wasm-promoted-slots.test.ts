import { test } from "node:test";
import assert from "node:assert/strict";
import { sweepsOf } from "./support/ir.js";
import { TRIANGULAR, TRIANGULAR_SUM } from "./support/triangular-product.js";
import { checkBackends, f64 } from "./support/wasm-backends.js";
import { integerBounds } from "../src/compiler/emit/wasm/integer-bounds.js";
import { integerValues } from "../src/compiler/emit/wasm/integers.js";
import { loopPrechecks } from "../src/compiler/emit/wasm/loop-prechecks.js";
import { promotableSlots } from "../src/compiler/emit/wasm/promoted-slots.js";
import type { IRFunction, Op } from "../src/compiler/ir/types.js";
import { forEachOp } from "../src/compiler/ir/walk.js";

// Array elements the WebAssembly backend keeps in a local while a loop runs
// (emit/wasm/promoted-slots.ts): the same element added into at every iteration, as the
// backward sweep of a triangular product adds into dx[col]. The fast version of the loop holds
// it only when every other array the loop touches is another block of memory, which it checks
// on entry; results must equal JavaScript's to the bit (checkBackends: 1e-12, and two ways).

/** The slots each innermost loop of `fn` with a fast version holds, as `array[index]` hints. */
function slotsOf(fn: IRFunction): string[][] {
  // As the emitter finds them: products of integers known ≥ 0 are integers too.
  const ints = integerValues(fn, integerBounds(fn, integerValues(fn)).nonNegative);
  const definitions = new Map<number, Op>();
  forEachOp(fn.body, (op) => op.results.forEach((r) => definitions.set(r.id, op)));
  const held: string[][] = [];
  forEachOp(fn.body, (op) => {
    const prechecks = op.opcode === "loop" ? loopPrechecks(op, definitions, ints) : undefined;
    if (!prechecks) return;
    const promotion = promotableSlots(op, prechecks);
    held.push((promotion?.slots ?? []).map((s) => `${s.array.hint}[${s.index.hint}]`));
  });
  return held;
}

test("the backward loop over rows holds dx[col] in a local, and nothing else does", () => {
  const [fwd, bwd] = sweepsOf(TRIANGULAR, "qTimesX", [0, 1, 2, 3], [0, 1]);
  assert.deepEqual(slotsOf(bwd), [["dx[col]"], []]);
  // Forward: out[row] and l[idx] move with the loop; nothing is added into one element.
  assert.ok(
    slotsOf(fwd).every((slots) => slots.length === 0),
    "the forward sweep holds no slot",
  );
});

test("gmm's triangular product: the held dx[col] gives JavaScript's gradient to the bit", async () => {
  await checkBackends(
    TRIANGULAR_SUM,
    // d = 7: the first columns' loops run 4 times or more (the version holding the slot),
    // the last ones fewer (the version without).
    [
      [
        f64(1.5, -0.5, 2, 0.25, 1, 0.75, -1.25),
        f64(...Array.from({ length: 21 }, (_, k) => Math.sin(k + 1))),
        [f64(1, 2, 3, 4, 5, 6, 7), f64(-1, 0.5, 0.25, 2, 3, -2, 1)],
      ],
      [f64(1.5, -0.5), f64(0.3), [f64(1, 2)]],
    ],
  );
});

test("an element added into through one name and read through another: not held", async () => {
  // acc and src are the same array: the loop down to 0 reads src[0], which the additions
  // into acc[0] have changed. Held in a local, src[0] would still be the old value.
  const source = `export function f(w: Float64Array, t: number): number {
  const v = Float64Array.from(w);
  const views = [v, v];
  const acc = views[0];
  const src = views[1];
  for (let i = src.length - 1; i >= 0; i--) acc[0] += src[i] * t;
  return acc[0] * acc[0];
}`;
  await checkBackends(source, [[f64(1, 2, 3, 4, 5, 6), 0.5]]);
});
