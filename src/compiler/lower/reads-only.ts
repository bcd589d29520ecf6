import type { Node } from "oxc-parser";

// Whether evaluating an expression can change anything: where JavaScript copies a spread's
// array before later elements or arguments run (`[...xs, xs.push(x)]`), nabla copies it only
// when one of those may write (members.ts, spread-arguments.ts).

/** An element that reads and changes nothing: a name, a literal, a field or element of those. */
export function readsOnly(e: Node): boolean {
  switch (e.type) {
    case "Identifier":
    case "Literal":
    case "ThisExpression":
      return true;
    case "SpreadElement":
    case "ParenthesizedExpression":
    case "TSAsExpression":
    case "TSNonNullExpression":
      return readsOnly("argument" in e ? e.argument : e.expression);
    case "ChainExpression":
      return readsOnly(e.expression);
    case "MemberExpression":
      return readsOnly(e.object) && (!e.computed || readsOnly(e.property));
    case "UnaryExpression":
      return e.operator !== "delete" && readsOnly(e.argument);
    case "BinaryExpression":
      return readsOnly(e.left) && readsOnly(e.right);
    default:
      return false;
  }
}
