import { type IRFunction, type Op, type Opcode, type Region, type Value } from "./types.js";
import { constantNumber, type Definitions, loopCounters } from "./loop-counters.js";
import { COMPUTATIONS, WRITES_MEMORY } from "./ops.js";
import { definedInside } from "./value-ids.js";
import { forEachOp, someOp, terminator } from "./walk.js";

// Loop-invariant code motion: an op at the top level of a loop's regions whose operands all
// come from outside the loop moves before it. The backward sweep computes `i * n + j` in its
// inner loop; `i * n` then runs once per row, as a hand-written loop would.
//
// Pure arithmetic always moves. An element read `x[col]` moves when it is known within
// bounds where it lands — `col` is the counter of a loop around it, from 0 up to `x.length`
// — so it reads nothing a loop that never runs would not have (wasm would trap), and when no
// write of the loop can change it. Before reverse mode splits a function, this is what lets it
// tape `x[col]` once per column instead of once per element of the row it multiplies (gmm's
// `out[row] += l[idx] * x[col]`, with `row` counting up from `col + 1`). A loop that runs
// code of the user's (a call) keeps its reads.

/**
 * The writes that may change an element (`clear` reaches into the arrays an array holds;
 * `truncate` drops elements at any index).
 */
const ELEMENT_WRITES = new Set<Opcode>(["setIndex", "addIndex", "clear", "truncate"]);
/** Values a function makes afresh: memory no other value of the function held before. */
const MADE = new Set<Opcode>(["alloc", "literal", "zeros"]);
/** Ops that run code of the user's, which may write anything. */
const RUNS_USER_CODE = new Set<Opcode>(["call", "extern", "adjust", "withDerivative", "nondiff"]);

interface Facts {
  made: ReadonlySet<number>;
  params: ReadonlySet<number>;
  definitionOf: Definitions;
}

export function hoistLoopInvariants(fn: IRFunction): void {
  const made = new Set<number>();
  const definitions = new Map<number, Op>();
  forEachOp(fn.body, (op) => {
    for (const r of op.results) definitions.set(r.id, op);
    if (MADE.has(op.opcode)) for (const r of op.results) made.add(r.id);
  });
  const facts: Facts = {
    made,
    params: new Set(fn.params.map((p) => p.id)),
    definitionOf: (id) => definitions.get(id),
  };
  // `around`: the loops whose body holds the region.
  const visit = (region: Region, around: Op[]) => {
    for (const op of [...region.ops]) {
      op.regions.forEach((r, k) =>
        visit(r, op.opcode === "loop" && k === 1 ? [...around, op] : around),
      );
      if (op.opcode === "loop") hoistFrom(op, region, facts, around);
    }
  };
  visit(fn.body, []);
}

function hoistFrom(loop: Op, region: Region, facts: Facts, around: Op[]): void {
  const inside = definedInside(loop);
  const writes = writesIn(loop);
  const moved: Op[] = [];
  for (const r of loop.regions) {
    r.ops = r.ops.filter((op) => {
      const random = op.opcode === "math" && op.attrs.callee === "random";
      const invariant =
        !op.tangent &&
        op.results.length === 1 &&
        op.operands.every((v) => !inside.has(v.id)) &&
        ((COMPUTATIONS.has(op.opcode) && !random) ||
          (op.opcode === "index" &&
            withinBounds(op, around, facts.definitionOf) &&
            unchangedBy(op, writes, loop, facts)));
      if (!invariant) return true;
      moved.push(op);
      inside.delete(op.results[0]!.id);
      return false;
    });
  }
  if (moved.length > 0) region.ops.splice(region.ops.indexOf(loop), 0, ...moved);
}

/** The writes of a loop's ops, or "anything" when it may run user code. */
function writesIn(loop: Op): Op[] | "anything" {
  const writes: Op[] = [];
  const userCode = loop.regions.some((r) =>
    someOp(r, (op) => {
      if (RUNS_USER_CODE.has(op.opcode)) return true;
      if (WRITES_MEMORY.has(op.opcode)) writes.push(op);
      return false;
    }),
  );
  return userCode ? "anything" : writes;
}

/**
 * Whether element read `read` is within bounds in the body of a loop of `around`: its index is
 * that loop's counter, from an integer ≥ 0 up by whole steps, tested against the array's length.
 */
function withinBounds(read: Op, around: Op[], definitionOf: Definitions): boolean {
  const [array, index] = read.operands as [Value, Value];
  return around.some((loop) => {
    const [before, after] = loop.regions as [Region, Region];
    const k = after.params.indexOf(index);
    const [flag, ...forwarded] = terminator(before).operands;
    const counter = forwarded[k];
    const test = flag && definitionOf(flag.id);
    if (k < 0 || !counter || !test || (test.opcode !== "lt" && test.opcode !== "gt")) return false;
    const [low, high] = (test.opcode === "lt" ? test.operands : [...test.operands].reverse()) as [
      Value,
      Value,
    ];
    const bound = definitionOf(high.id);
    const steps = loopCounters(loop, definitionOf).get(counter.id);
    const start = steps && constantNumber(steps.init, definitionOf);
    return (
      low === counter &&
      bound?.opcode === "length" &&
      bound.operands[0] === array &&
      steps !== undefined &&
      Number.isInteger(steps.step) &&
      steps.step > 0 &&
      start !== undefined &&
      Number.isInteger(start) &&
      start >= 0
    );
  });
}

/** Whether no write of the loop can change the element `read` reads. */
function unchangedBy(read: Op, writes: Op[] | "anything", loop: Op, facts: Facts): boolean {
  if (writes === "anything") return false;
  return writes.every(
    (write) =>
      // Tangent ops write shadows, never the primal memory a primal read reads.
      write.tangent ||
      !ELEMENT_WRITES.has(write.opcode) ||
      (write.opcode !== "clear" &&
        write.opcode !== "truncate" &&
        (apart(read.operands[0]!, write.operands[0]!, facts) ||
          indicesApart(read.operands[1]!, write.operands[1]!, loop, facts.definitionOf))),
  );
}

/** Whether two arrays or objects are known to be different memory. */
function apart(a: Value, b: Value, { made, params }: Facts): boolean {
  if (a === b) return false;
  const fresh = (v: Value, other: Value) =>
    made.has(v.id) && (made.has(other.id) || params.has(other.id));
  return fresh(a, b) || fresh(b, a);
}

/**
 * Whether a write's index differs from a read's in every iteration of the loop: two different
 * constants, or a counter of the loop that starts past the read's index and moves away from it
 * (`for (let row = col + 1; …; row++)` writing `out[row]` while `x[col]` is read).
 */
function indicesApart(read: Value, written: Value, loop: Op, definitionOf: Definitions): boolean {
  const [r, w] = [constantNumber(read, definitionOf), constantNumber(written, definitionOf)];
  if (r !== undefined && w !== undefined) return r !== w;
  const counter = loopCounters(loop, definitionOf).get(written.id);
  const start = counter && definitionOf(counter.init.id);
  if (!counter || (start?.opcode !== "add" && start?.opcode !== "sub")) return false;
  const [x, y] = start.operands as [Value, Value];
  let offset: number | undefined;
  if (x === read) offset = constantNumber(y, definitionOf);
  else if (y === read && start.opcode === "add") offset = constantNumber(x, definitionOf);
  if (offset === undefined || offset === 0 || Number.isNaN(offset)) return false;
  if (start.opcode === "sub" && x === read) offset = -offset;
  // Started above the read's index, it must not step down; started below, not up.
  return offset > 0 ? counter.step >= 0 : counter.step <= 0;
}
