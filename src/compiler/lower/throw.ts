import { unsupportedSyntax } from "../diagnostics/messages/index.js";
import type { Expression, Node, ThrowStatement } from "oxc-parser";
import type { Value } from "../ir/types.js";
import type { LowerContext } from "./context.js";
import { isPlatformGlobal } from "../types/globals.js";

// `throw new Error(…)` in differentiated code: argument checks and "cannot happen" guards are
// everywhere in real code. The error is raised by nabla's runtime from the message's pieces
// (string parts and the values between them), in the derivative as in the primal; the path that
// throws never reaches a backward sweep, and the operator resets the tape when it unwinds.

const ERRORS = new Set(["Error", "RangeError", "TypeError"]);

/** Lowers a `throw` statement; control never continues after it. */
export function lowerThrow(ctx: LowerContext, node: ThrowStatement): void {
  const argument = node.argument;
  const kind =
    (argument.type === "NewExpression" || argument.type === "CallExpression") &&
    argument.callee.type === "Identifier" &&
    ERRORS.has(argument.callee.name) &&
    isPlatformGlobal(ctx.module, argument.callee.name, ctx.scope)
      ? argument.callee.name
      : undefined;
  const args = kind ? (argument as { arguments: Node[] }).arguments : [];
  const message = args[0];
  if (!kind || args.length > 1 || message?.type === "SpreadElement") {
    ctx.fail(argument, unsupportedSyntax.differentiableCodeCanThrowNew());
  }
  const pieces = message ? messagePieces(ctx, message as Expression) : [];
  ctx.at(node);
  ctx.builder.emit("extern", [ctx.builder.constant(kind), ...pieces], ["void"], {
    callee: "nabla:raise",
  });
}

/** The parts of a message built with a template or `+`, strings and values in order. */
function messagePieces(ctx: LowerContext, node: Expression): Value[] {
  if (node.type === "Literal" && typeof node.value === "string")
    return [ctx.builder.constant(node.value)];
  if (node.type === "TemplateLiteral") {
    const pieces: Value[] = [];
    node.quasis.forEach((quasi, i) => {
      pieces.push(ctx.builder.constant(quasi.value.cooked ?? quasi.value.raw));
      const expression = node.expressions[i];
      if (expression) pieces.push(ctx.lowerExpression(expression));
    });
    return pieces;
  }
  if (node.type === "BinaryExpression" && node.operator === "+" && isText(node)) {
    return [
      ...messagePieces(ctx, node.left as Expression),
      ...messagePieces(ctx, node.right as Expression),
    ];
  }
  if (node.type === "ParenthesizedExpression") return messagePieces(ctx, node.expression);
  return [ctx.lowerExpression(node)];
}

/** Whether `+` here joins text (a string literal or template on either side, at any depth). */
function isText(node: Node): boolean {
  if (node.type === "TemplateLiteral") return true;
  if (node.type === "Literal") return typeof node.value === "string";
  if (node.type === "ParenthesizedExpression") return isText(node.expression);
  return (
    node.type === "BinaryExpression" &&
    node.operator === "+" &&
    (isText(node.left) || isText(node.right))
  );
}
