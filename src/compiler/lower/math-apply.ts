import type { CallExpression, Node } from "oxc-parser";
import type { LowerContext } from "./context.js";
import { mathMember } from "./math-functions.js";

// `Math.max.apply(null, xs)` and `Math.hypot.call(Math, a, b)`: the pre-spread idioms for
// calling a Math function on an array, read as the call they make (`Math.max(...xs)`,
// `Math.hypot(a, b)`). Math functions ignore `this`, so the receiver is dropped: only one
// whose evaluation does nothing (`null`, a name, `this`) is accepted, so nothing is lost.

/** Whether evaluating `node` has no effect, so leaving it out changes nothing. */
function isInertReceiver(node: Node): boolean {
  return (
    (node.type === "Literal" && node.value === null) ||
    node.type === "Identifier" ||
    node.type === "ThisExpression"
  );
}

/** The call `node` makes when it is `Math.f.apply(r, xs)` or `Math.f.call(r, …args)`. */
export function mathApplyAsCall(
  ctx: LowerContext,
  node: CallExpression,
): CallExpression | undefined {
  const callee = node.callee;
  if (
    callee.type !== "MemberExpression" ||
    callee.computed ||
    callee.property.type !== "Identifier"
  )
    return undefined;
  const how = callee.property.name;
  if (how !== "apply" && how !== "call") return undefined;
  if (mathMember(ctx, callee.object) === undefined) return undefined;
  const [receiver, ...rest] = node.arguments;
  if (!receiver || receiver.type === "SpreadElement" || !isInertReceiver(receiver))
    return undefined;
  if (how === "apply") {
    // `apply(r)` without an array calls with no arguments; an array written as a spread
    // (`apply(r, ...xs)`) is not the idiom.
    if (rest.length > 1 || rest[0]?.type === "SpreadElement") return undefined;
    const list = rest[0];
    const args = list
      ? [{ type: "SpreadElement", argument: list, start: list.start, end: list.end }]
      : [];
    return { ...node, callee: callee.object, arguments: args } as CallExpression;
  }
  return { ...node, callee: callee.object, arguments: rest } as CallExpression;
}
