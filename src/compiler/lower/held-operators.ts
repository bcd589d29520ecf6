import type { CallExpression, Expression } from "oxc-parser";
import { nestedDifferentiation } from "../diagnostics/messages/index.js";
import { nablaOperatorOf } from "../resolve/operator-call.js";
import { isOperator, OPERATORS } from "../../api/operators.js";
import type { Value } from "../ir/types.js";
import type { LowerContext, Slot } from "./context.js";
import { lowerNestedOperator } from "./nested.js";

// `const g = gradient(f, { wrt: 0 })` in differentiable code (or a function run as
// WebAssembly), then `g(x)`: the operator made once and called later, as code outside does.
// The name holds no value there; each call is lowered as `gradient(f, { wrt: 0 })(x)`, the
// nested operator call (nested.ts), with the operator's function read as it was where `g` was
// made.

/**
 * Declares `name` as holding the operator call `init` and returns true, if `init` is one
 * (a nestable operator of nabla's, its function given); false otherwise, declaring nothing.
 */
export function declareHeldOperator(
  ctx: LowerContext,
  name: string,
  init: Expression | null | undefined,
): boolean {
  if (init?.type !== "CallExpression" || init.arguments.length === 0) return false;
  const head = init.callee.type === "Identifier" ? init.callee.name : undefined;
  if (head && ctx.scope.lookup(head)) return false;
  const operator = nablaOperatorOf(ctx.module, init.callee);
  if (!operator || !isOperator(operator) || !OPERATORS[operator].nestable) return false;
  ctx.heldOperators.set(ctx.declareFunctionName(name), {
    call: init,
    operator,
    scope: ctx.scope,
  });
  return true;
}

/** `g(args…)` where `g` holds an operator call: that operator called on the arguments. */
export function lowerHeldOperatorCall(
  ctx: LowerContext,
  node: CallExpression,
  slot: Slot,
  name: string,
) {
  const held = ctx.heldOperators.get(slot)!;
  // The function it was given, if a name, must mean here what it meant there.
  const fn = held.call.arguments[0];
  if (
    fn?.type === "Identifier" &&
    (ctx.scope.lookup(fn.name) ?? undefined) !== (held.scope.lookup(fn.name) ?? undefined)
  )
    return ctx.fail(node.callee, nestedDifferentiation.heldOperatorShadowed(name, fn.name));
  return lowerNestedOperator(ctx, node, held.call, held.operator);
}

/**
 * `dE(args…)` where `dE` is a module-level `const dE = gradient(energy)` of this module or one
 * it imports (`dE`, `grads.dE`: a module exporting the derivatives of its functions): that
 * operator called on the arguments, its function read in the module that made it. Undefined
 * if `path` holds no such call.
 */
export function lowerModuleHeldOperatorCall(
  ctx: LowerContext,
  node: CallExpression,
  path: string,
): Value | undefined {
  const found = ctx.program.resolveConstantWhere(ctx.module, path);
  if (!found || found.constant.kind !== "const") return undefined;
  let init = found.constant.node.init;
  while (init?.type === "ParenthesizedExpression" || init?.type === "TSAsExpression")
    init = init.expression;
  if (init?.type !== "CallExpression" || init.arguments.length === 0) return undefined;
  const operator = nablaOperatorOf(found.module, init.callee);
  if (!operator || !isOperator(operator) || !OPERATORS[operator].nestable) return undefined;
  return lowerNestedOperator(ctx, node, init, operator, found.module);
}
