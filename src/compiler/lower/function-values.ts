import { capturedVariableAdvice } from "./annotation-advice.js";
import { declareMadeFunction } from "./factories.js";
import {
  closureCapture,
  unknownCallee,
  unknownType,
  unsupportedSyntax,
} from "../diagnostics/messages/index.js";
import type { CallExpression, Expression, Node } from "oxc-parser";
import { freeNames, type Capture } from "../resolve/captures.js";
import { typeResolver } from "../types/resolver.js";
import type { FunctionTypeInfo } from "../ir/types.js";
import { functionsUsedAsValues, mathFunctionsUsedAsValues } from "../resolve/function-values.js";
import { MATH_FUNCTIONS } from "../rules/math.js";
import { mathMember } from "./math-functions.js";
import { positionAt } from "../diagnostics/format.js";
import { symbolKey } from "../ir/function-key.js";
import { asIdentifier, functionLabel, lambdaName, THIS_CAPTURE } from "../ir/names.js";
import { assignable, isObject, sameType, typeText } from "../ir/type-system.js";
import type { FieldType, FunctionKey, ObjectType, Type, Value } from "../ir/types.js";
import type { FunctionLike } from "../parse/module.js";
import type { FunctionSymbol } from "../parse/program.js";
import { cellType, Scope, type FunctionArg, type LowerContext } from "./context.js";
import { lowerIf } from "./merge.js";
import { absentLiteral, isUndefinedValue } from "./absence.js";
import { signatureOf } from "../types/signature.js";
import { packRestArguments } from "./rest-arguments.js";
import { staticKey, type Binding, type StaticFunction } from "../resolve/targets.js";
import type { DifferentiationTarget } from "../resolve/targets.js";
import { assignedNames } from "./assigned-names.js";
import { expectType } from "./expect-type.js";
import {
  calleePath,
  checkArgumentTypes,
  checkArity,
  emitUserCall,
  omitted,
  resolveCallee,
} from "./user-call.js";
import { inlineCallback, returnsOnlyAtEnd } from "./inline-callback.js";
import { arrowFieldMethod } from "./arrow-fields.js";
import {
  bindParameterField,
  boundField,
  boundFieldRead,
  fieldBindingName,
} from "./object-closures.js";

// Function values in differentiable code (Swift's "generalized differentiability", done the
// way a compiler that sees the whole program can):
// - a function known where the call is compiled — a top-level function, a local function or
//   an arrow written at the call — given to a function-typed parameter specializes the callee
//   for it: `rk4(dynamics, …)` calls a copy of rk4 whose `f(…)` calls are calls of `dynamics`.
//   A local function becomes a function of its own (lifted), taking what it captures as extra
//   parameters, so derivatives flow into those too;
// - a function chosen at run time (`c ? relu : tanh`, a function-typed parameter or
//   field) is an opaque value; a call of it tests it against each function of the program
//   used as a value that fits the call, and calls that one, so the derivative follows it.

/** The IR values a function value carries: a lambda's captures, a dynamic value itself. */
export function carriedValues(fn: StaticFunction, name: string): { type: Type; name: string }[] {
  if (fn.kind === "named" || fn.kind === "absent") return [];
  if (fn.kind === "dynamic") return [{ type: "opaque", name }];
  if (fn.kind === "choice")
    return [
      { type: "boolean", name: `${name}$first` },
      ...fn.options.flatMap((o, i) => carriedValues(o, `${name}$${i}`)),
    ];
  return [
    ...fn.target.captures.map((c) => ({
      type: c.cell ? cellType(c.type!) : c.type!,
      name: c.name,
    })),
    ...(fn.target.bindings ?? []).flatMap((b) => carriedValues(b.fn, b.name)),
  ];
}

/** A short readable part of a specialization's name. */
function nameOf(fn: StaticFunction): string {
  return fn.kind === "named"
    ? asIdentifier(fn.symbol.name)
    : fn.kind === "lambda"
      ? "lambda"
      : fn.kind === "choice"
        ? "choice"
        : fn.kind === "absent"
          ? "none"
          : "value";
}

/** The name of a specialization of `symbol`, unique in its module. */
export function specializationName(
  ctx: LowerContext,
  symbol: FunctionSymbol,
  key: FunctionKey,
  bindings: Binding[],
): string {
  const preferred = `${asIdentifier(symbol.name)}$with$${bindings.map((b) => nameOf(b.fn)).join("$")}`;
  return ctx.program.generatedName(symbol.module.file, key, preferred);
}

/**
 * The function an expression given where a function is expected denotes. `what` says where
 * it goes, for messages ("parameter 'f' of 'rk4'").
 */
let madeCount = 0;

