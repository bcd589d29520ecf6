import type { Expression, Node } from "oxc-parser";
import { isArray } from "../ir/type-system.js";
import type { LowerContext } from "./context.js";

// What a for…of iterates, when it is an array's iterator: `xs.entries()`, `xs.keys()`,
// `xs.values()`. The loop reads the array by index as it goes (`[i, xs[i]]`, `i`, `xs[i]`),
// as JavaScript's iterators read it, so an element the body writes ahead is seen when reached.
// Other sources are iterated as they are.

export interface ForOfSource {
  /** What the loop holds and indexes. */
  iterated: Expression;
  /** The value bound at each index (the element read, by default). */
  element?: (array: Node, index: Node) => Node;
}

const ITERATORS = new Set(["entries", "keys", "values"]);

/** The source of a for…of over `right`; the receiver of an iterator call is lowered here. */
export function forOfSource(ctx: LowerContext, right: Expression): ForOfSource {
  if (
    right.type !== "CallExpression" ||
    right.optional ||
    right.arguments.length > 0 ||
    right.callee.type !== "MemberExpression" ||
    right.callee.computed ||
    right.callee.optional ||
    right.callee.property.type !== "Identifier" ||
    !ITERATORS.has(right.callee.property.name)
  ) {
    return { iterated: right };
  }
  const method = right.callee.property.name;
  const receiver = right.callee.object as Expression;
  const value = ctx.lowerExpression(receiver);
  // Held under a name no identifier of the program can spell, and read from there.
  const name = `.${method}@${right.start}`;
  if (!value.hint) value.hint = "iterated";
  ctx.declare(name, "const", value.type, value);
  const at = { start: receiver.start, end: receiver.end };
  const held = { type: "Identifier", name, ...at } as unknown as Expression;
  // Not an array (a class's own `entries()`…): the call as written, on the value held.
  if (!isArray(value.type)) {
    return { iterated: { ...right, callee: { ...right.callee, object: held } } as Expression };
  }
  const read = (array: Node, index: Node) =>
    ({
      type: "MemberExpression",
      object: array,
      property: index,
      computed: true,
      optional: false,
      ...at,
    }) as unknown as Node;
  if (method === "values") return { iterated: held };
  if (method === "keys") return { iterated: held, element: (_, index) => index };
  return {
    iterated: held,
    element: (array, index) =>
      ({
        type: "ArrayExpression",
        elements: [index, read(array, index)],
        ...at,
      }) as unknown as Node,
  };
}
