import type { CallExpression, Expression, Node } from "oxc-parser";
import { callArity, unknownCallee } from "../diagnostics/messages/index.js";
import { isArray, isObject } from "../ir/type-system.js";
import type { ArrayType, Type, Value } from "../ir/types.js";
import { parsedAt } from "./array-sort.js";
import type { LowerContext } from "./context.js";
import { copyArray, lowerValue } from "./members.js";

// `structuredClone(x)` of an array or an object of numbers (and text and booleans): a copy
// whose elements or fields are the original's values, with their derivatives, as a spread or
// slice copies them (`[...xs]`, `{ ...p }`; a typed array into one of its kind). Nothing in
// such a value can be shared, so the copy is exactly JavaScript's (-0, NaN and Infinity kept).
//
// structuredClone also keeps which parts of a value are the same object (`[row, row]` copies
// into two references to one new row). An array of flat objects or of rows of numbers is
// copied element by element, an element that is an earlier one's object getting that one's
// copy. Deeper values (objects holding arrays, arrays of arrays of objects) are refused.

const CLONED = "nabla$cloned";
const COPY = "nabla$clone";

/** Whether values of `type` hold no reference: numbers, text, booleans. */
function isPlain(type: Type): boolean {
  return type === "number" || type === "string" || type === "boolean";
}

/** `structuredClone(x)`: the copy, or a diagnostic saying why it is refused. */
export function lowerStructuredClone(ctx: LowerContext, node: CallExpression): Value {
  const [arg, ...rest] = node.arguments;
  if (!arg || rest.length > 0 || arg.type === "SpreadElement")
    return ctx.fail(node, callArity.structuredCloneTakesOneArgument());
  const value = ctx.lowerExpression(arg as Expression);
  const type = value.type;
  ctx.at(node);
  if (isArray(type) && isPlain(type.element) && (type.elements ?? []).every(isPlain)) {
    if (type.storage !== "Array") return copyArray(ctx, value, type);
    return copyBySpread(ctx, node, value, `[...${CLONED}]`);
  }
  if (isFlatObject(ctx, type, value)) return copyBySpread(ctx, node, value, `({ ...${CLONED} })`);
  // `structuredClone(cells)`, `structuredClone(rows)`: each element copied once, an element
  // that is the same object as an earlier one (`fill(shared)`) made the same copy.
  if (
    isArray(type) &&
    type.storage === "Array" &&
    type.elements === undefined &&
    (isFlatObject(ctx, type.element) ||
      (isArray(type.element) && isPlain(type.element.element) && !type.element.elements))
  )
    return copySharing(ctx, node, value, type);
  return ctx.fail(
    node.callee,
    isObject(type) && type.classKey !== undefined
      ? unknownCallee.structuredCloneOfInstance(type.name)
      : unknownCallee.cannotDifferentiateDeepCopy("structuredClone"),
  );
}

/** An object of plain fields, not a class's instance nor one with functions or accessors. */
function isFlatObject(ctx: LowerContext, type: Type, value?: Value): boolean {
  return (
    isObject(type) &&
    type.classKey === undefined &&
    (value === undefined || (!ctx.literalAccessors.has(value) && !ctx.boundObjects.has(value))) &&
    type.fields.every((f) => isPlain(f.type) && !f.callable)
  );
}

/** The element copies, sharing where the elements are the same object. */
const COPY_SHARING = `for (let i = 0; i < ${CLONED}.length; i++) {
  let j = 0;
  while (j < i && ${CLONED}[j] !== ${CLONED}[i]) j++;
  ${COPY}.push(j < i ? ${COPY}[j] : ELEMENT);
}`;

/** `structuredClone` of an array of flat objects or of rows of numbers. */
function copySharing(ctx: LowerContext, at: Node, value: Value, type: ArrayType): Value {
  const element = isArray(type.element) ? `${CLONED}[i].slice()` : `{ ...${CLONED}[i] }`;
  const statements = parsedAt(COPY_SHARING.replace("ELEMENT", element), at);
  return ctx.inScope(() => {
    ctx.declare(CLONED, "const", type, value);
    const zero = ctx.builder.constant(0);
    const copy = ctx.builder.emit("alloc", [zero], [type], {}, [], "clone").results[0]!;
    ctx.declare(COPY, "const", type, copy);
    ctx.lowerStatements(statements);
    return copy;
  });
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
