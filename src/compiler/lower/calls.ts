import { lowerHeldOperatorCall, lowerModuleHeldOperatorCall } from "./held-operators.js";
import {
  badOperatorUse,
  callArity,
  closureCapture,
  nestedDifferentiation,
  typeMismatch,
  unknownCallee,
  unsupportedSyntax,
  unsupportedType,
} from "../diagnostics/messages/index.js";
import { functionKey, symbolKey } from "../ir/function-key.js";
import type { CallExpression, Expression, MemberExpression, Node } from "oxc-parser";
import type { FunctionLike } from "../parse/module.js";
import { typeResolver, parameterFunctionTypeOf } from "../types/resolver.js";
import { fieldOf, isArray, isObject, TYPED_ARRAY_STORAGES, typeText } from "../ir/type-system.js";
import type { FunctionTypeInfo, ObjectType, Type, Value } from "../ir/types.js";
import { isLocalSpecifier, packageFile, type FunctionSymbol } from "../parse/program.js";
import { MATH_FUNCTIONS, NON_DIFFERENTIABLE_MATH } from "../rules/math.js";
import type { LowerContext } from "./context.js";
import { describeNode, syntaxKind } from "./describe.js";
import { closestMathFunction } from "./math-help.js";
import { isArrayCall, lowerNew, lowerValue, readerOf } from "./members.js";
import { lowerObjectAssign } from "./object-assign.js";
import { isValueReceiver, lowerArrayFrom, lowerArrayMethod, methodName } from "./methods.js";
import { isKeyed, isMap, isSet } from "../ir/type-system.js";
import { mathApplyAsCall } from "./math-apply.js";
import { factoryCallOf } from "../parse/closure-factory.js";
import { anonymousDefaultValue } from "../parse/default-export.js";
import { mathCallback, mathMember } from "./math-functions.js";
import { computedFieldCall, lowerMapMethod, lowerObjectFunction } from "./keyed.js";
import type { Scope } from "./context.js";
import { signatureOf, type ParamInfo, type Signature } from "../types/signature.js";
import { expandArguments, needsExpansion } from "./spread-arguments.js";
import { callWithLiteralSpreadsInlined } from "./literal-spreads.js";
import { lowerNestedOperator } from "./nested.js";
import { genericInstance, type GenericInstance } from "./generic-calls.js";
import { iteratedGenerator } from "./generators.js";
import { mathByKeyAsChoice } from "./math-keys.js";
import { keptFunctionParameter, withoutValue } from "./stored-function-params.js";
import { staticMethodSymbol } from "../parse/class-hierarchy.js";
import { arrowFieldMethod, arrowFieldOfClass } from "./arrow-fields.js";
import {
  fieldFunctionType,
  lowerClassMethodCall,
  lowerInterfaceMethodCall,
  lowerSuperMethod,
  type MethodCaller,
} from "./class-dispatch.js";
import { lowerSuperConstructorCall } from "./construct.js";
import { lowerWithDerivative } from "./surgery.js";
import type { FieldType } from "../ir/types.js";
import {
  callFunctionArg,
  callsItself,
  carriedValues,
  callOpaqueValue,
  callTypes,
  functionField,
  liftRecursiveLocal,
  withOmittedDefaults,
  resolveFunctionArg,
  specializationName,
  withDefault,
} from "./function-values.js";
import { specializationKey, type Binding } from "../resolve/targets.js";
import { boundField, objectArgumentBindings } from "./object-closures.js";
import { isPlatformGlobal } from "../types/globals.js";
import { article } from "./describe.js";
import { expectType } from "./expect-type.js";
import {
  calleePath,
  checkArgumentTypes,
  checkArity,
  emitUserCall,
  resolveCallee,
  taggedCheckpoint,
  omitted,
} from "./user-call.js";
import { inlineCallback } from "./inline-callback.js";
import { literalMethodCall, moduleLiteralMethodCall } from "./literal-accessors.js";
import { lowerLiteralFactoryCall } from "./literal-factories.js";
import { accessorArgumentBindings, thisPositions } from "./passed-accessors.js";
import { declareMadeFunction } from "./factories.js";
import { lowerStructuredClone } from "./structured-clone.js";
import { callOfListElement, lowerFunctionListMethod } from "./function-lists.js";
import { lowerObjectListMethod, lowerPickedMember } from "./object-lists.js";
import { namedTarget, nablaOperatorOf } from "../resolve/operator-call.js";

// Calls: Math functions, user functions (same file or imported), and the few outside
// functions differentiable code may use on inactive values.

/** Global functions without a derivative: allowed, but an error if an active value flows through. */
const NON_DIFFERENTIABLE_GLOBALS: Record<string, { result: Type; args: Type | "any" }> = {
  String: { result: "string", args: "any" },
  Number: { result: "number", args: "any" },
  Boolean: { result: "boolean", args: "any" },
  parseFloat: { result: "number", args: "string" },
  parseInt: { result: "number", args: "any" },
  isNaN: { result: "boolean", args: "number" },
  isFinite: { result: "boolean", args: "number" },
  "Number.isNaN": { result: "boolean", args: "number" },
  "Number.isFinite": { result: "boolean", args: "number" },
  "Number.isInteger": { result: "boolean", args: "number" },
  "Number.parseFloat": { result: "number", args: "string" },
  "Array.isArray": { result: "boolean", args: "any" },
};

/** Whether `path` (via `binding`) names the nabla runtime export `name`. */
function isNablaOperator(
  binding: { specifier: string; imported: string },
  path: string,
  name: string,
): boolean {
  if (binding.specifier !== "nabla" && binding.specifier !== "nabla/runtime") return false;
  return binding.imported === "*" ? path.endsWith(`.${name}`) : binding.imported === name;
}

