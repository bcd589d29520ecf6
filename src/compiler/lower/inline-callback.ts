import { missingReturn, unsupportedSyntax } from "../diagnostics/messages/index.js";
import type { Expression, ExpressionStatement, FunctionBody, Statement } from "oxc-parser";
import { annotationType } from "../types/signature.js";
import type { Value } from "../ir/types.js";
import { walk, type FunctionLike } from "../parse/module.js";
import type { LowerContext, Scope } from "./context.js";
import { article } from "./describe.js";
import { bindPattern } from "./destructure.js";
import { logicalStatementAsIf } from "./logical-statements.js";

// A callback or local function whose body is lowered where it is called (array methods, calls
// of functions known where the call is compiled), in a scope of its own.

/** Whether a function returns only as its last statement (so its body can be inlined). */
export function returnsOnlyAtEnd(fn: FunctionLike): boolean {
  if (fn.type === "ArrowFunctionExpression" && fn.expression) return true;
  const body = (fn.body as FunctionBody | null)?.body ?? [];
  let returns = 0;
  walk(fn.body!, (n) => {
    if (n.type === "ReturnStatement") returns++;
    return (
      n === fn.body ||
      !(
        n.type === "ArrowFunctionExpression" ||
        n.type === "FunctionExpression" ||
        n.type === "FunctionDeclaration"
      )
    );
  });
  return returns === 0 || (returns === 1 && body[body.length - 1]?.type === "ReturnStatement");
}

/** Whether a statement before the last may throw (outside nested functions). */
function throwsBeforeEnd(body: Statement[]): boolean {
  let throws = false;
  for (const statement of body.slice(0, -1)) {
    walk(statement, (n) => {
      if (n.type === "ThrowStatement") throws = true;
      return !throws && !FUNCTION_TYPES.has(n.type);
    });
  }
  return throws;
}

const FUNCTION_TYPES = new Set([
  "ArrowFunctionExpression",
  "FunctionExpression",
  "FunctionDeclaration",
]);

/**
 * Lowers a callback's body in place, with its parameters bound to `args`; returns the value
 * it returns. A body that returns before its end needs its return type annotated.
 */
export function inlineCallback(
  ctx: LowerContext,
  callback: FunctionLike,
  args: Value[],
  what = "a callback written at an array method",
  /** Functions given for parameters, which name them as local functions. */
  functions: readonly ({ node: FunctionLike; scope: Scope } | undefined)[] = [],
  /** The caller drops the callback's value (`forEach`). */
  valueDropped = false,
): Value | undefined {
  // A declared result type (`(v: number): R | undefined => v > 0 ? { a: v } : undefined`) is
  // what the returned expression is lowered as, as a function's return is: an object literal
  // leaving out an optional field is one of that type.
  const declared = callback.returnType ? annotationType(callback.returnType, ctx.types) : undefined;
  const result = (expression: Expression): Value =>
    declared && declared !== "void" && declared !== "opaque"
      ? ctx.lowerValue(expression, declared)
      : ctx.lowerExpression(expression);
  return ctx.inScope(() => {
    callback.params.forEach((p, i) => {
      const fn = functions[i];
      if (fn && p.type === "Identifier") {
        ctx.closures.set(ctx.declareFunctionName(p.name), fn);
        return;
      }
      const v = args[i];
      // A parameter left out takes its default (`penalty(scale = 0.1)` called as `penalty()`).
      if (!v && p.type === "AssignmentPattern") {
        const declared = "typeAnnotation" in p.left ? p.left.typeAnnotation : undefined;
        const type = annotationType(declared ?? undefined, ctx.types);
        const value = ctx.lowerValue(p.right as Expression, type);
        if (p.left.type === "Identifier") ctx.declare(p.left.name, "let", value.type, value);
        else bindPattern(ctx, p.left, value);
        return;
      }
      if (!v) return;
      if (p.type === "Identifier") ctx.declare(p.name, "const", v.type, v);
      else bindPattern(ctx, p, v); // `([a, b]) => …`, `({ x, y }) => …`
    });
    if (callback.type === "ArrowFunctionExpression" && callback.expression) {
      // `xs.forEach((v) => v > 0 && kept.push(v))`: a statement, its value dropped.
      const statement = valueDropped
        ? logicalStatementAsIf({
            type: "ExpressionStatement",
            expression: callback.body as Expression,
            start: callback.body.start,
            end: callback.body.end,
          } as ExpressionStatement)
        : undefined;
      if (statement) {
        ctx.lowerStatements([statement]);
        return undefined;
      }
      return result(callback.body as Expression);
    }
    const body = (callback.body as FunctionBody).body;
    const last = body[body.length - 1];
    const finalReturn = last?.type === "ReturnStatement" ? last : undefined;
    // A `throw` before the end puts the statements after it in a scope of their own (they
    // run only where it did not throw), which the final return must see into: lowered as
    // a function's body is, with its return setting the result.
    if (!returnsOnlyAtEnd(callback) || throwsBeforeEnd(body))
      return lowerWithEarlyReturns(ctx, callback, body, what);
    ctx.lowerStatements(finalReturn ? body.slice(0, -1) : body);
    return finalReturn?.argument ? result(finalReturn.argument) : undefined;
  });
}

/**
 * An inlined body that may return before its end (`if (mode === "reverse") return …;`): its
 * returns set a flag and a result of their own, as a function's do (see lower/function.ts),
 * and the result after the body is the call's value. The declared return type gives the
 * result's type, so it is required.
 */
function lowerWithEarlyReturns(
  ctx: LowerContext,
  callback: FunctionLike,
  body: Statement[],
  what: string,
): Value | undefined {
  // Its result type, as written or as TypeScript infers it.
  const declared =
    annotationType(callback.returnType, ctx.types) ??
    ctx.types.inferred?.returnTypeOf(callback.start, callback.end);
  if (!declared || declared === "opaque" || declared === "string") {
    return ctx.fail(callback, unsupportedSyntax.returnsBeforeItsLastStatement(what));
  }
  const saved = {
    returnedFlag: ctx.returnedFlag,
    resultSlot: ctx.resultSlot,
    resultType: ctx.resultType,
    resultDefaulted: ctx.resultDefaulted,
    auxReturn: ctx.auxReturn,
  };
  ctx.returnedFlag = ctx.hiddenSlot("returned", "boolean", false);
  const initial = declared === "boolean" ? false : declared === "number" ? NaN : undefined;
  ctx.resultSlot = declared === "void" ? undefined : ctx.hiddenSlot("result", declared, initial);
  ctx.resultType = declared;
  ctx.resultDefaulted = false;
  ctx.auxReturn = undefined;
  try {
    const exits = ctx.lowerStatements(body);
    if (!exits && declared !== "void") {
      ctx.fail(
        { start: callback.end - 1, end: callback.end },
        missingReturn.reachesItsEndWithoutReturning(what, article(declared)),
      );
    }
    return ctx.resultSlot ? ctx.value(ctx.resultSlot) : undefined;
  } finally {
    Object.assign(ctx, saved);
  }
}
