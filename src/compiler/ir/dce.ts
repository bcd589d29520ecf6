import { isPure, type IRFunction, type Op, type Region } from "./types.js";

// Dead-code elimination: removes pure ops whose results are unused and `if` results nobody
// reads (with their yielded operands). Lowering leans on it: it creates flags and merged
// variables freely and lets this pass drop the ones that turn out unneeded.

export function eliminateDeadCode(fn: IRFunction): void {
  for (;;) {
    const used = new Set<number>();
    collectUses(fn.body, used);
    const swept = sweep(fn.body, used);
    if (!pruneLoopCarried(fn) && !swept) return;
  }
}

/**
 * Drops loop-carried values nothing outside their own update reads (`s = s + …` whose `s` is
 * never used): use counting cannot see them dead, since each iteration reads the last. Found by
 * marking live what the function's effects and results need, through loops to a fixed point.
 */
function pruneLoopCarried(fn: IRFunction): boolean {
  const live = new Set<number>();
  let grew = true;
  const mark = (ids: { id: number }[]) => {
    for (const v of ids)
      if (!live.has(v.id)) {
        live.add(v.id);
        grew = true;
      }
  };
  const visit = (region: Region): void => {
    for (const op of region.ops) {
      if (op.opcode === "loop") {
        const [before, after] = op.regions as [Region, Region];
        const condition = terminator(before);
        const yielded = terminator(after);
        mark([condition.operands[0]!]);
        op.results.forEach((r, i) => {
          const positions = [r, before.params[i]!, after.params[i]!];
          if (positions.some((v) => live.has(v.id))) {
            mark(positions);
            mark([op.operands[i]!, condition.operands[i + 1]!, yielded.operands[i]!]);
          }
        });
        op.regions.forEach(visit);
      } else if (op.opcode === "if") {
        mark([op.operands[0]!]);
        op.results.forEach((r, i) => {
          if (live.has(r.id)) for (const reg of op.regions) mark([terminator(reg).operands[i]!]);
        });
        op.regions.forEach(visit);
      } else if (op.opcode !== "yield" && op.opcode !== "condition") {
        if (!isPure(op) || op.results.some((r) => live.has(r.id))) mark(op.operands);
        op.regions.forEach(visit);
      }
    }
  };
  while (grew) {
    grew = false;
    visit(fn.body);
  }
  let pruned = false;
  const prune = (region: Region): void => {
    for (const op of region.ops) {
      op.regions.forEach(prune);
      if (op.opcode !== "loop") continue;
      const [before, after] = op.regions as [Region, Region];
      const keep = op.results.map(
        (r, i) => live.has(r.id) || live.has(before.params[i]!.id) || live.has(after.params[i]!.id),
      );
      if (keep.every(Boolean)) continue;
      pruned = true;
      const kept = <T>(list: T[]) => list.filter((_, i) => keep[i]);
      op.operands = kept(op.operands);
      op.results = kept(op.results);
      before.params = kept(before.params);
      after.params = kept(after.params);
      const condition = terminator(before);
      condition.operands = [condition.operands[0]!, ...kept(condition.operands.slice(1))];
      const yielded = terminator(after);
      yielded.operands = kept(yielded.operands);
    }
  };
  prune(fn.body);
  return pruned;
}

function terminator(region: Region): Op {
  return region.ops[region.ops.length - 1]!;
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
