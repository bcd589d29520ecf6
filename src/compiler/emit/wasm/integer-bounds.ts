import type { IRFunction, Op, Region, Value } from "../../ir/types.js";
import { forEachOp, terminator } from "../../ir/walk.js";
import { isArray } from "../../ir/type-system.js";
import { isUnsigned } from "./typed-array-stores.js";

// What the emitter knows of the i32 integers (integers.ts) of a function, so it can leave out
// checks that cannot fail: an index `a[i]` needs no bounds check when i ≥ 0 and the loop
// around it tests i < a.length, and `i + 1` cannot overflow when a loop tests i < n. Sound
// because an array in wasm memory never gets shorter (an append lengthens one,
// growing-arrays.ts; nothing shortens one), and a sum or difference that could overflow keeps
// its check (it traps and the call runs as JavaScript), so every value the code goes on with
// is exact.
//
// Lower bounds: each integer is known ≥ 1, ≥ 0, or not known to be either, found as the
// largest assignment the rules below allow (start from ≥ 1 everywhere, lower a value's bound
// until every rule holds), so a counter carried around a loop keeps its start's bound when
// its steps go up. A loop's body also knows what its condition tested: i < n, i > 0, i ≥ 0.

export interface IntegerBounds {
  /** Per index value id, the arrays (value ids) it indexes within bounds. */
  inBounds: Map<number, Set<number>>;
  /** The sums and differences (value ids) that cannot overflow an i32. */
  cannotOverflow: Set<number>;
  /** The integers (value ids) known ≥ 0. */
  nonNegative: Set<number>;
}

/** Not known to be ≥ 0. */
const UNKNOWN = -Infinity;

export function integerBounds(fn: IRFunction, ints: Set<number>): IntegerBounds {
  const definitions = new Map<number, Op>();
  forEachOp(fn.body, (op) => {
    for (const r of op.results) definitions.set(r.id, op);
  });
  const constant = integerConstant(definitions, ints);

  // What each loop body knows from its condition, by body parameter.
  const below = new Map<number, Value>(); // p < bound
  const atLeast = new Map<number, number>(); // p ≥ k
  forEachOp(fn.body, (op) => {
    if (op.opcode !== "loop") return;
    const [before, after] = op.regions as [Region, Region];
    const [flag, ...forwarded] = terminator(before).operands;
    const test = flag && definitions.get(flag.id);
    forwarded.forEach((q, j) => {
      const seen = relationOf(test, q);
      const p = after.params[j]!;
      if (!seen || !ints.has(p.id)) return;
      const { relation, other } = seen;
      const k = constant(other);
      if (relation === "lt" && ints.has(other.id)) below.set(p.id, other);
      if (relation === "gt" && k !== undefined) atLeast.set(p.id, k + 1);
      if (relation === "ge" && k !== undefined) atLeast.set(p.id, k);
    });
  });

  // Lower bounds: the largest fixpoint, from ≥ 1 down.
  // Integers no rule covers stay unknown.
  const lower = new Map<number, number>();
  const bound = (v: Value | undefined): number => {
    if (!v || !ints.has(v.id)) return UNKNOWN;
    return constant(v) ?? lower.get(v.id) ?? UNKNOWN;
  };
  /** A bound as the lattice keeps it: ≥ 1, ≥ 0 or unknown. */
  const clamp = (x: number) => (x >= 1 ? 1 : x >= 0 ? 0 : UNKNOWN);
  const rules: [Value, () => number][] = [];
  const rule = (v: Value | undefined, compute: () => number) => {
    if (v && ints.has(v.id) && constant(v) === undefined) rules.push([v, compute]);
  };
  forEachOp(fn.body, (op) => {
    const [a, b, c] = op.operands;
    const r = op.results[0];
    switch (op.opcode) {
      case "length":
        return rule(r, () => 0);
      case "pop":
        // A trip count, saved by the forward sweep: a number of iterations.
        return rule(r, () => (op.attrs.value === "int" ? 0 : UNKNOWN));
      case "add":
        return rule(r, () => clamp(bound(a) + bound(b)));
      case "sub": {
        const k = constant(b!);
        return rule(r, () => (k === undefined ? UNKNOWN : clamp(bound(a) - k)));
      }
      case "mul": {
        const k = constant(a!) ?? constant(b!);
        const other = constant(a!) !== undefined ? b : a;
        return rule(r, () => (k !== undefined && k >= 1 ? clamp(bound(other)) : UNKNOWN));
      }
      case "index":
        // An element of a Uint8Array, a Uint16Array… (one integers.ts keeps as i32).
        return rule(r, () => (isArray(a!.type) && isUnsigned(a!.type.storage) ? 0 : UNKNOWN));
      case "nondiff":
        // `x & mask` with either side ≥ 0: the result's sign bit is clear.
        return rule(r, () =>
          op.attrs.callee === "&" && Math.max(bound(a), bound(b)) >= 0 ? 0 : UNKNOWN,
        );
      case "select":
        return rule(r, () => Math.min(bound(b), bound(c)));
      case "detach":
      case "withDerivative":
        return rule(r, () => bound(a));
      case "if":
        op.results.forEach((v, i) =>
          rule(v, () => Math.min(...op.regions.map((g) => bound(terminator(g).operands[i])))),
        );
        return;
      case "loop": {
        const [before, after] = op.regions as [Region, Region];
        const forwarded = terminator(before).operands.slice(1);
        const yielded = terminator(after).operands;
        before.params.forEach((p, i) =>
          rule(p, () => Math.min(bound(op.operands[i]), bound(yielded[i]))),
        );
        after.params.forEach((p, j) =>
          rule(p, () => Math.max(bound(forwarded[j]), clamp(atLeast.get(p.id) ?? UNKNOWN))),
        );
        // At the exit the condition is false: what the body knew does not hold.
        op.results.forEach((v, i) => rule(v, () => bound(forwarded[i])));
        return;
      }
    }
  });
  for (const [v] of rules) lower.set(v.id, 1);
  for (let changed = true; changed;) {
    changed = false;
    for (const [v, compute] of rules) {
      const next = Math.min(lower.get(v.id)!, compute());
      if (next !== lower.get(v.id)) {
        lower.set(v.id, next);
        changed = true;
      }
    }
  }

  const nonNegative = new Set([...ints].filter((id) => (lower.get(id) ?? UNKNOWN) >= 0));
  for (const [id, op] of definitions)
    if (op.opcode === "const" && ints.has(id) && (op.attrs.value as number) >= 0)
      nonNegative.add(id);
  const found: IntegerBounds = { inBounds: new Map(), cannotOverflow: new Set(), nonNegative };
  // i < a.length and i ≥ 0: i indexes a.
  for (const [id, limit] of below) {
    const length = definitions.get(limit.id);
    if (length?.opcode !== "length" || (lower.get(id) ?? UNKNOWN) < 0) continue;
    const arrays = found.inBounds.get(id) ?? new Set<number>();
    arrays.add(length.operands[0]!.id);
    found.inBounds.set(id, arrays);
  }
  forEachOp(fn.body, (op) => {
    if (op.opcode !== "add" && op.opcode !== "sub") return;
    const r = op.results[0]!;
    if (!ints.has(r.id)) return;
    const [a, b] = op.operands as [Value, Value];
    if (cannotOverflow(op.opcode, a, b, bound, constant, below)) found.cannotOverflow.add(r.id);
  });
  return found;
}

