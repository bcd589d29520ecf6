import { Builder } from "../ir/builder.js";
import { StoreBounds } from "../ir/store-bounds.js";
import { isArray } from "../ir/type-system.js";
import type { Op, Region, Value } from "../ir/types.js";
import { forEachOp } from "../ir/walk.js";
import type { ElementUpdate, LowerContext } from "./context.js";

// `buf[k] *= x` with k past a typed array's end: JavaScript reads undefined, computes NaN and
// ignores the write. Reverse mode gives the ignored write a zero adjoint, then multiplies it
// by the missing element (0 × NaN). So where k is not known within the array
// (ir/store-bounds.ts) and the update does more than add to the element, derivative code
// reads a missing element as 0: the write is ignored all the same, and nothing reaches the
// gradient. `buf[k] += v` and `-=` keep their code: their derivative does not read it.

export function zeroMissingElements(
  ctx: LowerContext,
  body: Region,
  updates: ElementUpdate[],
): void {
  const typed = updates.filter(({ store }) => {
    const type = store.operands[0]!.type;
    return isArray(type) && type.storage !== "Array";
  });
  if (typed.length === 0) return;
  const bounds = new StoreBounds(body);
  const definitions = new Map<number, Op>();
  forEachOp(body, (op) => op.results.forEach((r) => definitions.set(r.id, op)));
  const containing = new Map<Op, Region>();
  const visit = (region: Region) =>
    region.ops.forEach((op) => {
      containing.set(op, region);
      op.regions.forEach(visit);
    });
  visit(body);
  const b = new Builder(ctx.builder.values, body, ctx.builder.loc);
  for (const { read, store } of typed) {
    const [array, index, value] = store.operands as [Value, Value, Value];
    const element = read.results[0]!;
    const made = definitions.get(value.id);
    const adds = (made?.opcode === "add" || made?.opcode === "sub") && made.operands[0] === element;
    const region = containing.get(read);
    if (adds || !region || bounds.within(array, index)) continue;
    const guard: Region = { params: [], ops: [] };
    b.loc = read.loc;
    const read0 = b.inRegion(guard, () =>
      b.select(b.unary("nullish", element), b.constant(0), element, element.hint),
    );
    const after = region.ops.indexOf(read) + 1;
    const later = region.ops.slice(after);
    region.ops.splice(after, 0, ...guard.ops);
    for (const op of later)
      forEachOp({ params: [], ops: [op] }, (o) => {
        o.operands = o.operands.map((v) => (v === element ? read0 : v));
      });
  }
}
