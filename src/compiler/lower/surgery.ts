import {
  callArity,
  closureCapture,
  unknownCallee,
  unsupportedSyntax,
  unsupportedType,
} from "../diagnostics/messages/index.js";
import type { CallExpression, Expression, Node } from "oxc-parser";
import type { Value } from "../ir/types.js";
import { walk } from "../parse/module.js";
import { positionAt } from "../diagnostics/format.js";
import type { LowerContext } from "./context.js";

// `withDerivative(x, f)`: x itself, whose derivative passes through f on its way — the tangent
// in forward mode, the adjoint in reverse mode (Swift's `withDerivative`, e.g. gradient
// clipping). f runs as it is, inside the generated derivative code, so it must be a function
// of the module (by name) or an arrow written here that reads no local variables.

export function lowerWithDerivative(ctx: LowerContext, node: CallExpression): Value {
  const [xNode, fNode, ...extra] = node.arguments;
  if (!xNode || !fNode || extra.length > 0 || xNode.type === "SpreadElement")
    return ctx.fail(node, callArity.withDerivativeTakesTwoArgumentsValue());
  const x = ctx.lowerExpression(xNode as Expression);
  if (x.type !== "number") {
    return ctx.fail(xNode, unsupportedType.withDerivativeAppliesToNumbersApply());
  }
  const attrs = adjustment(ctx, fNode as Expression);
  ctx.at(node);
  return ctx.builder.emit("withDerivative", [x], ["number"], attrs).results[0]!;
}

/**
 * Which function it is: a module-level function by name, or an arrow written here, named by
 * where it is written (the backend compiles its text).
 */
function adjustment(ctx: LowerContext, f: Expression): { callee: string; written?: number[] } {
  if (f.type === "Identifier") {
    if (ctx.scope.lookup(f.name)) {
      return ctx.fail(f, closureCapture.isLocalValueGiveWithDerivative(f.name));
    }
    if (!ctx.program.resolveLocalFunction(ctx.module, f.name)) {
      return ctx.fail(f, unknownCallee.isNotFunctionNablaCan(f.name));
    }
    return { callee: f.name };
  }
  if (f.type !== "ArrowFunctionExpression" && f.type !== "FunctionExpression") {
    return ctx.fail(f, unsupportedSyntax.withDerivativeNeedsFunctionFunctionDeclared());
  }
  const locals = new Set<string>();
  const reads: Node[] = [];
  walk(f, (n, ancestors) => {
    if (n.type === "Identifier") {
      const parent = ancestors[ancestors.length - 1];
      const isKey =
        parent &&
        ((parent.type === "MemberExpression" && parent.property === n && !parent.computed) ||
          (parent.type === "Property" && parent.key === n && !parent.computed));
      if (!isKey) reads.push(n);
    }
    if (n.type === "VariableDeclarator" && n.id.type === "Identifier") locals.add(n.id.name);
    return true;
  });
  for (const p of f.params) if (p.type === "Identifier") locals.add(p.name);
  for (const r of reads) {
    const name = (r as { name: string }).name;
    if (!locals.has(name) && ctx.scope.lookup(name)) {
      return ctx.fail(r, closureCapture.functionGivenToWithDerivativeReads(name));
    }
  }
  // Emitted once per module as a function of this name (emit/js/function.ts hoistedAdjustments).
  const { line, column } = positionAt(ctx.module.text, f.start);
  return { callee: `$withDerivative_${line}_${column}`, written: [f.start, f.end] };
}
