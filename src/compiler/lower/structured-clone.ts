import type { CallExpression, Expression, Node } from "oxc-parser";
import { callArity, unknownCallee } from "../diagnostics/messages/index.js";
import { isArray, isObject } from "../ir/type-system.js";
import type { Type, Value } from "../ir/types.js";
import { parsedAt } from "./array-sort.js";
import type { LowerContext } from "./context.js";
import { copyArray, lowerValue } from "./members.js";

// `structuredClone(x)` of an array or an object of numbers (and text and booleans): a copy
// whose elements or fields are the original's values, with their derivatives, as a spread or
// slice copies them (`[...xs]`, `{ ...p }`; a typed array into one of its kind). Nothing in
// such a value can be shared, so the copy is exactly JavaScript's (-0, NaN and Infinity kept).
// A value holding arrays or objects is refused: structuredClone keeps which of its parts are
// the same object (`[row, row]` copies into two references to one new row), which copying
// each part apart would not.

const CLONED = "nabla$cloned";

/** Whether values of `type` hold no reference: numbers, text, booleans. */
function isPlain(type: Type): boolean {
  return type === "number" || type === "string" || type === "boolean";
}

/** `structuredClone(x)`: the copy, or a diagnostic saying why it is refused. */
export function lowerStructuredClone(ctx: LowerContext, node: CallExpression): Value {
  const [arg, ...rest] = node.arguments;
  if (!arg || rest.length > 0 || arg.type === "SpreadElement")
    return ctx.fail(node, callArity.takesArgumentHere("structuredClone", "1", ""));
  const value = ctx.lowerExpression(arg as Expression);
  const type = value.type;
  ctx.at(node);
  if (isArray(type) && isPlain(type.element) && (type.elements ?? []).every(isPlain)) {
    if (type.storage !== "Array") return copyArray(ctx, value, type);
    return copyBySpread(ctx, node, value, `[...${CLONED}]`);
  }
  if (
    isObject(type) &&
    type.classKey === undefined &&
    !ctx.literalAccessors.has(value) &&
    !ctx.boundObjects.has(value) &&
    type.fields.every((f) => isPlain(f.type) && !f.callable)
  )
    return copyBySpread(ctx, node, value, `({ ...${CLONED} })`);
  return ctx.fail(
    node.callee,
    isObject(type) && type.classKey !== undefined
      ? unknownCallee.structuredCloneOfInstance(type.name)
      : unknownCallee.cannotDifferentiateDeepCopy("structuredClone"),
  );
}

/** The copy `text` (a spread of `nabla$cloned`) makes of `value`, typed as `value` is. */
function copyBySpread(ctx: LowerContext, at: Node, value: Value, text: string): Value {
  const [statement] = parsedAt(`${text};`, at);
  const expression = (statement as { expression: Expression }).expression;
  return ctx.inScope(() => {
    ctx.declare(CLONED, "const", value.type, value);
    return lowerValue(ctx, expression, value.type);
  });
}
