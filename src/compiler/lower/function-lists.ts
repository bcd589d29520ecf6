import type {
  CallExpression,
  Expression,
  ForOfStatement,
  Node,
  Statement,
  VariableDeclaration,
} from "oxc-parser";
import type { Value } from "../ir/types.js";
import { closureCapture } from "../diagnostics/messages/index.js";
import type { LowerContext, Slot } from "./context.js";
import {
  callbackBody,
  declareElements,
  inlinableCallback,
  listLength,
  listNamed,
  syntheticIdentifier,
} from "./list-elements.js";
import { isFactoryCall } from "./factory-of.js";
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
// - `layers.reduce((v, f) => f(v), x)`, `.reduceRight` and `.forEach` with a callback written
//   at the call loop over the index as for…of does (a compose helper's `fns.reduceRight`);
// - a factory's rest parameter given functions (`compose(...fns: Fn[])`) is such a list, its
//   elements declared where the factory is called (factories.ts).
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
  const names = declareElements(init.elements as Node[], name, declare, typedAt);
  LISTS.set(ctx.declareFunctionName(name), names);
  return true;
}

/**
 * `...fns: Fn[]` of a factory called with functions (`compose(Math.sin, (v) => v * v)`): the
 * arguments declared where the call is, under hidden names starting with `prefix`, as a list's
 * elements are; their names, or undefined if some argument is not a function.
 */
export function declareArgumentList(
  ctx: LowerContext,
  args: readonly Node[],
  prefix: string,
): string[] | undefined {
  if (args.length === 0) return [];
  const at = { start: args[0]!.start, end: args[args.length - 1]!.end };
  const list = { type: "ArrayExpression", elements: args, ...at } as unknown as Node;
  if (!isListOfFunctions(ctx, list)) return undefined;
  return declareElements(args, prefix, (d) => ctx.lowerStatements([d as Statement]), typedAt);
}

/** Records `name`, declared in the current scope, as the function list of `names`. */
export function declareListName(ctx: LowerContext, name: string, names: string[]): void {
  LISTS.set(ctx.declareFunctionName(name), names);
}

/** The element names of the function list `node` names, if it names one. */
export function functionListOf(ctx: LowerContext, node: Node): string[] | undefined {
  return listNamed(ctx, node, LISTS);
}

const identifier = syntheticIdentifier;

/** Where the checker gives an element's function type: `tanh` of `Math.tanh`. */
const typedAt = (element: Node): Node =>
  element.type === "MemberExpression" ? element.property : element;

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
  return listLength(ctx, node, LISTS);
}

/** Whether `slot` is a function list's (its name is no value: see lowerIdentifier). */
export function isFunctionList(slot: Slot): boolean {
  return LISTS.has(slot);
}

/** The methods of a list of functions lowered as loops over it. */
const LOOPING_METHODS = new Set(["reduce", "reduceRight", "forEach"]);

/**
 * `fns.reduceRight((acc, f) => f(acc), x)`, `fns.reduce(…, x)`, `fns.forEach((f) => …)` of a
 * function list, with a callback written at the call: a loop over the index, the callback's
 * parameters declared in its body (the element as the element the index picks, as for…of
 * does), its result the accumulator's next value. Undefined when `node` is no such call.
 */
export function lowerFunctionListMethod(
  ctx: LowerContext,
  node: CallExpression,
): Value | undefined {
  const callee = node.callee;
  if (callee.type !== "MemberExpression" || callee.computed) return undefined;
  if (callee.property.type !== "Identifier" || !LOOPING_METHODS.has(callee.property.name))
    return undefined;
  const names = functionListOf(ctx, callee.object);
  if (!names) return undefined;
  const method = callee.property.name;
  const folds = method !== "forEach";
  const callback = inlinableCallback(node, folds, true);
  if (!callback) return ctx.fail(node, closureCapture.functionListMethodForm(method, folds));
  const initial = node.arguments[1];
  const at = callee.object;
  const span = { start: node.start, end: node.end };
  const acc = "nabla$accumulator";
  const index = "nabla$index";
  const id = (name: string) => identifier(name, at);
  const constant = (name: string, init: Expression) =>
    ({
      type: "VariableDeclaration",
      kind: "const",
      declare: false,
      declarations: [{ type: "VariableDeclarator", id: id(name), init, definite: false, ...span }],
      ...span,
    }) as unknown as Statement;
  // The callback's parameters: (accumulator, element, index) or (element, index).
  const params = callback.params.map((p) => (p as { name: string }).name);
  const bound: Expression[] = folds
    ? [id(acc), pick(names, id(index), at, true), id(index)]
    : [pick(names, id(index), at, true), id(index)];
  const body: Statement[] = params.map((p, k) => constant(p, bound[k]!));
  const { statements, result } = callbackBody(callback);
  body.push(...statements);
  if (result && folds)
    body.push({
      type: "ExpressionStatement",
      expression: {
        type: "AssignmentExpression",
        operator: "=",
        left: id(acc),
        right: result,
        ...span,
      },
      ...span,
    } as unknown as Statement);
  else if (result)
    body.push({ type: "ExpressionStatement", expression: result, ...span } as unknown as Statement);
  const last = names.length - 1;
  const backwards = method === "reduceRight";
  const literal = (n: number) =>
    ({ type: "Literal", value: n, raw: String(n), ...span }) as unknown as Expression;
  const loop = {
    type: "ForStatement",
    init: {
      type: "VariableDeclaration",
      kind: "let",
      declare: false,
      declarations: [
        {
          type: "VariableDeclarator",
          id: id(index),
          init: literal(backwards ? last : 0),
          definite: false,
          ...span,
        },
      ],
      ...span,
    },
    test: {
      type: "BinaryExpression",
      operator: backwards ? ">=" : "<",
      left: id(index),
      right: literal(backwards ? 0 : names.length),
      ...span,
    },
    update: {
      type: "UpdateExpression",
      operator: backwards ? "--" : "++",
      prefix: false,
      argument: id(index),
      ...span,
    },
    body: { type: "BlockStatement", body, ...span },
    ...span,
  } as unknown as Statement;
  return ctx.inScope(() => {
    if (folds) {
      const start = ctx.lowerExpression(initial as Expression);
      ctx.declare(acc, "let", start.type, start);
    }
    ctx.lowerStatements([loop]);
    ctx.at(node);
    return folds ? ctx.value(ctx.scope.lookup(acc)!) : ctx.builder.newValue("void");
  });
}
