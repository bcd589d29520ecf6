import { forEachOp } from "./walk.js";
import { eliminateDeadCode } from "./dce.js";
import type { IRFunction, Op, Type, Value } from "./types.js";
import { sameType } from "./type-system.js";
import { substituteValues } from "./substitute.js";
import { definedInside, highestValueId } from "./value-ids.js";

// Scalar replacement of small arrays and objects written as literals (`[a, b, c]`, `{ x, y }`)
// and only read, at positions known at compile time: each read becomes the value written
// there, and the literal, no longer used, is dropped. An `if` whose branches both yield such
// a literal (a function returning a different triple in each branch) gets one result per
// element instead. For derivatives this means no shadow arrays to allocate and save: after
// inlining (inline.ts), `cross(w, p)[1]` is just a number.

interface Use {
  op: Op;
  index: number;
}

/** Replaces reads of literal arrays and objects by their elements; returns whether it did. */
export function scalarizeLiterals(fn: IRFunction): boolean {
  let changed = false;
  for (;;) {
    const step = scalarizeOnce(fn);
    if (!step) return changed;
    changed = true;
    eliminateDeadCode(fn);
  }
}

function scalarizeOnce(fn: IRFunction): boolean {
  const definitions = new Map<number, Op>();
  const uses = new Map<number, Use[]>();
  forEachOp(fn.body, (op) => {
    op.operands.forEach((v, index) => {
      let list = uses.get(v.id);
      if (!list) uses.set(v.id, (list = []));
      list.push({ op, index });
    });
    for (const r of op.results) definitions.set(r.id, op);
  });
  const usesOf = (v: Value) => uses.get(v.id) ?? [];
  /** The position a read names, when it is a constant (an integer for `index`). */
  const position = (read: Op): number | string | undefined => {
    if (read.opcode === "field") return read.attrs.field;
    if (read.opcode !== "index") return undefined;
    const k = definitions.get(read.operands[1]!.id);
    return k?.opcode === "const" && typeof k.attrs.value === "number" ? k.attrs.value : undefined;
  };
  /**
   * The operand of a literal at a read's position, if the read is of a known position and
   * reads it as its own type (a `Circle` stored in a `Shape[]` is read as a `Shape`).
   */
  const element = (literal: Op, read: Op): Value | undefined => {
    const found = elementAt(literal, read);
    return found && sameType(found.type, read.results[0]!.type) ? found : undefined;
  };
  const elementAt = (literal: Op, read: Op): Value | undefined => {
    const type = literal.results[0]!.type;
    const at = position(read);
    if (typeof type !== "object" || at === undefined) return undefined;
    if (type.kind === "array") {
      if (read.opcode !== "index" || type.storage !== "Array") return undefined;
      return Number.isInteger(at) ? literal.operands[at as number] : undefined;
    }
    if (read.opcode !== "field" || type.kind !== "object") return undefined;
    const i = type.fields.findIndex((f) => f.name === at);
    return i >= 0 ? literal.operands[i] : undefined;
  };
  /** Whether every use of `v` reads a known position of `literal` (as a read's operand 0). */
  const onlyKnownReads = (v: Value, literal: Op, except?: Op) =>
    usesOf(v).every(
      (u) => u.op === except || (u.index === 0 && element(literal, u.op) !== undefined),
    );

  const replacement = new Map<number, Value>();
  let changed = false;
  let top = highestValueId(fn);
  const newValue = (type: Type, hint: string): Value => ({ id: ++top, type, hint });

  // Reads of a literal that nothing else uses (so nothing can write it).
  const literals = [...definitions.values()].filter(
    (op, i, all) => op.opcode === "literal" && all.indexOf(op) === i,
  );
  for (const literal of literals) {
    const v = literal.results[0]!;
    const list = usesOf(v);
    if (list.length === 0 || !onlyKnownReads(v, literal)) continue;
    for (const u of list) replacement.set(u.op.results[0]!.id, element(literal, u.op)!);
    changed = true;
  }

  // An `if` result that is a literal in each branch, read only at known positions.
  const ifs = [...new Set(definitions.values())].filter((op) => op.opcode === "if");
  for (const op of ifs) {
    for (let i = 0; i < op.results.length; i++) {
      const r = op.results[i]!;
      const type = r.type;
      if (typeof type !== "object" || type.kind !== "array" || !type.elements) continue;
      if (type.storage !== "Array") continue;
      const yields = op.regions.map((region) => region.ops[region.ops.length - 1]!);
      const branchLiterals = yields.map((y) => definitions.get(y.operands[i]!.id));
      if (
        !branchLiterals.every(
          (l, b) =>
            l?.opcode === "literal" &&
            l.operands.length === type.elements!.length &&
            l.operands.every((e, k) => sameType(e.type, type.elements![k]!)) &&
            onlyKnownReads(l.results[0]!, l, yields[b]) &&
            usesOf(l.results[0]!).filter((u) => u.op === yields[b]).length === 1,
        )
      )
        continue;
      const reads = usesOf(r);
      if (reads.length === 0 || !onlyKnownReads(r, branchLiterals[0]!)) continue;
      // One result per element; the array result, no longer read, is dropped by DCE.
      const fresh = type.elements.map((t: Type) => newValue(t, r.hint));
      op.results.push(...fresh);
      yields.forEach((y, b) => y.operands.push(...branchLiterals[b]!.operands));
      for (const u of reads) {
        const k = position(u.op) as number;
        replacement.set(u.op.results[0]!.id, fresh[k]!);
      }
      changed = true;
    }
  }

  if (!changed) return false;
  substituteValues(fn.body, replacement);
  return true;
}

