import { basename } from "node:path";
import { positionAt } from "../diagnostics/format.js";
import { Builder } from "../ir/builder.js";
import { constantNumber, loopCounters } from "../ir/loop-counters.js";
import { StoreBounds } from "../ir/store-bounds.js";
import { isArray } from "../ir/type-system.js";
import type { Op, Region, Value } from "../ir/types.js";
import type { LowerContext, VisitedElement } from "./context.js";
import { newArraysWithHoles } from "./new-array-holes.js";

// Holes. `xs[5] = v` on an array of 3 leaves elements 3 and 4 unwritten, and JavaScript's
// forEach, map, filter, reduce, some, every and indexOf pass over them; the loops lowering
// makes of those methods read every index, so a hole would give undefined, and NaN, where
// the program computed a number. Derivative code does not skip holes: it stops, with an
// error naming the method, when one of those loops meets one. Only in functions with a
// write that may leave holes (a plain array written by index, not provably within it or at
// its end, or a length set) that is not checked as it runs (checkedAsTheyRun): elsewhere the
// loops stay as they are. A hole filled before the loop runs (an array filled from its last
// element) passes. Holes never reach other functions: hole-exits.ts stops a write that would
// leave one, or an array with one where it leaves the function that made it; module-holes.ts
// looks through module-level arrays, and an operator its arguments as it is called.

/** Adds the checks to `body` (the lowered function) where it may leave holes. */
export function checkHoles(ctx: LowerContext, body: Region, visits: VisitedElement[]): void {
  const plain = visits.filter(({ read }) => isPlainArray(read.operands[0]!));
  if (plain.length === 0) return;
  // Writes checked as they run leave no hole (hole-exits.ts), nor do the program's other
  // functions in an array given to them: only holes the function may leave itself count.
  const writes = holeWrites(ctx, body);
  const asTheyRun = checkedAsTheyRun(body, writes);
  if (writes.every((w) => asTheyRun.has(w))) return;
  const checked = plain;
  const containing = regionsOf(body);
  const b = new Builder(ctx.builder.values, body, ctx.builder.loc);
  const whereIs = (offset: number) => {
    const { line, column } = positionAt(ctx.module.text, offset);
    return `${basename(ctx.module.file)}:${line}:${column}`;
  };
  for (const { read, method, at } of checked) {
    const region = containing.get(read);
    if (!region) continue; // dropped with an unreachable branch
    const where = whereIs(at.start);
    // A `new Array(n)` read here is named; other holes come from a write past the end.
    const made = writes.find((w) => w.made && w.array === read.operands[0]);
    const message =
      `nabla: '.${method}' at ${where} met a hole (an element never written, left by ` +
      `${made ? leftBy(made, whereIs) : "a write past the array's end"}); JavaScript skips ` +
      `holes, nabla's derivative code does not. Write every element before the call, e.g. ` +
      `with push or fill.`;
    region.ops.splice(region.ops.indexOf(read) + 1, 0, ...raiseIfHole(b, read, message));
  }
}

export function isPlainArray(v: Value): boolean {
  return isArray(v.type) && v.type.storage === "Array";
}

/** A write that may leave holes: the array written, where (a source offset), its store op. */
export interface HoleWrite {
  array: Value;
  at: number;
  /** The `setIndex` of `a[k] = v`; none for `xs.length = n` or `new Array(n)`. */
  store?: Op;
  /**
   * What made an array of holes, where, and how: `'new Array(3)' at main.ts:3:13, which makes
   * an array of holes`, or a `map` whose callback shortened the array it maps.
   */
  made?: string;
}

/** What left the holes `w` stands for, as messages say after "left by". */
export function leftBy(w: HoleWrite | undefined, where: (offset: number) => string): string {
  if (w?.made) return w.made;
  return w ? `the write past the array's end at ${where(w.at)}` : "a write past the array's end";
}

