import { basename } from "node:path";
import { positionAt } from "../diagnostics/format.js";
import { constantNumber, loopCounters } from "../ir/loop-counters.js";
import type { Op, Region, Value } from "../ir/types.js";
import type { LowerContext } from "./context.js";

// `new Array(n)` of numbers. JavaScript makes n holes, which forEach, map, reduce… skip and a
// read gives as undefined; the derivative code's allocation would give zeros, a silently
// different answer (`a.reduce((s, v) => s * v, 1)` over [x, 0, 0] instead of [x]). Most
// programs write every element before reading any (`for (let i = 0; i < n; i++) a[i] = …`):
// those keep their zero-filled allocation and no check at all. Any other `new Array(n)` is made
// with its holes and counts as a write that may leave holes (hole-checks.ts, hole-exits.ts),
// so a hole met is a RangeError in both modes, as for a write past the end.

/**
 * The `new Array(n)` allocations of `ctx` in `body` whose elements may be read before they are
 * all written; each is marked to be made with its holes (`attrs.holes`).
 */
export function newArraysWithHoles(
  ctx: LowerContext,
  body: Region,
  shortens: boolean,
): { array: Value; at: number; made: string }[] {
  if (ctx.newArrays.length === 0) return [];
  const definitions = new Map<number, Op>();
  const regionOf = new Map<Op, Region>();
  const loopOf = new Map<number, Op>();
  const users = new Map<number, Op[]>();
  const visit = (region: Region) => {
    for (const op of region.ops) {
      regionOf.set(op, region);
      for (const r of op.results) definitions.set(r.id, op);
      if (op.opcode === "loop") for (const p of op.regions[1]!.params) loopOf.set(p.id, op);
      for (const v of op.operands) {
        const list = users.get(v.id);
        if (list) list.push(op);
        else users.set(v.id, [op]);
      }
      op.regions.forEach(visit);
    }
  };
  visit(body);
  const facts: Facts = {
    definitionOf: (id) => definitions.get(id),
    loopOf: (id) => loopOf.get(id),
    keepsLength: (v) =>
      !shortens &&
      (users.get(v.id) ?? []).every(
        (op) =>
          op.opcode === "index" ||
          op.opcode === "length" ||
          (op.opcode === "setIndex" && op.operands[0] === v && op.operands[2] !== v),
      ),
  };
  const found: { array: Value; at: number; made: string }[] = [];
  for (const made of ctx.newArrays) {
    const region = regionOf.get(made.alloc);
    if (!region || filledBeforeRead(made.alloc, region, facts)) continue;
    made.alloc.attrs.holes = true;
    const { line, column } = positionAt(ctx.module.text, made.at);
    const shown = made.text.length <= 40 ? made.text : "new Array(…)";
    found.push({
      array: made.alloc.results[0]!,
      at: made.at,
      made: `'${shown}' at ${basename(ctx.module.file)}:${line}:${column}, which makes an array of holes`,
    });
  }
  return found;
}

interface Facts {
  definitionOf: (id: number) => Op | undefined;
  /** The loop whose `after` region has the parameter `id`. */
  loopOf: (id: number) => Op | undefined;
  /**
   * Whether the array `v` never gets shorter: the function shortens no array, and only reads,
   * writes into and appends to `v` (`push` is a write at its length; a function it were
   * given to could pop it).
   */
  keepsLength: (v: Value) => boolean;
}

/**
 * Whether every element of the array `alloc` makes is written before the function reads one
 * or hands the array on: written at 0, 1, 2… in order by constant indices and then by a loop
 * counting up from there to its length, writing at its counter in every iteration. Or the
 * array is never used but measured and written.
 */
function filledBeforeRead(alloc: Op, region: Region, facts: Facts): boolean {
  const array = alloc.results[0]!;
  const length = alloc.operands[0]!;
  let filled = 0;
  for (const op of region.ops.slice(region.ops.indexOf(alloc) + 1)) {
    if (!uses(op, array)) continue;
    if (op.opcode === "length") continue;
    if (
      op.opcode === "setIndex" &&
      op.operands[0] === array &&
      op.operands[2] !== array &&
      constantNumber(op.operands[1]!, facts.definitionOf) === filled
    ) {
      filled++;
      if (constantNumber(length, facts.definitionOf) === filled) return true;
      continue;
    }
    return op.opcode === "loop" && fillsTheRest(op, array, length, filled, facts);
  }
  return true;
}