/** The key that names a user function across the whole program. */
export function lowerCall(ctx: LowerContext, written: CallExpression): Value {
  const node = callWithLiteralSpreadsInlined(written);
  if (node.optional) return ctx.fail(node, unsupportedSyntax.optionalCallsAreNotSupported());
  const element = callOfListElement(ctx, node);
  if (element) return lowerCall(ctx, element);
  const looped =
    lowerFunctionListMethod(ctx, node) ??
    lowerObjectListMethod(ctx, node) ??
    lowerPickedMember(ctx, node.callee, node);
  if (looped) return looped;
  const callee = node.callee;
  if (callee.type === "Super")
    return lowerSuperConstructorCall(ctx, node, lowerArguments(ctx, node));
  if (callee.type === "MemberExpression" && callee.object.type === "Super")
    return lowerSuperMethodCall(ctx, node, callee);
  const math = mathMember(ctx, callee);
  if (math !== undefined) return lowerMathCall(ctx, node, math);
  const applied = mathApplyAsCall(ctx, node);
  if (applied) return lowerCall(ctx, applied);
  const chosen = mathByKeyAsChoice(ctx, node);
  if (chosen) return ctx.lowerExpression(chosen);

  if (callee.type === "MemberExpression" && isValueReceiver(ctx, callee)) {
    return lowerMethodCall(ctx, node, callee);
  }
  const path = calleePath(callee);
  if (path === "Array.from" && isPlatformGlobal(ctx.module, "Array", ctx.scope))
    return lowerArrayFrom(ctx, node);
  for (const typed of TYPED_ARRAY_STORAGES)
    if (path === `${typed}.from` && isPlatformGlobal(ctx.module, typed, ctx.scope))
      return lowerArrayFrom(ctx, node, typed);
  // `Float64Array.of(x, y)`, `Array.of(x)`: the array of the arguments, as `from` of their
  // literal (`Array.of(3)` is `[3]`, not `Array(3)`).
  for (const storage of ["Array", ...TYPED_ARRAY_STORAGES] as const)
    if (path === `${storage}.of` && isPlatformGlobal(ctx.module, storage, ctx.scope)) {
      const elements = node.arguments;
      const literal = { type: "ArrayExpression", elements, start: node.start, end: node.end };
      const from = { ...node, arguments: [literal] } as CallExpression;
      return storage === "Array"
        ? ctx.lowerExpression(literal as Expression)
        : lowerArrayFrom(ctx, from, storage);
    }
  if (path === "Object.assign" && isPlatformGlobal(ctx.module, "Object", ctx.scope))
    return lowerObjectAssign(ctx, node);
  if (path?.startsWith("Object.") && isPlatformGlobal(ctx.module, "Object", ctx.scope)) {
    const listed = lowerObjectFunction(ctx, node, path.slice("Object.".length));
    if (listed) return listed;
  }
  if (isArrayCall(ctx, node)) return lowerNew(ctx, node);
  if (path === undefined) {
    const inner = callee.type === "CallExpression" ? calleePath(callee.callee) : undefined;
    const operator =
      callee.type === "CallExpression" && inner && !ctx.scope.lookup(inner.split(".")[0]!)
        ? nablaOperatorOf(ctx.module, callee.callee)
        : undefined;
    if (operator === "checkpoint" && callee.type === "CallExpression")
      return lowerCheckpointCall(ctx, node, callee);
    if (operator && callee.type === "CallExpression")
      return lowerNestedOperator(ctx, node, callee, operator);
    // `differential(f)(x)(dx)`, `pullback(f)(x)(w)`: a derivative function made and called.
    const maker =
      callee.type === "CallExpression" && callee.callee.type === "CallExpression"
        ? nablaOperatorOf(ctx.module, callee.callee.callee)
        : undefined;
    if (maker) {
      return ctx.fail(
        callee,
        nestedDifferentiation.cannotBeUsedInsideDifferentiable(maker, ctx.codeContext),
      );
    }
    return lowerValueCall(ctx, node);
  }
  const head = path.split(".")[0]!;

  const local = ctx.scope.lookup(head);
  const closure = local && path === head ? ctx.closures.get(local) : undefined;
  if (closure) return lowerClosureCall(ctx, node, head, closure);
  if (local && path === head && ctx.heldOperators.has(local))
    return lowerHeldOperatorCall(ctx, node, local, head);
  const bound = local && path === head ? ctx.bound.get(local) : undefined;
  if (bound) return callFunctionArg(ctx, node, bound, lowerArguments(ctx, node), head);
  // `const act = table[name]; act(x)`, `for (const g of schedule) g(x)`: a local holding a
  // function value.
  if (local && path === head && local.type === "opaque")
    return callOpaqueValue(ctx, node, ctx.value(local), lowerArguments(ctx, node), head);
  if (local) {
    return ctx.fail(
      callee,
      closureCapture.isLocalNotFunctionNabla(
        head,
        local.type === "opaque" ? "value" : typeText(local.type),
      ),
    );
  }
  const nonDiff = NON_DIFFERENTIABLE_GLOBALS[path];
  if (nonDiff && isPlatformGlobal(ctx.module, head)) {
    const args = lowerArguments(ctx, node);
    // `Number(x)` of a number is x itself, derivative and all.
    if (path === "Number" && args.length === 1 && args[0]!.type === "number") return args[0]!;
    ctx.at(node);
    return ctx.builder.emit("nondiff", args, [nonDiff.result], { callee: path }).results[0]!;
  }
  if (path === "structuredClone" && isPlatformGlobal(ctx.module, head, ctx.scope))
    return lowerStructuredClone(ctx, node);
  if (head === "console" && isPlatformGlobal(ctx.module, head)) {
    const args = lowerArguments(ctx, node);
    ctx.at(node);
    return ctx.builder.emit("extern", args, ["void"], { callee: path }).results[0]!;
  }

  const binding = ctx.module.imports.get(head);
  if (binding && isNablaOperator(binding, path, "withoutDerivative")) {
    const args = lowerArguments(ctx, node);
    if (args.length !== 1) return ctx.fail(node, callArity.withoutDerivativeTakesOneArgument());
    ctx.at(node);
    return ctx.builder.emit("detach", args, [args[0]!.type]).results[0]!;
  }
  if (binding && isNablaOperator(binding, path, "withDerivative")) {
    return lowerWithDerivative(ctx, node);
  }
  if (binding?.specifier === "nabla" || binding?.specifier.startsWith("nabla/")) {
    return ctx.fail(
      callee,
      nestedDifferentiation.returnsFunctionInsideDifferentiableCode(
        path,
        path.split(".").pop(),
        ctx.codeContext,
      ),
    );
  }

  if (ctx.module.constants.get(head)?.holdsFunction) {
    return ctx.fail(callee, closureCapture.isModuleLevelVariableHolding(head));
  }
  const held = lowerModuleHeldOperatorCall(ctx, node, path);
  if (held) return held;
  // `makeModel(w)`, a factory of an object with methods: run here (literal-factories.ts).
  const made = path === head ? lowerLiteralFactoryCall(ctx, node) : undefined;
  if (made) return made;
  const symbol = resolveCallee(ctx, path) ?? staticMethod(ctx, path);
  if (!symbol && ctx.program.resolveType(ctx.module, head)?.node.type === "ClassDeclaration") {
    return ctx.fail(callee, unsupportedSyntax.staticMethodsAreNotSupported(path));
  }
  const ruled = symbol ?? packageRuleSymbol(ctx, path);
  if (!ruled) return failUnknownCallee(ctx, node, callee, path);
  return lowerUserCall(ctx, node, ruled, path);
}

