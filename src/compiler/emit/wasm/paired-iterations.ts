import { WRITES_MEMORY } from "../../ir/ops.js";
import { isArray } from "../../ir/type-system.js";
import type { Op, Opcode, Region, Value } from "../../ir/types.js";
import { forEachOp, someOp, terminator } from "../../ir/walk.js";
import { integerConstant, relationOf } from "./integer-bounds.js";
import { isAppend } from "./growing-arrays.js";
import { holdsNumbers } from "./kinds.js";
import { loopPrechecks } from "./loop-prechecks.js";

// Several iterations of an outer loop at once, in the lanes of f64x2s (four, then two). kmeans' loop over
// centroids computes, per centroid, a sum over the point's coordinates, then compares it
// with the nearest so far: the sum is a chain of dependent additions, which no reordering
// may shorten (the result would differ from JavaScript's), so the loop runs at the speed
// of that chain. Two centroids' sums are independent of each other: in the two lanes of
// one vector, each lane does exactly the scalar code's operations in the scalar code's
// order (f64x2 add, sub, mul, div and neg round as the scalar ones do), so both sums are
// the scalar ones to the bit, in half the chains.
//
// The outer loop's body must be, in order:
// - a *prefix* (the row `centroids[j]`, its length, arithmetic of them): pure reads and
//   computations of the counter and of values made before the loop, never of what the loop
//   carries from one iteration to the next, so it can be computed for j + 1 before
//   iteration j has run;
// - one inner loop counting up by 1 from a start to a bound, both the same at every
//   iteration of the outer loop, whose body only reads elements at its counter of arrays of
//   numbers (made before the outer loop, or by the prefix) and computes with them by f64
//   add, sub, mul, div and neg, carrying numbers (the sums) besides its counter;
// - a *suffix*, anything that writes no memory the prefix or the inner loop could read (it
//   may push onto the tape, compare, branch, read, run other loops, and store numbers into
//   arrays made before the loop: `out[i] = s` of a matrix-vector product, which the emitter
//   checks on entry are other blocks of memory than every array the prefix and the inner
//   loop read; arrays in wasm memory never overlap).
// The emitter then runs, while four (then two) iterations remain: the prefix for j, j + 1 …,
// the inner loop for all at once, then the suffix of each in order, each after the prefix
// again (it is pure) and with its lane of the sums. Checks the prefix makes
// (bounds, null rows) are made for each lane; a trap reruns the call as JavaScript, as in
// the scalar code. When fewer than two iterations remain, or a row is shorter than the inner
// loop's bound, the iteration runs as it is. Results are checked against JavaScript's, bit
// for bit, and two ways by test/wasm-paired-iterations.test.ts.

export interface PairedIterations {
  /** The outer loop's counter (its body's parameter) and its bound (`j < bound`). */
  counter: Value;
  bound: Value;
  prefix: Op[];
  inner: Op;
  suffix: Op[];
  /** The inner loop's counter, as the index of its carried values, and its start and bound. */
  innerCounter: number;
  innerStart: Value;
  innerBound: Value;
  /**
   * When the bound is the length of an array of the prefix (`i < centroid.length`): that
   * array, whose lanes must then all have the same length.
   */
  boundArray?: Value;
  /** The prefix's values the inner loop uses: each lane has its own. */
  perLane: Value[];
  /** The arrays the inner loop reads: made by the prefix (per lane) or before the outer loop. */
  arrays: Value[];
  /** The arrays the prefix reads elements of (made before the outer loop, or per lane). */
  prefixArrays: Value[];
  /** The arrays of numbers the suffix stores into (made before the outer loop). */
  written: Value[];
}

/** What the inner loop's body may do, besides reading elements at its counter. */
const LANE_ARITHMETIC = new Set<Opcode>(["add", "sub", "mul", "div", "neg"]);
/** What the prefix may do. */
const PREFIX_OPS = new Set<Opcode>(["index", "length", "const", "add", "sub", "mul", "div", "neg"]);
/** What the suffix may do that writes: the tape and the heap are apart from user arrays. */
const SUFFIX_WRITES = new Set<Opcode>(["push", "reserve", "peak", "alloc", "literal", "zeros"]);
/** Stores the suffix may make into an array made before the loop, checked apart on entry. */
const STORES = new Set<Opcode>(["setIndex", "addIndex"]);

/**
 * How `loop` runs several iterations at once, or undefined when it cannot. `definitions`: each
 * value's defining op; `ints`: the values held as i32.
 */