export function resolveFunctionArg(
  ctx: LowerContext,
  node: Node,
  contextual: FunctionTypeInfo | undefined,
  what: string,
): FunctionArg {
  if (node.type === "ArrowFunctionExpression" || node.type === "FunctionExpression")
    return lift(ctx, node, ctx.scope, contextual);
  const none = absentLiteral(ctx, node);
  if (none) return { fn: { kind: "absent", value: none }, values: [] };
  // `integrate(lotkaVolterra(params), …)`: the function a factory makes, given a name here.
  const made = `$made${madeCount++}`;
  if (node.type === "CallExpression" && declareMadeFunction(ctx, made, node)) {
    const id = { type: "Identifier", name: made, start: node.start, end: node.end } as Node;
    return resolveFunctionArg(ctx, id, contextual, what);
  }
  if (
    node.type === "ParenthesizedExpression" ||
    node.type === "TSAsExpression" ||
    node.type === "TSSatisfiesExpression" ||
    node.type === "TSNonNullExpression"
  ) {
    return resolveFunctionArg(ctx, node.expression, contextual, what);
  }
  if (node.type === "ConditionalExpression") {
    // A lambda has no run-time value to choose: the choice is kept, and tested at the call.
    if (holdsLocalFunction(ctx, node.consequent) || holdsLocalFunction(ctx, node.alternate)) {
      const test = ctx.lowerCondition(node.test);
      const first = resolveFunctionArg(ctx, node.consequent, contextual, what);
      const second = resolveFunctionArg(ctx, node.alternate, contextual, what);
      return choice(test, first, second);
    }
    return chooseAtRunTime(ctx, node, contextual, what);
  }
  // `layer.act ?? ((z) => z)`, `table[name] || identity`: the left side unless absent.
  if (node.type === "LogicalExpression" && (node.operator === "??" || node.operator === "||")) {
    const left = resolveFunctionArg(ctx, node.left, contextual, what);
    ctx.at(node);
    // A function is never absent; no function, a value or a choice may be.
    const present = presenceOf(ctx, left);
    if (present === true) return left;
    if (present === false) return resolveFunctionArg(ctx, node.right, contextual, what);
    return choice(present, left, resolveFunctionArg(ctx, node.right, contextual, what));
  }
  // `act = Math.tanh`, where a function of numbers to a number is expected.
  const math = mathMember(ctx, node);
  const arity = math === undefined ? undefined : MATH_FUNCTIONS.get(math)?.arity;
  if (
    math !== undefined &&
    arity !== undefined &&
    contextual !== undefined &&
    contextual.params.length > 0 &&
    contextual.params.every((p) => p === "number") &&
    (arity === "variadic" || contextual.params.length === arity)
  )
    return mathFunctionValue(ctx, node, math, what);
  const path = calleePath(node);
  if (path !== undefined) {
    const head = path.split(".")[0]!;
    const slot = ctx.scope.lookup(head);
    if (slot && path === head) {
      const closure = ctx.closures.get(slot);
      // One calling itself (`apply(rec, x)` of `const rec = (t) => … rec(t + 1) …`): inside,
      // its name calls it again, as when it is called (liftRecursiveLocal).
      if (closure)
        return lift(
          ctx,
          closure.node,
          closure.scope,
          contextual,
          ctx.module,
          undefined,
          undefined,
          selfName(ctx, closure, head),
        );
      const bound = ctx.bound.get(slot);
      if (bound) return bound;
      return ctx.fail(
        node,
        closureCapture.localValueIsNotAFunction(
          head,
          slot.type === "opaque" ? "value" : typeText(slot.type),
          what,
        ),
      );
    }
    if (!slot) {
      const symbol = resolveCallee(ctx, path);
      if (symbol && !symbol.thisType) return { fn: { kind: "named", symbol }, values: [] };
      if (ctx.module.constants.get(head)?.holdsFunction) {
        return ctx.fail(node, closureCapture.moduleVariableHoldsAFunction(head, what));
      }
    }
  }
  if (node.type === "MemberExpression" && !node.computed) {
    const field = readFunctionField(ctx, node, contextual);
    if (field) return field;
  }
  // `table[name]`, `m.get(name)`, `schedule[i]`: a function value read from data; a call of
  // it takes its types from TypeScript there (callFunctionArg).
  if (node.type === "MemberExpression" || node.type === "CallExpression") {
    const value = ctx.lowerExpression(node as Expression);
    if (value.type === "opaque") {
      const fn: StaticFunction = {
        kind: "dynamic",
        type: contextual ?? { params: [], result: undefined, text: "" },
        what,
        origin: ctx.loc(node),
      };
      return { fn, values: [value] };
    }
  }
  return ctx.fail(node, closureCapture.nablaCannotTellWhichFunction(what));
}

/** A choice of `first` when `test` holds, else `second`. */
function choice(test: Value, first: FunctionArg, second: FunctionArg): FunctionArg {
  return {
    fn: { kind: "choice", options: [first.fn, second.fn] },
    values: [test, ...first.values, ...second.values],
  };
}

/** Whether `node` is (or may be, in a choice) a function written or declared locally. */
function holdsLocalFunction(ctx: LowerContext, node: Node): boolean {
  while (
    node.type === "ParenthesizedExpression" ||
    node.type === "TSAsExpression" ||
    node.type === "TSSatisfiesExpression" ||
    node.type === "TSNonNullExpression"
  )
    node = node.expression;
  if (node.type === "ArrowFunctionExpression" || node.type === "FunctionExpression") return true;
  if (node.type === "ConditionalExpression")
    return holdsLocalFunction(ctx, node.consequent) || holdsLocalFunction(ctx, node.alternate);
  if (node.type === "LogicalExpression")
    return holdsLocalFunction(ctx, node.left) || holdsLocalFunction(ctx, node.right);
  const field = boundFieldRead(ctx, node)?.fn.kind;
  if (field === "lambda" || field === "choice") return true;
  const slot = node.type === "Identifier" ? ctx.scope.lookup(node.name) : undefined;
  if (!slot) return false;
  const kind = ctx.bound.get(slot)?.fn.kind;
  return ctx.closures.has(slot) || kind === "lambda" || kind === "choice";
}

/**
 * `obj.act` where the field holds a function: its value, chosen at run time (a call of it tests
 * which of the program's functions it is).
 */