/**
 * Packs the numbers a closure reads from the function around it into one array made right
 * before the closure, which the closure reads them back from. V8 keeps each number a closure
 * captures in a box of its own (an allocation per number, each time the closure is made);
 * an array literal of numbers is one allocation holding them unboxed. The backward sweep of
 * a pullback (vjpFunction) reads dozens of the forward sweep's numbers.
 */
export function packClosureCaptures(fn: IRFunction): void {
  const definitions = new Map<number, Op>();
  forEachOp(fn.body, (op) => {
    for (const r of op.results) definitions.set(r.id, op);
  });
  let top = highestValueId(fn);
  const fresh = (type: Type, hint: string): Value => ({ id: ++top, type, hint });
  const body = fn.body;
  for (const closure of body.ops.filter((op) => op.opcode === "closure")) {
    const region = closure.regions[0]!;
    const inside = definedInside(closure);
    const captured: Value[] = [];
    const seen = new Set<number>();
    forEachOp(region, (op) => {
      for (const v of op.operands) {
        if (v.type !== "number" || inside.has(v.id) || seen.has(v.id)) continue;
        const def = definitions.get(v.id);
        // Constants and module-level names are written into the code, not captured.
        if (def?.opcode === "const" || def?.opcode === "global") continue;
        seen.add(v.id);
        captured.push(v);
      }
    });
    if (captured.length < 2) continue;
    const record = fresh({ kind: "array", storage: "Array", element: "number" }, "saved");
    body.ops.splice(body.ops.indexOf(closure), 0, {
      opcode: "literal",
      operands: captured,
      results: [record],
      regions: [],
      attrs: {},
      loc: closure.loc,
    });
    const loads: Op[] = [];
    const replaced = new Map<number, Value>();
    captured.forEach((v, k) => {
      const at = fresh("number", "");
      const value = fresh("number", v.hint);
      loads.push(
        {
          opcode: "const",
          operands: [],
          results: [at],
          regions: [],
          attrs: { value: k },
          loc: closure.loc,
        },
        {
          opcode: "index",
          operands: [record, at],
          results: [value],
          regions: [],
          attrs: {},
          loc: closure.loc,
        },
      );
      replaced.set(v.id, value);
    });
    substituteValues(region, replaced);
    region.ops.unshift(...loads);
  }
}
