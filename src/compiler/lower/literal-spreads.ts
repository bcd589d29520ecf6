import type { ArrayExpression, CallExpression, Node } from "oxc-parser";

// `Math.max(x, ...[])`, `f(...[a, b])`, `[x, ...[y]]`: spreading an array literal gives its
// elements, in order, as JavaScript's iteration of the fresh array does; so they are written
// in its place and the literal is never built. (An empty one, `[]`, could not be: it has no
// element type.) A literal with holes (`[, a]`) is left as it is: it spreads undefined.

/** The array literal `node` is, through parentheses, if it has no holes. */
function spreadableLiteral(node: Node): ArrayExpression | undefined {
  while (node.type === "ParenthesizedExpression") node = node.expression;
  if (node.type !== "ArrayExpression" || node.elements.some((e) => e === null)) return undefined;
  return node;
}

/** `items` (arguments or array elements) with every spread array literal in them written out. */
function withLiteralSpreadsInlined<T>(items: readonly T[]): T[] {
  return items.flatMap((item) => {
    const node = item as Node | null;
    const literal = node?.type === "SpreadElement" ? spreadableLiteral(node.argument) : undefined;
    return literal ? withLiteralSpreadsInlined(literal.elements as T[]) : [item];
  });
}

const spreadsALiteral = (items: readonly (Node | null)[]) =>
  items.some((e) => e?.type === "SpreadElement" && spreadableLiteral(e.argument) !== undefined);

/** The call with the array literals it spreads written out; the call itself if it has none. */
export function callWithLiteralSpreadsInlined(node: CallExpression): CallExpression {
  if (!spreadsALiteral(node.arguments)) return node;
  return { ...node, arguments: withLiteralSpreadsInlined(node.arguments) };
}

/** The array literal with the array literals it spreads written out; itself if it has none. */
export function arrayWithLiteralSpreadsInlined(node: ArrayExpression): ArrayExpression {
  if (!spreadsALiteral(node.elements)) return node;
  return { ...node, elements: withLiteralSpreadsInlined(node.elements) };
}
