import { ValueFactory } from "../ir/builder.js";
import { isAggregate } from "../ir/type-system.js";
import { highestValueId } from "../ir/value-ids.js";
import type { IRFunction, Op, Region, Value } from "../ir/types.js";

// Shadow structure put back (reverse mode only, on the JVP before it is unzipped).
//
// Storing an array or object into another (`data[0] = p`, `m[i] = row`) stores its shadow into
// the other's shadow: from then on, the slot holds a shadow made elsewhere. The backward sweep
// zeroes a shadow where it undoes the shadow's creation (so a pullback can run again), and a
// zero shadow (`zeros`, for data that varied values are written into) is zeroed all the way
// down: it made every array and object in it. Were `dp` still in `ddata[0]` at that point, its
// adjoints would be zeroed before they reached `p`. So the backward sweep puts back what such
// a store replaced, where it undoes the store: the forward sweep reads the slot before storing
// (`old = ddata[0]`, a residual like any shadow), and the backward sweep stores `old` back.
// Every shadow then has, where its creation is undone, the structure its creation gave it.
//
// Not needed for stores into a shadow built right there by `alloc` or a literal, whose own
// zeroing only touches the numbers it holds (the arrays and objects in its slots all come from
// elsewhere): the copy loops of `slice`, `map` and spreads, `ys[i] = { … }` into `[]`.

/** Per shadow store that replaces a slot: the value the slot held before (see above). */
const replacedSlots = new WeakMap<Op, Value>();

/** What a shadow store replaced, if the backward sweep puts it back (see above). */
export function replacedSlot(store: Op): Value | undefined {
  return replacedSlots.get(store);
}

/** Reads the slot before each shadow store that may replace a shadow made elsewhere. */
export function readReplacedSlots(fn: IRFunction): void {
  const values = new ValueFactory(highestValueId(fn) + 1);
  const owned = new Set<number>();
  const visit = (region: Region) => {
    const ops: Op[] = [];
    for (const op of region.ops) {
      op.regions.forEach(visit);
      if ((op.opcode === "alloc" || op.opcode === "literal") && op.tangent)
        owned.add(op.results[0]!.id);
      const value = op.operands[op.operands.length - 1];
      const store =
        op.tangent &&
        (op.opcode === "setIndex" || op.opcode === "setField") &&
        isAggregate(value!.type);
      if (store && !owned.has(op.operands[0]!.id)) {
        const old = values.make(value!.type, "replaced");
        old.tangent = true;
        ops.push({
          opcode: op.opcode === "setIndex" ? "index" : "field",
          operands: op.operands.slice(0, -1),
          results: [old],
          regions: [],
          attrs: op.opcode === "setField" ? { field: op.attrs.field! } : {},
          loc: op.loc,
          tangent: true,
        });
        replacedSlots.set(op, old);
      }
      ops.push(op);
    }
    region.ops = ops;
  };
  visit(fn.body);
}
