import { basename } from "node:path";
import { positionAt } from "../diagnostics/format.js";
import { Builder } from "../ir/builder.js";
import { holeShape } from "../ir/hole-shapes.js";
import { isAggregate } from "../ir/type-system.js";
import type { Op, Region, Value } from "../ir/types.js";
import { terminator } from "../ir/walk.js";
import type { LowerContext } from "./context.js";
import { holeWrites, isPlainArray, type HoleWrite } from "./hole-checks.js";

// Holes past the function that made them. hole-checks.ts stops the function's own array
// methods at a hole; what else meets one would compute on undefined: an element read (NaN in
// forward mode, while reverse mode drops the hole's adjoint and gives a number), or another
// function's `reduce` over the array a call returned, or a field holds. So, in a function
// whose writes may leave holes (and only there: elsewhere nothing changes):
// - a read of an element of an array it wrote so stops at a hole, unless the program tests
//   the element itself (`v ?? 0`, `v === undefined`, as `for…of` over holes may);
// - an array it wrote so that leaves it (given back, kept in a field or a parameter, put in
//   another array, passed to a call) is looked through for holes (the runtime's refuseHoles,
//   into nested arrays and fields) where it leaves: before each call it is passed to, and at
//   the end of the function (or of the loop iteration that made it).
// Both are run-time checks, in both modes, which raise a RangeError naming the write.

/** Adds the checks to `body`, the lowered function `name` (written at `start`). */
export function checkEscapingHoles(
  ctx: LowerContext,
  body: Region,
  name: string,
  start: number,
  visitedReads: ReadonlySet<Op>,
): void {
  const writes = holeWrites(ctx, body);
  if (writes.length === 0) return;
  const ir = indexed(body);
  const written = new Map<number, HoleWrite>();
  for (const w of writes) {
    const root = ir.root(w.array);
    if (!written.has(root.id)) written.set(root.id, w);
  }
  const b = new Builder(ctx.builder.values, body, ctx.builder.loc);
  const where = (offset: number) => {
    const { line, column } = positionAt(ctx.module.text, offset);
    return `${basename(ctx.module.file)}:${line}:${column}`;
  };

  // Element reads of those arrays, unless the program tests what they give.
  for (const [op, region] of ir.regionOf) {
    if (op.opcode !== "index" || visitedReads.has(op) || !isPlainArray(op.operands[0]!)) continue;
    const w = written.get(ir.root(op.operands[0]!).id);
    if (!w || ir.tested(op.results[0]!)) continue;
    const text = ctx.module.text.slice(op.loc.start, op.loc.end);
    const shown = /^[\w$.[\]]{1,40}$/.test(text) ? `'${text}' at` : "the element read at";
    const message =
      `nabla: ${shown} ${where(op.loc.start)} met a hole (an element never written, left ` +
      `by the write past the array's end at ${where(w.at)}); JavaScript reads undefined ` +
      `there, which nabla's derivative code has no derivative for. Write every element ` +
      `before reading it, e.g. with push or fill.`;
    const check = raiseIfHole(b, op, message);
    region.ops.splice(region.ops.indexOf(op) + 1, 0, ...check);
  }

  // The arrays leaving the function, where they leave.
  const before = `nabla: '${name}' (${where(start)}) hands on an array with a hole at `;
  const after = (w: HoleWrite, to: string) =>
    `${to} (an element never written, left by the write past the array's end at ${where(w.at)}); ` +
    `JavaScript's array methods skip holes and reading one gives undefined, nabla's ` +
    `derivative code does neither. Write every element, e.g. with push or fill.`;
  // A method's `this` is its first parameter, "self" in the IR.
  const shownName = (v: Value) =>
    v === body.params[0] && v.hint === "self" ? "this" : v.hint || "the array";
  const insertBefore = (region: Region, op: Op, value: Value, w: HoleWrite, to = "") => {
    b.loc = op.loc;
    const check: Region = { params: [], ops: [] };
    b.inRegion(check, () => {
      b.emit(
        "extern",
        [
          value,
          b.constant(shownName(value)),
          b.constant(JSON.stringify(holeShape(value.type) ?? 0)),
          b.constant(before),
          b.constant(after(w, to)),
        ],
        ["void"],
        { callee: "nabla:refuseHoles" },
      );
    });
    region.ops.splice(region.ops.indexOf(op), 0, ...check.ops);
  };
  for (const [op, region] of [...ir.regionOf]) {
    if (op.opcode !== "call") continue;
    const passed = new Set<number>();
    for (const v of op.operands) {
      const w = written.get(ir.root(v).id);
      if (!w || passed.has(v.id)) continue;
      passed.add(v.id);
      const callee = op.attrs.calleeName ?? op.attrs.callee?.split("#").pop() ?? "a function";
      insertBefore(region, op, v, w, ` to '${callee}' at ${where(op.loc.start)}`);
    }
  }
  for (const [id, w] of written) {
    const root = ir.value(id);
    if (!ir.escapes(root)) continue;
    const region = ir.definedIn(root) ?? body;
    insertBefore(region, terminator(region), root, w);
  }
}

