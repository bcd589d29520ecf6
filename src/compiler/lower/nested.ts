import type { CallExpression, Node } from "oxc-parser";
import { typeResolver } from "../analyze/declared-types.js";
import { analyzeCall, ancestorsOf, type Operator } from "../analyze/requests.js";
import type { DiagnosticCodeName } from "../diagnostics/codes.js";
import { jvpKey } from "../differentiate/names.js";
import { derivedPrimalKey, pairType } from "../differentiate/nest.js";
import type { ObjectType, Type, Value } from "../ir/types.js";
import { tangentType } from "../ir/tangent-types.js";
import type { LowerContext } from "./context.js";
import { lowerExpression } from "./expressions.js";
import { signatureOf } from "./signature.js";
import { lowerFunction } from "./function.js";

// An operator called inside differentiable code (`x * derivative((y) => x + y)(1)`, or the
// body nabla gives `derivative(derivative(f))`). It is lowered to calls of the inner
// function's JVP in primal form (see differentiate/nest.ts), which the outer differentiation
// differentiates like any callee. An inner `gradient` is computed in forward mode too, one
// JVP per differentiated parameter: reverse-mode code keeps a tape, which nabla does not
// differentiate, while a JVP is ordinary code.

const NESTABLE: ReadonlySet<string> = new Set([
  "derivative",
  "valueWithDerivative",
  "gradient",
  "valueWithGradient",
]);

export function lowerNestedOperator(
  ctx: LowerContext,
  node: CallExpression,
  inner: CallExpression,
  operator: string,
): Value {
  if (!NESTABLE.has(operator)) {
    return ctx.fail(
      inner.callee,
      "nestedDifferentiation",
      `'${operator}' cannot be used inside differentiable code; inside, use 'derivative', 'gradient' or their 'valueWith…' forms (nabla differentiates those again)`,
    );
  }
  let problem: { node: Node; code: DiagnosticCodeName; message: string } | undefined;
  const call = analyzeCall(
    ctx.program,
    ctx.module,
    inner,
    ancestorsOf(ctx.module, inner),
    operator as Operator,
    (n, code, message) => (problem ??= { node: n, code, message }),
  );
  if (!call) return ctx.fail(problem!.node, problem!.code, problem!.message);
  const target = call.target;
  const key = `${target.module.file}#${target.name}`;
  const signature = signatureOf(target.node, typeResolver(ctx.program, target.module));
  const typeOf = (i: number): Type | undefined =>
    signature.params[i]?.type ?? (target.contextualNumberParams ? "number" : undefined);
  for (const i of call.wrt) {
    const type = typeOf(i);
    if (type !== "number") {
      return ctx.fail(
        target.node.params[i] ?? inner,
        "nestedDifferentiation",
        `inside differentiable code, '${operator}' differentiates with respect to numbers only (parameter '${signature.params[i]?.name ?? i}' is not a number): nabla computes it in forward mode, one direction per parameter`,
      );
    }
  }
  const args = node.arguments.map((a) => {
    if (a.type === "SpreadElement")
      return ctx.fail(
        a,
        "unsupportedSyntax",
        "spread arguments are not supported in differentiable code",
      );
    return lowerExpression(ctx, a);
  });
  if (args.length !== target.node.params.length) {
    return ctx.fail(
      node,
      "callArity",
      `the function given to '${operator}' takes ${target.node.params.length} argument${target.node.params.length === 1 ? "" : "s"}, got ${args.length}`,
    );
  }
  args.forEach((a, i) => {
    const expected = typeOf(i);
    if (expected === "number" && a.type !== "number") {
      ctx.fail(
        node.arguments[i]!,
        "typeMismatch",
        `the function given to '${operator}' takes a number here, got ${typeof a.type === "string" ? `a ${a.type}` : "an array or object"}`,
      );
    }
  });
  // What the inner function reads from enclosing functions: passed after its arguments.
  const captures = target.captures.map((c) =>
    lowerExpression(ctx, {
      type: "Identifier",
      name: c.name,
      start: inner.start,
      end: inner.end,
    } as never),
  );
  ctx.calls.push({
    key,
    symbol: { module: target.module, name: target.name, node: target.node },
    loc: ctx.loc(inner),
    target,
  });
  ctx.at(node);
  const b = ctx.builder;
  const withValue = operator.startsWith("valueWith");
  const one = b.constant(1);
  // `derivative` of a function returning an array or object gives its tangent; a gradient
  // needs a number.
  // Without a return type, an arrow returns what its body is: lowering it tells (cheaply).
  const result =
    signature.result ??
    lowerFunction(ctx.program, target.module, key, target.name, target.node, {
      contextualNumberParams: target.contextualNumberParams,
      captures: target.captures,
    }).fn.resultTypes[0] ??
    "number";
  if (result !== "number" && (operator === "gradient" || operator === "valueWithGradient")) {
    return ctx.fail(
      inner,
      "unsupportedType",
      `'${operator}' needs a number-valued function; this one returns ${typeof result === "string" ? `a ${result}` : "an array or object"}`,
    );
  }
  const tangent = tangentType(result);
  const results = call.wrt.map((i) => {
    const callee = derivedPrimalKey(jvpKey(key, [i]), withValue ? "pair" : "tangent");
    const type: Type = withValue ? pairType(tangent, result) : tangent;
    return b.emit(
      "call",
      [...args, ...captures, one],
      [type],
      { callee, calleeName: operator },
      [],
      "d",
    ).results[0]!;
  });
  const tangents = withValue
    ? results.map((r) => b.emit("field", [r], [tangent], { field: "d" }).results[0]!)
    : results;
  const derivative =
    operator === "derivative" || operator === "valueWithDerivative" || tangents.length === 1
      ? tangents[0]!
      : b.emit(
          "literal",
          tangents,
          [
            {
              kind: "array",
              storage: "Array",
              element: "number",
              elements: tangents.map(() => "number"),
            },
          ],
          {},
          [],
          "gradient",
        ).results[0]!;
  if (!withValue) return derivative;
  const value = b.emit("field", [results[0]!], [result], { field: "v" }).results[0]!;
  const name = operator === "valueWithDerivative" ? "derivative" : "gradient";
  const type: ObjectType = {
    kind: "object",
    name: `{ value; ${name} }`,
    fields: [
      { name: "value", type: result, noDerivative: false },
      { name, type: derivative.type, noDerivative: false },
    ],
  };
  return b.emit("literal", [value, derivative], [type], {}, [], "result").results[0]!;
}
