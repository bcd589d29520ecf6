import type { CallExpression, Expression, Node } from "oxc-parser";
import { typeMismatch, unsupportedSyntax } from "../diagnostics/messages/index.js";
import { isArray, typeText } from "../ir/type-system.js";
import type { Value } from "../ir/types.js";
import type { ParamInfo } from "../types/signature.js";
import type { LowerContext } from "./context.js";
import { copyArray, lowerValue } from "./members.js";
import { readsOnly } from "./reads-only.js";

// Spread arguments and rest parameters in calls of the program's functions: `h(...args)`
// passes the elements of a tuple (or of an array, as the last argument) one per parameter,
// and `sum(x, ...xs, 3)` packs the trailing arguments into the callee's rest parameter, an
// array (`function sum(...xs: number[])` takes one array argument once lowered). Every
// argument is evaluated once, in order, into a name hidden from the program; the call is then
// the plain call of those names, which the rest of lowering knows.

/** Whether `node` needs rewriting: it spreads an argument, or the callee has a rest parameter. */
export function needsExpansion(node: CallExpression, params: readonly ParamInfo[]): boolean {
  if ((node as { expanded?: boolean }).expanded) return false;
  return node.arguments.some((a) => a.type === "SpreadElement") || params.some((p) => p.rest);
}

/**
 * The call with its arguments expanded and packed: one argument per parameter, the rest
 * parameter's an array literal. Arguments for parameters `isFunction` are left as written
 * (function values are resolved from their text). Call it inside a scope of its own.
 */
export function expandArguments(
  ctx: LowerContext,
  node: CallExpression,
  params: readonly ParamInfo[],
  isFunction: (position: number) => boolean,
): CallExpression {
  const restIndex = params.findIndex((p) => p.rest);
  const fixed = restIndex < 0 ? params.length : restIndex;
  const rest = restIndex < 0 ? undefined : params[restIndex]!;
  const restElement = rest?.type && isArray(rest.type) ? rest.type.element : undefined;
  const positional: Node[] = [];
  const packed: Node[] = [];
  const intoRest = () => rest !== undefined && positional.length >= fixed;
  const place = (e: Node) => (intoRest() ? packed : positional).push(e);
  node.arguments.forEach((arg, i) => {
    if (arg.type !== "SpreadElement") {
      if (!intoRest() && isFunction(positional.length)) positional.push(arg);
      else {
        const expected = intoRest() ? restElement : params[positional.length]?.type;
        place(hidden(ctx, arg, evaluate(ctx, arg as Expression, expected)));
      }
      return;
    }
    const lowered = ctx.lowerExpression(arg.argument);
    if (!isArray(lowered.type)) {
      return ctx.fail(arg, typeMismatch.spreadArgumentMustBeArray(typeText(lowered.type)));
    }
    // Its elements as they are now: an argument after it may change the array (reads-only.ts).
    const later = node.arguments.slice(i + 1);
    const copied = !lowered.type.elements && !later.every(readsOnly);
    const spread = copied ? copyArray(ctx, lowered, lowered.type) : lowered;
    const name = hidden(ctx, arg.argument, spread);
    // A tuple's length is its type's; `...(xs as [V, V, V])` asserts one the array's type lacks.
    const length = lowered.type.elements?.length ?? assertedTupleLength(arg.argument);
    if (length !== undefined) {
      for (let k = 0; k < length; k++) place(elementOf(name, k, arg));
      return;
    }
    // Inside the rest parameter's array, it is spread as in an array literal.
    if (intoRest()) {
      packed.push(spreadOf(name, arg));
      return;
    }
    // An array whose length is known only when it runs: the parameters after it would
    // depend on it, so it must come last. It fills the parameters left, and the rest.
    if (i !== node.arguments.length - 1) {
      return ctx.fail(arg, unsupportedSyntax.spreadOfArrayMustBeLast());
    }
    const start = positional.length;
    for (let k = 0; start + k < fixed; k++) positional.push(elementOf(name, k, arg));
    if (rest) packed.push(spreadOf(sliceOf(name, Math.max(0, fixed - start), arg), arg));
  });
  if (rest) {
    // Fixed parameters given nothing are undefined, so the rest array lands in its place.
    while (positional.length < fixed) positional.push(undefinedAt(node));
    positional.push({
      type: "ArrayExpression",
      elements: packed,
      start: node.start,
      end: node.end,
    } as unknown as Node);
  }
  return { ...node, arguments: positional, expanded: true } as unknown as CallExpression;
}

/**
 * The length of the tuple type `node` is asserted to have (`xs as [number, number]`,
 * `<[V, V]>xs`), if it is one of fixed length.
 */
function assertedTupleLength(node: Node): number | undefined {
  while (node.type === "ParenthesizedExpression") node = node.expression;
  if (node.type !== "TSAsExpression" && node.type !== "TSTypeAssertion") return undefined;
  let asserted = node.typeAnnotation;
  while (asserted.type === "TSTypeOperator" && asserted.operator === "readonly")
    asserted = asserted.typeAnnotation;
  if (asserted.type !== "TSTupleType") return undefined;
  const fixed = asserted.elementTypes.every(
    (e) =>
      e.type !== "TSOptionalType" &&
      e.type !== "TSRestType" &&
      !(e.type === "TSNamedTupleMember" && (e.optional || e.elementType.type === "TSRestType")),
  );
  return fixed ? asserted.elementTypes.length : undefined;
}

/** An argument lowered as a call lowers it: literals take the parameter's type. */
function evaluate(ctx: LowerContext, arg: Expression, expected: Value["type"] | undefined): Value {
  const literal =
    arg.type === "ArrayExpression" ||
    arg.type === "ObjectExpression" ||
    arg.type === "NewExpression" ||
    (arg.type === "Identifier" && arg.name === "undefined") ||
    (arg.type === "Literal" && arg.value === null);
  return literal ? lowerValue(ctx, arg, expected) : ctx.lowerExpression(arg);
}

/** Binds `value` to a name no identifier of the program can spell; returns a read of it. */
function hidden(ctx: LowerContext, at: Node, value: Value): Node {
  const name = `...${at.start}:${at.end}`;
  if (!value.hint) value.hint = "arg";
  ctx.declare(name, "const", value.type, value);
  return { type: "Identifier", name, start: at.start, end: at.end } as unknown as Node;
}

function elementOf(array: Node, k: number, at: Node): Node {
  return {
    type: "MemberExpression",
    object: array,
    property: { type: "Literal", value: k, raw: String(k), start: at.start, end: at.end },
    computed: true,
    optional: false,
    start: at.start,
    end: at.end,
  } as unknown as Node;
}

function sliceOf(array: Node, from: number, at: Node): Node {
  const callee = {
    type: "MemberExpression",
    object: array,
    property: { type: "Identifier", name: "slice", start: at.start, end: at.end },
    computed: false,
    optional: false,
    start: at.start,
    end: at.end,
  };
  const index = { type: "Literal", value: from, raw: String(from), start: at.start, end: at.end };
  return {
    type: "CallExpression",
    callee,
    arguments: [index],
    optional: false,
    start: at.start,
    end: at.end,
  } as unknown as Node;
}

function spreadOf(argument: Node, at: Node): Node {
  return { type: "SpreadElement", argument, start: at.start, end: at.end } as unknown as Node;
}

function undefinedAt(at: Node): Node {
  return { type: "Identifier", name: "undefined", start: at.end, end: at.end } as unknown as Node;
}
