import { COMPUTATIONS } from "../../ir/ops.js";
import { isArray } from "../../ir/type-system.js";
import type { Op, Opcode, Value } from "../../ir/types.js";
import { someOp } from "../../ir/walk.js";
import { isAppend } from "./growing-arrays.js";
import { holdsNumbers } from "./kinds.js";
import type { LoopPrechecks } from "./loop-prechecks.js";

// Array elements a loop keeps in a local instead of memory. A backward sweep adds into the
// same element at every iteration (`dx[col] += dout[row] * l[idx]`, the transpose of
// `out[row] += l[idx] * x[col]`); in memory, each addition waits for the store of the one
// before it, which makes the loop several times slower than its arithmetic. Held in a local
// (read before the loop, written back after it) the additions are the same, in the same
// order, so the results are identical to the bit.
//
// A slot qualifies when every op of the loop on its array uses the same index, made before
// the loop and checked within bounds on entry (loop-prechecks.ts), and nothing else in the
// loop can reach it: no call, and every other array or object the loop reads or writes is
// another block of memory, which the emitter checks before the loop by comparing addresses
// (the arrays of wasm memory never overlap: each is its own block, `subarray` copies).

/** An element `array[index]` held in a local while the loop runs. */
export interface PromotedSlot {
  array: Value;
  index: Value;
}

export interface SlotPromotion {
  slots: PromotedSlot[];
  /** The other arrays and objects the loop reads or writes: each must differ from each slot's array. */
  others: Value[];
}

/** Ops reading or writing the memory of their first operand. */
const MEMORY_OPS = new Set<Opcode>([
  "index",
  "setIndex",
  "addIndex",
  "length",
  "field",
  "setField",
  "addField",
]);
/** Ops a loop may hold besides computations and memory ops: none of them touches user memory. */
const HARMLESS = new Set<Opcode>(["if", "yield", "condition", "push", "pop", "reserve", "peak"]);

/** The slots `loop` (innermost, with `prechecks`) can hold in locals, or undefined. */
export function promotableSlots(loop: Op, prechecks: LoopPrechecks): SlotPromotion | undefined {
  const { inside, accesses } = prechecks;
  const uses = new Map<Value, Op[]>();
  const unknown = loop.regions.some((region) =>
    someOp(region, (op) => {
      if (COMPUTATIONS.has(op.opcode) || HARMLESS.has(op.opcode)) return false;
      if (!MEMORY_OPS.has(op.opcode)) return true;
      const base = op.operands[0]!;
      // Made in the loop, it cannot be compared before it.
      if (inside.has(base.id)) return true;
      uses.set(base, [...(uses.get(base) ?? []), op]);
      return false;
    }),
  );
  if (unknown) return undefined;
  const checked = new Set(
    accesses.filter((a) => a.step === 0).map((a) => `${a.array.id}[${a.index.id}]`),
  );
  const slots: PromotedSlot[] = [];
  for (const [array, ops] of uses) {
    if (!isArray(array.type) || !holdsNumbers(array.type)) continue;
    const elementOps = ops.filter((op) => op.opcode !== "length");
    const index = elementOps[0]?.operands[1];
    if (
      !index ||
      inside.has(index.id) ||
      !checked.has(`${array.id}[${index.id}]`) ||
      !elementOps.some((op) => op.opcode !== "index") ||
      !elementOps.every((op) => op.operands[1] === index && !op.attrs.ifExists && !isAppend(op))
    )
      continue;
    slots.push({ array, index });
  }
  if (slots.length === 0) return undefined;
  return { slots, others: [...uses.keys()] };
}
