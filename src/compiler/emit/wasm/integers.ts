import type { IRFunction, Op, Region, Value } from "../../ir/types.js";

// Which numbers of a function are integers that fit an i32, so wasm keeps them as i32: loop
// counters, lengths, trip counts, and what adding and subtracting them makes. An index that is
// one needs only a bounds check, not a conversion and an integer test, and the loop's own
// arithmetic is integer arithmetic (V8 keeps such JavaScript numbers as small integers too).
//
// Found as the largest set closed under the rules below (start from every candidate, drop
// those a rule rejects until nothing changes), so a counter carried around a loop is an
// integer when its start and its step are. An i32 holds no -0, so no rule makes a value
// whose float64 could be -0 (`neg`, `mul`); additions and subtractions that overflow an i32
// trap at run time (function.ts), and the call then runs as JavaScript.

export function integerValues(fn: IRFunction): Set<number> {
  const rules = new Map<number, () => boolean>();
  const ints = new Set<number>();
  const is = (v: Value | undefined) => v !== undefined && ints.has(v.id);
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
      case "pop":
        if (op.attrs.value === "int") candidate(r!, () => true);
        return;
      case "add":
      case "sub":
        return candidate(r!, () => is(a) && is(b));
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

function terminator(region: Region): Op {
  return region.ops[region.ops.length - 1]!;
}
