import { parseDerivedPrimalKey } from "../../ir/names.js";
import { isAggregate } from "../../ir/type-system.js";
import type { Op, Value } from "../../ir/types.js";
import { forEachOp } from "../../ir/walk.js";

// Arrays and objects a loop's iteration makes on the heap (the adjoints of an inner gradient,
// a scratch row) die with the iteration when none of them can outlive it: then the heap's top
// is put back where it was at the start of each iteration, so the next one reuses the same
// memory (still in cache) instead of a fresh block per iteration. An allocation outlives the
// iteration only through a use that hands its address on beyond it; the test is
// conservative, by op kind, not by value:
// - storing an array or object anywhere (a `setIndex`, `setField` or `literal` of one), or
//   saving its address on the tape (a forward sweep's `push`, for the backward sweep);
// - carrying one to the next iteration or out of the loop, or returning one, when it is made
//   in the iteration (defined there, rather than carried through unchanged);
// - passing one to a function of the program, which could do either, or calling a
//   derivative's sweep at all (see keepsHeap; the sweeps an inner gradient is expanded into,
//   differentiate/inner-gradients.ts, only read their arguments and add into the shadows);
// - an append to an array that may grow: it may move the array to a new block on the heap.

/**
 * Whether what a call makes, or is handed, cannot outlive it: an inner gradient's sweeps
 * (`innerGradient`), or a function of the program (or a JVP made a primal function) given no
 * array or object, which it could keep. A derivative's sweep may save what it makes on the
 * tape for a backward sweep after the loop (a forward sweep), or store new shadow rows into
 * the shadows it is given (a backward sweep): never.
 */
function keepsHeap(call: Op): boolean {
  if (call.attrs.innerGradient) return true;
  const key = call.attrs.callee ?? "";
  const plain = !key.includes("@") || parseDerivedPrimalKey(key) !== undefined;
  return plain && !call.operands.some((v) => isAggregate(v.type));
}

const ALLOCATING = new Set<Op["opcode"]>(["alloc", "zeros", "literal", "call"]);

/** Whether each iteration of `loop` takes heap and may put it back as it found it. */
export function releasesHeap(loop: Op, growing: ReadonlySet<number>): boolean {
  const made = new Set<number>();
  let allocates = false;
  let escapes = false;
  const inside = (v: Value) => made.has(v.id);
  for (const region of loop.regions)
    forEachOp(region, (op) => {
      for (const r of op.results) made.add(r.id);
      for (const inner of op.regions) for (const p of inner.params) made.add(p.id);
    });
  for (const region of loop.regions) {
    forEachOp(region, (op) => {
      // What may take heap: making an array or object, or a call (its callee may make some).
      if (ALLOCATING.has(op.opcode)) allocates = true;
      switch (op.opcode) {
        case "setIndex":
        case "setField":
        case "addIndex":
        case "addField":
          if (isAggregate(op.operands[op.operands.length - 1]!.type)) escapes = true;
          if (op.opcode === "setIndex" && growing.has(op.operands[0]!.id)) escapes = true;
          return;
        case "literal":
        case "push":
          // Held by another array or object, or saved on the tape for a backward sweep.
          if (op.operands.some((v) => isAggregate(v.type))) escapes = true;
          return;
        case "return":
          if (op.operands.some((v) => isAggregate(v.type))) escapes = true;
          return;
        case "yield":
        case "condition":
          // The loop's own (to the next iteration, or out of it), or a nested loop's or
          // branch's (conservatively: the iteration may hand that on in turn).
          if (op.operands.some((v) => isAggregate(v.type) && inside(v))) escapes = true;
          return;
        case "call":
          if (!keepsHeap(op)) escapes = true;
          return;
        default:
          return;
      }
    });
  }
  return allocates && !escapes;
}
