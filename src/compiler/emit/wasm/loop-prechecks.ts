import type { Op, Region, Value } from "../../ir/types.js";
import { forEachOp, terminator } from "../../ir/walk.js";
import { integerConstant, relationOf, type Relation } from "./integer-bounds.js";

// Index checks made once before a loop rather than at every iteration. A loop whose condition
// is its counter against a bound that does not change (`i < n`, `j <= i`, `i > 0`, a reverse
// sweep counting down) and whose counter moves by 1 runs a number of times known on entry
// (the IR's loops leave only through their condition), and every value it carries that moves
// by a constant step takes values known on entry too. An access `a[v]` or `a[v + c]` or
// `a[base + v]`, or `a[k]` of an index that does not change, made at every iteration (in the body itself, not under an `if` or in an inner
// loop), with `a` and `base` made before the loop, is then within bounds at every iteration
// exactly when its first and last indices are. The emitter checks those two (as i64: no
// overflow) before the loop when it runs at all, and the body reads and writes unchecked;
// the index's own sum cannot overflow either, being within bounds.

/** The loop's trip count is (bound - start) for `<`, plus 1 for `≤`; the other way round down. */
export interface Counter {
  start: Value;
  bound: Value;
  relation: Relation;
  /** The counter as the body's parameter. */
  param: Value;
}

/**
 * An access the loop makes at every iteration: `array[scale * param + constant ± offset]`, of
 * a body parameter starting at `start` and moving by `step` (0 for an index that does not
 * change: `start` is the index then).
 */
export interface Access {
  array: Value;
  index: Value;
  start: Value;
  step: number;
  scale: number;
  constant: number;
  offset?: { value: Value; sign: 1 | -1 };
}

export interface LoopPrechecks {
  counter: Counter;
  accesses: Access[];
  /**
   * The values made in the loop (region parameters and op results): one the check uses is a
   * constant, a length, or a sum, difference or product of values made before the loop (`i *
   * n` in `m[i * n + j]`), computed again on entry.
   */
  inside: Set<number>;
}

/**
 * The accesses of `loop` that can be checked before it, or undefined. `definitions`: each
 * value's defining op (region parameters have none); `ints`: the i32 integers.
 */
export function loopPrechecks(
  loop: Op,
  definitions: Map<number, Op>,
  ints: Set<number>,
): LoopPrechecks | undefined {
  const [before, after] = loop.regions as [Region, Region];
  const [flag, ...forwarded] = terminator(before).operands;
  const yielded = terminator(after).operands;
  const inside = new Set<number>();
  for (const region of loop.regions) {
    for (const p of region.params) inside.add(p.id);
    forEachOp(region, (op) => op.results.forEach((r) => inside.add(r.id)));
  }
  const constant = integerConstant(definitions, ints);
  /**
   * The same at every iteration: made before the loop (its local holds it), the length of an
   * array made before it (an array keeps its length), or a sum, difference or product of such.
   */
  const invariant = (v: Value): boolean => {
    if (!ints.has(v.id)) return false;
    if (!inside.has(v.id)) return true;
    const op = definitions.get(v.id);
    if (op?.opcode === "const") return true;
    if (op?.opcode === "length") return !inside.has(op.operands[0]!.id);
    if (op?.opcode === "add" || op?.opcode === "sub" || op?.opcode === "mul")
      return op.operands.every(invariant);
    return false;
  };

  // Per body parameter carried by the loop: its start and its constant step.
  const carried = new Map<number, { start: Value; step: number; counter: Value; param: Value }>();
  forwarded.forEach((x, j) => {
    const i = before.params.indexOf(x!);
    if (i < 0 || !ints.has(x!.id)) return;
    const p = after.params[j]!;
    const next = yielded[i] && definitions.get(yielded[i]!.id);
    if (next?.opcode !== "add" && next?.opcode !== "sub") return;
    const [a, b] = next.operands as [Value, Value];
    let step: number | undefined;
    if (a === p && constant(b) !== undefined) step = constant(b)!;
    else if (next.opcode === "add" && b === p && constant(a) !== undefined) step = constant(a)!;
    if (step === undefined) return;
    carried.set(p.id, {
      start: loop.operands[i]!,
      step: next.opcode === "add" ? step : -step,
      counter: x!,
      param: p,
    });
  });

  // The counter: compared with an unchanging bound, moving by 1 towards it.
  const test = flag && definitions.get(flag.id);
  let counter: Counter | undefined;
  for (const { start, step, counter: c, param } of carried.values()) {
    const seen = relationOf(test, c);
    if (!seen) continue;
    const { relation, other: bound } = seen;
    if (!invariant(bound)) continue;
    const up = relation === "lt" || relation === "le";
    if (step !== (up ? 1 : -1)) continue;
    counter = { start, bound, relation, param };
  }
  if (!counter) return undefined;

  const accesses: Access[] = [];
  for (const op of after.ops) {
    if (op.opcode !== "index" && op.opcode !== "setIndex" && op.opcode !== "addIndex") continue;
    if (op.attrs.ifExists) continue;
    const [array, index] = op.operands as [Value, Value];
    if (!ints.has(index.id) || inside.has(array.id)) continue;
    if (invariant(index) || constant(index) !== undefined) {
      // The same index at every iteration.
      accesses.push({ array, index, start: index, step: 0, scale: 1, constant: 0 });
      continue;
    }
    const form = affine(index, definitions, constant, invariant);
    const param = form && carried.get(form.param.id);
    if (!form || !param) continue;
    accesses.push({
      array,
      index,
      start: param.start,
      step: param.step,
      scale: form.scale,
      constant: form.constant,
      ...(form.offset ? { offset: form.offset } : {}),
    });
  }
  return accesses.length ? { counter, accesses, inside } : undefined;
}