function readFunctionField(
  ctx: LowerContext,
  node: Node & { type: "MemberExpression" },
  contextual: FunctionTypeInfo | undefined,
): FunctionArg | undefined {
  if (node.computed || node.property.type !== "Identifier") return undefined;
  const name = node.property.name;
  const object = ctx.lowerExpression(node.object as Expression);
  if (!isObject(object.type)) return undefined;
  // `opts.onStep`, written in an object literal: the function itself (object-closures.ts).
  const bound = boundField(ctx, object, name);
  if (bound) return bound;
  // `xs.map(model.predict)`, an arrow field: the arrow, lifted with `this` the object.
  const arrow = object.type.classKey && arrowFieldMethod(ctx, object.type, name, node);
  if (arrow) {
    const saved = ctx.scope;
    ctx.scope = new Scope(undefined);
    try {
      ctx.declare("this", "const", object.type, object);
      return lift(ctx, arrow.node, ctx.scope, contextual, arrow.module, object.type.name);
    } finally {
      ctx.scope = saved;
    }
  }
  const field = object.type.fields.find((f) => f.name === name);
  const callable = field?.callable;
  return field && callable ? functionField(ctx, node, object, { ...field, callable }) : undefined;
}

/** The function a field holding one (`field.callable`) has, read from `object`. */
export function functionField(
  ctx: LowerContext,
  at: Node,
  object: Value,
  field: FieldType & { callable: FunctionTypeInfo },
): FunctionArg {
  const bound = boundField(ctx, object, field.name);
  if (bound) return bound;
  ctx.at(at);
  const value = ctx.builder.emit(
    "field",
    [object],
    ["opaque"],
    { field: field.name },
    [],
    field.name,
  ).results[0]!;
  const fn: StaticFunction = {
    kind: "dynamic",
    type: field.callable,
    what: `field '${field.name}' of '${(object.type as ObjectType).name}'`,
    origin: field.declaredAt ?? ctx.loc(at),
    ...(field.optional ? { optional: true } : {}),
  };
  return { fn, values: [value] };
}

/** `Math.tanh` as a value (`act = Math.tanh`): called, it is tested like any function value. */
function mathFunctionValue(ctx: LowerContext, node: Node, name: string, what: string): FunctionArg {
  ctx.at(node);
  const arity = MATH_FUNCTIONS.get(name)!.arity;
  const params: Type[] = Array.from({ length: arity === "variadic" ? 2 : arity }, () => "number");
  const value = ctx.builder.emit("global", [], ["opaque"], { callee: `Math.${name}` }).results[0]!;
  const fn: StaticFunction = {
    kind: "dynamic",
    type: { params, result: "number", text: `Math.${name}` },
    what,
    origin: ctx.loc(node),
  };
  return { fn, values: [value] };
}

/** `c ? relu : tanh`: a function chosen at run time among functions the compiler sees. */
function chooseAtRunTime(
  ctx: LowerContext,
  node: Node & { type: "ConditionalExpression" },
  contextual: FunctionTypeInfo | undefined,
  what: string,
): FunctionArg {
  const cond = ctx.lowerCondition(node.test);
  let type: FunctionTypeInfo | undefined = contextual;
  const [value] = lowerIf(ctx, cond, [
    () => [materialize(ctx, node.consequent, contextual, what, (t) => (type ??= t), true)],
    () => [materialize(ctx, node.alternate, contextual, what, (t) => (type ??= t), true)],
  ]);
  const fn: StaticFunction = {
    kind: "dynamic",
    type: type!,
    what: "this value",
    origin: ctx.loc(node),
  };
  return { fn, values: [value!] };
}

/** A function value stored as a value (`{ act: tanh }`): a top-level function or a dynamic value. */
export function functionValue(
  ctx: LowerContext,
  node: Node,
  contextual: FunctionTypeInfo,
  what: string,
): Value {
  return materialize(ctx, node, contextual, what, () => undefined);
}

/**
 * The function of a field written in an object literal (`{ onStep: (t, y) => … }`): a local
 * function or a choice involving one is `bound`, known where the code is compiled (see
 * object-closures.ts); any other function is a run-time value, as `functionValue` gives it.
 */
export function fieldFunction(
  ctx: LowerContext,
  node: Node,
  contextual: FunctionTypeInfo,
  what: string,
): { bound: FunctionArg } | { value: Value } {
  const arg = resolveFunctionArg(ctx, node, contextual, what);
  if (arg.fn.kind === "lambda" || arg.fn.kind === "choice") return { bound: arg };
  return { value: materialize(ctx, node, contextual, what, () => undefined, false, arg) };
}

/** A function value as a run-time value: a top-level function, or a dynamic value. */
function materialize(
  ctx: LowerContext,
  node: Node,
  contextual: FunctionTypeInfo | undefined,
  what: string,
  typed: (t: FunctionTypeInfo) => void,
  /** One of the two functions a condition chooses between (`c ? (t) => t * x : sq`). */
  chosen = false,
  /** The function `node` denotes, when already resolved. */
  arg = resolveFunctionArg(ctx, node, contextual, what),
): Value {
  if (arg.fn.kind === "dynamic") {
    typed(arg.fn.type);
    return arg.values[0]!;
  }
  if (arg.fn.kind === "absent") return absentValue(ctx, node, arg.fn.value);
  if (arg.fn.kind === "lambda" || arg.fn.kind === "choice") {
    // `{ g: model.predict }`: an arrow field passed on is lifted, which only a call can take.
    if (
      arg.fn.kind === "lambda" &&
      node.type === "MemberExpression" &&
      node.property.type === "Identifier"
    )
      return ctx.fail(node, closureCapture.arrowFieldStored(node.property.name));
    return ctx.fail(
      node,
      chosen || arg.fn.kind === "choice"
        ? closureCapture.functionChosenAtRunTime()
        : closureCapture.inlineFunctionStored(),
    );
  }
  const symbol = arg.fn.symbol;
  const signature = signatureOf(
    symbol.node,
    typeResolver(ctx.program, symbol.module, symbol.typeArguments),
  );
  typed({
    params: signature.params.map((p) => p.type),
    result: signature.result ?? "number",
    text: symbol.name,
  });
  return functionReference(ctx, node, symbol);
}

