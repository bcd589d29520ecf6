import type { ArrowFunctionExpression, Node } from "oxc-parser";
import { NUMBER_CONSTANTS } from "../rules/math.js";
import { isPlatformGlobal } from "../types/globals.js";
import type { LowerContext } from "./context.js";

// `Math.f` as written (and the constants of `Number`): called (`Math.sin(x)`, lowered in
// calls.ts) or handed to an array method as its callback (`pre.map(Math.tanh)`,
// builtin-callbacks.ts) or to a local function (`row(Math.cos)`, mathCallback below).

/** The name of the platform's Math function `node` names (`Math.sin`), if it names one. */
export function mathMember(ctx: LowerContext, node: Node): string | undefined {
  if (node.type !== "MemberExpression" || node.computed || node.property.type !== "Identifier")
    return undefined;
  const object = node.object;
  // `Math.sin`, or `globalThis.Math.sin` where the program has a `Math` of its own.
  const platform =
    object.type === "Identifier"
      ? object.name === "Math" && isPlatformGlobal(ctx.module, "Math", ctx.scope)
      : object.type === "MemberExpression" &&
        !object.computed &&
        object.object.type === "Identifier" &&
        object.object.name === "globalThis" &&
        object.property.type === "Identifier" &&
        object.property.name === "Math" &&
        isPlatformGlobal(ctx.module, "globalThis", ctx.scope);
  return platform ? node.property.name : undefined;
}

/**
 * Math functions of one argument: handed to `map`, `forEach` or `reduce`, which call their
 * callback with more arguments, they read the first only, so `(v) => Math.f(v)` is the same.
 */
const UNARY = new Set(
  (
    "abs acos acosh asin asinh atan atanh cbrt ceil cos cosh exp expm1 floor fround log log10 " +
    "log1p log2 round sign sin sinh sqrt tan tanh trunc"
  ).split(" "),
);

/** `xs.map(Math.tanh)`: the callback as the arrow `(v) => Math.tanh(v)`, at the same place. */
export function mathCallback(
  ctx: LowerContext,
  node: Node,
  /** Annotate its parameter `number`, for a caller that reads the arrow's own types. */
  typed = false,
): ArrowFunctionExpression | undefined {
  const name = mathMember(ctx, node);
  if (name === undefined || !UNARY.has(name)) return undefined;
  const at = { start: node.start, end: node.end };
  const annotation = {
    type: "TSTypeAnnotation",
    typeAnnotation: { type: "TSNumberKeyword", ...at },
    ...at,
  };
  const v = {
    type: "Identifier",
    name: "$v",
    ...(typed ? { typeAnnotation: annotation } : {}),
    ...at,
  };
  return {
    type: "ArrowFunctionExpression",
    expression: true,
    async: false,
    params: [v],
    body: {
      type: "CallExpression",
      callee: node,
      arguments: [{ type: "Identifier", name: "$v", ...at }],
      optional: false,
      ...at,
    },
    ...at,
  } as unknown as ArrowFunctionExpression;
}

/** `Number.EPSILON` and the other constants of the platform's `Number`; undefined otherwise. */
export function numberConstant(ctx: LowerContext, node: Node): number | undefined {
  if (node.type !== "MemberExpression" || node.computed || node.property.type !== "Identifier")
    return undefined;
  const object = node.object;
  if (object.type !== "Identifier" || object.name !== "Number") return undefined;
  if (!isPlatformGlobal(ctx.module, "Number", ctx.scope)) return undefined;
  return NUMBER_CONSTANTS.get(node.property.name);
}