/**
 * `checkpoint(f)(…)`: a call of f that reverse mode recomputes instead of taping (see
 * emit/js/checkpoint.ts).
 */
function lowerCheckpointCall(
  ctx: LowerContext,
  node: CallExpression,
  inner: CallExpression,
): Value {
  const [fn, ...extra] = inner.arguments;
  const path = fn && fn.type !== "SpreadElement" ? calleePath(fn) : undefined;
  const symbol =
    path !== undefined && !ctx.scope.lookup(path.split(".")[0]!)
      ? resolveCallee(ctx, path)
      : undefined;
  if (!symbol || extra.length > 0) {
    return ctx.fail(fn ?? inner, badOperatorUse.checkpointTakesOneFunctionDeclared());
  }
  return lowerUserCall(ctx, node, symbol, path!, undefined, true);
}

/**
 * A call of a local function: its body is inlined here, in the scope it was written in, so it
 * reads the current values of the variables it closes over and its assignments to them are
 * seen after the call — as the closure would behave.
 */
function lowerClosureCall(
  ctx: LowerContext,
  node: CallExpression,
  name: string,
  closure: { node: FunctionLike; scope: Scope },
): Value {
  const fn = closure.node;
  if (callsItself(ctx, name, closure)) return callRecursiveLocal(ctx, node, name, closure);
  if (ctx.inlining.has(fn)) {
    return ctx.fail(node, unsupportedSyntax.localFunctionsCallEachOther(name));
  }
  if (fn.generator) return ctx.fail(node, unsupportedSyntax.generatorOutsideForOf(name));
  if (fn.async || !fn.params.every(plainParameter)) {
    return ctx.fail(fn, unsupportedSyntax.localFunctionMustBePlain(name));
  }
  const signature = signatureOf(fn, ctx.types);
  if (needsExpansion(node, signature.params)) {
    return ctx.inScope(() =>
      lowerClosureCall(
        ctx,
        expandArguments(ctx, node, signature.params, () => false),
        name,
        closure,
      ),
    );
  }
  // A function given to a plain parameter (`row((a) => -Math.sin(a))`, `row(Math.cos)`, a
  // local function): the parameter names it inside, a local function of the caller's scope.
  const functions = node.arguments.map((a, i) =>
    fn.params[i]?.type === "Identifier" ? functionArgument(ctx, a) : undefined,
  );
  const args = lowerArguments(
    ctx,
    functions.some(Boolean) ? withPlaceholders(node, functions) : node,
    signature.params.map((p, i) => (functions[i] ? undefined : p.type)),
  );
  let required = fn.params.length;
  while (required > 0 && fn.params[required - 1]!.type === "AssignmentPattern") required--;
  if (args.length < required || args.length > fn.params.length)
    checkArity(ctx, node, name, fn.params.length, args.length);
  checkArgumentTypes(
    ctx,
    node,
    name,
    signature.params.map((p, i) => (functions[i] ? { ...p, type: undefined } : p)),
    args,
    node.arguments,
  );
  const saved = ctx.scope;
  ctx.scope = closure.scope;
  ctx.inlining.add(fn);
  try {
    const produced = inlineCallback(ctx, fn, args, `the local function '${name}'`, functions);
    ctx.at(node);
    if (signature.result && signature.result !== "void" && produced)
      return expectType(ctx, node, produced, signature.result);
    return produced ?? ctx.builder.newValue("void");
  } finally {
    ctx.inlining.delete(fn);
    ctx.scope = saved;
  }
}

/**
 * A parameter a local function may have: a name or a pattern (`([, a], [, b]) => b - a`, bound
 * as a callback's are), with or without a default (`q = p * 2`), which a call may leave out.
 */
function plainParameter(p: Node): boolean {
  return (
    p.type === "Identifier" ||
    p.type === "ArrayPattern" ||
    p.type === "ObjectPattern" ||
    (p.type === "AssignmentPattern" && plainParameter(p.left))
  );
}

/**
 * A call of a local function that calls itself: its body cannot be inlined into itself, so it
 * runs as a function of its own, given what it reads of this one (liftRecursiveLocal).
 */
function callRecursiveLocal(
  ctx: LowerContext,
  node: CallExpression,
  name: string,
  closure: { node: FunctionLike; scope: Scope },
): Value {
  const fn = closure.node;
  if (fn.async || fn.generator || !fn.params.every(plainParameter)) {
    return ctx.fail(fn, unsupportedSyntax.localFunctionMustBePlain(name));
  }
  const lifted = liftRecursiveLocal(ctx, name, closure);
  const signature = signatureOf(fn, ctx.types);
  const args = withOmittedDefaults(
    ctx,
    node,
    name,
    fn,
    signature.params,
    lowerArguments(
      ctx,
      node,
      signature.params.map((p) => p.type),
    ),
  );
  checkArgumentTypes(ctx, node, name, signature.params, args, node.arguments);
  return callFunctionArg(ctx, node, lifted, args, name);
}

/** The local function an argument is: an arrow written there, `Math.f`, or a local function. */
function functionArgument(
  ctx: LowerContext,
  arg: Node,
): { node: FunctionLike; scope: Scope } | undefined {
  if (arg.type === "ArrowFunctionExpression" || arg.type === "FunctionExpression")
    return { node: arg, scope: ctx.scope };
  const math = mathCallback(ctx, arg, true);
  if (math) return { node: math, scope: ctx.scope };
  if (arg.type !== "Identifier") return undefined;
  const slot = ctx.scope.lookup(arg.name);
  return slot ? ctx.closures.get(slot) : undefined;
}

