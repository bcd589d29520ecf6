import type { IRFunction, Op, Region, Value } from "../../ir/types.js";
import { forEachOp } from "../../ir/walk.js";

// Counted loops, `for (let i = 0; i < a.length; i++) … a[i] …`: in the body, the counter is
// an integer in [0, a.length), so reading or writing a[i] needs no check of the index, and
// `i + 1` cannot overflow. Sound because an array in wasm memory keeps the length it was made
// with (the backend refuses code that lengthens one) and `a` is one SSA value; the checks left
// are those of other arrays (b[i]) and other indices.

export interface CountedLoops {
  /** Per counter (a body parameter's id), the arrays (value ids) it indexes within bounds. */
  inBounds: Map<number, Set<number>>;
  /** The `i + 1` steps (value ids) that cannot overflow. */
  cannotOverflow: Set<number>;
}

/** The counted loops of `fn`, over the integers kept as i32 (`ints`, see integers.ts). */
export function countedLoops(fn: IRFunction, ints: Set<number>): CountedLoops {
  const found: CountedLoops = { inBounds: new Map(), cannotOverflow: new Set() };
  const definitions = new Map<number, Op>();
  forEachOp(fn.body, (op) => {
    for (const r of op.results) definitions.set(r.id, op);
  });
  const constant = (v: Value) => {
    const op = definitions.get(v.id);
    return op?.opcode === "const" && typeof op.attrs.value === "number"
      ? op.attrs.value
      : undefined;
  };
  forEachOp(fn.body, (op) => {
    if (op.opcode !== "loop") return;
    const [before, after] = op.regions as [Region, Region];
    const condition = before.ops[before.ops.length - 1]!;
    const [flag, ...forwarded] = condition.operands;
    const test = flag && definitions.get(flag.id);
    if (test?.opcode !== "lt") return;
    const [counter, bound] = test.operands as [Value, Value];
    const k = before.params.indexOf(counter);
    const j = forwarded.indexOf(counter);
    const length = definitions.get(bound.id);
    if (k < 0 || j < 0 || length?.opcode !== "length") return;
    const inBody = after.params[j]!;
    if (!ints.has(counter.id) || !ints.has(inBody.id)) return;
    // From 0 or more, by steps of 1: never negative, and i + 1 ≤ a.length fits an i32.
    const start = constant(op.operands[k]!);
    if (start === undefined || start < 0 || !Number.isInteger(start)) return;
    const yielded = after.ops[after.ops.length - 1]!.operands[k];
    const step = yielded && definitions.get(yielded.id);
    if (step?.opcode !== "add") return;
    const [x, y] = step.operands as [Value, Value];
    const one = x === inBody ? constant(y) : y === inBody ? constant(x) : undefined;
    if (one !== 1) return;
    const arrays = found.inBounds.get(inBody.id) ?? new Set<number>();
    arrays.add(length.operands[0]!.id);
    found.inBounds.set(inBody.id, arrays);
    found.cannotOverflow.add(yielded.id);
  });
  return found;
}
