import { forEachOp } from "../ir/walk.js";
import type { IRFunction } from "../ir/types.js";

// Derivative calls whose tangent nothing reads become calls of the function itself (reverse
// mode, on the JVP before it is unzipped). After last-write.ts moves a pure call's tangent
// past its loop, the call left in the loop is needed for its value alone; as a derivative
// call it would still run the callee's forward sweep and tape its residuals at every
// iteration, and its backward sweep at every iteration of the backward loop.
//
// Exact for a pure call (OpAttrs.pure): it writes no shadow, so all the JVP does beyond the
// function is compute the tangent nobody reads.

/** Returns whether it changed a call. */
export function callPrimalsForUnusedTangents(fn: IRFunction): boolean {
  const used = new Set<number>();
  forEachOp(fn.body, (op) => op.operands.forEach((v) => used.add(v.id)));
  let changed = false;
  forEachOp(fn.body, (op) => {
    const { primal, wrt, primalCall } = op.attrs;
    if (op.opcode !== "call" || !op.tangent || !primalCall || !primal || !wrt) return;
    const [tangent, value] = op.results;
    if (op.results.length !== 2 || !tangent!.tangent || value!.tangent) return;
    if (used.has(tangent!.id)) return;
    op.operands = op.operands.slice(0, op.operands.length - wrt.length);
    op.results = [value!];
    op.attrs = { ...primalCall };
    delete op.tangent;
    changed = true;
  });
  return changed;
}