/** The value of a top-level function (a `global` op naming it). */
function functionReference(ctx: LowerContext, at: Node, symbol: FunctionSymbol): Value {
  ctx.at(at);
  // A function in module data (`scenario.load`) or a `const` arrow is read from a binding
  // that may not be initialized yet; a function declaration is hoisted.
  const mayBeUninitialized = symbol.node.type !== "FunctionDeclaration" && !symbol.thisType;
  return ctx.builder.emit(
    "global",
    [],
    ["opaque"],
    {
      callee: symbol.name,
      function: symbolKey(symbol),
      ...(mayBeUninitialized ? { mayBeUninitialized } : {}),
    },
    [],
    symbol.name,
  ).results[0]!;
}

/**
 * A local function or an arrow, lifted to a function of its own: what it reads of the
 * enclosing function becomes extra parameters (their values are carried here), the local
 * functions it calls become bindings.
 */
function lift(
  ctx: LowerContext,
  node: FunctionLike,
  scope: Scope,
  contextual: FunctionTypeInfo | undefined,
  /** Where the function is written, and for an arrow field, the type of the `this` it captures. */
  module = ctx.module,
  thisType?: string,
  /** For a method of an object literal: `this` is captured, and its other accessors bound. */
  method?: { accessors: { binding: Binding; values: Value[] }[]; getter: boolean },
  /** For a local function calling itself: the name it calls itself by, bound to itself. */
  recursive?: string,
): FunctionArg {
  if (ctx.inlining.has(node)) {
    return ctx.fail(node, unsupportedSyntax.localFunctionCannotPassItself());
  }
  if (node.async || node.generator) {
    return ctx.fail(node, unsupportedSyntax.functionPassedToAnotherFunction());
  }
  const captures: Capture[] = [];
  const captured: Value[] = [];
  const bindings: Binding[] = [];
  const carried: Value[] = [];
  ctx.inlining.add(node);
  try {
    for (const name of method ? ["this", ...freeNames(node)] : freeNames(node)) {
      if (name === recursive) continue;
      const slot = scope.lookup(name);
      if (!slot || !ctx.env.has(slot)) continue;
      const closure = ctx.closures.get(slot);
      const inner = closure
        ? lift(
            ctx,
            closure.node,
            closure.scope,
            undefined,
            ctx.module,
            undefined,
            undefined,
            selfName(ctx, closure, name),
          )
        : ctx.bound.get(slot);
      if (inner) {
        bindings.push({ name, fn: inner.fn });
        carried.push(...inner.values);
        continue;
      }
      const cell = ctx.cells.get(slot);
      captures.push({
        name,
        type: slot.type,
        node,
        isFunction: false,
        ...(cell ? { cell: true } : {}),
      });
      captured.push(cell ?? ctx.value(slot));
    }
  } finally {
    ctx.inlining.delete(node);
  }
  // What it assigns of the enclosing function's variables must be in cells they share.
  const written = [...assignedNames([node.body!])].filter((n) =>
    captures.some((c) => c.name === n && !c.cell),
  );
  if (written.length > 0) {
    return ctx.fail(node, closureCapture.thisFunctionIsPassedTo(written[0]));
  }
  for (const { binding, values } of method?.accessors ?? []) {
    bindings.push(binding);
    carried.push(...values);
  }
  const file = module.file;
  const cells = captures.filter((c) => c.cell).map((c) => c.name);
  const suffix =
    (bindings.length > 0 ? `{${bindings.map((b) => `${b.name}=${staticKey(b.fn)}`)}}` : "") +
    (cells.length > 0 ? `{cells=${cells}}` : "");
  const key = `${file}#lambda@${node.start}${suffix}${thisType ? `{this=${thisType}}` : ""}`;
  const at = positionAt(module.text, node.start);
  const name = ctx.program.generatedName(file, key, `${lambdaName(at.line, at.column)}$passed`);
  const target: DifferentiationTarget = {
    module,
    name,
    node,
    contextualNumberParams: false,
    captures,
    bindings,
    ...(contextual ? { contextual } : {}),
    liftedCaptures: true,
    ...(recursive ? { recursive } : {}),
    ...(method
      ? { literalAccessor: method.getter ? ("getter" as const) : ("method" as const) }
      : {}),
  };
  return { fn: { kind: "lambda", key, target }, values: [...captured, ...carried] };
}

/**
 * A method or getter of an object literal, lifted to a function of its own to be passed on
 * with the object (passed-accessors.ts): `this`, declared in `scope`, is captured like the
 * variables it reads, and the object's other accessors it reaches through `this` are bound.
 */
export function liftLiteralAccessor(
  ctx: LowerContext,
  node: FunctionLike,
  scope: Scope,
  contextual: FunctionTypeInfo | undefined,
  thisType: string,
  method: { accessors: { binding: Binding; values: Value[] }[]; getter: boolean },
): FunctionArg {
  return lift(ctx, node, scope, contextual, ctx.module, thisType, method);
}

/**
 * `name`, when the local function `closure` it names calls itself by it (`apply(rec, x)` of
 * `const rec = (t) => … rec(t + 1) …`, or a function passed on that calls `rec`): lifted, its
 * name inside calls it again, as when it is called (liftRecursiveLocal).
 */
function selfName(
  ctx: LowerContext,
  closure: { node: FunctionLike; scope: Scope },
  name: string,
): string | undefined {
  return callsItself(ctx, name, closure) ? name : undefined;
}

/** Whether a local function reads its own name (inside, the name is itself). */
export function callsItself(
  ctx: LowerContext,
  name: string,
  closure: { node: FunctionLike; scope: Scope },
): boolean {
  if (!freeNames(closure.node).includes(name)) return false;
  const slot = closure.scope.lookup(name);
  return slot !== undefined && ctx.closures.get(slot)?.node === closure.node;
}

