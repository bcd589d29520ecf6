import { WRITES_MEMORY } from "../ir/ops.js";
import type { IRFunction, Op, Region, Value } from "../ir/types.js";

// In-place updates of shadows (`da[i] = da[i] + dv`, the tangent of `a[i] += v`): their
// transpose leaves the adjoint where it is and adds it to dv's, instead of clearing the slot
// and adding it back (see BackwardSweep.transposeWrite).

/** The other addend of an in-place update (undefined when the write stores the read value itself). */
export interface InPlaceUpdate {
  other: Value | undefined;
}

/**
 * Shadow writes `da[i] = da[i] + dv` (the tangent of `a[i] += v`) whose read comes earlier in
 * the same region with no write of a shadow in between, with the other addend
 * (undefined when the write stores the read value itself).
 */
export function findInPlaceUpdates(jvp: IRFunction): Map<Op, InPlaceUpdate> {
  const found = new Map<Op, InPlaceUpdate>();
  const visit = (region: Region) => {
    const position = new Map<Op, number>();
    const definedBy = new Map<number, Op>();
    region.ops.forEach((op, k) => {
      position.set(op, k);
      for (const r of op.results) definedBy.set(r.id, op);
      op.regions.forEach(visit);
    });
    region.ops.forEach((store, k) => {
      if (!store.tangent || (store.opcode !== "setIndex" && store.opcode !== "setField")) return;
      if (store.attrs.value === "grow") return;
      const value = store.operands[store.operands.length - 1]!;
      const readOf = (v: Value): Op | undefined => {
        const load = definedBy.get(v.id);
        if (!load || !load.tangent || load.operands[0] !== store.operands[0]) return undefined;
        if (
          store.opcode === "setIndex" &&
          (load.opcode !== "index" || load.operands[1] !== store.operands[1])
        )
          return undefined;
        if (
          store.opcode === "setField" &&
          (load.opcode !== "field" || load.attrs.field !== store.attrs.field)
        )
          return undefined;
        const from = position.get(load)!;
        const between = region.ops.slice(from + 1, k);
        // Only writes of shadows matter (primal stores do not touch them); reads in between
        // become additions, which commute with keeping the adjoint in place.
        return between.some(
          (o) => (o.tangent && WRITES_MEMORY.has(o.opcode)) || o.regions.length > 0,
        )
          ? undefined
          : load;
      };
      if (readOf(value)) {
        found.set(store, { other: undefined });
        return;
      }
      const sum = definedBy.get(value.id);
      if (!sum || sum.opcode !== "add" || !sum.tangent) return;
      const [x, y] = sum.operands as [Value, Value];
      if (readOf(x)) found.set(store, { other: y });
      else if (readOf(y)) found.set(store, { other: x });
    });
  };
  visit(jvp.body);
  return found;
}
