import type { IRFunction, Op, Region, Value } from "./types.js";

// Walking the IR: every op of a region and of the regions nested in it, in program order
// (an op before the ops of its regions).

/** The last op of `region`: its `yield`, `condition` or `return`. */
export function terminator(region: Region): Op {
  return region.ops[region.ops.length - 1]!;
}

/**
 * Calls `visit` on each op of `region` and of its nested regions, in program order, with the
 * region that holds the op.
 */
export function forEachOp(region: Region, visit: (op: Op, holder: Region) => void): void {
  for (const op of region.ops) {
    visit(op, region);
    for (const inner of op.regions) forEachOp(inner, visit);
  }
}

/**
 * Calls `visit` on each op of `region` and of its nested regions, the ops of an op's regions
 * before the op itself (what an op's regions do is known when it is visited).
 */
export function forEachOpInnerFirst(region: Region, visit: (op: Op, holder: Region) => void): void {
  for (const op of region.ops) {
    for (const inner of op.regions) forEachOpInnerFirst(inner, visit);
    visit(op, region);
  }
}

/** Whether some op of `region` or of its nested regions passes `test`. */
export function someOp(region: Region, test: (op: Op) => boolean): boolean {
  return region.ops.some((op) => test(op) || op.regions.some((inner) => someOp(inner, test)));
}

/** Whether every op of `region` and of its nested regions passes `test`. */
export function everyOp(region: Region, test: (op: Op) => boolean): boolean {
  return !someOp(region, (op) => !test(op));
}

/** Every value `fn` defines, in program order: parameters, then region parameters and results. */
export function definedValues(fn: IRFunction): Value[] {
  const values = [...fn.params];
  forEachOp(fn.body, (op) => {
    for (const region of op.regions) values.push(...region.params);
    values.push(...op.results);
  });
  return values;
}