/**
 * The arguments of a call of a lifted local function that calls itself, its trailing
 * parameters with defaults or marked `?` left out of the call (`walk(root)` of `function
 * walk(n, depth = 0)`) given as undefined, whose default the function then takes; a count no
 * call could give fails.
 */
export function withOmittedDefaults(
  ctx: LowerContext,
  node: Node,
  name: string,
  fn: FunctionLike,
  params: readonly { name: string; type: Type | undefined }[],
  args: Value[],
): Value[] {
  const omissible = (p: Node) =>
    p.type === "AssignmentPattern" || (p as { optional?: boolean }).optional === true;
  let required = fn.params.length;
  while (required > 0 && omissible(fn.params[required - 1]!)) required--;
  if (args.length < required || args.length > fn.params.length)
    checkArity(ctx, node, name, fn.params.length, args.length);
  return [...args, ...omitted(ctx, params.slice(args.length) as Parameters<typeof omitted>[1])];
}

/**
 * A local function that calls itself (`const total = (t: Tree): number => … total(c) …`),
 * lifted to a function of its own, which its calls run instead of its inlined body: inside,
 * its name calls it again with the same captures.
 */
export function liftRecursiveLocal(
  ctx: LowerContext,
  name: string,
  closure: { node: FunctionLike; scope: Scope },
): FunctionArg {
  return lift(ctx, closure.node, closure.scope, undefined, ctx.module, undefined, undefined, name);
}

/**
 * Refuses what a function given to an operator reads and its call cannot pass: a name one of
 * its local functions reads as another variable than the call's site does, or a local function
 * held in a variable that may change.
 */
export function refuseUnpassable(ctx: LowerContext, capture: Capture): void {
  if (capture.hiddenFrom !== undefined)
    ctx.fail(
      capture.node,
      closureCapture.localFunctionReadsHiddenName(capture.hiddenFrom, capture.name),
    );
  if (capture.isFunction)
    ctx.fail(capture.node, closureCapture.localFunctionMayChange(capture.name));
}

/**
 * A variable a function reads from the enclosing one, holding `value`: a constant choice of
 * top-level functions (`capture.callable`) is a function value chosen at run time.
 */
export function declareCapture(ctx: LowerContext, capture: Capture, value: Value): void {
  if (capture.cell) {
    ctx.declareCell(capture.name, capture.type!, value);
    return;
  }
  const slot = ctx.declare(capture.name, "captured", capture.type!, value);
  // The instance of the method an arrow is written in: what `this` is in the arrow.
  if (capture.name === THIS_CAPTURE) ctx.declare("this", "const", capture.type!, value);
  if (!capture.callable) return;
  const fn: StaticFunction = {
    kind: "dynamic",
    type: capture.callable,
    what: `'${capture.name}'`,
    origin: ctx.loc(capture.node),
  };
  ctx.bound.set(slot, { fn, values: [value] });
}

/** The parameter and result types a call of `fn` has. */
function typesOf(fn: StaticFunction, ctx: LowerContext): FunctionTypeInfo {
  if (fn.kind === "dynamic") return fn.type;
  if (fn.kind === "choice") return typesOf(fn.options[0], ctx);
  if (fn.kind === "absent") throw new Error("internal: an absent function has no types");
  const node = fn.kind === "named" ? fn.symbol.node : fn.target.node;
  const mod = fn.kind === "named" ? fn.symbol.module : fn.target.module;
  const signature = signatureOf(node, typeResolver(ctx.program, mod));
  const contextual = fn.kind === "lambda" ? fn.target.contextual : undefined;
  return {
    params: signature.params.map((p, i) => p.type ?? contextual?.params[i]),
    result: signature.result ?? contextual?.result ?? "number",
    text: "",
  };
}

/** A call of a function value with already lowered arguments. `name` is how the code calls it. */
export function callFunctionArg(
  ctx: LowerContext,
  node: CallExpression | Node,
  arg: FunctionArg,
  args: Value[],
  name: string,
): Value {
  const fn = arg.fn;
  if (fn.kind === "absent") return callAbsent(ctx, node, name);
  if (fn.kind === "named") {
    const params = signatureOf(
      fn.symbol.node,
      typeResolver(ctx.program, fn.symbol.module, fn.symbol.typeArguments),
    ).params;
    // `const quiet: Hook = () => {}` called as a Hook: JavaScript ignores the extra arguments.
    if (!params.some((p) => p.rest) && args.length > params.length)
      args = args.slice(0, params.length);
    const packed = packRestArguments(ctx, node, params, args);
    return emitUserCall(ctx, node, fn.symbol, fn.symbol.name, packed);
  }
  if (fn.kind === "dynamic") {
    // A value read from data (`table[name]`) has the types TypeScript gives the call.
    const typed = fn.type.result === undefined ? { ...fn, type: callTypes(ctx, node, name) } : fn;
    return callDynamic(ctx, node, typed, arg.values[0]!, args, name);
  }
  if (fn.kind === "choice") return callChoice(ctx, node, { fn, values: arg.values }, args, name);
  const types = typesOf(fn, ctx);
  // A function value may take fewer parameters than its type gives (`(item) => …` for an
  // `(item: T, index: number) => number`): JavaScript ignores the extra arguments.
  if (args.length > types.params.length) args = args.slice(0, types.params.length);
  const params = fn.target.node.params.map((p, i) => ({
    name:
      p.type === "Identifier"
        ? p.name
        : p.type === "AssignmentPattern" && p.left.type === "Identifier"
          ? p.left.name
          : String(i + 1),
    type: types.params[i],
  }));
  // A local function calling itself again leaving out a parameter with a default (it is
  // never inlined, so its own code applies the default).
  if (fn.target.recursive)
    args = withOmittedDefaults(ctx, node, name, fn.target.node, params, args);
  else checkArity(ctx, node, name, types.params.length, args.length);
  checkArgumentTypes(ctx, node, name, params, args, []);
  if (inlinable(ctx, fn)) return inlineLifted(ctx, node, fn, arg.values, args, types.result!);
  ctx.calls.push({
    key: fn.key,
    symbol: { module: fn.target.module, name: fn.target.name, node: fn.target.node },
    loc: ctx.loc(node),
    target: fn.target,
  });
  ctx.at(node);
  const result = types.result!;
  const attrs = { callee: fn.key, calleeName: name };
  const operands = [...args, ...arg.values];
  if (result === "void") {
    ctx.builder.emit("call", operands, [], attrs);
    return ctx.builder.newValue("void");
  }
  return ctx.builder.emit("call", operands, [result], attrs).results[0]!;
}

