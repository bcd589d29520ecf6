import type {
  CallExpression,
  Expression,
  ForOfStatement,
  Node,
  Statement,
  VariableDeclaration,
} from "oxc-parser";
import type { Value } from "../ir/types.js";
import type { LowerContext, Slot } from "./context.js";
import { isFactoryCall } from "./factories.js";
import { namesFunction } from "./names-function.js";

// A local `const` array of functions written in place, as pipelines are written:
// `const layers = [(v) => v * a, Math.tanh, relu, scaleStage(k)]`. It has no run-time value: each element is
// declared as a local function of its own (named `layers[0]`, `layers[1]`…, names no source
// can write), and the array's uses are rewritten in terms of them:
// - `for (const f of layers) body` loops over an index, with `f` the element it picks
//   (`i === 0 ? layers[0] : …`, a choice of local functions, lowered as such: function-values.ts);
// - `layers[i](x)` and `layers[2](x)` call the element the index picks, and an index past the
//   end calls no function: JavaScript's TypeError when it runs;
// - `layers.length` is the number of elements.
// Any other use (`layers.map(…)`, `layers.push(…)`, passing it on) is reported by
// lowerIdentifier; the array cannot change, since nothing else can reach it.

/** The element names of the local function lists, by the list's slot. */
const LISTS = new WeakMap<Slot, string[]>();

/** Whether `init` is an array literal of functions: arrows, function expressions, names of functions, Math members. */
function isListOfFunctions(ctx: LowerContext, init: Node | null | undefined): boolean {
  if (init?.type !== "ArrayExpression" || init.elements.length === 0) return false;
  return init.elements.every(
    (e) =>
      e !== null &&
      (e.type === "ArrowFunctionExpression" ||
        e.type === "FunctionExpression" ||
        (e.type === "Identifier" &&
          (ctx.module.functions.has(e.name) || isLocalFunction(ctx, e.name))) ||
        // `Math.tanh`, or a function field of an object (`Math.tanh` of a `Math` the module
        // declares itself, `scenario.load`).
        (e.type === "MemberExpression" && namesFunction(ctx, e)) ||
        // `scaleStage(k)`: the function a factory makes (factories.ts).
        isFactoryCall(ctx, e)),
  );
}

function isLocalFunction(ctx: LowerContext, name: string): boolean {
  const slot = ctx.scope.lookup(name);
  return slot !== undefined && (ctx.closures.has(slot) || ctx.bound.has(slot));
}

/**
 * `const name = [f, g, …]` of functions: its elements declared (by `declare`, the lowering of a
 * `const` declaration) and the list recorded. False if `init` is not such a list.
 */
export function declareFunctionList(
  ctx: LowerContext,
  name: string,
  init: Node | null | undefined,
  declare: (declaration: VariableDeclaration) => void,
): boolean {
  if (!isListOfFunctions(ctx, init) || init?.type !== "ArrayExpression") return false;
  const names = init.elements.map((element, k) => {
    const hidden = `${name}[${k}]`;
    const at = { start: element!.start, end: element!.end };
    // Where the checker gives the element's function type: `tanh` of `Math.tanh`.
    const typed = element!.type === "MemberExpression" ? element!.property : element!;
    const id = { start: typed.start, end: typed.end };
    declare({
      type: "VariableDeclaration",
      kind: "const",
      declare: false,
      declarations: [
        {
          type: "VariableDeclarator",
          id: { type: "Identifier", name: hidden, ...id },
          init: element,
          definite: false,
          ...at,
        },
      ],
      ...at,
    } as unknown as VariableDeclaration);
    return hidden;
  });
  LISTS.set(ctx.declareFunctionName(name), names);
  return true;
}

/** The element names of the function list `node` names, if it names one. */
export function functionListOf(ctx: LowerContext, node: Node): string[] | undefined {
  while (node.type === "ParenthesizedExpression" || node.type === "TSNonNullExpression")
    node = node.expression;
  if (node.type !== "Identifier") return undefined;
  const slot = ctx.scope.lookup(node.name);
  return slot ? LISTS.get(slot) : undefined;
}

