import type { ArrowFunctionExpression, Node } from "oxc-parser";
import { unsupportedSyntax } from "../diagnostics/messages/index.js";
import { MATH_FUNCTIONS } from "../rules/math.js";
import { isPlatformGlobal } from "../types/globals.js";
import type { LowerContext } from "./context.js";
import { mathMember } from "./math-functions.js";

// A built-in function handed to an array method as its callback: `xs.map(Math.abs)`,
// `xs.map(Number)`, `flags.filter(Boolean)`. The method calls it with more arguments than the
// element ((element, index, array); reduce's (accumulator, element, index, array)). A function
// that reads its first argument only is the arrow `(v) => f(v)`, exactly; one that reads more
// (parseInt takes the index as its radix, Math.max reads them all) is refused, since the
// program almost never means what JavaScript does with it.

/**
 * Math functions of one argument (and `Math.random`, of none): they read the first argument
 * only, so `(v) => Math.f(v)` is the same.
 */
const MATH_UNARY = new Set(
  (
    "abs acos acosh asin asinh atan atanh cbrt ceil clz32 cos cosh exp expm1 floor fround log " +
    "log10 log1p log2 round sign sin sinh sqrt tan tanh trunc"
  ).split(" "),
);

/** Globals that read their first argument only (`Number(value)`, `parseFloat(text)`). */
const GLOBALS_OF_ONE = new Set([
  "Number",
  "String",
  "Boolean",
  "parseFloat",
  "isNaN",
  "isFinite",
  "Number.isNaN",
  "Number.isFinite",
  "Number.isInteger",
  "Number.parseFloat",
  "Array.isArray",
]);

/** Globals that read their second argument too: the index, given where the element is read. */
const GLOBALS_READING_MORE: ReadonlyMap<string, string> = new Map([
  ["parseInt", "the second as its radix"],
  ["Number.parseInt", "the second as its radix"],
]);

/**
 * The callback `node` names when it is a built-in function, as the arrow calling it with the
 * first argument (`(v) => Math.tanh(v)`), placed where `node` is; undefined when it is not one.
 * `method` is the array method's name, for messages.
 */
export function builtinCallback(
  ctx: LowerContext,
  node: Node,
  method: string,
): ArrowFunctionExpression | undefined {
  const math = mathMember(ctx, node);
  if (math !== undefined) {
    const arity = MATH_FUNCTIONS.get(math)?.arity;
    if (MATH_UNARY.has(math) || arity === 1) return callingArrow(node, 1);
    if (arity === 0) return callingArrow(node, 0);
    if (arity === undefined) return undefined; // `Math.PI`: its own message (calls.ts)
    return ctx.fail(
      node,
      unsupportedSyntax.builtinCallbackReadsMore(
        `Math.${math}`,
        method,
        callArguments(method),
        arity === 2 ? "the first two" : "all of them",
        method === "reduce" || method === "reduceRight"
          ? `(a, b) => Math.${math}(a, b)`
          : `(v) => Math.${math}(v, …)`,
      ),
    );
  }
  const path = globalPath(ctx, node);
  if (path === undefined) return undefined;
  if (GLOBALS_OF_ONE.has(path)) return callingArrow(node, 1);
  const reads = GLOBALS_READING_MORE.get(path);
  if (reads === undefined) return undefined;
  return ctx.fail(
    node,
    unsupportedSyntax.builtinCallbackReadsMore(
      path,
      method,
      callArguments(method),
      reads,
      `(s) => ${path}(s, 10)`,
    ),
  );
}

/** What `.method` calls its callback with. */
function callArguments(method: string): string {
  if (method === "reduce" || method === "reduceRight")
    return "(accumulator, element, index, array)";
  if (method === "from") return "(element, index)";
  return "(element, index, array)";
}

/** `parseFloat`, `Number.isFinite`: the platform global `node` names, if it names one. */
function globalPath(ctx: LowerContext, node: Node): string | undefined {
  if (node.type === "Identifier")
    return isPlatformGlobal(ctx.module, node.name, ctx.scope) ? node.name : undefined;
  if (
    node.type !== "MemberExpression" ||
    node.computed ||
    node.object.type !== "Identifier" ||
    node.property.type !== "Identifier"
  )
    return undefined;
  const head = node.object.name;
  return isPlatformGlobal(ctx.module, head, ctx.scope)
    ? `${head}.${node.property.name}`
    : undefined;
}

/** The arrow `($v) => callee($v)` (or `() => callee()`), every node at the callee's place. */
function callingArrow(callee: Node, arity: 0 | 1): ArrowFunctionExpression {
  const at = { start: callee.start, end: callee.end };
  const params = arity === 0 ? [] : [{ type: "Identifier", name: "$v", ...at }];
  return {
    type: "ArrowFunctionExpression",
    expression: true,
    async: false,
    params,
    body: { type: "CallExpression", callee, arguments: params, optional: false, ...at },
    ...at,
  } as unknown as ArrowFunctionExpression;
}
