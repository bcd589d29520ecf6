import type { IRFunction, Op, Region } from "./types.js";
import { forEachOp } from "./walk.js";

// Questions about the ids of a function's values, asked by passes that add values (they
// number new ones past the highest) or move ops across regions (what a region defines).

/** Calls `see` with every value a region defines: its parameters and its ops' results, nested. */
function eachDefined(region: Region, see: (id: number) => void): void {
  for (const p of region.params) see(p.id);
  forEachOp(region, (o) => {
    for (const r of o.results) see(r.id);
    for (const inner of o.regions) for (const p of inner.params) see(p.id);
  });
}

/** The highest value id in `fn` (−1 for none). */
export function highestValueId(fn: IRFunction): number {
  let top = -1;
  const see = (id: number) => (top = Math.max(top, id));
  for (const p of fn.params) see(p.id);
  eachDefined(fn.body, see);
  return top;
}

/** The ids of the values defined inside an op's regions (their parameters included). */
export function definedInside(op: Op): Set<number> {
  const ids = new Set<number>();
  for (const region of op.regions) eachDefined(region, (id) => ids.add(id));
  return ids;
}