/** Calls the option of a choice its test picks. */
function callChoice(
  ctx: LowerContext,
  node: CallExpression | Node,
  arg: FunctionArg & { fn: { kind: "choice" } },
  args: Value[],
  name: string,
): Value {
  const [first, second] = arg.fn.options;
  const count = carriedValues(first, "").length;
  const options = [
    { fn: first, values: arg.values.slice(1, 1 + count) },
    { fn: second, values: arg.values.slice(1 + count) },
  ];
  // The first option decides whether the call gives a value: an option left out (`c ? (t) => {
  // … } : undefined`) gives what TypeScript says the call gives, not always `void`.
  let returns: boolean | undefined;
  const results = lowerIf(
    ctx,
    arg.values[0]!,
    options.map((option) => () => {
      const v = callFunctionArg(ctx, node, option, args, name);
      returns ??= v.type !== "void";
      return returns ? [v] : [];
    }) as [() => Value[], () => Value[]],
  );
  return returns ? results[0]! : ctx.builder.newValue("void");
}

/** The parameter and result types TypeScript gives a call of a function value. */
export function callTypes(ctx: LowerContext, node: Node, name: string): FunctionTypeInfo {
  const call =
    node.type === "CallExpression" ? ctx.types.inferred?.callAt(node.start, node.end) : undefined;
  const at = node.type === "CallExpression" ? node.callee : node;
  if (!call?.result) return ctx.fail(at, unknownCallee.cannotTellTypesOfCall(name));
  return { params: call.params, result: call.result, text: name };
}

/**
 * A call of a function held by a run-time value lowering knows only as a value (`table[name]`,
 * an element of an array of functions, a local or loop variable holding one, an optional
 * field): the call's parameter and result types are the ones TypeScript gives it.
 */
export function callOpaqueValue(
  ctx: LowerContext,
  node: CallExpression,
  value: Value,
  args: Value[],
  name: string,
): Value {
  const fn: StaticFunction = {
    kind: "dynamic",
    type: callTypes(ctx, node, name),
    what: `'${name}'`,
    origin: ctx.loc(node.callee),
  };
  return callFunctionArg(ctx, node, { fn, values: [value] }, args, name);
}

/**
 * Whether a lifted function is inlined at its calls rather than called: when it was written in
 * the module being lowered (its module-level names mean the same here) and returns only at its
 * end. A call would cost its derivative a frame, shadows saved on the tape and its captures
 * taped again at every call; inlined, the code is what the user would write by hand.
 */
function inlinable(ctx: LowerContext, fn: StaticFunction & { kind: "lambda" }): boolean {
  const node = fn.target.node;
  // A function calling itself runs as one, not inlined into itself.
  if (fn.target.module !== ctx.module || ctx.inlining.has(node) || fn.target.recursive)
    return false;
  return returnsOnlyAtEnd(node);
}

/**
 * A lifted function's body lowered in place: in a scope of its own holding only what it
 * captures (bound to the values it carries), so its other names resolve at module level as
 * where it was written, not to locals of the function it was passed to.
 */
function inlineLifted(
  ctx: LowerContext,
  at: Node,
  fn: StaticFunction & { kind: "lambda" },
  carried: Value[],
  args: Value[],
  result: Type,
): Value {
  const saved = ctx.scope;
  ctx.scope = new Scope(undefined);
  ctx.inlining.add(fn.target.node);
  try {
    let next = 0;
    for (const capture of fn.target.captures) {
      refuseUnpassable(ctx, capture);
      if (!capture.type) {
        return ctx.fail(
          capture.node,
          unknownType.cannotDetermineTypeOfWhich(
            capture.name,
            functionLabel(fn.target.name),
            capturedVariableAdvice(fn.target.module, capture.node, capture.name),
          ),
        );
      }
      declareCapture(ctx, capture, carried[next++]!);
    }
    for (const binding of fn.target.bindings ?? []) {
      const count = carriedValues(binding.fn, binding.name).length;
      const values = carried.slice(next, next + count);
      next += count;
      // `this.area` of a method of an object literal: the object's other accessor.
      const field = fieldBindingName(binding.name);
      const object = field && ctx.scope.lookup(field.param);
      if (field && object)
        bindParameterField(
          ctx,
          ctx.value(object),
          field.field,
          { fn: binding.fn, values },
          ctx.loc(at),
        );
      else ctx.bound.set(ctx.declareFunctionName(binding.name), { fn: binding.fn, values });
    }
    // The enclosing function's local functions it calls (resolve/local-function-reads.ts).
    for (const local of fn.target.localFunctions ?? [])
      ctx.closures.set(ctx.declareFunctionName(local.name), { node: local.node, scope: ctx.scope });
    const produced = inlineCallback(ctx, fn.target.node, args, "a function passed on");
    ctx.at(at);
    if (result === "void" || !produced) return produced ?? ctx.builder.newValue("void");
    return expectType(ctx, at, produced, result);
  } finally {
    ctx.inlining.delete(fn.target.node);
    ctx.scope = saved;
  }
}

