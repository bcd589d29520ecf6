import type { FunctionKey, IRFunction } from "../../ir/types.js";
import { someOp } from "../../ir/walk.js";

// Whether a pullback keeps a journal of the shadow stores its backward sweep puts back
// (runtime/store-journal.ts). Only a backward sweep that puts a replaced shadow back (an op
// marked `undoesStore`, differentiate/backward-sweep.ts) has any, in its own body or in a
// function it calls; a pullback without one skips the journal, which costs an object per
// forward sweep and two runtime calls and a `try` per run (ba's Jacobian runs 30,000–200,000
// of them per call).

/**
 * Whether `key`'s derivative, or a function it calls (a derivative, or a plain function,
 * which may take derivatives itself), undoes a store. A callee nabla has no body of (a rule's,
 * a function it could not read) counts as one.
 */
export function undoesStores(
  key: FunctionKey,
  derivatives: ReadonlyMap<FunctionKey, IRFunction | undefined>,
  primals: ReadonlyMap<FunctionKey, IRFunction | undefined>,
): boolean {
  const seen = new Set<FunctionKey>([key]);
  const pending = [key];
  while (pending.length > 0) {
    const next = pending.pop()!;
    const fn = derivatives.get(next) ?? primals.get(next);
    if (!fn) return true;
    const undoes = someOp(fn.body, (op) => {
      if (op.attrs.undoesStore) return true;
      if (op.opcode !== "call") return false;
      const callee = op.attrs.callee;
      if (callee === undefined) return true;
      if (!seen.has(callee)) {
        seen.add(callee);
        pending.push(callee);
      }
      return false;
    });
    if (undoes) return true;
  }
  return false;
}
