import type { Message } from "../diagnostics/messages/message.js";
import {
  callArity,
  nestedDifferentiation,
  typeMismatch,
  unsupportedSyntax,
  unsupportedType,
} from "../diagnostics/messages/index.js";
import type { CallExpression, Node } from "oxc-parser";
import { typeResolver } from "../types/resolver.js";
import { assignable, isAggregate, sameType } from "../ir/type-system.js";
import { symbolKey } from "../ir/function-key.js";
import { resolveFunctionArg } from "./function-values.js";
import { findLocalFunction, freeNames } from "../resolve/captures.js";
import type { FunctionTypeInfo } from "../ir/types.js";
import type { FunctionLike, SourceModule } from "../parse/module.js";
import { countedLoop } from "./members.js";
import { jvpKey } from "../ir/names.js";
import { derivedPrimalKey, pairType } from "../ir/names.js";
import type { ArrayType, FunctionKey, ObjectType, Type, Value } from "../ir/types.js";
import { tangentType } from "../ir/tangent-types.js";
import type { LowerContext, Scope } from "./context.js";
import { signatureOf } from "../types/signature.js";
import type { DifferentiationTarget } from "../resolve/targets.js";
import { article } from "./describe.js";
import { analyzeCall, ancestorsOf, isNumberVector, namedTarget } from "../resolve/operator-call.js";
import { isOperator, OPERATORS, type Operator } from "../../api/operators.js";

// An operator called inside differentiable code (`x * derivative((y) => x + y)(1)`, or the
// body nabla gives `derivative(derivative(f))`). It is lowered to calls of the inner
// function's JVP in primal form (see differentiate/nest.ts), which the outer differentiation
// differentiates like any callee. An inner `gradient` is computed in forward mode too, one
// JVP per differentiated parameter: reverse-mode code keeps a tape, which nabla does not
// differentiate, while a JVP is ordinary code.