/**
 * A call of a function chosen at run time: tests the value against each function of the
 * program used as a value that fits the call, and calls that one; another function throws.
 */
function callDynamic(
  ctx: LowerContext,
  node: Node,
  fn: StaticFunction & { kind: "dynamic" },
  value: Value,
  args: Value[],
  name: string,
): Value {
  const result = fn.type.result ?? "number";
  const candidates: Candidate[] = [
    ...functionsUsedAsValues(ctx.program)
      .filter((s) => fits(ctx, s, args, result))
      .map((symbol) => ({ symbol })),
    ...mathFunctionsUsedAsValues(ctx.program)
      .filter((math) => mathFits(math, args, result))
      .map((math) => ({ math })),
  ];
  if (candidates.length === 0 && !fn.optional) {
    return ctx.fail(
      node,
      unknownCallee.noFunctionOfProgramFits(
        name,
        args.map((a) => typeText(a.type)).join(", "),
        typeText(result),
      ),
    );
  }
  const callCandidate = (candidate: Candidate): Value => {
    if ("math" in candidate) {
      const arity = MATH_FUNCTIONS.get(candidate.math)!.arity;
      const used = arity === "variadic" ? args : args.slice(0, arity);
      return ctx.builder.emit("math", used, ["number"], { callee: candidate.math }).results[0]!;
    }
    const symbol = candidate.symbol;
    return emitUserCall(ctx, node, symbol, symbol.name, args.slice(0, symbol.node.params.length));
  };
  const chain = (i: number): Value[] => {
    ctx.at(node);
    if (i === candidates.length) {
      const where = ctx.builder.constant(name);
      ctx.builder.emit("extern", [value, where], ["void"], {
        callee: "nabla:unknownFunctionValue",
      });
      if (result === "void") return [];
      if (result === "number" || result === "boolean")
        return [ctx.builder.constant(result === "number" ? NaN : false)];
      // The extern throws; an array or object still needs a value of its shape here, so the
      // branch calls the last candidate, which never runs (or, with none, a placeholder).
      if (candidates.length === 0)
        return [ctx.builder.emit("const", [], [result], {}, [], "").results[0]!];
      return [callCandidate(candidates[candidates.length - 1]!)];
    }
    const candidate = candidates[i]!;
    const reference =
      "math" in candidate
        ? ctx.builder.emit("global", [], ["opaque"], { callee: `Math.${candidate.math}` })
            .results[0]!
        : functionReference(ctx, node, candidate.symbol);
    const same = ctx.builder.emit("nondiff", [value, reference], ["boolean"], { callee: "===" })
      .results[0]!;
    return lowerIf(ctx, same, [
      () => {
        ctx.dispatching = `one of the functions '${name}' may hold (a function of the program used as a value that fits the call)`;
        try {
          const v = callCandidate(candidate);
          return result === "void" ? [] : [v];
        } finally {
          ctx.dispatching = undefined;
        }
      },
      () => chain(i + 1),
    ]);
  };
  const [v] = chain(0);
  return v ?? ctx.builder.newValue("void");
}

/** A function a dynamic value may hold: one of the program's, or a Math function. */
type Candidate = { symbol: FunctionSymbol } | { math: string };

/** Whether the Math function `name` can be called with `args` for a `result`. */
function mathFits(name: string, args: Value[], result: Type): boolean {
  const arity = MATH_FUNCTIONS.get(name)?.arity;
  if (arity === undefined || (result !== "number" && result !== "void")) return false;
  if (arity !== "variadic" && args.length < arity) return false;
  return args.every((a) => a.type === "number");
}

/** Whether `symbol` can be called with `args` for a `result`. */
function fits(ctx: LowerContext, symbol: FunctionSymbol, args: Value[], result: Type): boolean {
  if (symbol.thisType) return false;
  const signature = signatureOf(
    symbol.node,
    typeResolver(ctx.program, symbol.module, symbol.typeArguments),
  );
  // A rest parameter takes the arguments as they come, not the one array a call may pass.
  if (signature.params.some((p) => p.rest)) return false;
  // Trailing parameters with defaults or marked `?` may be left out (`(a, delta = 0.5) => …`
  // called with one argument): emitUserCall gives them undefined.
  let required = signature.params.length;
  while (required > 0 && signature.params[required - 1]!.omissible) required--;
  if (required > args.length) return false;
  const given = signature.params.slice(0, args.length);
  if (given.some((p, i) => !p.type || !assignable(args[i]!.type, p.type))) return false;
  const returns = signature.result ?? "number";
  return result === "void" || sameType(returns, result);
}

/** An absent function as a value (`{ onStep }` with onStep left out): undefined or null. */
function absentValue(ctx: LowerContext, at: Node, value: "undefined" | "null"): Value {
  ctx.at(at);
  const attrs = value === "null" ? { isNull: true } : {};
  return ctx.builder.emit("const", [], ["opaque"], attrs, [], value).results[0]!;
}

/**
 * A call of a function parameter that was left out, without `?.`: JavaScript's TypeError,
 * raised when the call runs (it may sit in a branch that never does). Its value is never used.
 */
function callAbsent(ctx: LowerContext, node: Node, name: string): Value {
  raiseNotAFunction(ctx, node, name);
  const result =
    node.type === "CallExpression"
      ? ctx.types.inferred?.callAt(node.start, node.end)?.result
      : undefined;
  if (!result || result === "void") return ctx.builder.newValue("void");
  return ctx.builder.emit("const", [], [result], {}, [], "").results[0]!;
}

