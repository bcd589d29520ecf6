import { isArray } from "../../ir/type-system.js";
import type { Op, Region, Value } from "../../ir/types.js";
import { terminator } from "../../ir/walk.js";
import { holdsNumbers } from "./kinds.js";
import { convertsStores } from "./typed-array-stores.js";
import type { LoopPrechecks } from "./loop-prechecks.js";

// Two iterations of an elementwise loop at once, in the lanes of f64x2s. Reverse mode's
// inner loops are often of this form: `db[i] += s * (a[i] - b[i])`, every read and write at
// the counter, arithmetic of what was read there and of values the same at every iteration.
// Iteration i touches element i of each array and nothing else, so running the body's first
// op for i and i + 1, then its second, and so on, gives every element the operations the
// scalar loop gives it, in the same order (arrays in wasm memory never partly overlap: two
// arrays are the same block or apart), and f64x2 add, sub, mul, div and neg round as the
// scalar ones do: the results are JavaScript's to the bit. The emitter runs these pairs
// on the loop's fast path (its accesses checked on entry, loop-prechecks.ts) while two
// iterations remain, then lets the loop as it is finish.
//
// The loop must count up by 1 to a bound made before it (`i < n`), and its body be only:
// element reads and writes (`=` and `+=`) at the counter of arrays of numbers made before the
// loop (of typed arrays written, only Float64Arrays: the others' stores round or convert),
// f64 add, sub, mul, div and neg, number constants, the counter's increment, and, where the
// module's own exp is the engine's (exp.ts), Math.exp, two lanes at once by `$exp_pair`.
//
// Log-sum-exp's forward sweep, `t = Math.exp(x[i] - m); save t; s = s + t`, also saves to
// the tape and carries a sum, so it pairs too when its lanes compute an exp (without one,
// pairing a sum saves nothing: its chain of additions is the loop's speed):
// - a value saved on the tape (a push the loop's reserve made room for) is stored as the two
//   iterations would store it, iteration i's saves then i + 1's;
// - a number the loop carries and changes by arithmetic of lane values (the *serial* ops)
//   is computed lane by lane, iteration i's ops then i + 1's, each in the scalar order: the
//   sum's additions are the scalar loop's, so its bits too. Nothing computed in lanes may
//   read a serial value.

export interface ElementwisePairs {
  /** The counter as the loop's carried value (its local is advanced by 2 per pair). */
  counter: Value;
  /** The bound, made before the loop: the pairs run while counter + 1 < bound. */
  bound: Value;
  /** The body's ops run in lanes, in order (reads, arithmetic, writes). */
  ops: Op[];
  /**
   * What a body parameter carried is: the loop's carried value (its local holds the value
   * before the pair; for a changing one, its state, which the pair's serial ops advance).
   */
  carried: Map<number, Value>;
  /** The results computed in lanes (each a v128 local). */
  lanes: Set<number>;
  /** Arithmetic of the changing carried numbers, run lane by lane in order. */
  serial: Op[];
  /** The carried numbers that change: the loop's value, and its next value (a serial op's). */
  changing: { state: Value; next: Value }[];
  /** The values saved on the tape per iteration, in order (lane values). */
  saved: Value[];
}

const LANE_ARITHMETIC = new Set(["add", "sub", "mul", "div", "neg"]);

