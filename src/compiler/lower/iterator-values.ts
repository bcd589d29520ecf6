import type { Expression } from "oxc-parser";
import { isArray } from "../ir/type-system.js";
import type { Value } from "../ir/types.js";
import type { LowerContext } from "./context.js";

// `[...xs.values()]` and `Array.from(xs.values())`: the iterator of an array's values, spread
// or collected into a new array at once, is the array's elements; the spread or `from` copies
// them as it does the array's. Only there: an iterator kept in a variable runs out once
// iterated, which an array would not.

/** The array `node` iterates when it is `xs.values()` of an array `xs` named directly. */
export function valuesIteratorArray(ctx: LowerContext, node: Expression): Value | undefined {
  if (node.type !== "CallExpression" || node.arguments.length > 0 || node.optional)
    return undefined;
  const callee = node.callee;
  if (callee.type !== "MemberExpression" || callee.computed || callee.optional) return undefined;
  if (callee.property.type !== "Identifier" || callee.property.name !== "values") return undefined;
  // A name or `this.field`: read here to see its type and, when not an array, read again as the
  // call's receiver, which changes nothing.
  const receiver = callee.object;
  const inert =
    receiver.type === "Identifier" ||
    (receiver.type === "MemberExpression" &&
      receiver.object.type === "ThisExpression" &&
      !receiver.computed);
  if (!inert) return undefined;
  const array = ctx.lowerExpression(receiver as Expression);
  return isArray(array.type) ? array : undefined;
}
