import type { Node } from "oxc-parser";
import { isObject } from "../ir/type-system.js";
import { isArrowField } from "./arrow-fields.js";
import type { LowerContext } from "./context.js";
import { mathMember } from "./math-functions.js";

// What names a function by its form, where a `const` is declared (`const act = Math.tanh`) or
// a list of functions is written (`[squash, Math.tanh, (v) => v + 1]`).

/** Whether an initializer is a function value by its form: a function's name, or a choice of two. */
export function namesFunction(ctx: LowerContext, node: Node): boolean {
  if (node.type === "ParenthesizedExpression") return namesFunction(ctx, node.expression);
  if (node.type === "ArrowFunctionExpression" || node.type === "FunctionExpression") return true;
  // `const act = Math.tanh`
  if (node.type === "MemberExpression" && mathMember(ctx, node) !== undefined) return true;
  if (node.type === "ConditionalExpression")
    return namesFunction(ctx, node.consequent) || namesFunction(ctx, node.alternate);
  // `layer.act ?? ((z) => z)`, `table[name] ?? identity`.
  if (node.type === "LogicalExpression" && (node.operator === "??" || node.operator === "||"))
    return (
      namesFunction(ctx, node.left) ||
      namesFunction(ctx, node.right) ||
      mathMember(ctx, node.right) !== undefined
    );
  // `Math.tanh` of a `Math` the module declares, `settings.act`: a field whose type TypeScript
  // gives as a function.
  if (
    node.type === "MemberExpression" &&
    !node.computed &&
    writtenWhereItStands(ctx, node.property) &&
    ctx.types.inferred?.functionTypeAt(node.property.start) !== undefined
  )
    return true;
  // `const { load } = scenario`: a field of a local object that holds a function.
  if (
    node.type === "MemberExpression" &&
    !node.computed &&
    node.object.type === "Identifier" &&
    node.property.type === "Identifier"
  ) {
    const type = ctx.scope.lookup(node.object.name)?.type;
    const name = node.property.name;
    return (
      type !== undefined &&
      isObject(type) &&
      (type.fields.some((f) => f.name === name && f.callable !== undefined) ||
        isArrowField(ctx, type, name))
    );
  }
  if (node.type !== "Identifier") return false;
  const slot = ctx.scope.lookup(node.name);
  if (slot) return ctx.bound.has(slot) || ctx.closures.has(slot);
  const symbol = ctx.program.resolveLocalFunction(ctx.module, node.name);
  return symbol !== undefined && !ctx.module.constants.get(node.name);
}

/**
 * Whether the module's text at `name`'s span is that name. Code nabla writes itself (a sort's
 * merge loop, array-sort.ts) stands at the span of the call it replaces, where TypeScript has
 * the type of another expression: `squares(xs).sort(…)`'s `n = sorted.length` would read the
 * type of `squares`, a function.
 */
function writtenWhereItStands(ctx: LowerContext, name: Node & { name: string }): boolean {
  const text = ctx.module.text.slice(name.start, name.end);
  return text === name.name || text === `#${name.name}`;
}