/** The plan for `loop`'s fast path, or undefined when its body is not elementwise. */
export function elementwisePairs(
  loop: Op,
  prechecks: LoopPrechecks,
  definitions: Map<number, Op>,
  ints: Set<number>,
  ownExp = false,
): ElementwisePairs | undefined {
  const [before, after] = loop.regions as [Region, Region];
  const { counter } = prechecks;
  const made = madeBy(loop);
  const inside = (v: Value) => made.has(v.id);
  if (counter.relation !== "lt" || !ints.has(counter.bound.id)) return undefined;
  // Made before the loop, or the length of an array made before it (read again on entry).
  const boundOp = definitions.get(counter.bound.id);
  const outsideLength = boundOp?.opcode === "length" && !inside(boundOp.operands[0]!);
  if (inside(counter.bound) && !outsideLength) return undefined;
  // The test alone, then the condition forwarding the carried values as they are.
  const condition = terminator(before);
  const test = definitions.get(condition.operands[0]!.id);
  const testOps = before.ops.filter((op) => op !== test && op !== boundOp && op !== condition);
  if (testOps.length !== 0 || !before.ops.includes(test!)) return undefined;
  const forwarded = condition.operands.slice(1);
  if (forwarded.length !== before.params.length) return undefined;
  if (forwarded.some((v, i) => v !== before.params[i])) return undefined;
  const k = after.params.indexOf(counter.param);
  if (k < 0 || !ints.has(counter.param.id)) return undefined;
  const bodyCounter = counter.param;

  // The next values: the counter plus 1, every other carried value unchanged.
  const yielded = terminator(after).operands;
  const increment = definitions.get(yielded[k]!.id);
  if (increment?.opcode !== "add" || !increment.operands.includes(bodyCounter)) return undefined;
  const one = increment.operands.find((v) => v !== bodyCounter);
  const oneOp = one && definitions.get(one.id);
  if (oneOp?.opcode !== "const" || oneOp.attrs.value !== 1) return undefined;
  const carried = new Map<number, Value>();
  /** Body parameters of the carried numbers that change, and the values computed from them. */
  const serialValues = new Set<number>();
  const changing: { state: Value; next: Value }[] = [];
  for (let i = 0; i < yielded.length; i++) {
    if (i === k) continue;
    if (ints.has(before.params[i]!.id)) return undefined;
    carried.set(after.params[i]!.id, before.params[i]!);
    if (yielded[i] === after.params[i]) continue;
    if (after.params[i]!.type !== "number" || !inside(yielded[i]!)) return undefined;
    serialValues.add(after.params[i]!.id);
    changing.push({ state: before.params[i]!, next: yielded[i]! });
  }

  const lanes = new Set<number>();
  const constants = new Set<number>();
  const ops: Op[] = [];
  const serial: Op[] = [];
  const saved: Value[] = [];
  /**
   * A number operand: computed in lanes, a constant, or the same at every iteration (an
   * integer made before the loop too, converted).
   */
  const numberOperand = (v: Value): boolean =>
    constants.has(v.id) ||
    (v.type === "number" &&
      !serialValues.has(v.id) &&
      (!inside(v) || (!ints.has(v.id) && (lanes.has(v.id) || carried.has(v.id)))));
  /** An array of f64 cells made before the loop, at the counter. */
  const element = (array: Value, index: Value, written: boolean): boolean =>
    index === bodyCounter &&
    isArray(array.type) &&
    holdsNumbers(array.type) &&
    !(written && convertsStores(array.type.storage)) &&
    !inside(array);
  for (const op of after.ops) {
    if (op === increment || op.opcode === "yield") continue;
    const [a, b, c] = op.operands;
    const r = op.results[0];
    switch (op.opcode) {
      case "const":
        if (typeof op.attrs.value !== "number") return undefined;
        constants.add(r!.id);
        continue;
      case "index":
        if (!element(a!, b!, false) || ints.has(r!.id)) return undefined;
        lanes.add(r!.id);
        ops.push(op);
        continue;
      case "setIndex":
      case "addIndex":
        if (op.attrs.ifExists || op.attrs.value === "grow") return undefined;
        if (!element(a!, b!, true) || !numberOperand(c!)) return undefined;
        ops.push(op);
        continue;
      case "push":
        if (op.attrs.reserved !== true || !lanes.has(a!.id)) return undefined;
        saved.push(a!);
        ops.push(op);
        continue;
      case "math":
        if (!ownExp || op.attrs.callee !== "exp" || op.operands.length !== 1) return undefined;
        if (!numberOperand(a!) || !r || ints.has(r.id) || r.type !== "number") return undefined;
        lanes.add(r.id);
        ops.push(op);
        continue;
      default: {
        if (!LANE_ARITHMETIC.has(op.opcode) || !r || ints.has(r.id) || r.type !== "number")
          return undefined;
        const serialOperand = (v: Value) => serialValues.has(v.id) || numberOperand(v);
        if (op.operands.some((v) => serialValues.has(v.id)) && op.operands.every(serialOperand)) {
          serialValues.add(r.id);
          serial.push(op);
          continue;
        }
        if (!op.operands.every(numberOperand)) return undefined;
        lanes.add(r.id);
        ops.push(op);
      }
    }
  }
  // The increment feeds the next iteration only.
  const step = increment.results[0]!;
  if ([...ops, ...serial].some((op) => op.operands.includes(step))) return undefined;
  // Each changing number's next value is a serial op's.
  const computed = new Set(serial.map((op) => op.results[0]!.id));
  if (changing.some(({ next }) => !computed.has(next.id))) return undefined;
  // A carried sum pairs only beside an exp: alone, its chain of additions sets the speed.
  if (changing.length > 0 && !ops.some((op) => op.opcode === "math")) return undefined;
  return {
    counter: before.params[k]!,
    bound: counter.bound,
    ops,
    carried,
    lanes,
    serial,
    changing,
    saved,
  };
}

/** The values `loop` makes: its regions' parameters and their ops' results. */
function madeBy(loop: Op): Set<number> {
  const made = new Set<number>();
  const visit = (region: Region): void => {
    for (const p of region.params) made.add(p.id);
    for (const op of region.ops) {
      for (const r of op.results) made.add(r.id);
      op.regions.forEach(visit);
    }
  };
  loop.regions.forEach(visit);
  return made;
}
