import { isPure, type IRFunction, type Op, type Region } from "./types.js";

// Dead-code elimination: removes pure ops whose results are unused and `if` results nobody
// reads (with their yielded operands). Lowering leans on it: it creates flags and merged
// variables freely and lets this pass drop the ones that turn out unneeded.

export function eliminateDeadCode(fn: IRFunction): void {
  for (;;) {
    const used = new Set<number>();
    collectUses(fn.body, used);
    if (!sweep(fn.body, used)) return;
  }
}

function collectUses(region: Region, used: Set<number>): void {
  for (const op of region.ops) {
    for (const v of op.operands) used.add(v.id);
    for (const r of op.regions) collectUses(r, used);
  }
}

/** Whether an op and everything nested in it can be dropped when its results are unused. */
function removable(op: Op): boolean {
  if (op.opcode === "yield" || op.opcode === "condition") return true;
  return isPure(op) && op.regions.every((r) => r.ops.every(removable));
}

function sweep(region: Region, used: Set<number>): boolean {
  let changed = false;
  const kept: Op[] = [];
  for (const op of region.ops) {
    if (op.opcode === "if") changed = pruneIfResults(op, used) || changed;
    if (op.results.length > 0 || op.opcode === "if" || op.opcode === "loop") {
      if (op.results.every((r) => !used.has(r.id)) && removable(op)) {
        changed = true;
        continue;
      }
    }
    for (const r of op.regions) changed = sweep(r, used) || changed;
    kept.push(op);
  }
  region.ops = kept;
  return changed;
}

function pruneIfResults(op: Op, used: Set<number>): boolean {
  const keep = op.results.map((r) => used.has(r.id));
  if (keep.every(Boolean)) return false;
  op.results = op.results.filter((_, i) => keep[i]);
  for (const region of op.regions) {
    const y = region.ops[region.ops.length - 1]!;
    y.operands = y.operands.filter((_, i) => keep[i]);
  }
  return true;
}
