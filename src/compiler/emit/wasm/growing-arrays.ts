import type { IRFunction, Op, Region } from "../../ir/types.js";
import { isArray } from "../../ir/type-system.js";

// Arrays a function lengthens (`push`, a spread into `[]`, `filter`, `flat`: lowering makes
// each an append, a `setIndex` marked "grow" at the array's length). In wasm memory an array's
// block has room for a number of elements (its capacity, kinds.ts); an append past it moves the
// array to a block twice as large (or extends the block where it lies, when it is the heap's
// last), so the array's address changes and only the value the append names learns the new one.
// That is sound only when nothing else holds the old address. So an array may grow only if
// the function made it (an array literal, or `new Array(n)` and the empty arrays lowering
// makes) and every use of it that can hand its address on —
// storing it into another array or object, passing it to a call, returning it, carrying it
// out of a branch or around a loop — runs after its last append: later in the code, and not
// inside a loop around both that does not also make the array anew at each iteration.

/** Uses that read or write an array's elements or length without handing its address on. */
function keepsAddress(op: Op, position: number): boolean {
  switch (op.opcode) {
    case "length":
    case "clear":
    case "zeros":
    case "truncate": // shortens it where it is (`pop`, `shift`, `length = n`)
      return true;
    case "index":
    case "setIndex":
    case "addIndex":
      return position === 0;
    default:
      return false;
  }
}

/** Where an op runs: its place in program order, and the loops around it (outermost first). */
interface Place {
  order: number;
  loops: readonly Op[];
}

export interface GrowingArrays {
  /** The arrays (value ids) the function makes and appends to, each made with room to grow. */
  growing: Set<number>;
  /** Why an append to array `id` cannot run in wasm, or undefined when it can. */
  whyNot(id: number): string | undefined;
}

export function growingArrays(fn: IRFunction): GrowingArrays {
  const places = new Map<Op, Place>();
  const definitions = new Map<number, Op>();
  const uses = new Map<number, { op: Op; position: number }[]>();
  let order = 0;
  const walk = (region: Region, loops: readonly Op[]): void => {
    for (const op of region.ops) {
      places.set(op, { order: order++, loops });
      op.results.forEach((r) => definitions.set(r.id, op));
      op.operands.forEach((v, position) => {
        if (!isArray(v.type)) return;
        const list = uses.get(v.id) ?? [];
        list.push({ op, position });
        uses.set(v.id, list);
      });
      const inner = op.opcode === "loop" ? [...loops, op] : loops;
      for (const region of op.regions) walk(region, inner);
    }
  };
  walk(fn.body, []);

  const growing = new Set<number>();
  const refused = new Map<number, string>();
  for (const [id, list] of uses) {
    const appends = list.filter((u) => isAppend(u.op) && u.position === 0).map((u) => u.op);
    if (appends.length === 0) continue;
    const made = definitions.get(id);
    if (made?.opcode !== "literal" && made?.opcode !== "alloc") {
      refused.set(
        id,
        "an array the function lengthens (push, a spread into []) that is not one array it made: an argument, a field, or a variable assigned several arrays",
      );
      continue;
    }
    const madeIn = places.get(made)!.loops;
    const handedOn = list.filter((u) => !keepsAddress(u.op, u.position)).map((u) => u.op);
    const early = handedOn.find((use) =>
      appends.some((append) => !after(places.get(use)!, places.get(append)!, madeIn)),
    );
    if (early) {
      refused.set(
        id,
        `an array the function lengthens (push, a spread into []) after handing it on (${handOnText(early)})`,
      );
      continue;
    }
    growing.add(id);
  }
  return { growing, whyNot: (id) => refused.get(id) };
}

/** An append: `array[array.length] = v`, as lowering writes `push` and spreads. */
export function isAppend(op: Op): boolean {
  return op.opcode === "setIndex" && op.attrs.value === "grow";
}

/**
 * Whether `use` runs after every run of `append`: later in program order, and with no loop
 * around both that the array is not made inside (its next iteration would append after it).
 */
function after(use: Place, append: Place, madeIn: readonly Op[]): boolean {
  if (use.order <= append.order) return false;
  return use.loops.every((loop) => !append.loops.includes(loop) || madeIn.includes(loop));
}

function handOnText(op: Op): string {
  switch (op.opcode) {
    case "call":
      return "passing it to a call";
    case "return":
      return "returning it";
    case "setIndex":
    case "setField":
    case "literal":
      return "storing it in another array or object";
    case "push":
      return "saving it for the backward sweep";
    default:
      return `a use by '${op.opcode}'`;
  }
}