/** JavaScript's TypeError for calling `name`, which holds no function, raised where it runs. */
function raiseNotAFunction(ctx: LowerContext, node: Node, name: string): void {
  ctx.at(node);
  ctx.builder.emit(
    "extern",
    [ctx.builder.constant("TypeError"), ctx.builder.constant(`${name} is not a function`)],
    ["void"],
    { callee: "nabla:raise" },
  );
}

/**
 * A callback left out (`xs.forEach(hook!)` where the call gave no `hook`, or gave one chosen at
 * run time that may be undefined): the array method throws JavaScript's TypeError before it
 * looks at the array, even an empty one.
 */
export function requireCallback(
  ctx: LowerContext,
  node: Node,
  arg: FunctionArg,
  name: string,
): void {
  const label = name.replace(/!+$/, "");
  const presence = presenceOf(ctx, arg);
  if (presence === false) raiseNotAFunction(ctx, node, label);
  else if (presence !== true)
    lowerIf(ctx, presence, [
      () => [],
      () => {
        raiseNotAFunction(ctx, node, label);
        return [];
      },
    ]);
}

/**
 * Whether a function value holds a function: known where the code is compiled (true, false)
 * or a run-time boolean. A `dynamic` value is tested (not null or undefined); a `choice`
 * holds one where the option its test picks does.
 */
export type Presence = boolean | Value;

/** The function `node` names (a function parameter or local holding one), if it names one. */
function heldBy(ctx: LowerContext, node: Node): FunctionArg | "local" | undefined {
  const field = boundFieldRead(ctx, node);
  if (field) return field;
  while (node.type === "ParenthesizedExpression" || node.type === "TSNonNullExpression")
    node = node.expression;
  if (node.type !== "Identifier") return undefined;
  const slot = ctx.scope.lookup(node.name);
  if (!slot) return undefined;
  if (ctx.closures.has(slot)) return "local";
  return ctx.bound.get(slot);
}

/**
 * Per option of `arg`, `leaf(option)`; a choice's two answers joined by its test (one
 * constant when both are the same constant).
 */
function byOption(
  ctx: LowerContext,
  arg: FunctionArg,
  leaf: (arg: FunctionArg) => Presence,
): Presence {
  if (arg.fn.kind !== "choice") return leaf(arg);
  const [first, second] = arg.fn.options;
  const count = carriedValues(first, "").length;
  const a = byOption(ctx, { fn: first, values: arg.values.slice(1, 1 + count) }, leaf);
  const b = byOption(ctx, { fn: second, values: arg.values.slice(1 + count) }, leaf);
  if (typeof a === "boolean" && a === b) return a;
  const value = (p: Presence) => (typeof p === "boolean" ? ctx.builder.constant(p) : p);
  return ctx.builder.select(arg.values[0]!, value(a), value(b));
}

/** Whether `arg` holds a function (see Presence). */
export function presenceOf(ctx: LowerContext, arg: FunctionArg): Presence {
  return byOption(ctx, arg, (option) => {
    if (option.fn.kind === "absent") return false;
    if (option.fn.kind !== "dynamic") return true;
    return ctx.builder.unary("not", ctx.builder.unary("nullish", option.values[0]!));
  });
}

/**
 * Whether `node` names a function parameter or local function, and then whether it holds a
 * function: `if (onStep)`, `onStep?.(…)` (undefined: not such a name).
 */
export function holdsFunction(ctx: LowerContext, node: Node): Presence | undefined {
  const held = heldBy(ctx, node);
  if (held === undefined) return undefined;
  return held === "local" ? true : presenceOf(ctx, held);
}

/**
 * Whether the function `node` names is `literal` (`undefined` or `null`), compared as
 * JavaScript compares: `loose` for `==`, where either absence is equal to both.
 * `strict(value)` tests a run-time value with `===` (undefined: not such a name).
 */
export function equalsAbsent(
  ctx: LowerContext,
  node: Node,
  literal: "undefined" | "null",
  loose: boolean,
  strict: (value: Value) => Value,
): Presence | undefined {
  const held = heldBy(ctx, node);
  if (held === undefined) return undefined;
  if (held === "local") return false;
  return absentAs(ctx, held, literal, loose, strict);
}

function absentAs(
  ctx: LowerContext,
  arg: FunctionArg,
  literal: "undefined" | "null",
  loose: boolean,
  strict: (value: Value) => Value,
): Presence {
  return byOption(ctx, arg, (option) => {
    if (option.fn.kind === "absent") return loose || option.fn.value === literal;
    if (option.fn.kind !== "dynamic") return false;
    const value = option.values[0]!;
    return loose ? ctx.builder.unary("nullish", value) : strict(value);
  });
}

/**
 * `arg` given for a parameter with a default (`act = Math.tanh`): where it is undefined
 * (written so, or a value that is at run time), the default, as in JavaScript; `fallback`
 * resolves the default, or is undefined where it cannot be read here.
 */
export function withDefault(
  ctx: LowerContext,
  at: Node,
  arg: FunctionArg,
  fallback: (() => FunctionArg) | undefined,
  what: string,
): FunctionArg {
  ctx.at(at);
  const missing = absentAs(ctx, arg, "undefined", false, (v) => isUndefinedValue(ctx, v));
  if (missing === false) return arg;
  if (!fallback) return ctx.fail(at, closureCapture.defaultWrittenElsewhere(what));
  if (missing === true) return fallback();
  const other = fallback();
  // Two run-time values (`new Unit(w, Math.sin)` of `act = Math.tanh`): one run-time value,
  // which a field can hold, where a choice could only be called.
  if (arg.fn.kind === "dynamic" && other.fn.kind === "dynamic") {
    const [value] = lowerIf(ctx, missing, [() => [other.values[0]!], () => [arg.values[0]!]]);
    return { fn: arg.fn, values: [value!] };
  }
  return choice(missing, other, arg);
}
