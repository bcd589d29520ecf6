import type { IRFunction, Op, Region, Value } from "../../ir/types.js";
import { forEachOp, terminator } from "../../ir/walk.js";
import { isArray } from "../../ir/type-system.js";
import { isBitOperation, isSignedBitOperation } from "./int32.js";
import { holdsInt32 } from "./typed-array-stores.js";

// Which numbers of a function are integers that fit an i32, so wasm keeps them as i32: loop
// counters, lengths, trip counts, the results of bit operators (`x & 3`, `h | 0`: int32.ts),
// the elements of integer arrays (but a Uint32Array's), and what adding and subtracting them
// (or multiplying one by a constant above 0) makes. An index that is one needs only a bounds
// check, not a conversion and an integer test (`x[cols[k]]`), and the loop's own arithmetic
// is integer arithmetic (V8 keeps such JavaScript numbers as small integers too).
//
// Found as the largest set closed under the rules below (start from every candidate, drop
// those a rule rejects until nothing changes), so a counter carried around a loop is an
// integer when its start and its step are. An i32 holds no -0, so no rule makes a value
// whose float64 could be -0 (`neg`, `mul` but by a constant above 0); sums, differences and
// products that overflow an i32 trap at run time (function.ts), and the call then runs as
// JavaScript.

/**
 * `nonNegative`: integers known ≥ 0 (integer-bounds.ts, from a first pass), whose products
 * are integers too (never -0): `m[i * n + j]`.
 */
export function integerValues(fn: IRFunction, nonNegative?: ReadonlySet<number>): Set<number> {
  const rules = new Map<number, () => boolean>();
  const ints = new Set<number>();
  const is = (v: Value | undefined) => v !== undefined && ints.has(v.id);
  const constants = new Map<number, number>();
  const positive = (v: Value) => (constants.get(v.id) ?? 0) > 0;
  const candidate = (v: Value, rule: () => boolean) => {
    if (v.type !== "number") return;
    rules.set(v.id, rule);
    ints.add(v.id);
  };
  const visit = (region: Region) => {
    for (const op of region.ops) {
      collect(op);
      op.regions.forEach(visit);
    }
  };
  const collect = (op: Op) => {
    const [a, b, c] = op.operands;
    const r = op.results[0];
    switch (op.opcode) {
      case "const": {
        const x = op.attrs.value;
        if (typeof x === "number") constants.set(r!.id, x);
        if (
          typeof x === "number" &&
          Number.isInteger(x) &&
          Math.abs(x) < 2 ** 31 &&
          !Object.is(x, -0)
        )
          candidate(r!, () => true);
        return;
      }
      case "length":
        return candidate(r!, () => true);
      case "index":
        // An element of an Int32Array, a Uint8Array…: an int32, read as one (function.ts).
        if (isArray(a!.type) && holdsInt32(a!.type.storage)) candidate(r!, () => true);
        return;
      case "nondiff":
        // `x & 3`, `h | 0`, Math.imul: an int32 (function.ts computes it as one); not `>>>`.
        if (
          isBitOperation(op.attrs.callee ?? "", op.operands.length) &&
          isSignedBitOperation(op.attrs.callee!) &&
          op.operands.every((v) => v.type === "number")
        )
          candidate(r!, () => true);
        return;
      case "pop":
        // Trip counts are saved as integers; other numbers the forward sweep saved are taken
        // as integers where they lead to an index, checked when popped (function.ts).
        if (op.attrs.value === "int" || leadsToIndex.has(r!.id)) candidate(r!, () => true);
        return;
      case "add":
      case "sub":
        return candidate(r!, () => is(a) && is(b));
      case "mul":
        // `2 * layer`: by a constant above 0, an integer's product is never -0; nor is a
        // product of two integers ≥ 0 (`i * n`).
        return candidate(
          r!,
          () =>
            is(a) &&
            is(b) &&
            (positive(a!) ||
              positive(b!) ||
              (nonNegative?.has(a!.id) === true && nonNegative.has(b!.id))),
        );
      case "select":
        return candidate(r!, () => is(b) && is(c));
      case "detach":
      case "withDerivative":
        return candidate(r!, () => is(a));
      case "if":
        op.results.forEach((v, i) =>
          candidate(v, () => op.regions.every((region) => is(terminator(region).operands[i]))),
        );
        return;
      case "loop": {
        const [before, after] = op.regions as [Region, Region];
        const forwarded = terminator(before).operands.slice(1);
        before.params.forEach((p, i) =>
          candidate(p, () => is(op.operands[i]) && is(terminator(after).operands[i])),
        );
        after.params.forEach((p, i) => candidate(p, () => is(forwarded[i])));
        op.results.forEach((v, i) => candidate(v, () => is(after.params[i])));
        return;
      }
    }
  };
  const leadsToIndex = indexSources(fn);
  visit(fn.body);
  for (let changed = true; changed;) {
    changed = false;
    for (const [id, rule] of rules)
      if (ints.has(id) && !rule()) {
        ints.delete(id);
        changed = true;
      }
  }
  return ints;
}

/**
 * The values an element index is computed from by the integer rules' ops (`+`, `-`, `*`, `?:`,
 * loops, `if`s), back to where they come from: an index `base + j` of a popped `base` makes
 * `base` one.
 */
function indexSources(fn: IRFunction): Set<number> {
  const definitions = new Map<number, Op>();
  /** For a region's parameter: the values it takes (a loop's start and next ones, forwarded). */
  const flowsInto = new Map<number, Value[]>();
  const indices: Value[] = [];
  forEachOp(fn.body, (op) => {
    for (const r of op.results) definitions.set(r.id, op);
    if (op.opcode === "index" || op.opcode === "setIndex" || op.opcode === "addIndex")
      indices.push(op.operands[1]!);
    if (op.opcode === "loop") {
      const [before, after] = op.regions as [Region, Region];
      const forwarded = terminator(before).operands.slice(1);
      const yielded = terminator(after).operands;
      before.params.forEach((p, i) => flowsInto.set(p.id, [op.operands[i]!, yielded[i]!]));
      after.params.forEach((p, i) => flowsInto.set(p.id, [forwarded[i]!]));
      op.results.forEach((r, i) => flowsInto.set(r.id, [after.params[i]!]));
    }
    if (op.opcode === "if")
      op.results.forEach((r, i) =>
        flowsInto.set(
          r.id,
          op.regions.map((region) => terminator(region).operands[i]!),
        ),
      );
  });
  const found = new Set<number>();
  const work = [...indices];
  for (let v = work.pop(); v; v = work.pop()) {
    if (v.type !== "number" || found.has(v.id)) continue;
    found.add(v.id);
    const op = definitions.get(v.id);
    if (op?.opcode === "add" || op?.opcode === "sub" || op?.opcode === "mul")
      work.push(op.operands[0]!, op.operands[1]!);
    else if (op?.opcode === "select") work.push(op.operands[1]!, op.operands[2]!);
    else if (op?.opcode === "detach") work.push(op.operands[0]!);
    work.push(...(flowsInto.get(v.id) ?? []));
  }
  return found;
}
