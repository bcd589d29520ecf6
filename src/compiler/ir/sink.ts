import { COMPUTATIONS, isPure, TERMINATORS, WRITES_MEMORY } from "./ops.js";
import type { FunctionKey, IRFunction, Op, Region } from "./types.js";
import { everyOp, forEachOp, someOp } from "./walk.js";

// Code sinking: an op whose results only one branch of a later `if` reads moves into that
// branch, so it runs only when the branch does. The forward sweep of a reverse-over-forward
// derivative computes the tangent of every candidate a comparison picks from (`if (d < best)
// best = d`), while only the chosen one's is used: kmeans' distance to each centroid, of which
// the nearest wins. Sunk, the tangent is computed when a candidate wins, as a hand-written
// derivative would.
//
// What moves: ops without effects (their nested ops too) and calls of functions that have
// none (`pureFunctions`). One that reads memory moves only past ops that write none.

/**
 * The functions of `table` whose calls have no effect: no op of theirs writes memory, uses the
 * tape, draws a random number or calls out, and each function they call is one of these.
 * Recursion is allowed (the largest such set).
 */
export function pureFunctions(
  table: ReadonlyMap<FunctionKey, IRFunction | undefined>,
): Set<FunctionKey> {
  // Impure by an op of its own, or by calling what is not in the table; then, through the
  // callers of each impure function, every function reaching one (linear in the calls).
  const callers = new Map<FunctionKey, FunctionKey[]>();
  const impure: FunctionKey[] = [];
  const known = (key: FunctionKey) => table.get(key) !== undefined;
  for (const [key, fn] of table) {
    if (!fn) continue;
    let own = false;
    forEachOp(fn.body, (op) => {
      if (op.opcode !== "call") {
        // `peak` records the tape's height, which a function that pushes nothing leaves as is.
        own ||= !movesFreely(op) && !TERMINATORS.has(op.opcode) && op.opcode !== "peak";
        return;
      }
      const callee = op.attrs.callee;
      if (callee === undefined || !known(callee)) own = true;
      else if (callers.has(callee)) callers.get(callee)!.push(key);
      else callers.set(callee, [key]);
    });
    if (own) impure.push(key);
  }
  const pure = new Set([...table.keys()].filter(known));
  for (let key = impure.pop(); key !== undefined; key = impure.pop()) {
    if (!pure.delete(key)) continue;
    impure.push(...(callers.get(key) ?? []));
  }
  return pure;
}

/**
 * An op that may run later, or not at all, without changing anything else: no effects, no
 * random number, no user code run as written (`adjust`, `nondiff`), unless a call of a
 * pure function. Its nested ops are asked separately.
 */
function isPureOp(op: Op, pure: ReadonlySet<FunctionKey>): boolean {
  if (op.opcode === "call") return op.attrs.callee !== undefined && pure.has(op.attrs.callee);
  return movesFreely(op);
}

/** An op other than a call that has no effect, draws no random number and runs no user code. */
function movesFreely(op: Op): boolean {
  if (op.opcode === "math" && op.attrs.callee === "random") return false;
  if (op.opcode === "adjust" || op.opcode === "nondiff") return false;
  return isPure(op);
}

/** Moves what it can of `fn` into the branches that alone read it; returns how many ops moved. */
export function sinkIntoBranches(fn: IRFunction, pure: ReadonlySet<FunctionKey>): number {
  let moved = 0;
  const visit = (region: Region): void => {
    for (const op of region.ops) op.regions.forEach(visit);
    const deeper = new Set<Region>();
    for (let i = region.ops.length - 1; i >= 0; i--) {
      const op = region.ops[i]!;
      if (op.results.length === 0 || !movable(op, pure)) continue;
      const branch = onlyBranchReading(region, i, op, pure);
      if (!branch) continue;
      region.ops.splice(i, 1);
      branch.ops.unshift(op);
      deeper.add(branch);
      moved++;
    }
    // What moved may go deeper still, into an `if` of the branch.
    deeper.forEach(visit);
  };
  visit(fn.body);
  return moved;
}

/** An op that, with its nested ops, may run later or not at all. */
function movable(op: Op, pure: ReadonlySet<FunctionKey>): boolean {
  // A `return` in a branch is a terminator too, but it leaves the function: never moved.
  const inner = (o: Op) => isPureOp(o, pure) || o.opcode === "yield" || o.opcode === "condition";
  return isPureOp(op, pure) && op.regions.every((r) => everyOp(r, inner));
}

/**
 * The branch of a later `if` of `region` that alone reads the results of `region.ops[at]`:
 * no other op reads them, nor the `if`'s condition, nor its other branch. Undefined when
 * there is none, or when the op reads memory that an op between it and the `if` may write.
 */
function onlyBranchReading(
  region: Region,
  at: number,
  op: Op,
  pure: ReadonlySet<FunctionKey>,
): Region | undefined {
  const ids = new Set(op.results.map((r) => r.id));
  const readsResult = (o: Op) => o.operands.some((v) => ids.has(v.id));
  const reads = (o: Op) => readsResult(o) || o.regions.some((r) => someOp(r, readsResult));
  let target: Region | undefined;
  let writesBetween = false;
  for (let j = at + 1; j < region.ops.length; j++) {
    const o = region.ops[j]!;
    if (!reads(o)) {
      if (!target && mayWrite(o, pure)) writesBetween = true;
      continue;
    }
    if (target || o.opcode !== "if" || readsResult(o)) return undefined;
    const readers = o.regions.filter((r) => someOp(r, readsResult));
    if (readers.length !== 1) return undefined;
    target = readers[0];
  }
  if (target && writesBetween && readsMemory(op)) return undefined;
  return target;
}

/** Whether an op, or one nested in it, may write memory: a store, the tape, an impure call. */
function mayWrite(op: Op, pure: ReadonlySet<FunctionKey>): boolean {
  const writes = (o: Op) =>
    o.opcode === "call"
      ? !pure.has(o.attrs.callee ?? "")
      : WRITES_MEMORY.has(o.opcode) || ["push", "pop", "adjust", "nondiff"].includes(o.opcode);
  return writes(op) || op.regions.some((r) => someOp(r, writes));
}

/** Whether an op, or one nested in it, reads memory: anything but a computation. */
function readsMemory(op: Op): boolean {
  const reads = (o: Op) =>
    !COMPUTATIONS.has(o.opcode) && o.opcode !== "yield" && o.opcode !== "condition";
  return reads(op) || op.regions.some((r) => someOp(r, reads));
}
