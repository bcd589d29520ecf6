import { forEachOp } from "../ir/walk.js";
import { isAggregate } from "../ir/type-system.js";
import type { Op, Region, Value } from "../ir/types.js";
import { isPiecewiseConstantOp } from "../rules/math.js";
import type { AliasClasses } from "./effects.js";

// Text made from a varied number (`String(x)`, `${x}`, `xs.join(",")`) holds the number's
// value but not its derivative. Activity reports such text where it flows into the result
// directly; this follows it through what activity does not: arrays of text (`.split`), the
// keys of a record it is stored under (`r[String(x)] = …`, read back by `Object.keys` or
// `for…in`), branches and loops. Where it is turned back into a number (`Number(k)`,
// `parseFloat(k)`) and that number reaches the result, the derivative would be lost.

/** Reads of a record's or map's keys: their text is the keys', not the values'. */
const KEY_READS = new Set(["Object.keys", "Array.from", ".keys"]);

/** The ops turning text made from varied numbers back into numbers the result uses. */
export function textRoundTrips(
  body: Region,
  classes: AliasClasses,
  /** A number that carries a derivative (varied, and not only through rounding). */
  carries: (v: Value) => boolean,
  variedClass: (v: Value) => boolean,
  useful: ReadonlySet<number>,
): Op[] {
  const text = new Set<number>();
  const textClasses = new Set<number>();
  let changed = true;
  const holds = (v: Value): boolean =>
    isAggregate(v.type) ? textClasses.has(classes.find(v.id)) : text.has(v.id);
  const mark = (v: Value): void => {
    if (isAggregate(v.type)) {
      const root = classes.find(v.id);
      if (!textClasses.has(root)) {
        textClasses.add(root);
        changed = true;
      }
    } else if (v.type === "string" && !text.has(v.id)) {
      text.add(v.id);
      changed = true;
    }
  };
  const terminator = (region: Region): Op => region.ops[region.ops.length - 1]!;
  const found = new Set<Op>();
  const visit = (op: Op): void => {
    switch (op.opcode) {
      case "nondiff": {
        if (isPiecewiseConstantOp(op.attrs.callee)) return;
        const keys = KEY_READS.has(op.attrs.callee ?? "");
        const source = op.operands.some(
          (v) =>
            holds(v) ||
            (!keys && v.type === "number" && carries(v)) ||
            (!keys && isAggregate(v.type) && variedClass(v)),
        );
        if (!source) return;
        for (const r of op.results) {
          if (r.type === "number" && useful.has(r.id) && op.operands.some(holds)) found.add(op);
          else mark(r);
        }
        return;
      }
      case "index":
        if (holds(op.operands[0]!)) mark(op.results[0]!);
        return;
      case "setIndex":
        // Text stored as a key, or as an element of an array of text.
        if (holds(op.operands[1]!) || holds(op.operands[op.operands.length - 1]!))
          mark(op.operands[0]!);
        return;
      case "literal":
        if (op.operands.some(holds)) mark(op.results[0]!);
        return;
      case "call":
        if (op.operands.some(holds)) for (const r of op.results) mark(r);
        return;
      case "if":
        op.results.forEach((r, i) => {
          if (op.regions.some((reg) => holds(terminator(reg).operands[i]!))) mark(r);
        });
        return;
      case "loop": {
        const [before, after] = op.regions as [Region, Region];
        op.operands.forEach((init, i) => holds(init) && mark(before.params[i]!));
        terminator(after).operands.forEach((y, i) => holds(y) && mark(before.params[i]!));
        terminator(before)
          .operands.slice(1)
          .forEach((f, i) => {
            if (holds(f)) {
              mark(after.params[i]!);
              mark(op.results[i]!);
            }
          });
        return;
      }
      default:
        return;
    }
  };
  while (changed) {
    changed = false;
    forEachOp(body, visit);
  }
  return [...found];
}