export function lowerNestedOperator(
  ctx: LowerContext,
  node: CallExpression,
  inner: CallExpression,
  operator: string,
  /**
   * The module `inner` is written in, when it is a module-level constant's (`const dE =
   * gradient(energy)`, held-operators.ts): its names mean what they mean there, and messages
   * about it point there.
   */
  written?: SourceModule,
): Value {
  /** `f` with the operator call's module as the module lowered. */
  const there = <T>(f: () => T): T => {
    const saved = ctx.module;
    ctx.module = written ?? saved;
    try {
      return f();
    } finally {
      ctx.module = saved;
    }
  };
  if (!isOperator(operator) || !OPERATORS[operator].nestable) {
    return there(() =>
      ctx.fail(
        inner.callee,
        nestedDifferentiation.operatorCannotBeNested(operator, ctx.codeContext),
      ),
    );
  }
  const call = written
    ? there(() => operatorCall(ctx, inner, operator, true))
    : (functionValueCall(ctx, inner, operator) ??
      closureOverFunctions(ctx, inner, operator) ??
      operatorCall(ctx, inner, operator));
  const target = call.target;
  const key = call.key;
  const signature = signatureOf(target.node, typeResolver(ctx.program, target.module));
  const typeOf = (i: number): Type | undefined =>
    signature.params[i]?.type ??
    target.contextual?.params[i] ??
    (target.contextualNumberParams ? "number" : undefined);
  const gradientLike = operator === "gradient" || operator === "valueWithGradient";
  // In a function run as WebAssembly (which nobody differentiates), a gradient with respect
  // to arrays or objects runs in reverse mode: see innerGradientInReverse. With respect to
  // numbers alone it stays forward mode: one pass without a tape, which also covers functions
  // that change their arguments (JavaScript's reverse mode agrees with it to rounding).
  const reverse =
    gradientLike &&
    ctx.codeContext === "wasm" &&
    call.wrt.some((i) => {
      const type = typeOf(i);
      return type !== undefined && isAggregate(type);
    });
  for (const i of call.wrt) {
    const type = typeOf(i);
    if (reverse && type !== undefined && (type === "number" || isAggregate(type))) continue;
    const isVector =
      gradientLike && type !== undefined && (isNumberVector(type) || isNumberRecord(type));
    if (type !== "number" && !(isVector && call.wrt.length === 1)) {
      const name = signature.params[i]?.name ?? String(i);
      return there(() =>
        ctx.fail(
          target.node.params[i] ?? inner,
          isVector
            ? nestedDifferentiation.innerOperatorWrtOneArray(operator, name, i, ctx.codeContext)
            : nestedDifferentiation.innerOperatorWrtNumbers(operator, name, ctx.codeContext),
        ),
      );
    }
  }
  const args = node.arguments.map((a) => {
    if (a.type === "SpreadElement")
      return ctx.fail(a, unsupportedSyntax.spreadArgumentsAreNotSupported());
    return ctx.lowerExpression(a);
  });
  if (args.length !== target.node.params.length) {
    return ctx.fail(
      node,
      callArity.functionGivenToTakesArgument(
        operator,
        target.node.params.length,
        target.node.params.length === 1 ? "" : "s",
        args.length,
      ),
    );
  }
  args.forEach((a, i) => {
    const expected = typeOf(i);
    if (expected && expected !== "number" && !assignable(a.type, expected)) {
      ctx.fail(
        node.arguments[i]!,
        typeMismatch.functionGivenToTakesHere(operator, article(expected), article(a.type)),
      );
    }
    if (expected === "number" && a.type !== "number") {
      ctx.fail(
        node.arguments[i]!,
        typeMismatch.functionGivenToTakesNumber(
          operator,
          typeof a.type === "string" ? `a ${a.type}` : "an array or object",
        ),
      );
    }
  });
  // What the inner function reads from enclosing functions: passed after its arguments, read
  // where it is written.
  const saved = ctx.scope;
  ctx.scope = call.scope ?? ctx.scope;
  let captures: Value[];
  try {
    captures =
      call.carried ??
      target.captures.map((c) =>
        ctx.lowerExpression({
          type: "Identifier",
          name: c.name,
          start: inner.start,
          end: inner.end,
        } as never),
      );
  } finally {
    ctx.scope = saved;
  }
  ctx.calls.push({
    key,
    symbol: { module: target.module, name: target.name, node: target.node },
    loc: there(() => ctx.loc(inner)),
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
    target.contextual?.result ??
    ctx.lowering.function(ctx.program, target.module, key, target.name, target.node, {
      contextualNumberParams: target.contextualNumberParams,
      captures: target.captures,
      ...(target.localFunctions ? { localFunctions: target.localFunctions } : {}),
      ...(target.bindings ? { bindings: target.bindings } : {}),
      ...(target.liftedCaptures ? { liftedCaptures: true } : {}),
    }).fn.resultTypes[0] ??
    "number";
  if (result !== "number" && (operator === "gradient" || operator === "valueWithGradient")) {
    return there(() =>
      ctx.fail(
        inner,
        unsupportedType.needsNumberValuedFunctionThis(
          operator,
          typeof result === "string" ? `a ${result}` : "an array or object",
        ),
      ),
    );
  }
  if (reverse) return innerGradientInReverse(ctx, call, key, args, captures, withValue, result);
  const tangent = tangentType(result);
  const jvp = (i: number, direction: Value, repeated = false): Value => {
    const callee = derivedPrimalKey(jvpKey(key, [i]), withValue ? "pair" : "tangent");
    const type: Type = withValue ? pairType(tangent, result) : tangent;
    return b.emit(
      "call",
      [...args, ...captures, direction],
      [type],
      { callee, calleeName: operator, ...(repeated ? { repeated: true } : {}) },
      [],
      "d",
    ).results[0]!;
  };
  const tangentOf = (r: Value): Value =>
    withValue ? b.emit("field", [r], [tangent], { field: "d" }).results[0]! : r;
  const vectorType = typeOf(call.wrt[0]!);
  if (vectorType && isNumberRecord(vectorType)) {
    // With respect to an object of numbers: one JVP per field, along a tangent with 1 there.
    const tangentOf_ = tangentType(vectorType) as ObjectType;
    const zero = b.constant(0);
    const partials = tangentOf_.fields.map((field, k) => {
      const direction = b.emit(
        "literal",
        tangentOf_.fields.map((_, j) => (j === k ? one : zero)),
        [tangentOf_],
        {},
        [],
        `d${field.name}`,
      ).results[0]!;
      return tangentOf(jvp(call.wrt[0]!, direction, k > 0));
    });
    const gradient = b.emit("literal", partials, [tangentOf_], {}, [], "gradient").results[0]!;
    if (!withValue) return gradient;
    const value = lowerValueAt(ctx, target, key, args, captures, result);
    return resultObject(ctx, value, gradient, "gradient", result);
  }
  if (vectorType && vectorType !== "number") {
    // With respect to an array: one JVP per element, along each basis vector in turn.
    const x = args[call.wrt[0]!]!;
    const n = b.emit("length", [x], ["number"]).results[0]!;
    const type = vectorType as ArrayType;
    const gradient = b.emit("alloc", [n], [{ ...type, elements: undefined }], {}, [], "gradient")
      .results[0]!;
    const basis = b.emit("alloc", [n], [{ ...type, elements: undefined }], {}, [], "basis")
      .results[0]!;
    countedLoop(ctx, n, (i) => {
      b.emit("setIndex", [basis, i, one], []);
      // One run per element: checkInnerGradients makes sure the function changes nothing.
      const r = jvp(call.wrt[0]!, basis, true);
      b.emit("setIndex", [gradient, i, tangentOf(r)], []);
      b.emit("setIndex", [basis, i, b.constant(0)], []);
    });
    if (!withValue) return gradient;
    // The value: one more run of the function at the point.
    const value = lowerValueAt(ctx, target, key, args, captures, result);
    return resultObject(ctx, value, gradient, "gradient", result);
  }
  const results = call.wrt.map((i) => jvp(i, one));
  const tangents = results.map(tangentOf);
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
  return resultObject(ctx, value, derivative, name, result);
}

/**
 * `gradient(f, { wrt })(args)` in reverse mode: one `call` of f marked `reverseGradient`,
 * whose results are the adjoints of the differentiated parameters in ascending order, then
 * f's value. What it stands for (fresh shadows, the forward and backward sweeps) is known
 * once every derivative is built: differentiate/inner-gradients.ts expands it then.
 */
function innerGradientInReverse(
  ctx: LowerContext,
  call: NestedCall,
  key: FunctionKey,
  args: Value[],
  captures: Value[],
  withValue: boolean,
  result: Type,
): Value {
  const b = ctx.builder;
  const sorted = [...call.wrt].sort((x, y) => x - y);
  const op = b.emit(
    "call",
    [...args, ...captures],
    [...sorted.map((i) => tangentType(args[i]!.type)), result],
    { callee: key, calleeName: call.target.name, reverseGradient: sorted },
    [],
    [...sorted.map((i) => `d${args[i]!.hint || i}`), "value"],
  );
  const adjoints = call.wrt.map((i) => op.results[sorted.indexOf(i)]!);
  const gradient =
    adjoints.length === 1
      ? adjoints[0]!
      : b.emit(
          "literal",
          adjoints,
          [
            {
              kind: "array",
              storage: "Array",
              element: adjoints.every((a) => sameType(a.type, adjoints[0]!.type))
                ? adjoints[0]!.type
                : "opaque",
              elements: adjoints.map((a) => a.type),
            },
          ],
          {},
          [],
          "gradient",
        ).results[0]!;
  if (!withValue) return gradient;
  return resultObject(ctx, op.results[sorted.length]!, gradient, "gradient", result);
}

/** An object type whose fields with derivatives are all numbers (`Point { x; y }`). */
function isNumberRecord(type: Type): boolean {
  if (typeof type === "string" || type.kind !== "object") return false;
  const tangent = tangentType(type) as ObjectType;
  return tangent.fields.length > 0 && tangent.fields.every((f) => f.type === "number");
}

/** `{ value, derivative }` or `{ value, gradient }`. */
function resultObject(
  ctx: LowerContext,
  value: Value,
  derivative: Value,
  name: string,
  result: Type,
): Value {
  const type: ObjectType = {
    kind: "object",
    name: `{ value; ${name} }`,
    fields: [
      { name: "value", type: result, noDerivative: false },
      { name, type: derivative.type, noDerivative: false },
    ],
  };
  return ctx.builder.emit("literal", [value, derivative], [type], {}, [], "result").results[0]!;
}

/** A plain call of the inner function, for its value. */
function lowerValueAt(
  ctx: LowerContext,
  target: DifferentiationTarget,
  key: FunctionKey,
  args: Value[],
  captures: Value[],
  result: Type,
): Value {
  ctx.calls.push({
    key,
    symbol: { module: target.module, name: target.name, node: target.node },
    loc: ctx.builder.loc,
    target,
  });
  return ctx.builder.emit("call", [...args, ...captures], [result], {
    callee: key,
    calleeName: target.name,
  }).results[0]!;
}

interface NestedCall {
  target: DifferentiationTarget;
  key: FunctionKey;
  wrt: number[];
  /** For a function value: the IR values it carries (see function-values.ts). */
  carried?: Value[];
  /** For a local function named at the call: the scope it was written in, its captures' names'. */
  scope?: Scope;
}

/**
 * `gradient(f)` where the function is written at the call or named in the program
 * (`atModuleLevel`: the operator call is a module-level constant's, where no local is seen).
 */
function operatorCall(
  ctx: LowerContext,
  inner: CallExpression,
  operator: string,
  atModuleLevel = false,
): NestedCall {
  let problem: { node: Node; message: Message } | undefined;
  // `derivative(g)(x)` of a local function `g`: what it reads is read where it is written (a
  // lambda's parameter or a block's variable here may have the same name).
  const local = atModuleLevel ? undefined : localFunctionNamed(ctx, inner);
  const call = analyzeCall(
    ctx.program,
    ctx.module,
    inner,
    local ? ancestorsOf(ctx.module, local.node) : ancestorsOf(ctx.module, inner),
    operator as Operator,
    (n, message) => (problem ??= { node: n, message }),
  );
  if (!call) return ctx.fail(problem!.node, problem!.message);
  if (call.hasAux) {
    // Its result would be an object the derivative of the enclosing code cannot take apart.
    return ctx.fail(
      inner.arguments[1]!,
      nestedDifferentiation.hasAuxIsNotSupportedInside(ctx.codeContext),
    );
  }
  const target = call.target;
  return {
    target,
    key: symbolKey(target),
    wrt: call.wrt,
    ...(local ? { scope: local.scope } : {}),
  };
}

/** The local function the operator is given by name (`derivative(g)`), as lowering holds it. */
function localFunctionNamed(
  ctx: LowerContext,
  inner: CallExpression,
): { node: FunctionLike; scope: Scope } | undefined {
  const fn = inner.arguments[0];
  if (fn?.type !== "Identifier") return undefined;
  const slot = ctx.scope.lookup(fn.name);
  const closure = slot && ctx.closures.get(slot);
  // The function written in this module under that name, not one a factory made.
  const written = findLocalFunction(fn.name, ancestorsOf(ctx.module, closure?.node ?? inner));
  return closure && written?.node === closure.node ? closure : undefined;
}

/**
 * `derivative(along)(t)` where `along` (a local function or an arrow written at the operator)
 * calls a function the code being lowered has bound (`f` in a specialization of a solver that
 * takes `f`): lifted like a function passed on, with `f` bound in its copy, since the
 * function value itself is nothing differentiated code can pass around.
 */
function closureOverFunctions(
  ctx: LowerContext,
  inner: CallExpression,
  operator: string,
): NestedCall | undefined {
  const fn = inner.arguments[0];
  let node: FunctionLike | undefined;
  let scope = ctx.scope;
  if (fn?.type === "ArrowFunctionExpression" || fn?.type === "FunctionExpression") node = fn;
  else if (fn?.type === "Identifier") {
    const slot = ctx.scope.lookup(fn.name);
    const closure = slot && ctx.closures.get(slot);
    if (closure) ({ node, scope } = closure);
  }
  if (!node) return undefined;
  const callsBound = freeNames(node).some((name) => {
    const slot = scope.lookup(name);
    return slot !== undefined && (ctx.bound.has(slot) || ctx.closures.has(slot));
  });
  if (!callsBound) return undefined;
  // The operator's checks (options, arity, `wrt`) as for any function written here.
  const { wrt } = operatorCall(ctx, inner, operator);
  const numbers: FunctionTypeInfo = {
    params: node.params.map(() => "number"),
    result: undefined,
    text: "",
  };
  const arg = resolveFunctionArg(ctx, fn!, numbers, `the function given to '${operator}'`);
  if (arg.fn.kind !== "lambda") return undefined;
  return { target: arg.fn.target, key: arg.fn.key, wrt, carried: arg.values };
}

/**
 * `gradient(loss)(p)` where `loss` is a function-typed parameter bound by a specialization,
 * or a local function: differentiated with respect to all its parameters.
 */
function functionValueCall(
  ctx: LowerContext,
  inner: CallExpression,
  operator: string,
): NestedCall | undefined {
  // `gradient(curve!)` of an optional parameter: the name.
  let fn = inner.arguments[0];
  while (fn?.type === "TSNonNullExpression" || fn?.type === "ParenthesizedExpression")
    fn = fn.expression;
  if (fn?.type !== "Identifier") return undefined;
  const slot = ctx.scope.lookup(fn.name);
  // Local functions are found by analyzeCall, like lambdas written at the operator.
  if (!slot || !ctx.bound.has(slot)) return undefined;
  if (inner.arguments.length > 1) {
    return ctx.fail(inner.arguments[1]!, nestedDifferentiation.ofFunctionValueTakesNo(operator));
  }
  const arg = resolveFunctionArg(ctx, fn, undefined, `the function given to '${operator}'`);
  const value = arg.fn;
  if (value.kind === "dynamic" || value.kind === "choice") {
    return ctx.fail(
      fn,
      nestedDifferentiation.holdsFunctionChosenAtRun(fn.name, operator, ctx.codeContext),
    );
  }
  if (value.kind === "absent")
    return ctx.fail(fn, nestedDifferentiation.holdsNoFunction(fn.name, operator));
  const target = value.kind === "named" ? namedTarget(value.symbol) : value.target;
  const key = value.kind === "named" ? symbolKey(value.symbol) : value.key;
  return { target, key, wrt: target.node.params.map((_, i) => i), carried: arg.values };
}
