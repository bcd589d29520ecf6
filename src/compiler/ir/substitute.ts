import type { Region, Value } from "./types.js";
import { forEachOp } from "./walk.js";

/**
 * Replaces every use of a value in `region` (nested regions too) by its replacement, following
 * chains: a replacement may itself have been replaced (an inlined body returning another
 * inlined call's result).
 */
export function substituteValues(region: Region, replacement: ReadonlyMap<number, Value>): void {
  const resolve = (v: Value): Value => {
    for (let r = replacement.get(v.id); r; r = replacement.get(r.id)) v = r;
    return v;
  };
  forEachOp(region, (op) => (op.operands = op.operands.map(resolve)));
}