/** `node` with its function arguments read as `0`: they are bound as local functions instead. */
function withPlaceholders(node: CallExpression, functions: readonly unknown[]): CallExpression {
  const zero = (a: Node) => ({ type: "Literal", value: 0, raw: "0", start: a.start, end: a.end });
  return {
    ...node,
    arguments: node.arguments.map((a, i) => (functions[i] ? zero(a) : a)),
  } as CallExpression;
}

/** A function of an npm package that has a registered derivative. */
function packageRuleSymbol(ctx: LowerContext, path: string): FunctionSymbol | undefined {
  const [head, member] = path.split(".") as [string, string | undefined];
  const binding = ctx.module.imports.get(head);
  if (!binding || isLocalSpecifier(ctx.module.file, binding.specifier)) return undefined;
  const exported = binding.imported === "*" ? member : binding.imported;
  if (exported === undefined || (binding.imported === "*") !== (member !== undefined))
    return undefined;
  return ctx.program.rules.get(functionKey(packageFile(binding.specifier), exported))?.symbol;
}

/** `xs.map(…)`, `a.push(v)`, `model.forward(x)`: array methods and methods of classes. */
function lowerMethodCall(ctx: LowerContext, node: CallExpression, callee: MemberExpression): Value {
  const name = methodName(callee);
  const receiver = ctx.lowerExpression(callee.object as Expression);
  ctx.at(node);
  // `box.norm()`, a method written in the literal `box` holds (literal-accessors.ts).
  const method =
    name === undefined
      ? undefined
      : literalMethodCall(ctx, node, receiver, name, () => lowerArguments(ctx, node));
  if (method) return method;
  // `Loss.mse(a, b)`, a method written in a module-level object literal (literal-accessors.ts).
  const moduleMethod =
    name === undefined
      ? undefined
      : moduleLiteralMethodCall(ctx, node, callee.object, receiver, name, () =>
          lowerArguments(ctx, node),
        );
  if (moduleMethod) return moduleMethod;
  // `opts.onStep(t, y)`, written in an object literal: that function (object-closures.ts).
  const bound = name === undefined ? undefined : boundField(ctx, receiver, name);
  if (bound)
    return callFunctionArg(ctx, node, bound, lowerArguments(ctx, node), sourceOf(ctx, callee));
  if (name !== undefined && isArray(receiver.type))
    return lowerArrayMethod(ctx, node, receiver, name);
  if (name !== undefined && (isMap(receiver.type) || isSet(receiver.type)))
    return lowerMapMethod(ctx, node, receiver, name);
  const type = receiver.type;
  if (name !== undefined && type === "number" && NUMBER_TEXT_METHODS.has(name)) {
    // `r.toFixed(3)`: the number's text, which has no derivative.
    const args = lowerArguments(ctx, node);
    ctx.at(node);
    return ctx.builder.emit("nondiff", [receiver, ...args], ["string"], { callee: `.${name}` })
      .results[0]!;
  }
  const textResult = name !== undefined && type === "string" ? STRING_METHODS.get(name) : undefined;
  if (textResult) {
    // `label.endsWith("large")`, `key.split(",")`: text, with no derivative; its arguments are
    // numbers and strings (a callback or a pattern is not run here).
    const args = lowerArguments(ctx, node);
    const other = args.findIndex(
      (a) => !["number", "string", "boolean"].includes(a.type as string),
    );
    if (other >= 0)
      return ctx.fail(
        node.arguments[other]!,
        unsupportedSyntax.stringMethodArguments(name!, typeText(args[other]!.type)),
      );
    ctx.at(node);
    return ctx.builder.emit("nondiff", [receiver, ...args], [textResult], { callee: `.${name}` })
      .results[0]!;
  }
  if (name !== undefined && isObject(type) && type.classKey) {
    const field = type.fields.find((f) => f.name === name);
    // An arrow field, the instance's own property, hides a method of the same name.
    const arrow = isGetterRead(node) ? undefined : arrowFieldMethod(ctx, type, name, node);
    if (arrow) return lowerUserCall(ctx, node, arrow, name, receiver);
    const callable = field && fieldFunctionType(ctx, type, field);
    if (field && callable) return callField(ctx, node, callee, receiver, { ...field, callable });
    const kind = isGetterRead(node) ? "get" : "method";
    // An override may take fewer parameters than the method it overrides (`force(): number`
    // for `abstract force(t: number)`): called as an interface's implementation is.
    const called = lowerClassMethodCall(
      ctx,
      node,
      receiver,
      type,
      name,
      kind,
      implementationCaller(ctx, node, name),
    );
    if (called) return called;
    if (field) return callField(ctx, node, callee, receiver, field);
    return ctx.fail(callee.property, unknownCallee.classHasNoMethodNabla(type.name, name));
  }
  if (name !== undefined && isObject(type) && type.interfaceKey !== undefined) {
    const kind = isGetterRead(node) ? "get" : "method";
    return lowerInterfaceMethodCall(
      ctx,
      node,
      receiver,
      { ...type, interfaceKey: type.interfaceKey },
      name,
      kind,
      implementationCaller(ctx, node, name),
      // `s.weight`, a field of the interface that some classes implement by a getter.
      kind === "get" && fieldOf(type, name)
        ? () =>
            ctx.builder.emit(
              "field",
              [receiver],
              [fieldOf(type, name)!.type],
              { field: name },
              [],
              name,
            ).results[0]!
        : undefined,
      kind === "method" ? (cls) => arrowFieldOfClass(ctx, cls, name, node) : undefined,
    );
  }
  const field = name !== undefined && isObject(type) ? fieldOf(type, name) : undefined;
  if (field) return callField(ctx, node, callee, receiver, field);
  // `functions[e.fn](x)`: the function of the field the key names, chosen at run time.
  if (callee.computed && isObject(type))
    return computedFieldCall(ctx, callee, receiver, (f) =>
      callField(ctx, node, callee, receiver, f),
    );
  // `table[name](x)`, `table.relu(x)`, `schedule[i](x)`: an element holding a function.
  if ((isKeyed(type) || (isArray(type) && callee.computed)) && elementType(type) === "opaque") {
    const value = readerOf(ctx, callee, receiver)();
    return callOpaqueValue(ctx, node, value, lowerArguments(ctx, node), sourceOf(ctx, callee));
  }
  // `s.apply(x)` of an interface's method on an object whose literal is not known here (chosen
  // by a condition, read from an array): which code runs is known only at run time.
  if (
    name !== undefined &&
    isObject(type) &&
    !type.classKey &&
    ctx.types.inferred?.callAt(node.start, node.end)?.result !== undefined
  )
    return ctx.fail(callee, closureCapture.literalMethodNotKnown(name, type.name));
  return ctx.fail(
    callee,
    unsupportedSyntax.callingOnIsNotSupported(describeNode(callee), article(type)),
  );
}

