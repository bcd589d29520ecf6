import type { Expression, MemberExpression, Node } from "oxc-parser";
import type { Value } from "../ir/types.js";
import type { LowerContext } from "./context.js";
import { isUndefinedValue } from "./absence.js";
import { DEFAULT_OPERATOR } from "./destructure.js";
import { toBoolean } from "./expect-type.js";
import { memberReader } from "./members.js";
import { lowerIf } from "./merge.js";

// `o.p ||= v`, `o.p ??= v`, `a[i] &&= v`: JavaScript assigns only where the operator does not
// short-circuit, so a setter (or a store) runs only then, and a getter once. The
// member's object and computed key are evaluated once, before `v`, into hidden constants the
// read and the assignment share.

/**
 * `a op b` (`??`, `||`, `&&`, a default) given the value `probe` of `a`: the `if` that takes
 * `right()` where the operator does, `left()` where it short-circuits.
 */
export function logicalIf(
  ctx: LowerContext,
  operator: string,
  probe: Value,
  at: Node,
  right: () => Value,
  left: () => Value,
): Value {
  ctx.at(at);
  // Where `??` and a default take the right side; `&&` too, `||` the left.
  const test =
    operator === "??"
      ? ctx.builder.unary("nullish", probe)
      : operator === DEFAULT_OPERATOR
        ? isUndefinedValue(ctx, probe)
        : toBoolean(ctx, probe, at);
  const branches: [() => Value[], () => Value[]] = [() => [right()], () => [left()]];
  return lowerIf(ctx, test, operator === "||" ? [branches[1], branches[0]] : branches)[0]!;
}

/** `o.p op= v` (op one of `??`, `||`, `&&`), its value `o.p op v`. */
export function lowerLogicalMemberAssignment(
  ctx: LowerContext,
  operator: string,
  left: MemberExpression,
  right: Expression,
  node: Node,
): Value {
  const target = {
    ...left,
    object: evaluatedOnce(ctx, left.object as Expression),
    property: left.computed ? evaluatedOnce(ctx, left.property as Expression) : left.property,
  } as MemberExpression;
  // Read again where it is kept, as `a ?? b` reads a member (expressions.ts' lowerLogical).
  const read = memberReader(ctx, target);
  const probe = read();
  // An object holding functions written in it (object-closures.ts) is never absent nor falsy.
  if (ctx.boundObjects.has(probe) && operator !== "&&") return probe;
  const assign = () =>
    ctx.lowerExpression({
      type: "AssignmentExpression",
      operator: "=",
      left: target,
      right,
      start: node.start,
      end: node.end,
    } as never);
  return logicalIf(ctx, operator, probe, left, assign, read);
}

/**
 * `node` where evaluating it again gives the same value (`this`, a constant, a literal), else a
 * hidden constant holding its value, evaluated here.
 */
function evaluatedOnce(ctx: LowerContext, node: Expression): Expression {
  if (node.type === "ThisExpression" || node.type === "Super" || node.type === "Literal")
    return node;
  // A class or module constant's name, or a local constant: nothing can assign it.
  if (node.type === "Identifier" && (ctx.scope.lookup(node.name)?.kind ?? "const") === "const")
    return node;
  // A name no identifier of the program can spell, so the right side cannot see it.
  const name = `once:${node.start}:${node.end}`;
  const value = ctx.lowerExpression(node);
  ctx.declare(name, "const", value.type, value);
  return { type: "Identifier", name, start: node.start, end: node.end } as never;
}