/**
 * Whether `loop` writes `array` at its counter, counting from `from` by 1 while below the
 * array's length, in every iteration (in both branches of an `if`, maybe), and reads it only
 * at elements already written.
 */
function fillsTheRest(loop: Op, array: Value, length: Value, from: number, facts: Facts): boolean {
  if (loop.operands.includes(array)) return false;
  const [before, after] = loop.regions as [Region, Region];
  const condition = before.ops[before.ops.length - 1]!;
  const test = facts.definitionOf(condition.operands[0]!.id);
  if (test?.opcode !== "lt") return false;
  const [p, bound] = test.operands as [Value, Value];
  const k = before.params.indexOf(p);
  const counter = loopCounters(loop, facts.definitionOf).get(p.id);
  if (k < 0 || !counter || counter.step !== 1) return false;
  if (constantNumber(counter.init, facts.definitionOf) !== from) return false;
  if (!sameLength(bound, length, array, facts)) return false;
  const i = after.params[k]!;
  // Other uses: measuring it, reading an element behind the counter (`a[i - 1]`, or `a[j]`
  // in an inner `for (let j = 0; j < i; j++)`, as forward substitution reads), or at it
  // once written.
  const readBehind = (op: Op) => {
    const at = op.operands[1]!;
    const def = facts.definitionOf(at.id);
    if (def?.opcode === "sub" && def.operands[0] === i) {
      const back = constantNumber(def.operands[1]!, facts.definitionOf);
      return back !== undefined && back >= 1;
    }
    return countsBelow(at, i, facts);
  };
  const fine = (op: Op, afterWrite: boolean): boolean => {
    if (!op.operands.includes(array)) return op.regions.every((r) => everyOp(r, afterWrite, fine));
    if (op.opcode === "length") return true;
    if (op.opcode !== "index" || op.operands[0] !== array) return false;
    return readBehind(op) || (afterWrite && op.operands[1] === i);
  };
  // The write `a[i] = v`, or an `if` writing a[i] in each branch (`if (c) a[i] = p; else
  // a[i] = q;`); the ops around it use the array only as `fine` allows.
  const writesAt = (region: Region): boolean => {
    const write = region.ops.findIndex(writes);
    return write >= 0 && region.ops.every((op, n) => n === write || fine(op, n > write));
  };
  const writes = (op: Op): boolean =>
    op.opcode === "setIndex"
      ? op.operands[0] === array && op.operands[1] === i && op.operands[2] !== array
      : op.opcode === "if" && op.regions.every(writesAt);
  return everyOp(before, false, fine) && writesAt(after);
}

/** Whether `j` is the counter of a loop counting up by 1 while `j < i`. */
function countsBelow(j: Value, i: Value, facts: Facts): boolean {
  const loop = facts.loopOf(j.id);
  if (!loop) return false;
  const [before, after] = loop.regions as [Region, Region];
  const k = after.params.indexOf(j);
  const p = before.params[k];
  const test = facts.definitionOf(before.ops[before.ops.length - 1]!.operands[0]!.id);
  if (!p || test?.opcode !== "lt" || test.operands[0] !== p || test.operands[1] !== i) return false;
  return loopCounters(loop, facts.definitionOf).get(p.id)?.step === 1;
}

function everyOp(region: Region, afterWrite: boolean, fine: (op: Op, a: boolean) => boolean) {
  return region.ops.every((op) => fine(op, afterWrite));
}

/** Whether `bound` is the array's length: the value it was made with, or its `.length`. */
function sameLength(bound: Value, length: Value, array: Value, facts: Facts): boolean {
  if (bound === length) return true;
  const constant = constantNumber(bound, facts.definitionOf);
  if (constant !== undefined) return constant === constantNumber(length, facts.definitionOf);
  const def = facts.definitionOf(bound.id);
  if (def?.opcode !== "length") return false;
  if (def.operands[0] === array) return true;
  // `new Array(xs.length)` filled while `i < xs.length`: the same length unless xs shrinks.
  const made = facts.definitionOf(length.id);
  const source = def.operands[0]!;
  return made?.opcode === "length" && made.operands[0] === source && facts.keepsLength(source);
}

/** Whether `op` or an op inside it uses `v`. */
function uses(op: Op, v: Value): boolean {
  return op.operands.includes(v) || op.regions.some((r) => r.ops.some((o) => uses(o, v)));
}
