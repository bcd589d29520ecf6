import type { Node } from "oxc-parser";
import { isArray } from "../ir/type-system.js";
import type { Value } from "../ir/types.js";
import type { ParamInfo } from "../types/signature.js";
import type { LowerContext } from "./context.js";
import { expectType } from "./expect-type.js";

// A function with a rest parameter (`function sum(...xs: number[])`) takes one array once
// lowered; calls written in the source pack their arguments (spread-arguments.ts), and a call
// of it as a function value passed on packs the values it was given, here.

/**
 * Already lowered arguments of a call of a function with a rest parameter (a function passed
 * on, `apply(sum, x, y)`): the trailing ones packed into the rest parameter's array.
 */
export function packRestArguments(
  ctx: LowerContext,
  at: Node,
  params: readonly ParamInfo[],
  args: Value[],
): Value[] {
  const restIndex = params.findIndex((p) => p.rest);
  const type = params[restIndex]?.type;
  if (restIndex < 0 || !type || !isArray(type) || type.elements) return args;
  const fixed = args.slice(0, restIndex);
  while (fixed.length < restIndex) fixed.push(absent(ctx, params[fixed.length]!.type));
  const packed = args.slice(restIndex).map((a) => expectType(ctx, at, a, type.element));
  ctx.at(at);
  return [...fixed, ctx.builder.emit("literal", packed, [type]).results[0]!];
}

function absent(ctx: LowerContext, type: Value["type"] | undefined): Value {
  return ctx.builder.emit("const", [], [type ?? "number"], {}, [], "").results[0]!;
}