const identifier = (name: string, at: Node) =>
  ({ type: "Identifier", name, start: at.start, end: at.end }) as unknown as Expression;

/**
 * The element `index` picks, as a chain of conditionals over the element names; past the last,
 * `last` (the last element where the index cannot be out of range, else `undefined`).
 */
function pick(names: string[], index: Expression, at: Node, inRange: boolean): Expression {
  const span = { start: at.start, end: at.end };
  const count = inRange ? names.length - 1 : names.length;
  let chain: Expression = identifier(inRange ? names[names.length - 1]! : "undefined", at);
  for (let k = count - 1; k >= 0; k--) {
    chain = {
      type: "ConditionalExpression",
      test: {
        type: "BinaryExpression",
        operator: "===",
        left: index,
        right: { type: "Literal", value: k, raw: String(k), ...span },
        ...span,
      },
      consequent: identifier(names[k]!, at),
      alternate: chain,
      ...span,
    } as unknown as Expression;
  }
  return chain;
}

/** `for (const f of layers) body`, as a loop over an index with `f` the element it picks. */
export function forOfFunctionList(ctx: LowerContext, node: ForOfStatement): Statement | undefined {
  const names = functionListOf(ctx, node.right);
  if (!names) return undefined;
  const left = node.left;
  if (
    left.type !== "VariableDeclaration" ||
    left.declarations.length !== 1 ||
    left.declarations[0]!.id.type !== "Identifier"
  )
    return undefined;
  const at = node.right;
  const span = { start: at.start, end: at.end };
  const index = `${(node.right as { name: string }).name}[index]`;
  const element = {
    ...left,
    kind: "const",
    declarations: [
      { ...left.declarations[0]!, init: pick(names, identifier(index, at), at, true) },
    ],
  };
  return {
    type: "ForStatement",
    init: {
      type: "VariableDeclaration",
      kind: "let",
      declare: false,
      declarations: [
        {
          type: "VariableDeclarator",
          id: identifier(index, at),
          init: { type: "Literal", value: 0, raw: "0", ...span },
          definite: false,
          ...span,
        },
      ],
      ...span,
    },
    test: {
      type: "BinaryExpression",
      operator: "<",
      left: identifier(index, at),
      right: { type: "Literal", value: names.length, raw: String(names.length), ...span },
      ...span,
    },
    update: {
      type: "UpdateExpression",
      operator: "++",
      prefix: false,
      argument: identifier(index, at),
      ...span,
    },
    body: { type: "BlockStatement", body: [element, node.body], start: node.start, end: node.end },
    start: node.start,
    end: node.end,
  } as unknown as Statement;
}

/** `layers[i](x)`: the call of the element the index picks (a name or a number). */
export function callOfListElement(
  ctx: LowerContext,
  node: CallExpression,
): CallExpression | undefined {
  let callee: Node = node.callee;
  while (callee.type === "TSNonNullExpression" || callee.type === "ParenthesizedExpression")
    callee = callee.expression;
  if (callee.type !== "MemberExpression" || !callee.computed) return undefined;
  const names = functionListOf(ctx, callee.object);
  if (!names) return undefined;
  const index = callee.property;
  if (index.type !== "Identifier" && !(index.type === "Literal" && typeof index.value === "number"))
    return undefined;
  return { ...node, callee: pick(names, index as Expression, callee, false) };
}

/** `layers.length`: the number of elements. */
export function lengthOfFunctionList(ctx: LowerContext, node: Node): Value | undefined {
  if (node.type !== "MemberExpression" || node.computed) return undefined;
  if (node.property.type !== "Identifier" || node.property.name !== "length") return undefined;
  const names = functionListOf(ctx, node.object);
  return names ? ctx.builder.constant(names.length, "length") : undefined;
}

/** Whether `slot` is a function list's (its name is no value: see lowerIdentifier). */
export function isFunctionList(slot: Slot): boolean {
  return LISTS.has(slot);
}
