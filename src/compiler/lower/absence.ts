import type { Node } from "oxc-parser";
import type { Value } from "../ir/types.js";
import { isPlatformGlobal } from "../types/globals.js";
import type { LowerContext } from "./context.js";

// `undefined` and `null` as written, and the exact test for undefined: shared by the nullish
// tests of values (expressions.ts, members.ts) and of function values (function-values.ts).

/** Which absence `node` writes: the platform's `undefined`, or `null` (else undefined). */
export function absentLiteral(ctx: LowerContext, node: Node): "undefined" | "null" | undefined {
  if (node.type === "Literal" && node.value === null && !("regex" in node && node.regex))
    return "null";
  const isUndefined =
    node.type === "Identifier" &&
    node.name === "undefined" &&
    !ctx.scope.lookup("undefined") &&
    isPlatformGlobal(ctx.module, "undefined", ctx.scope);
  return isUndefined ? "undefined" : undefined;
}

/** `v === undefined`, exactly (not `== null`). */
export function isUndefinedValue(ctx: LowerContext, v: Value): Value {
  const absent = ctx.builder.emit("const", [], [v.type], {}, [], "").results[0]!;
  return ctx.builder.emit("nondiff", [v, absent], ["boolean"], { callee: "===" }).results[0]!;
}