/** The type of what an array or a record holds. */
function elementType(type: Type): Type {
  return isKeyed(type) ? type.value : isArray(type) ? type.element : type;
}

/**
 * A call of what an expression evaluates to: `(layer.act ?? Math.tanh)(z)`, `table[k]!(z)`,
 * `m.get(k)!(z)` — a function value, chosen or read at run time.
 */
let calledCount = 0;

/**
 * `applyAll(x, square, Math.sin)` of `applyAll(x: number, ...fns: Fn[])`: functions go into a
 * rest parameter only of a factory (factories.ts), whose calls run where they are made.
 */
function refuseFunctionsIntoRest(
  ctx: LowerContext,
  node: CallExpression,
  params: readonly ParamInfo[],
  path: string,
): void {
  const rest = params.findIndex((p) => p.rest);
  if (rest < 0) return;
  const given = node.arguments.slice(rest).find((a) => isWrittenFunction(ctx, a));
  if (given)
    ctx.fail(given, unsupportedSyntax.functionsIntoRestParameter(path, params[rest]!.name));
}

/** An arrow, a function of the program or a Math function, as an argument. */
function isWrittenFunction(ctx: LowerContext, node: Node): boolean {
  if (node.type === "ArrowFunctionExpression" || node.type === "FunctionExpression") return true;
  if (mathMember(ctx, node) !== undefined) return true;
  if (node.type !== "Identifier") return false;
  const slot = ctx.scope.lookup(node.name);
  if (slot) return ctx.closures.has(slot) || ctx.bound.has(slot);
  return resolveCallee(ctx, node.name) !== undefined;
}

function lowerValueCall(ctx: LowerContext, node: CallExpression): Value {
  const callee = node.callee;
  if (
    callee.type === "TSNonNullExpression" ||
    callee.type === "ParenthesizedExpression" ||
    callee.type === "TSAsExpression" ||
    callee.type === "TSSatisfiesExpression"
  )
    return lowerCall(ctx, { ...node, callee: callee.expression });
  if (callee.type === "LogicalExpression" || callee.type === "ConditionalExpression") {
    const name = sourceOf(ctx, callee);
    const arg = resolveFunctionArg(ctx, callee, callTypes(ctx, node, name), "this value");
    return callFunctionArg(ctx, node, arg, lowerArguments(ctx, node), name);
  }
  // `compose(Math.sin, sq)(x)`: the function a factory makes, named, then called.
  const made = `$called${calledCount++}`;
  if (callee.type === "CallExpression" && declareMadeFunction(ctx, made, callee)) {
    const name = { type: "Identifier", name: made, start: callee.start, end: callee.end };
    return lowerCall(ctx, { ...node, callee: name as Expression });
  }
  if (callee.type === "CallExpression" || callee.type === "MemberExpression") {
    const value = ctx.lowerExpression(callee);
    if (value.type === "opaque")
      return callOpaqueValue(ctx, node, value, lowerArguments(ctx, node), sourceOf(ctx, callee));
  }
  if (callee.type === "CallExpression")
    return ctx.fail(callee, unsupportedSyntax.callingTheResultOfACall(sourceOf(ctx, callee)));
  return ctx.fail(callee, unsupportedSyntax.callingIsNotSupportedIn(describeNode(callee)));
}

/** How the code writes `node`, to name what holds a function in messages (`table[name]`). */
function sourceOf(ctx: LowerContext, node: Node): string {
  return ctx.module.text.slice(node.start, node.end).replace(/\s+/g, " ");
}

/** `layer.act(x)`: a call of the function a field holds, chosen at run time. */
function callField(
  ctx: LowerContext,
  node: CallExpression,
  callee: MemberExpression,
  receiver: Value,
  field: FieldType,
): Value {
  const type = receiver.type as ObjectType;
  // `ops[k](a, b)` choosing among arrow fields: each a method of the receiver.
  const arrow = type.classKey ? arrowFieldMethod(ctx, type, field.name, callee) : undefined;
  if (arrow) return lowerUserCall(ctx, node, arrow, field.name, receiver);
  if (!field.callable) {
    return ctx.fail(callee.property, unsupportedType.isFieldOfOfType(field.name, type.name));
  }
  const arg = functionField(ctx, callee, receiver, { ...field, callable: field.callable });
  return callFunctionArg(ctx, node, arg, lowerArguments(ctx, node), `${type.name}.${field.name}`);
}

/**
 * `Quaternion.identity`, `geo.Particle.at`: a static method of a class of the program (through
 * namespace imports), called by its path.
 */
function staticMethod(ctx: LowerContext, path: string): FunctionSymbol | undefined {
  const parts = path.split(".");
  const name = parts.pop();
  if (!name || parts.length === 0 || ctx.scope.lookup(parts[0]!)) return undefined;
  return staticMethodSymbol(ctx.program, ctx.module, parts.join("."), name);
}

/**
 * The methods of a string differentiable code may call, by the type of what they give (not
 * `at` or `codePointAt`, which may give undefined).
 */
const STRING_METHODS = new Map<string, Type>([
  ...["startsWith", "endsWith", "includes"].map((m): [string, Type] => [m, "boolean"]),
  ...["indexOf", "lastIndexOf", "charCodeAt", "localeCompare"].map((m): [string, Type] => [
    m,
    "number",
  ]),
  ...[
    "slice",
    "substring",
    "toUpperCase",
    "toLowerCase",
    "trim",
    "trimStart",
    "trimEnd",
    "padStart",
    "padEnd",
    "repeat",
    "charAt",
    "concat",
    "replace",
    "replaceAll",
    "normalize",
    "toString",
  ].map((m): [string, Type] => [m, "string"]),
  ["split", { kind: "array", storage: "Array", element: "string" }],
]);

/** The methods of a number that give its text. */
const NUMBER_TEXT_METHODS = new Set(["toFixed", "toPrecision", "toExponential", "toString"]);

