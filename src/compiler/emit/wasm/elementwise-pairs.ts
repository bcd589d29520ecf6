import { isArray } from "../../ir/type-system.js";
import type { Op, Region, Value } from "../../ir/types.js";
import { terminator } from "../../ir/walk.js";
import { integerConstant } from "./integer-bounds.js";
import { holdsNumbers } from "./kinds.js";
import { convertsStores } from "./typed-array-stores.js";
import type { LoopPrechecks } from "./loop-prechecks.js";

// Two iterations of an elementwise loop at once, in the lanes of f64x2s. Reverse mode's
// inner loops are often of this form: `db[i] += s * (a[i] - b[i])`, every read and write at
// the counter, arithmetic of what was read there and of values the same at every iteration.
// Iteration i touches element i of each array and nothing else, so running the body's first
// op for i and i + 1, then its second, and so on, gives every element the operations the
// scalar loop gives it, in the same order (arrays in wasm memory never partly overlap: two
// arrays are the same block or apart), and f64x2 add, sub, mul, div, neg and comparisons
// round and compare as the scalar ones do: the results are JavaScript's to the bit. The
// emitter runs these pairs on the loop's fast path (its accesses checked on entry,
// loop-prechecks.ts) while two iterations remain, then lets the loop as it is finish.
//
// The loop must count by 1, up to a bound or down to one (a reverse sweep: `trips > 0`, the
// element `trips - 1`), the bound made before it, and its body be only:
// - element reads and writes (`=` and `+=`) at the counter plus constants, of arrays of
//   numbers made before the loop (of typed arrays written, only Float64Arrays: the others'
//   stores round or convert). An array written is accessed at one offset only; two arrays
//   accessed at different offsets, one of them written (odeRhs' reverse sweep: `dx[i] += …;
//   dy[i - 1] += …`), must be different blocks of memory, which the emitter checks on entry
//   (else it leaves the loop as it is): then iteration i touches only elements no other
//   iteration touches;
// - f64 add, sub, mul, div and neg, comparisons of numbers and selects by them
//   (`t !== 0 ? t * h : 0`, or an `if` whose arms only yield values), tests the emitter settled (absent-values.ts: whether an element
//   of a Float64Array is undefined), number constants, the counter's step;
// - where the module's own exp is the engine's (exp.ts), Math.exp, two lanes at once;
// - values saved on the tape (pushes the loop's reserve made room for: numbers, and
//   comparisons' results as 1 or 0) or, in a loop counting down (a reverse sweep), taken
//   from it (numbers);
// - numbers the loop carries, unchanged or changed by the *serial* ops below.
// A loop counting down runs its iterations from the top: the pair's first iteration is the
// one at the higher element, in the vector's lane 1.
//
// Log-sum-exp's forward sweep, `t = Math.exp(x[i] - m); save t; s = s + t`, saves to the tape
// and carries a sum:
// - values saved are stored as the two iterations would store them, the first's saves then
//   the second's; values taken are loaded from where each iteration would take them;
// - a number the loop carries and changes by arithmetic of lane values (the serial ops) is
//   computed lane by lane, the first iteration's ops then the second's, each in the scalar
//   order: the sum's additions are the scalar loop's, so its bits too. Nothing computed in
//   lanes may read a serial value. Such a loop pairs only when its lanes compute an exp:
//   otherwise the chain of additions sets its speed, and pairing saves nothing.

export interface ElementwisePairs {
  /** The counter as the loop's carried value (its local is moved by 2 per pair). */
  counter: Value;
  /** The bound, made before the loop. */
  bound: Value;
  /** How the counter compares with the bound to go on (`lt`, `le` up; `gt`, `ge` down). */
  relation: "lt" | "le" | "gt" | "ge";
  /** Each access's index minus the counter (as the body sees it), by the index's value id. */
  offsets: Map<number, number>;
  /** Arrays that must be different blocks of memory for the pairs to run (checked on entry). */
  distinct: [Value, Value][];
  /** The settled tests' results (all lanes true or false), by value id. */
  settled: Map<number, boolean>;
  /** The body's ops run in lanes, in order (reads, arithmetic, writes, saves). */
  ops: Op[];
  /**
   * What a body parameter carried is: the loop's carried value (its local holds the value
   * before the pair; for a changing one, its state, which the pair's serial ops advance).
   */
  carried: Map<number, Value>;
  /** The results computed in lanes (each a v128 local: numbers, or masks of comparisons). */
  lanes: Set<number>;
  /** Arithmetic of the changing carried numbers, run lane by lane in order. */
  serial: Op[];
  /** The carried numbers that change: the loop's value, and its next value (a serial op's). */
  changing: { state: Value; next: Value }[];
  /** The values saved on the tape per iteration, in order (lane values). */
  saved: Value[];
  /** The values taken from the tape per iteration, in order (lane values). */
  restored: Value[];
}