/**
 * The function's own writes that may leave holes: `xs.length = n`, or `a[k] = v` into a
 * plain array with k not known to be at most its length (ir/store-bounds.ts: an append
 * `a[a.length] = v`, `a[a.length - 1]`, 0, a counter below the length; not trusted when the
 * function shortens an array). Its methods' writes
 * (sort, splice, push…) never leave holes, and `a[k] += v` reads a[k] first, giving NaN in
 * JavaScript as well when k lies past the end.
 */
export function holeWrites(ctx: LowerContext, body: Region): HoleWrite[] {
  const found: HoleWrite[] = [...ctx.lengthWrites, ...ctx.mapsWithHoles];
  const writes = ctx.elementWrites.filter((op) => isPlainArray(op.operands[0]!));
  if (writes.length === 0 && ctx.newArrays.length === 0) return found;
  let shortens = false;
  const visit = (region: Region) => {
    for (const op of region.ops) {
      if (op.opcode === "truncate") shortens = true;
      op.regions.forEach(visit);
    }
  };
  visit(body);
  found.push(...newArraysWithHoles(ctx, body, shortens));
  const bounds = new StoreBounds(body);
  for (const op of writes) {
    const [array, index] = op.operands as [Value, Value];
    if (shortens || !bounds.atMostLength(array, index))
      found.push({ array, at: op.loc.start, store: op });
  }
  return found;
}

/**
 * The writes of `writes` hole-exits.ts checks as they run: at a counter counting 0, 1, 2…
 * (`out[i] = v` filling an array in order, which a write past the end would not fill in
 * later), into a row of another array (`grid[r][c] = v`, as rows are filled once made), or
 * into an array the function was given (a caller's array is not filled in later by it; and
 * looked through where it leaves, it would be at every call of a recursive function: det's
 * cofactor expansion, O(n!) calls, ran 3× slower).
 */
export function checkedAsTheyRun(body: Region, writes: HoleWrite[]): Set<HoleWrite> {
  const definition = new Map<number, Op>();
  const loops: Op[] = [];
  const visit = (region: Region) => {
    for (const op of region.ops) {
      for (const r of op.results) definition.set(r.id, op);
      if (op.opcode === "loop") loops.push(op);
      op.regions.forEach(visit);
    }
  };
  visit(body);
  const inOrder = new Set<number>();
  for (const loop of loops) {
    for (const [id, counter] of loopCounters(loop, (v) => definition.get(v)))
      if (counter.step === 1 && constantNumber(counter.init, (v) => definition.get(v)) === 0)
        inOrder.add(id);
  }
  return new Set(
    writes.filter((w) => {
      if (!w.store) return false;
      const row = definition.get(w.array.id)?.opcode === "index";
      const given = body.params.some((p) => p.id === w.array.id);
      return row || given || inOrder.has(w.store.operands[1]!.id);
    }),
  );
}

/** The region holding each op. */
function regionsOf(body: Region): Map<Op, Region> {
  const found = new Map<Op, Region>();
  const visit = (region: Region) => {
    for (const op of region.ops) {
      found.set(op, region);
      op.regions.forEach(visit);
    }
  };
  visit(body);
  return found;
}

/** An `if` raising a RangeError with `message` when `read` gives undefined (a hole). */
export function raiseIfHole(b: Builder, read: Op, message: string): Op[] {
  const check: Region = { params: [], ops: [] };
  b.loc = read.loc;
  b.inRegion(check, () => {
    const hole = b.unary("nullish", read.results[0]!);
    const stop: Region = { params: [], ops: [] };
    b.inRegion(stop, () => {
      b.emit("extern", [b.constant("RangeError"), b.constant(message)], ["void"], {
        callee: "nabla:raise",
      });
      b.emit("yield", [], []);
    });
    const pass: Region = { params: [], ops: [] };
    b.inRegion(pass, () => b.emit("yield", [], []));
    b.emit("if", [hole], [], {}, [stop, pass]);
  });
  return check.ops;
}