/** What `Math.max()`, `Math.min()` and `Math.hypot()` give for no arguments. */
const FOLD_START: Record<string, number> = { max: -Infinity, min: Infinity, hypot: 0 };

/**
 * `Math.max(...xs)`, `Math.hypot(a, ...v)`: the variadic Math functions over spread arguments,
 * as the same function applied pairwise from the left (`xs.reduce((m, e) => Math.max(m, e),
 * -Infinity)`), which gives the same value and, as Math.max's rule wants, the derivative of
 * the first argument that attains it. Undefined when there is nothing spread to fold.
 */
function foldSpreadArguments(
  ctx: LowerContext,
  node: CallExpression,
  name: string,
): Expression | undefined {
  if (!(name in FOLD_START) || !node.arguments.some((a) => a.type === "SpreadElement"))
    return undefined;
  const at = { start: node.start, end: node.end };
  const id = (n: string) => ({ type: "Identifier", name: n, ...at });
  const pair = (a: unknown, b: unknown) => ({
    type: "CallExpression",
    callee: node.callee,
    arguments: [a, b],
    optional: false,
    ...at,
  });
  const start = FOLD_START[name]!;
  let acc: unknown =
    start === 0
      ? { type: "Literal", value: 0, raw: "0", ...at }
      : {
          type: "UnaryExpression",
          operator: start < 0 ? "-" : "+",
          prefix: true,
          argument: { type: "Literal", value: 1 / 0, raw: "Infinity", ...at },
          ...at,
        };
  for (const arg of node.arguments) {
    if (arg.type !== "SpreadElement") {
      acc = pair(acc, arg);
      continue;
    }
    const [m, e] = ["$fold", "$element"];
    // `Math.max(...this)` of an iterable class, `Math.max(...gen())`: its values, in an array
    // of numbers (`[...gen()] as number[]`), as Math's functions take.
    const values = iteratedGenerator(ctx, arg.argument)
      ? {
          type: "TSAsExpression",
          expression: { type: "ArrayExpression", elements: [arg], ...at },
          typeAnnotation: {
            type: "TSArrayType",
            elementType: { type: "TSNumberKeyword", ...at },
            ...at,
          },
          ...at,
        }
      : arg.argument;
    acc = {
      type: "CallExpression",
      callee: {
        type: "MemberExpression",
        object: values,
        property: id("reduce"),
        computed: false,
        optional: false,
        ...at,
      },
      arguments: [
        {
          type: "ArrowFunctionExpression",
          params: [id(m), id(e)],
          body: pair(id(m), id(e)),
          expression: true,
          async: false,
          generator: false,
          ...at,
        },
        acc,
      ],
      optional: false,
      ...at,
    };
  }
  return acc as Expression;
}

/** `super.describe()`: the method of the base class, whatever class the object is. */
function lowerSuperMethodCall(
  ctx: LowerContext,
  node: CallExpression,
  callee: MemberExpression,
): Value {
  const name = methodName(callee);
  if (name === undefined) return ctx.fail(callee, unsupportedSyntax.computedPropertyNamesOK());
  return lowerSuperMethod(ctx, node, name, isGetterRead(node) ? "get" : "method", (symbol, self) =>
    lowerUserCall(ctx, node, symbol, name, self),
  );
}

/** A call lowering made of a getter's read (members.ts): `v.lengthSq` runs `get lengthSq()`. */
export function isGetterRead(node: CallExpression): boolean {
  return (node as { getterRead?: boolean }).getterRead === true;
}

function lowerMathCall(ctx: LowerContext, node: CallExpression, name: string): Value {
  const folded = foldSpreadArguments(ctx, node, name);
  if (folded) return ctx.lowerExpression(folded);
  const arity = MATH_FUNCTIONS.get(name)?.arity;
  if (typeof arity === "number" && needsExpansion(node, [])) {
    // `Math.atan2(...p)`: the spread's elements, one per argument.
    const params = Array.from({ length: arity }, () => ({
      name: "",
      type: "number" as const,
      node,
      unsupported: false,
    }));
    return ctx.inScope(() =>
      lowerMathCall(
        ctx,
        expandArguments(ctx, node, params, () => false),
        name,
      ),
    );
  }
  const args = lowerArguments(ctx, node);
  ctx.at(node);
  for (const [i, a] of args.entries()) {
    if (a.type !== "number") {
      return ctx.fail(
        node.arguments[i]!,
        typeMismatch.mathExpectsNumbersGot(name, typeText(a.type)),
      );
    }
  }
  if (NON_DIFFERENTIABLE_MATH.has(name)) {
    return ctx.builder.emit("nondiff", args, ["number"], { callee: `Math.${name}` }).results[0]!;
  }
  const fn = MATH_FUNCTIONS.get(name);
  if (!fn)
    return ctx.fail(
      node.callee,
      unknownCallee.mathIsNotMathFunction(name, closestMathFunction(name)),
    );
  if (fn.arity !== "variadic" && fn.arity !== args.length) {
    return ctx.fail(
      node,
      callArity.mathTakesArgumentGot(name, fn.arity, fn.arity === 1 ? "" : "s", args.length),
    );
  }
  return ctx.builder.math(name, args);
}

/** How an interface's method `name` called by `node` calls a class's implementation. */
export function implementationCaller(
  ctx: LowerContext,
  node: CallExpression,
  name: string,
): MethodCaller {
  return (symbol, self) =>
    lowerUserCall(ctx, withArgumentsFor(ctx, node, symbol), symbol, name, self);
}

/**
 * `s.scale(k)` running a class's `scale(): void` (an implementation may take fewer
 * parameters than its interface says): the arguments past its parameters are evaluated, as
 * JavaScript evaluates them, and not passed.
 */
function withArgumentsFor(
  ctx: LowerContext,
  node: CallExpression,
  symbol: FunctionSymbol,
): CallExpression {
  const params = symbol.node.params;
  if (params.some((p) => p.type === "RestElement") || node.arguments.length <= params.length)
    return node;
  for (const extra of node.arguments.slice(params.length))
    if (extra.type !== "SpreadElement") ctx.lowerExpression(extra);
  return { ...node, arguments: node.arguments.slice(0, params.length) };
}

/**
 * `path` is the callee as written, for messages. A function-typed parameter given a function
 * value makes the call one of a specialization (see function-values.ts).
 */
