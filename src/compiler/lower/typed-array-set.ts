import type { CallExpression, Expression } from "oxc-parser";
import { callArity, typeMismatch } from "../diagnostics/messages/index.js";
import { isArray, sameType, typeText } from "../ir/type-system.js";
import type { ArrayType, Value } from "../ir/types.js";
import { parsedAt } from "./array-sort.js";
import type { LowerContext } from "./context.js";

// `buffer.set(source, offset)` of a typed array: the source's elements copied in order from
// `offset` on, as JavaScript copies them, lowered from the TypeScript below. JavaScript first
// checks that they fit (a RangeError, nothing copied, when they do not) and truncates the
// offset (NaN as 0). The source is an array of numbers; the copy goes through the target's stores, so a
// Float32Array rounds each number as it does.

const TARGET = "nabla$target";
const SOURCE = "nabla$source";
const OFFSET = "nabla$offset";

const COPY = `{
  const at = ${OFFSET} !== ${OFFSET} ? 0 : Math.trunc(${OFFSET});
  if (!(at >= 0) || at + ${SOURCE}.length > ${TARGET}.length) throw new RangeError("offset is out of bounds");
  for (let k = 0; k < ${SOURCE}.length; k++) ${TARGET}[at + k] = ${SOURCE}[k];
}`;

/** `target.set(source, offset?)`; undefined, as JavaScript's. */
export function lowerTypedArraySet(ctx: LowerContext, node: CallExpression, target: Value): Value {
  const args = node.arguments as Expression[];
  if (args.length < 1 || args.length > 2 || node.arguments.some((a) => a.type === "SpreadElement"))
    return ctx.fail(node, callArity.takesArgumentHere("set", "1 to 2", "s"));
  const element = (target.type as ArrayType).element;
  // `buf.set([a, b])`: a literal is an array of the target's element type.
  const source =
    args[0]!.type === "ArrayExpression"
      ? ctx.lowerValue(args[0]!, { kind: "array", storage: "Array", element })
      : ctx.lowerExpression(args[0]!);
  if (!isArray(source.type) || !sameType(source.type.element, element))
    return ctx.fail(
      args[0]!,
      typeMismatch.expectedHereGot(`an array of ${typeText(element)}s`, typeText(source.type)),
    );
  const offset = args[1] ? ctx.lowerExpression(args[1]) : ctx.builder.constant(0);
  if (offset.type !== "number")
    return ctx.fail(args[1]!, typeMismatch.expectedHereGot("a number", typeText(offset.type)));
  ctx.inScope(() => {
    ctx.declare(TARGET, "const", target.type, target);
    ctx.declare(SOURCE, "const", source.type, source);
    ctx.declare(OFFSET, "const", "number", offset);
    ctx.lowerStatements(parsedAt(COPY, node));
  });
  return ctx.builder.newValue("void");
}