/**
 * `index` as `scale * param + constant ± offset`, with `param` a body parameter (its step is
 * checked by the caller), `scale` a constant above 0 and `offset` the same at every
 * iteration: `v`, `v ± k` (± k ± k'…), `c * v`, `c * v ± k`, and any of them plus or minus
 * `offset`.
 */
function affine(
  index: Value,
  definitions: Map<number, Op>,
  constant: (v: Value) => number | undefined,
  invariant: (v: Value) => boolean,
):
  | { param: Value; scale: number; constant: number; offset?: { value: Value; sign: 1 | -1 } }
  | undefined {
  const varying = (v: Value) => !invariant(v) && constant(v) === undefined;
  /** `v`, `c * v`. */
  const scaled = (v: Value): { param: Value; scale: number } => {
    const op = definitions.get(v.id);
    if (op?.opcode === "mul") {
      const [a, b] = op.operands as [Value, Value];
      const k = constant(b) ?? constant(a);
      if (k !== undefined && k > 0) return { param: constant(b) !== undefined ? a : b, scale: k };
    }
    return { param: v, scale: 1 };
  };
  /**
   * `v`, `c * v`, and either ± constants, one after another (a reverse sweep's element
   * `1 + (trips - 1)`, and `i - 1` of it).
   */
  const shifted = (v: Value): { param: Value; scale: number; constant: number } => {
    const op = definitions.get(v.id);
    if (op?.opcode === "add" || op?.opcode === "sub") {
      const [a, b] = op.operands as [Value, Value];
      const k = constant(b);
      if (k !== undefined) {
        const inner = shifted(a);
        return { ...inner, constant: inner.constant + (op.opcode === "add" ? k : -k) };
      }
      if (op.opcode === "add" && constant(a) !== undefined) {
        const inner = shifted(b);
        return { ...inner, constant: inner.constant + constant(a)! };
      }
    }
    return { ...scaled(v), constant: 0 };
  };
  const op = definitions.get(index.id);
  if (op?.opcode === "add" || op?.opcode === "sub") {
    const [a, b] = op.operands as [Value, Value];
    if (invariant(b) && constant(b) === undefined && varying(a))
      return { ...shifted(a), offset: { value: b, sign: op.opcode === "add" ? 1 : -1 } };
    if (op.opcode === "add" && invariant(a) && constant(a) === undefined && varying(b))
      return { ...shifted(b), offset: { value: a, sign: 1 } };
  }
  return shifted(index);
}