/** An `if` raising a RangeError with `message` when `read` gives undefined (a hole). */
function raiseIfHole(b: Builder, read: Op, message: string): Op[] {
  const check: Region = { params: [], ops: [] };
  b.loc = read.loc;
  b.inRegion(check, () => {
    const hole = b.unary("nullish", read.results[0]!);
    const stop: Region = { params: [], ops: [] };
    b.inRegion(stop, () => {
      b.emit("extern", [b.constant("RangeError"), b.constant(message)], ["void"], {
        callee: "nabla:raise",
      });
      b.emit("yield", [], []);
    });
    const pass: Region = { params: [], ops: [] };
    b.inRegion(pass, () => b.emit("yield", [], []));
    b.emit("if", [hole], [], {}, [stop, pass]);
  });
  return check.ops;
}

/** Uses of an array that keep it inside the function: reading, writing into, measuring it. */
const STAYS = new Set(["index", "length", "field", "truncate", "nullish"]);

/** What the checks need to know of the function's IR. */
function indexed(body: Region) {
  const definition = new Map<number, Op>();
  const regionOf = new Map<Op, Region>();
  const paramOf = new Map<number, Region>();
  const users = new Map<number, Op[]>();
  const values = new Map<number, Value>();
  const visit = (region: Region) => {
    for (const p of region.params) {
      paramOf.set(p.id, region);
      values.set(p.id, p);
    }
    for (const op of region.ops) {
      regionOf.set(op, region);
      for (const r of op.results) {
        definition.set(r.id, op);
        values.set(r.id, r);
      }
      for (const v of op.operands) {
        const list = users.get(v.id);
        if (list) list.push(op);
        else users.set(v.id, [op]);
      }
      op.regions.forEach(visit);
    }
  };
  visit(body);
  /** The array or object `v` was read from, through elements and fields (`rows[r]`, `o.xs`). */
  const root = (v: Value): Value => {
    for (;;) {
      const op = definition.get(v.id);
      if (!op || (op.opcode !== "index" && op.opcode !== "field")) return v;
      v = op.operands[0]!;
    }
  };
  return {
    regionOf,
    root,
    value: (id: number) => values.get(id)!,
    /** The region `v` is made in, unless that is the function's body. */
    definedIn: (v: Value): Region | undefined => {
      const op = definition.get(v.id);
      const region = op ? regionOf.get(op) : paramOf.get(v.id);
      return region === body ? undefined : region;
    },
    /** Whether the program tests the element `v` for undefined (`v ?? d`, `v === undefined`). */
    tested: (v: Value): boolean =>
      (users.get(v.id) ?? []).some(
        (op) =>
          op.opcode === "nullish" ||
          (op.opcode === "nondiff" && (op.attrs.callee === "===" || op.attrs.callee === "!==")),
      ),
    /**
     * Whether the array or object `r` may be seen outside the function: given to it, or made
     * anywhere but here (a call's result), or used, or an element or field of it used, other
     * than by reading and writing its elements.
     */
    escapes: (r: Value): boolean => {
      const made = definition.get(r.id);
      if (!made || (made.opcode !== "alloc" && made.opcode !== "literal")) return true;
      const derived = (v: Value): boolean =>
        (users.get(v.id) ?? []).some((op) => {
          if (op.opcode === "setIndex" || op.opcode === "setField")
            return op.operands[op.operands.length - 1] === v;
          if (!STAYS.has(op.opcode)) return true;
          // An element or field that is an array or object may leave in its turn.
          return (
            (op.opcode === "index" || op.opcode === "field") &&
            isAggregate(op.results[0]!.type) &&
            derived(op.results[0]!)
          );
        });
      return derived(r);
    },
  };
}
