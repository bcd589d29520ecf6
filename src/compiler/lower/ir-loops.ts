import type { ArrayType, Value } from "../ir/types.js";
import type { LowerContext } from "./context.js";

// Counted loops built directly in IR, for what lowering expands into loops (array methods,
// copies, the keys of a record) rather than lowers from a loop the user wrote.

/**
 * Builds `for (let i = 0; i < array.length; i++) body(i)` directly in IR. The body must not
 * assign variables of the enclosing function (callers that lower user code use lowerLoop).
 */
export function forEachIndex(ctx: LowerContext, array: Value, body: (i: Value) => void): void {
  countedLoop(ctx, ctx.builder.emit("length", [array], ["number"]).results[0]!, body);
}

/** `for (let i = 0; i < count; i++) body(i)` in IR, for loops that assign no user variable. */
export function countedLoop(ctx: LowerContext, count: Value, body: (i: Value) => void): void {
  const b = ctx.builder;
  const start = b.constant(0, "i");
  const before = { params: [b.newValue("number", "i")], ops: [] };
  b.inRegion(before, () => {
    const more = b.compare("lt", before.params[0]!, count);
    b.emit("condition", [more, before.params[0]!], []);
  });
  const after = { params: [b.newValue("number", "i")], ops: [] };
  b.inRegion(after, () => {
    body(after.params[0]!);
    b.emit("yield", [b.binary("add", after.params[0]!, b.constant(1))], []);
  });
  b.emit("loop", [start], ["number"], {}, [before, after], ["i"]);
}

/** Appends every element of `source` to `target` (a plain array), as an IR loop. */
export function copyInto(ctx: LowerContext, target: Value, source: Value): void {
  forEachIndex(ctx, source, (i) => {
    const v = ctx.builder.emit("index", [source, i], [(source.type as ArrayType).element])
      .results[0]!;
    const at = ctx.builder.emit("length", [target], ["number"]).results[0]!;
    ctx.builder.emit("setIndex", [target, at, v], [], { value: "grow" });
  });
}