export function lowerUserCall(
  ctx: LowerContext,
  node: CallExpression,
  symbol: FunctionSymbol,
  path: string,
  receiver?: Value,
  checkpoint = false,
): Value {
  // A generator's values are used by a `for…of` over its call (generators.ts), not here.
  if (symbol.node.generator) return ctx.fail(node, unsupportedSyntax.generatorOutsideForOf(path));
  const signature = signatureOf(
    symbol.node,
    typeResolver(ctx.program, symbol.module, symbol.typeArguments),
  );
  const callables = symbol.node.params.map((p) =>
    parameterFunctionTypeOf(ctx.program, symbol.module, p),
  );
  refuseFunctionsIntoRest(ctx, node, signature.params, path);
  if (needsExpansion(node, signature.params)) {
    // `h(...args)`, `sum(x, ...xs)`: one argument per parameter, the rest packed in an array.
    return ctx.inScope(() => {
      const expanded = expandArguments(ctx, node, signature.params, (i) => !!callables[i]);
      return lowerUserCall(ctx, expanded, symbol, path, receiver, checkpoint);
    });
  }
  // The arguments, when lowered before the call turns out to pass objects holding functions.
  let lowered: Value[] | undefined;
  if (!callables.some(Boolean)) {
    const args = lowerArguments(
      ctx,
      node,
      signature.params.map((p) => p.type),
    );
    // `solve({ f: (x) => …, df })`: specialized for the object's functions, as for a function.
    if (args.some((a) => ctx.boundObjects.has(a) || ctx.literalAccessors.has(a))) lowered = args;
    else return lowerPlainUserCall(ctx, node, symbol, path, signature, args, receiver, checkpoint);
  }
  const bindings: Binding[] = [];
  const carried: Value[] = [];
  const args: Value[] = [];
  // The other arguments first: a function reads what it captures when it is called, after
  // every argument has run (`hof(g, bump())`, where bump changes what g captures).
  const argumentTypes: (Type | undefined)[] = [];
  // The objects passed, which may hold functions written in object literals.
  const passed: { param: ParamInfo; value: Value }[] = [];
  node.arguments.forEach((arg, i) => {
    const param = signature.params[i];
    if (!callables[i] || !param || arg.type === "SpreadElement") {
      const values = lowered
        ? [lowered[i]!]
        : lowerArguments(ctx, { ...node, arguments: [arg] }, [param?.type]);
      args.push(...values);
      argumentTypes[i] = values[0]?.type;
      if (param) passed.push({ param, value: values[0]! });
    }
  });
  const generic = genericInstance(ctx, node, symbol, signature, argumentTypes);
  node.arguments.forEach((arg, i) => {
    const callable = callables[i];
    const param = signature.params[i];
    if (!callable || !param || arg.type === "SpreadElement") return;
    const what = `parameter '${param.name}' of '${symbol.name}'`;
    let value = resolveFunctionArg(ctx, arg, callable, what);
    const kept = withoutValue(value.fn) && keptFunctionParameter(symbol.node, param.name);
    if (kept) ctx.fail(arg, closureCapture.functionArgumentKept(symbol.name, param.name, kept));
    // `apply(x, undefined)` of `act = Math.tanh`: the default, as when it is left out.
    const fallback = param.defaultValue;
    if (fallback) {
      const readable = symbol.module === ctx.module || mathMember(ctx, fallback) !== undefined;
      value = withDefault(
        ctx,
        arg,
        value,
        readable ? () => resolveFunctionArg(ctx, fallback, callable, what) : undefined,
        what,
      );
    }
    bindings.push({ name: param.name, fn: value.fn });
    carried.push(...value.values);
  });
  // An omitted function parameter with a default (`act = Math.tanh`): bound to the default,
  // where it means the same in this module (a Math function, or the callee is here); one
  // marked `?`, to no function.
  let given = node.arguments.length;
  while (given < signature.params.length && callables[given]) {
    const param = signature.params[given]!;
    const fallback = param.defaultValue;
    // `onStep?: (i: number) => void` left out: no function, as JavaScript's undefined.
    if (!fallback && param.omissible) {
      bindings.push({ name: param.name, fn: { kind: "absent", value: "undefined" } });
      given++;
      continue;
    }
    if (!fallback || (symbol.module !== ctx.module && mathMember(ctx, fallback) === undefined))
      break;
    const value = resolveFunctionArg(
      ctx,
      fallback,
      callables[given],
      `parameter '${param.name}' of '${symbol.name}'`,
    );
    bindings.push({ name: param.name, fn: value.fn });
    carried.push(...value.values);
    given++;
  }
  // Trailing data parameters with defaults or marked `?` may be omitted (not functions).
  const omissible = signature.params
    .slice(given)
    .every((p, k) => p.omissible && !callables[given + k]);
  if (given < signature.params.length && omissible) {
    args.push(...omitted(ctx, signature.params.slice(given)));
  } else if (given !== signature.params.length) {
    return ctx.fail(
      node,
      callArity.takesArgumentGot(
        symbol.name,
        signature.params.length,
        signature.params.length === 1 ? "" : "s",
        node.arguments.length,
      ),
    );
  }
  // Bound after the function parameters, as the callee declares them (lowerFunction).
  const fields = objectArgumentBindings(ctx, passed);
  // Methods and getters of object literals passed (passed-accessors.ts), after those.
  const accessors = accessorArgumentBindings(ctx, passed);
  // The objects their lifted accessors capture as `this`, among the values carried.
  const thisAt: number[] = [];
  let offset = carried.length;
  for (const b of [...fields.bindings, ...accessors.bindings]) {
    for (const at of thisPositions(b.fn)) thisAt.push(offset + at);
    offset += carriedValues(b.fn, b.name).length;
  }
  bindings.push(...fields.bindings, ...accessors.bindings);
  carried.push(...fields.carried, ...accessors.carried);
  if (checkpoint || taggedCheckpoint(symbol)) {
    return ctx.fail(node, badOperatorUse.callOfWithFunctionArgument(symbol.name));
  }
  const key = specializationKey(generic?.key ?? symbolKey(symbol), bindings);
  if (nestingDepth(key) > MAX_SPECIALIZATION_DEPTH) {
    return ctx.fail(
      node,
      unsupportedSyntax.isGivenFunctionThatWraps(
        symbol.name,
        MAX_SPECIALIZATION_DEPTH,
        symbol.name,
      ),
    );
  }
  const target = {
    ...namedTarget(symbol),
    name: specializationName(ctx, symbol, key, bindings),
    bindings,
    ...(generic ? { typeArguments: generic.typeArguments, contextual: contextualOf(generic) } : {}),
  };
  const specialized: FunctionSymbol = { ...symbol, name: target.name };
  // The arguments' types are checked against the non-function parameters.
  const rest = signature.params
    .map((p, i) => (generic ? { ...p, type: generic.params[i] } : p))
    .filter((_, i) => !callables[i]);
  const result = emitUserCall(
    ctx,
    node,
    specialized,
    path,
    [...args, ...carried],
    receiver,
    false,
    {
      key,
      target,
      params: rest,
      arity: rest.length + carried.length,
      argNodes: node.arguments.filter((_, i) => !callables[i]),
      ...(generic?.result ? { result: generic.result } : {}),
    },
  );
  // The objects are passed to a specialization that takes their functions (object-closures.ts).
  if (fields.bindings.length > 0 || accessors.bindings.length > 0) {
    const call = ctx.builder.region.ops.at(-1)!;
    const leading = (receiver ? 1 : 0) + args.length;
    ctx.boundPasses.set(call, leading);
    // The objects captured as `this` by their lifted accessors are passed there too.
    if (thisAt.length > 0) ctx.thisPasses.set(call, new Set(thisAt.map((at) => leading + at)));
  }
  return result;
}