const LANE_ARITHMETIC = new Set(["add", "sub", "mul", "div", "neg"]);
const LANE_COMPARISONS = new Set(["lt", "le", "gt", "ge", "eq", "ne"]);

/** The plan for `loop`'s fast path, or undefined when its body is not elementwise. */
export function elementwisePairs(
  loop: Op,
  prechecks: LoopPrechecks,
  definitions: Map<number, Op>,
  ints: Set<number>,
  ownExp = false,
  settledTests: ReadonlyMap<number, boolean> = new Map(),
): ElementwisePairs | undefined {
  const [before, after] = loop.regions as [Region, Region];
  const { counter } = prechecks;
  const made = madeBy(loop);
  const inside = (v: Value) => made.has(v.id);
  const relation = counter.relation;
  if (relation !== "lt" && relation !== "le" && relation !== "gt" && relation !== "ge")
    return undefined;
  const step = relation === "lt" || relation === "le" ? 1 : -1;
  if (!ints.has(counter.bound.id)) return undefined;
  const constant = integerConstant(definitions, ints);
  // Made before the loop, a constant, or the length of an array made before it.
  const boundOp = definitions.get(counter.bound.id);
  const outsideLength = boundOp?.opcode === "length" && !inside(boundOp.operands[0]!);
  if (inside(counter.bound) && !outsideLength && constant(counter.bound) === undefined)
    return undefined;
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

  // The counter plus constants (the next counter, the indices): each one's offset.
  const offsets = new Map<number, number>([[bodyCounter.id, 0]]);
  const offsetOps = new Set<Op>();
  for (const op of after.ops) {
    if (op.opcode !== "add" && op.opcode !== "sub") continue;
    const [a, b] = op.operands as [Value, Value];
    const [base, c] =
      offsets.has(a.id) && constant(b) !== undefined
        ? [a, op.opcode === "add" ? constant(b)! : -constant(b)!]
        : op.opcode === "add" && offsets.has(b.id) && constant(a) !== undefined
          ? [b, constant(a)!]
          : [undefined, 0];
    if (!base) continue;
    offsets.set(op.results[0]!.id, offsets.get(base.id)! + c);
    offsetOps.add(op);
  }
  // The next values: the counter moved by 1, the other carried values unchanged or serial.
  const yielded = terminator(after).operands;
  if (offsets.get(yielded[k]!.id) !== step) return undefined;
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
  const restored: Value[] = [];
  /**
   * A number operand: computed in lanes, a constant, or the same at every iteration (an
   * integer made before the loop too, converted).
   */
  const numberOperand = (v: Value): boolean =>
    constants.has(v.id) ||
    (v.type === "number" &&
      !serialValues.has(v.id) &&
      (!inside(v) || (!ints.has(v.id) && (lanes.has(v.id) || carried.has(v.id)))));
  /** A comparison's result computed in lanes. */
  const mask = (v: Value): boolean => v.type === "boolean" && lanes.has(v.id);
  const accesses: { array: Value; offset: number; written: boolean }[] = [];
  /** An array of f64 cells made before the loop, at the counter plus a constant. */
  const element = (array: Value, index: Value, written: boolean): boolean => {
    const offset = offsets.get(index.id);
    if (offset === undefined) return false;
    // The pairs read and write unchecked: only accesses the loop checked on entry.
    if (!prechecks.accesses.some((a) => a.array === array && a.index === index)) return false;
    accesses.push({ array, offset, written });
    return (
      isArray(array.type) &&
      holdsNumbers(array.type) &&
      !(written && convertsStores(array.type.storage)) &&
      !inside(array)
    );
  };
  const settled = new Map<number, boolean>();
  for (const op of after.ops) {
    if (offsetOps.has(op) || op.opcode === "yield") continue;
    const [a, b, c] = op.operands;
    const r = op.results[0];
    const result = r && settledTests.get(r.id);
    if (result !== undefined && r!.type === "boolean") {
      settled.set(r!.id, result);
      lanes.add(r!.id);
      ops.push(op);
      continue;
    }
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
        // A number, or a comparison's result (saved as 1 or 0).
        if (op.attrs.reserved !== true || !lanes.has(a!.id)) return undefined;
        saved.push(a!);
        ops.push(op);
        continue;
      case "pop":
        // Reverse sweeps take from the tape, and count down (their forward loops, up, save).
        if (step !== -1 || r?.type !== "number" || ints.has(r.id) || op.attrs.value === "int")
          return undefined;
        restored.push(r);
        lanes.add(r.id);
        ops.push(op);
        continue;
      case "math":
        if (!ownExp || op.attrs.callee !== "exp" || op.operands.length !== 1) return undefined;
        if (!numberOperand(a!) || !r || ints.has(r.id) || r.type !== "number") return undefined;
        lanes.add(r.id);
        ops.push(op);
        continue;
      case "select":
        if (!mask(a!) || !numberOperand(b!) || !numberOperand(c!)) return undefined;
        if (r?.type !== "number" || ints.has(r.id)) return undefined;
        lanes.add(r.id);
        ops.push(op);
        continue;
      case "if": {
        // `v > 0 ? v : small`: arms that only yield a value are a select.
        if (!mask(a!) || op.results.length !== 1 || r!.type !== "number" || ints.has(r!.id))
          return undefined;
        const arms = op.regions.map(armValue);
        if (!arms.every((v) => v !== undefined && numberOperand(v))) return undefined;
        lanes.add(r!.id);
        ops.push(op);
        continue;
      }
      default: {
        if (LANE_COMPARISONS.has(op.opcode)) {
          if (!op.operands.every(numberOperand) || r?.type !== "boolean") return undefined;
          lanes.add(r.id);
          ops.push(op);
          continue;
        }
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
  // The counter and the values offset from it serve as indices only.
  const access = (op: Op) =>
    op.opcode === "index" || op.opcode === "setIndex" || op.opcode === "addIndex";
  for (const op of [...ops, ...serial])
    if (op.operands.some((v, j) => offsets.has(v.id) && !(access(op) && j === 1))) return undefined;
  if (saved.length > 0 && restored.length > 0) return undefined;
  // Accesses at different offsets, one a write: of one array, a dependence between
  // iterations; of two, one if they are one block (checked on entry).
  const distinct: [Value, Value][] = [];
  for (const p of accesses)
    for (const q of accesses) {
      if (p === q || p.offset === q.offset || !(p.written || q.written)) continue;
      if (p.array === q.array) return undefined;
      if (p.array.id < q.array.id && !distinct.some(([x, y]) => x === p.array && y === q.array))
        distinct.push([p.array, q.array]);
    }
  // Each changing number's next value is a serial op's.
  const computed = new Set(serial.map((op) => op.results[0]!.id));
  if (changing.some(({ next }) => !computed.has(next.id))) return undefined;
  // A carried sum pairs only beside an exp: alone, its chain of additions sets the speed.
  if (changing.length > 0 && !ops.some((op) => op.opcode === "math")) return undefined;
  return {
    counter: before.params[k]!,
    bound: counter.bound,
    relation,
    offsets,
    distinct,
    settled,
    ops,
    carried,
    lanes,
    serial,
    changing,
    saved,
    restored,
  };
}

/** What an arm of an `if` yields, when yielding it is all the arm does. */
export function armValue(region: Region): Value | undefined {
  const [only] = region.ops;
  return region.ops.length === 1 && only!.opcode === "yield" && only!.operands.length === 1
    ? only!.operands[0]
    : undefined;
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
