import type { CallExpression, Expression } from "oxc-parser";
import { callArity, typeMismatch, unsupportedSyntax } from "../diagnostics/messages/index.js";
import { assignable, isArray, sameType, typeText } from "../ir/type-system.js";
import type { ArrayType, Value } from "../ir/types.js";
import type { LowerContext } from "./context.js";
import { article } from "./describe.js";
import { expectType } from "./expect-type.js";
import { copyArray, copyInto, countedLoop, lowerValue } from "./members.js";

// Array methods that join and reorder: `a.concat(b, x)` (a new array: the receiver's
// elements, then each argument's — an array's elements, or the value itself) and
// `a.reverse()` (in place, returning the same array, as JavaScript's). `.entries()`, `.keys()`
// and `.values()` are read by index where a for…of iterates them (for-of-sources.ts).

/** `array.method(…)` for the methods of this file; undefined for another method. */
export function lowerOrderMethod(
  ctx: LowerContext,
  node: CallExpression,
  array: Value,
  method: string,
): Value | undefined {
  const type = array.type as ArrayType;
  switch (method) {
    case "concat":
      return lowerConcat(ctx, node, array, type);
    case "reverse": {
      if (node.arguments.length > 0)
        return ctx.fail(node, callArity.takesArgumentHere(method, 0, "s"));
      if (type.elements && !type.elements.every((t) => sameType(t, type.elements![0]!)))
        return ctx.fail(node, unsupportedSyntax.reverseNeedsOneElementType(typeText(type)));
      reverseInPlace(ctx, array, type);
      return array;
    }
    case "toReversed": {
      // A reversed copy; the array stays as it is.
      if (node.arguments.length > 0)
        return ctx.fail(node, callArity.takesArgumentHere(method, 0, "s"));
      if (type.elements && !type.elements.every((t) => sameType(t, type.elements![0]!)))
        return ctx.fail(node, unsupportedSyntax.reverseNeedsOneElementType(typeText(type)));
      const copy = copyArray(ctx, array, {
        kind: "array",
        storage: type.storage,
        element: type.element,
      });
      reverseInPlace(ctx, copy, copy.type as ArrayType);
      return copy;
    }
    case "entries":
    case "keys":
    case "values":
      return ctx.fail(node, unsupportedSyntax.iteratorOutsideForOf(method));
    default:
      return undefined;
  }
}

function lowerConcat(
  ctx: LowerContext,
  node: CallExpression,
  array: Value,
  type: ArrayType,
): Value {
  const b = ctx.builder;
  if (type.storage !== "Array" || type.elements)
    return ctx.fail(node, unsupportedSyntax.concatNeedsPlainArray(typeText(type)));
  // The arguments run first, as JavaScript evaluates them before the call.
  const parts = node.arguments.map((arg) => {
    if (arg.type === "SpreadElement")
      return ctx.fail(arg, unsupportedSyntax.spreadArgumentsAreNotSupported());
    // `xs.concat([y], [])`: a literal takes the receiver's type, an object literal its
    // element type.
    const v =
      arg.type === "ArrayExpression"
        ? lowerValue(ctx, arg, type)
        : arg.type === "ObjectExpression"
          ? lowerValue(ctx, arg, type.element)
          : ctx.lowerExpression(arg as Expression);
    return { node: arg, value: v };
  });
  ctx.at(node);
  const out = b.emit("alloc", [b.constant(0)], [type], {}, [], "joined").results[0]!;
  copyInto(ctx, out, array);
  for (const { node: at, value } of parts) {
    const v = value.type;
    // An array argument is spread (JavaScript spreads every array, `rows.concat(row)` too).
    if (isArray(v)) {
      if (v.elements) {
        // A tuple: its elements one by one, each of the element type.
        v.elements.forEach((t, k) => {
          const e = b.emit("index", [value, b.constant(k)], [t]).results[0]!;
          push(ctx, out, expectType(ctx, at, e, type.element));
        });
      } else {
        if (!assignable(v.element, type.element))
          ctx.fail(at, typeMismatch.expectedHereGot(article(type), article(v)));
        copyInto(ctx, out, value);
      }
    } else {
      push(ctx, out, expectType(ctx, at, value, type.element));
    }
  }
  return out;
}

function push(ctx: LowerContext, array: Value, v: Value): void {
  const at = ctx.builder.emit("length", [array], ["number"]).results[0]!;
  ctx.builder.emit("setIndex", [array, at, v], [], { value: "grow" });
}

/**
 * Swaps the elements at `k` and `n - 1 - k` for `k < n / 2`: for an odd length the middle
 * element is swapped with itself, which leaves it.
 */
function reverseInPlace(ctx: LowerContext, array: Value, type: ArrayType): void {
  const b = ctx.builder;
  const n = b.emit("length", [array], ["number"]).results[0]!;
  const last = b.binary("sub", n, b.constant(1));
  countedLoop(ctx, b.binary("mul", n, b.constant(0.5)), (k) => {
    const mirror = b.binary("sub", last, k);
    const front = b.emit("index", [array, k], [type.element]).results[0]!;
    const back = b.emit("index", [array, mirror], [type.element]).results[0]!;
    b.emit("setIndex", [array, k, back], []);
    b.emit("setIndex", [array, mirror, front], []);
  });
}