/** A call passing no function: of the callee, or of its instantiation for the call's types. */
function lowerPlainUserCall(
  ctx: LowerContext,
  node: CallExpression,
  symbol: FunctionSymbol,
  path: string,
  signature: Signature,
  args: Value[],
  receiver: Value | undefined,
  checkpoint: boolean,
): Value {
  // Generic, or taking several kinds of array: an instantiation per call's types.
  const types = args.map((a) => a.type);
  const generic = genericInstance(ctx, node, symbol, signature, types);
  if (!generic) return emitUserCall(ctx, node, symbol, path, args, receiver, checkpoint);
  // Each instantiation is a function of its own, typed as the call resolved it.
  const target = {
    ...namedTarget(symbol),
    name: ctx.program.generatedName(symbol.module.file, generic.key, symbol.name),
    typeArguments: generic.typeArguments,
    contextual: contextualOf(generic),
  };
  return emitUserCall(
    ctx,
    node,
    { ...symbol, name: target.name },
    path,
    args,
    receiver,
    checkpoint,
    {
      key: generic.key,
      target,
      params: signature.params.map((p, i) => ({ ...p, type: generic.params[i] })),
      arity: signature.params.length,
      argNodes: node.arguments,
      ...(generic.result ? { result: generic.result } : {}),
    },
  );
}

/** What lowering a generic's instantiation takes its parameter and result types from. */
function contextualOf(generic: GenericInstance): FunctionTypeInfo {
  return {
    params: generic.params,
    result: generic.result,
    text: generic.key,
  };
}

/** How deeply specializations nest in a key: `f{g=h{…}}` is 2. */
function nestingDepth(key: string): number {
  let depth = 0;
  let deepest = 0;
  for (const c of key) {
    if (c === "{") deepest = Math.max(deepest, ++depth);
    else if (c === "}") depth--;
  }
  return deepest;
}

/** Beyond this, a specialization is taken to be a recursion that wraps its function argument. */
const MAX_SPECIALIZATION_DEPTH = 12;

export function lowerArguments(
  ctx: LowerContext,
  node: CallExpression,
  expected: (Type | undefined)[] = [],
): Value[] {
  return node.arguments.map((arg, i) => {
    if (arg.type === "SpreadElement")
      return ctx.fail(
        arg,
        unsupportedSyntax.isNotSupportedInDifferentiable(
          describeNode(arg),
          syntaxKind(arg),
          ctx.codeContext,
        ),
      );
    const literal =
      arg.type === "ArrayExpression" ||
      arg.type === "ObjectExpression" ||
      arg.type === "NewExpression" ||
      (arg.type === "Identifier" && arg.name === "undefined") ||
      (arg.type === "Literal" && arg.value === null);
    return literal
      ? lowerValue(ctx, arg as Expression, expected[i])
      : ctx.lowerExpression(arg as Expression);
  });
}

function failUnknownCallee(
  ctx: LowerContext,
  node: CallExpression,
  callee: Node,
  path: string,
): never {
  const head = path.split(".")[0]!;
  const binding = ctx.module.imports.get(head);
  if (binding && !isLocalSpecifier(ctx.module.file, binding.specifier)) {
    return ctx.fail(callee, unknownCallee.cannotDifferentiateItComesFrom(path, binding.specifier));
  }
  const target = binding && ctx.program.importedModule(ctx.module, binding.specifier);
  const written = target && binding.imported === "default" && anonymousDefaultValue(target);
  if (written)
    return ctx.fail(
      callee,
      unknownCallee.anonymousDefaultValue(path, binding.specifier, written, head),
    );
  if (binding) {
    return ctx.fail(
      callee,
      unknownCallee.cannotDifferentiateDoesNotExport(
        path,
        binding.specifier,
        binding.imported === "*" ? path.split(".")[1] : binding.imported,
      ),
    );
  }
  if (path === "JSON.parse" && isPlatformGlobal(ctx.module, head, ctx.scope) && isJsonCopy(node))
    return ctx.fail(node, unknownCallee.jsonRoundTrip());
  if (path === "structuredClone" && isPlatformGlobal(ctx.module, path, ctx.scope))
    return ctx.fail(callee, unknownCallee.cannotDifferentiateDeepCopy(path));
  const factory =
    callee.type === "Identifier" && !ctx.scope.lookup(path)
      ? factoryCallOf(ctx.module, path)
      : undefined;
  if (factory !== undefined)
    return ctx.fail(callee, unknownCallee.cannotDifferentiateClosureFromCall(path, factory));
  return ctx.fail(callee, unknownCallee.cannotDifferentiateCallToIt(path));
}

/** `JSON.parse(JSON.stringify(x))`: a copy through JSON text. */
function isJsonCopy(node: CallExpression): boolean {
  const [arg] = node.arguments;
  return arg?.type === "CallExpression" && calleePath(arg.callee) === "JSON.stringify";
}
