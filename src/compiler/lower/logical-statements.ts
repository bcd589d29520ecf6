import type { ExpressionStatement, IfStatement } from "oxc-parser";

// `v > 0 && log.push(v);`, `done || step();`: an `&&` or `||` written for its right side's
// effect, its value dropped. As a statement it is an `if`, whatever the right side's type
// (as an expression nabla needs both sides of one kind).

/** The `if` a statement `a && b;` or `a || b;` means; undefined for any other statement. */
export function logicalStatementAsIf(node: ExpressionStatement): IfStatement | undefined {
  const e = node.expression;
  if (e.type !== "LogicalExpression" || (e.operator !== "&&" && e.operator !== "||"))
    return undefined;
  const at = { start: e.start, end: e.end };
  const test =
    e.operator === "&&"
      ? e.left
      : { type: "UnaryExpression", operator: "!", argument: e.left, ...at };
  return {
    type: "IfStatement",
    test,
    consequent: { type: "ExpressionStatement", expression: e.right, ...at },
    alternate: null,
    ...at,
  } as IfStatement;
}
