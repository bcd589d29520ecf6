import type {
  ArrowFunctionExpression,
  CallExpression,
  Expression,
  Function as FunctionNode,
  Node,
  Statement,
  VariableDeclaration,
} from "oxc-parser";
import type { Value } from "../ir/types.js";
import type { LowerContext, Slot } from "./context.js";
import { returnsOnlyAtEnd } from "./inline-callback.js";

// What the lists written in place that have no run-time value share (function-lists.ts: a
// list of functions; object-lists.ts: a list of objects holding functions): each element is
// declared as a local of its own under a name no source can write (`layers[0]`), the list's
// uses are rewritten in terms of those names, and its methods take a callback written at the
// call, whose body is inlined.

/**
 * Each element declared as `const <prefix>[k] = element` (by `declare`, the lowering of a
 * `const` declaration); the names. `typedAt`: where the checker gives the element's type.
 */
export function declareElements(
  elements: readonly Node[],
  prefix: string,
  declare: (declaration: VariableDeclaration) => void,
  typedAt: (element: Node) => Node = (element) => element,
): string[] {
  return elements.map((element, k) => {
    const hidden = `${prefix}[${k}]`;
    const at = { start: element.start, end: element.end };
    const typed = typedAt(element);
    declare({
      type: "VariableDeclaration",
      kind: "const",
      declare: false,
      declarations: [
        {
          type: "VariableDeclarator",
          id: { type: "Identifier", name: hidden, start: typed.start, end: typed.end },
          init: element,
          definite: false,
          ...at,
        },
      ],
      ...at,
    } as unknown as VariableDeclaration);
    return hidden;
  });
}

/** The element names `lists` records for the list `node` names, if it names one. */
export function listNamed(
  ctx: LowerContext,
  node: Node,
  lists: WeakMap<Slot, string[]>,
): string[] | undefined {
  while (node.type === "ParenthesizedExpression" || node.type === "TSNonNullExpression")
    node = node.expression;
  if (node.type !== "Identifier") return undefined;
  const slot = ctx.scope.lookup(node.name);
  return slot ? lists.get(slot) : undefined;
}

/** `list.length` of a list `lists` records: the number of its elements; else undefined. */
export function listLength(
  ctx: LowerContext,
  node: Node,
  lists: WeakMap<Slot, string[]>,
): Value | undefined {
  if (node.type !== "MemberExpression" || node.computed) return undefined;
  if (node.property.type !== "Identifier" || node.property.name !== "length") return undefined;
  const names = listNamed(ctx, node.object, lists);
  return names ? ctx.builder.constant(names.length, "length") : undefined;
}

/** A name in rewritten code, placed at `at` for messages. */
export const syntheticIdentifier = (name: string, at: Node) =>
  ({ type: "Identifier", name, start: at.start, end: at.end }) as unknown as Expression;

/** A number written in rewritten code, placed at `at`. */
export const numberLiteral = (n: number, at: Node) =>
  ({
    type: "Literal",
    value: n,
    raw: String(n),
    start: at.start,
    end: at.end,
  }) as unknown as Expression;

/**
 * The callback of a list's `forEach((e, i) => …)` or folding method (`reduce((acc, e, i) => …,
 * x)`, `folds`), written at the call, not async, returning only at its end, with at most the
 * parameters the method passes; undefined when the call is not of that form.
 */
export function inlinableCallback(
  node: CallExpression,
  folds: boolean,
  plainParameters: boolean,
): (ArrowFunctionExpression | FunctionNode) | undefined {
  const [callback, initial, ...rest] = node.arguments;
  const written =
    callback?.type === "ArrowFunctionExpression" || callback?.type === "FunctionExpression";
  if (
    !written ||
    callback.async ||
    rest.length > 0 ||
    (folds ? initial === undefined || initial.type === "SpreadElement" : initial !== undefined) ||
    callback.params.length > (folds ? 3 : 2) ||
    (plainParameters && !callback.params.every((p) => p.type === "Identifier")) ||
    !returnsOnlyAtEnd(callback)
  )
    return undefined;
  return callback;
}

/** A callback's statements before its result, and the result (its last `return`'s, if any). */
export function callbackBody(callback: ArrowFunctionExpression | FunctionNode): {
  statements: Statement[];
  result: Expression | undefined;
} {
  if (callback.type === "ArrowFunctionExpression" && callback.expression)
    return { statements: [], result: callback.body as unknown as Expression };
  const inner = (callback.body as { body: Statement[] }).body;
  const last = inner[inner.length - 1];
  const returns = last?.type === "ReturnStatement";
  return {
    statements: returns ? inner.slice(0, -1) : inner,
    result: returns ? (last.argument ?? undefined) : undefined,
  };
}
