import { isAggregate } from "../ir/type-system.js";
import type { IRFunction, Value } from "../ir/types.js";
import { forEachOp } from "../ir/walk.js";

// Parameters a function fills without ever looking at what they held: it stores numbers into
// their arrays' elements (`out[k] = …`), reads their lengths and their objects' fields, and
// does nothing else with them — no element read, no `+=`, no call given one of their arrays,
// no array of theirs kept in a variable a loop carries. The WebAssembly runtime writes such
// arrays where they are (a `wasmArrays` memory's) instead of copying them in and back: a
// call that traps and runs again (as JavaScript, or on a larger memory) finds some elements
// already written, but since nothing reads them, it writes the same values over them and
// ends with the arrays as a single run would leave them.

/** Of the parameters `written`, those `fn` only writes into (see above), in order. */
export function writeOnlyParams(fn: IRFunction, written: number[]): number[] {
  return written.filter((p) => onlyWritten(fn, fn.params[p]));
}

function onlyWritten(fn: IRFunction, param: Value | undefined): boolean {
  if (param === undefined || !isAggregate(param.type)) return false;
  // The parameter and the arrays and objects reached from it through fields and rows.
  const reached = new Set<Value>([param]);
  let ok = true;
  forEachOp(fn.body, (op) => {
    op.operands.forEach((operand, k) => {
      if (!ok || !reached.has(operand)) return;
      const result = op.results[0];
      switch (op.opcode) {
        case "length":
          return;
        case "field":
          // A number field: the object is copied in and back, never written in place.
          if (result && isAggregate(result.type)) reached.add(result);
          return;
        case "index":
          // A row or an object of it (which row is unchanged by writing numbers into rows).
          if (k === 0 && result && isAggregate(result.type)) {
            reached.add(result);
            return;
          }
          break;
        case "setIndex":
          if (k === 0 && op.operands[2]!.type === "number") return;
          break;
        case "setField":
          if (k === 0 && !isAggregate(op.operands[1]!.type)) return;
          break;
      }
      ok = false;
    });
  });
  return ok;
}
