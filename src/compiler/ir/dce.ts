import { type IRFunction, type Op, type Region, type Value } from "./types.js";
import { isPure, TERMINATORS } from "./ops.js";
import { terminator } from "./walk.js";

// Dead-code elimination: removes pure ops whose results nothing live reads, `if` results
// nobody reads (with their yielded operands) and loop-carried values nothing outside their
// own update reads (`s = s + …` whose `s` is never used: use counting cannot see them dead,
// since each iteration reads the last). Lowering leans on it: it creates flags and merged
// variables freely and lets this pass drop the ones that turn out unneeded.
//
// One backward pass over a worklist: what the function's effects and result need is live, and
// so is what a live value is computed from — through `if` results to the values each branch
// yields, through a carried position of a loop to its initial value, its update and the
// condition that ends the loop. Then one sweep removes the rest. Each value is visited once,
// so the pass is linear in the size of the function.

export function eliminateDeadCode(fn: IRFunction): void {
  const { liveValues, liveOps } = liveness(fn);
  sweep(fn.body, liveValues, liveOps);
}

/** Where a value comes from: an op's result, or the carried position of a loop. */
interface Definer {
  op: Op;
  index: number;
}

function liveness(fn: IRFunction): { liveValues: Set<number>; liveOps: Set<Op> } {
  const definers = new Map<number, Definer>();
  const removable = new Map<Op, boolean>();
  const roots: Op[] = [];
  const index = (region: Region): boolean => {
    let all = true;
    for (const op of region.ops) {
      let nested = true;
      for (const r of op.regions) nested = index(r) && nested;
      op.results.forEach((r, i) => definers.set(r.id, { op, index: i }));
      if (op.opcode === "loop") {
        const [before, after] = op.regions as [Region, Region];
        before.params.forEach((p, i) => definers.set(p.id, { op, index: i }));
        after.params.forEach((p, i) => definers.set(p.id, { op, index: i }));
      }
      const terminator = op.opcode === "yield" || op.opcode === "condition";
      // A call marked pure (OpAttrs.pure) changes nothing: unused, it goes too.
      const dropped = terminator || ((isPure(op) || op.attrs.pure === true) && nested);
      removable.set(op, dropped);
      // Pure ops without results that are not regions are kept as they are.
      const resultless =
        !terminator && op.results.length === 0 && op.opcode !== "if" && op.opcode !== "loop";
      if (!dropped || resultless) roots.push(op);
      all = all && dropped;
    }
    return all;
  };
  index(fn.body);

  const liveValues = new Set<number>();
  const liveOps = new Set<Op>();
  const work: Value[] = [];
  const markValue = (v: Value | undefined) => {
    if (v && !liveValues.has(v.id)) {
      liveValues.add(v.id);
      work.push(v);
    }
  };
  const markOp = (op: Op) => {
    if (liveOps.has(op)) return;
    liveOps.add(op);
    if (op.opcode === "loop") markValue(terminator(op.regions[0]!).operands[0]);
    else if (op.opcode === "if") markValue(op.operands[0]);
    else op.operands.forEach(markValue);
  };
  for (const op of roots) markOp(op);
  while (work.length > 0) {
    const v = work.pop()!;
    const d = definers.get(v.id);
    if (!d) continue; // a parameter
    markOp(d.op);
    if (d.op.opcode === "if") {
      for (const region of d.op.regions) markValue(terminator(region).operands[d.index]);
    } else if (d.op.opcode === "loop") {
      const [before, after] = d.op.regions as [Region, Region];
      const i = d.index;
      markValue(d.op.results[i]);
      markValue(before.params[i]);
      markValue(after.params[i]);
      markValue(d.op.operands[i]);
      markValue(terminator(before).operands[i + 1]);
      markValue(terminator(after).operands[i]);
    }
  }
  return { liveValues, liveOps };
}

function sweep(region: Region, live: Set<number>, liveOps: Set<Op>): void {
  region.ops = region.ops.filter((op) => liveOps.has(op) || TERMINATORS.has(op.opcode));
  for (const op of region.ops) {
    if (op.opcode === "if") pruneIfResults(op, live);
    else if (op.opcode === "loop") pruneLoopCarried(op, live);
    for (const r of op.regions) sweep(r, live, liveOps);
  }
}

function pruneIfResults(op: Op, live: Set<number>): void {
  const keep = op.results.map((r) => live.has(r.id));
  if (keep.every(Boolean)) return;
  op.results = op.results.filter((_, i) => keep[i]);
  for (const region of op.regions) {
    const y = terminator(region);
    y.operands = y.operands.filter((_, i) => keep[i]);
  }
}

function pruneLoopCarried(op: Op, live: Set<number>): void {
  const [before, after] = op.regions as [Region, Region];
  // A position's result and parameters are marked live together.
  const keep = op.results.map((r) => live.has(r.id));
  if (keep.every(Boolean)) return;
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