/** A comparison as the loop condition's operands see it. */
export type Relation = "lt" | "le" | "gt" | "ge";

const FLIPPED = { lt: "gt", le: "ge", gt: "lt", ge: "le" } as const;

/**
 * What comparison `test` says of `v`, one of its operands, seen from `v` (`n > i` is `i < n`),
 * or undefined when `test` is not a comparison of `v`.
 */
export function relationOf(
  test: Op | undefined,
  v: Value,
): { relation: Relation; other: Value } | undefined {
  if (!test || !(test.opcode in FLIPPED)) return undefined;
  const [x, y] = test.operands as [Value, Value];
  if (v === x) return { relation: test.opcode as Relation, other: y };
  if (v === y) return { relation: FLIPPED[test.opcode as Relation], other: x };
  return undefined;
}

/** The value of an i32 constant (integers.ts), or undefined for any other value. */
export function integerConstant(
  definitions: Map<number, Op>,
  ints: Set<number>,
): (v: Value) => number | undefined {
  return (v) => {
    const op = definitions.get(v.id);
    return op?.opcode === "const" && typeof op.attrs.value === "number" && ints.has(v.id)
      ? op.attrs.value
      : undefined;
  };
}

/**
 * Whether `a + b` (or `a - b`) of i32s stays within the i32 range: i + 1 where a loop tests
 * i < n (so i + 1 ≤ n); x - k or x + (-k) for x ≥ 0 and k ≥ 0; x - y for x, y ≥ 0.
 */
function cannotOverflow(
  opcode: "add" | "sub",
  a: Value,
  b: Value,
  bound: (v: Value) => number,
  constant: (v: Value) => number | undefined,
  below: Map<number, Value>,
): boolean {
  const step = (x: Value, k: number | undefined) =>
    k === undefined ? false : k === 0 || (k === 1 && below.has(x.id)) || (k < 0 && bound(x) >= 0);
  if (opcode === "add") return step(a, constant(b)) || step(b, constant(a));
  const k = constant(b);
  if (k !== undefined) return step(a, -k);
  return bound(a) >= 0 && bound(b) >= 0;
}
