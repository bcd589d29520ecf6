import { basename } from "node:path";
import { positionAt } from "../diagnostics/format.js";
import { Builder } from "../ir/builder.js";
import { holeShape } from "../ir/hole-shapes.js";
import type { Op, Region, Value } from "../ir/types.js";
import { terminator } from "../ir/walk.js";
import type { LowerContext } from "./context.js";
import {
  checkedAsTheyRun,
  holeWrites,
  isPlainArray,
  leftBy,
  raiseIfHole,
  type HoleWrite,
} from "./hole-checks.js";

// Holes past the function that made them. hole-checks.ts stops the function's own array
// methods at a hole; what else meets one would compute on undefined: an element read (NaN in
// forward mode, while reverse mode drops the hole's adjoint and gives a number), or another
// function's `reduce` over the array a call returned, or a field holds. So, in a function
// whose writes may leave holes (and only there: elsewhere nothing changes), each such write
// is looked after in one of two ways, both raising a RangeError at run time, in both modes:
// - as it runs, at a counter counting 0, 1, 2… (`out[i] = …` filling an array in order), or
//   into a row of another array (`grid[r][c] = …`): the write stops when its index lies past
//   the array's end. These checks are compares, which the wasm backend runs too;
// - otherwise (filled from the back, every other element, at computed places, where a hole
//   may be filled later): a read of an element of the array stops at a hole, unless the
//   program tests the element itself (`v ?? 0`, `v === undefined`, as `for…of` over holes
//   may), and where the array leaves the function (given back, kept in a field or a parameter,
//   put in another array, passed to a call) the runtime's refuseHoles looks it through: before
//   the call, at the end of the function or of the loop iteration that made it.

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
  const asTheyRun = checkedAsTheyRun(body, writes);
  const b = new Builder(ctx.builder.values, body, ctx.builder.loc);
  const where = (offset: number) => {
    const { line, column } = positionAt(ctx.module.text, offset);
    return `${basename(ctx.module.file)}:${line}:${column}`;
  };

  /** The arrays looked after as they are read and leave, by value id. */
  const watched = new Map<number, HoleWrite>();
  for (const w of writes) {
    if (w.store && asTheyRun.has(w)) {
      const region = ir.regionOf.get(w.store);
      if (region) insertWriteCheck(b, region, w.store, where(w.at), name);
      continue;
    }
    const key = ir.fresh(w.array) ? w.array : ir.root(w.array);
    if (!watched.has(key.id)) watched.set(key.id, w);
  }
  if (watched.size === 0) return;

  // Element reads of those arrays, unless the program tests what they give.
  for (const [op, region] of ir.regionOf) {
    if (op.opcode !== "index" || visitedReads.has(op) || !isPlainArray(op.operands[0]!)) continue;
    const w = watched.get(op.operands[0]!.id);
    if (!w || ir.tested(op.results[0]!)) continue;
    const text = ctx.module.text.slice(op.loc.start, op.loc.end);
    const shown = /^[\w$.[\]]{1,40}$/.test(text) ? `'${text}' at` : "the element read at";
    const message =
      `nabla: ${shown} ${where(op.loc.start)} met a hole (an element never written, left ` +
      `by ${leftBy(w, where)}); JavaScript reads undefined ` +
      `there, which nabla's derivative code has no derivative for. Write every element ` +
      `before reading it, e.g. with push or fill.`;
    region.ops.splice(region.ops.indexOf(op) + 1, 0, ...raiseIfHole(b, op, message));
  }

  // The arrays leaving the function, where they leave.
  const before = `nabla: '${name}' (${where(start)}) hands on an array with a hole at `;
  const after = (w: HoleWrite, to: string) =>
    `${to} (an element never written, left by ${leftBy(w, where)}); ` +
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
      const w = watched.get(v.id) ?? watched.get(ir.root(v).id);
      if (!w || passed.has(v.id)) continue;
      passed.add(v.id);
      const callee = op.attrs.calleeName ?? op.attrs.callee?.split("#").pop() ?? "a function";
      insertBefore(region, op, v, w, ` to '${callee}' at ${where(op.loc.start)}`);
    }
  }
  for (const [id, w] of watched) {
    const array = ir.value(id);
    if (ir.fresh(array) && !ir.escapes(array)) continue;
    const region = ir.definedIn(array) ?? body;
    insertBefore(region, terminator(region), array, w);
  }
}

/**
 * Before `store` (`a[k] = v`): a RangeError when k is a whole number past a's end, which
 * would leave the elements between unwritten.
 */
function insertWriteCheck(b: Builder, region: Region, store: Op, at: string, name: string): void {
  const [array, index] = store.operands as [Value, Value];
  b.loc = store.loc;
  const check: Region = { params: [], ops: [] };
  b.inRegion(check, () => {
    const length = b.emit("length", [array], ["number"]).results[0]!;
    const past = b.compare("gt", index, length);
    const whole = b.compare("eq", b.math("floor", [index]), index);
    const leaves = b.logical("and", past, whole);
    const stop: Region = { params: [], ops: [] };
    b.inRegion(stop, () => {
      b.emit(
        "extern",
        [
          b.constant("RangeError"),
          b.constant(`nabla: the write at ${at} in '${name}' would leave a hole: index `),
          index,
          b.constant(" is past the end of the array (length "),
          length,
          b.constant(
            "), so an element before it is never written. JavaScript's array methods skip " +
              "holes and reading one gives undefined, nabla's derivative code does neither. " +
              "Write the elements in order, e.g. with push, or fill the array first.",
          ),
        ],
        ["void"],
        { callee: "nabla:raise" },
      );
      b.emit("yield", [], []);
    });
    const pass: Region = { params: [], ops: [] };
    b.inRegion(pass, () => b.emit("yield", [], []));
    b.emit("if", [leaves], [], {}, [stop, pass]);
  });
  region.ops.splice(region.ops.indexOf(store), 0, ...check.ops);
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
  return {
    regionOf,
    /** The array or object `v` was read from, through elements and fields (`rows[r]`, `o.xs`). */
    root: (v: Value): Value => {
      for (;;) {
        const op = definition.get(v.id);
        if (!op || (op.opcode !== "index" && op.opcode !== "field")) return v;
        v = op.operands[0]!;
      }
    },
    value: (id: number) => values.get(id)!,
    /** Whether the function made the array `v` (a literal, an allocation). */
    fresh: (v: Value): boolean => {
      const op = definition.get(v.id);
      return op?.opcode === "alloc" || op?.opcode === "literal";
    },
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
     * Whether the array `a` may be seen outside the function: used other than by reading,
     * writing and measuring its elements (returned, stored, passed, carried by a loop).
     */
    escapes: (a: Value): boolean =>
      (users.get(a.id) ?? []).some((op) =>
        op.opcode === "setIndex" || op.opcode === "setField"
          ? op.operands[op.operands.length - 1] === a
          : !STAYS.has(op.opcode),
      ),
  };
}