export function pairedIterations(
  loop: Op,
  definitions: Map<number, Op>,
  ints: Set<number>,
): PairedIterations | undefined {
  const outer = loopPrechecks(loop, definitions, ints);
  if (!outer || outer.counter.relation !== "lt") return undefined;
  const { param: counter, bound } = outer.counter;
  const [, body] = loop.regions as [Region, Region];
  const at = body.ops.findIndex((op) => op.opcode === "loop");
  if (at < 0) return undefined;
  const inner = body.ops[at]!;
  const prefix = body.ops.slice(0, at);
  const suffix = body.ops.slice(at + 1, -1);
  const inside = outer.inside;
  const constant = integerConstant(definitions, ints);

  // Made before the outer loop, a constant, or the length of an array made before it.
  const invariant = (v: Value): boolean => {
    if (!inside.has(v.id)) return true;
    const op = definitions.get(v.id);
    if (op?.opcode === "const") return true;
    return op?.opcode === "length" && !inside.has(op.operands[0]!.id);
  };

  // The prefix: pure, of the counter, values made before and its own values.
  const prefixValues = new Set<number>();
  for (const op of prefix) {
    if (!PREFIX_OPS.has(op.opcode) || op.attrs.ifExists || op.regions.length) return undefined;
    if (!op.operands.every((v) => v === counter || invariant(v) || prefixValues.has(v.id)))
      return undefined;
    op.results.forEach((r) => prefixValues.add(r.id));
  }
  const perLane = (v: Value) => prefixValues.has(v.id);

  // The inner loop: `q < innerBound`, q moving by 1, every other carried value a number.
  const [head, innerBody] = inner.regions as [Region, Region];
  const [flag, ...forwarded] = terminator(head).operands;
  if (forwarded.some((v, k) => v !== head.params[k])) return undefined;
  if (!head.ops.every((op) => op === terminator(head) || op.results.every(invariantOrHead)))
    return undefined;
  function invariantOrHead(v: Value): boolean {
    const op = definitions.get(v.id);
    return op?.opcode === "lt" || invariant(v) || laneLength(v) !== undefined;
  }
  /** The array of the prefix whose length `v` is. */
  function laneLength(v: Value): Value | undefined {
    const op = definitions.get(v.id);
    return op?.opcode === "length" && perLane(op.operands[0]!) ? op.operands[0] : undefined;
  }
  const yielded = terminator(innerBody).operands;
  let innerCounter = -1;
  let innerBound: Value | undefined;
  for (let k = 0; k < head.params.length; k++) {
    const p = innerBody.params[k]!;
    if (!ints.has(p.id)) {
      if (p.type !== "number") return undefined;
      continue;
    }
    const next = definitions.get(yielded[k]!.id);
    const seen = relationOf(flag && definitions.get(flag.id), head.params[k]!);
    if (
      innerCounter >= 0 ||
      next?.opcode !== "add" ||
      !next.operands.includes(p) ||
      constant(next.operands[next.operands[0] === p ? 1 : 0]!) !== 1 ||
      seen?.relation !== "lt" ||
      !(invariant(seen.other) || laneLength(seen.other)) ||
      !ints.has(seen.other.id)
    )
      return undefined;
    innerCounter = k;
    innerBound = seen.other;
  }
  if (innerCounter < 0 || !innerBound) return undefined;
  const innerStart = inner.operands[innerCounter]!;
  if (!ints.has(innerStart.id) || !invariant(innerStart)) return undefined;
  // Each sum starts from a value made before the outer loop or by the prefix.
  if (!inner.operands.every((v) => invariant(v) || perLane(v))) return undefined;

  const q = innerBody.params[innerCounter]!;
  const step = yielded[innerCounter]!;
  const bodyValues = new Set(innerBody.params.map((p) => p.id));
  const arrays: Value[] = [];
  for (const op of innerBody.ops.slice(0, -1)) {
    const [a, b] = op.operands;
    if (op.results[0] === step) {
      if (innerBody.ops.some((o) => o !== terminator(innerBody) && o.operands.includes(step)))
        return undefined;
      continue;
    }
    if (op.opcode === "index") {
      if (op.attrs.ifExists || b !== q || ints.has(op.results[0]!.id)) return undefined;
      if (!isArray(a!.type) || !holdsNumbers(a!.type) || !(invariant(a!) || perLane(a!)))
        return undefined;
      if (!arrays.includes(a!)) arrays.push(a!);
    } else if (LANE_ARITHMETIC.has(op.opcode)) {
      const numbers = op.operands.every(
        (v) =>
          v.type === "number" &&
          (v === q ? false : bodyValues.has(v.id) || invariant(v) || perLane(v)),
      );
      if (!numbers || ints.has(op.results[0]!.id)) return undefined;
    } else if (op.opcode !== "const") return undefined;
    op.results.forEach((r) => bodyValues.add(r.id));
  }
  // The counter is used only to step and to index; the sums only by the lane arithmetic.
  if (
    innerBody.ops.some(
      (op) => op.opcode !== "index" && op.results[0] !== step && op.operands.includes(q),
    )
  )
    return undefined;
  if (!arrays.length) return undefined;

  // The suffix writes nothing the prefix or the inner loop reads: the tape, the heap, and
  // arrays of numbers made before the loop (compared with the arrays read, on entry).
  const written: Value[] = [];
  const writes = (op: Op) => {
    if (STORES.has(op.opcode)) {
      const [a] = op.operands as [Value];
      const apart = !inside.has(a.id) && isArray(a.type) && holdsNumbers(a.type) && !isAppend(op);
      if (apart && !written.includes(a)) written.push(a);
      return !apart;
    }
    return (
      (WRITES_MEMORY.has(op.opcode) && !SUFFIX_WRITES.has(op.opcode)) || op.opcode === "return"
    );
  };
  if (suffix.some((op) => writes(op) || op.regions.some((r) => someOp(r, writes))))
    return undefined;
  const prefixArrays = [
    ...new Set(prefix.filter((op) => op.opcode === "index").map((op) => op.operands[0]!)),
  ];

  const used = new Set<Value>();
  for (const region of inner.regions)
    forEachOp(region, (op) => op.operands.forEach((v) => perLane(v) && used.add(v)));
  inner.operands.forEach((v) => perLane(v) && used.add(v));
  const boundArray = laneLength(innerBound);
  if (boundArray) used.add(boundArray);
  // Rows the prefix reads, compared per lane with the arrays the suffix stores into.
  if (written.length) for (const a of prefixArrays) if (perLane(a)) used.add(a);
  // Lanes that would all compute the same: nothing to gain.
  if (!used.size) return undefined;
  return {
    counter,
    bound,
    prefix,
    inner,
    suffix,
    innerCounter,
    innerStart,
    innerBound,
    ...(boundArray ? { boundArray } : {}),
    perLane: [...used],
    arrays,
    prefixArrays,
    written,
  };
}
