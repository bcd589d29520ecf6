import { typeText } from "../ir/type-system.js";
import {
  closureCapture,
  missingReturn,
  unknownType,
  unsupportedSyntax,
  unsupportedType,
} from "../diagnostics/messages/index.js";
import { constructHelp } from "../diagnostics/messages/syntax-help.js";
import { admitsArraysOnly } from "./generic-calls.js";
import { isAggregate } from "../ir/type-system.js";
import type { Expression, FunctionBody, Node, TSTypeAnnotation } from "oxc-parser";
import type { IRFunction, ObjectType, Op, Region, Type, Value } from "../ir/types.js";
import { typeResolver, parameterFunctionTypeOf } from "../types/resolver.js";
import type { FunctionLike, SourceModule } from "../parse/module.js";
import type { ProgramGraph } from "../parse/program.js";
import { functionLabel } from "../ir/names.js";
import { lowerAuxReturn } from "./aux.js";
import {
  WidenConstruction,
  cellType,
  Scope,
  LowerContext,
  type LoweredFunction,
  type LowerOptions,
  type Lowering,
  type Slot,
} from "./context.js";
import { carriedValues, declareCapture, refuseUnpassable } from "./function-values.js";
import { bindParameterField, checkBoundObjectUses, fieldBindingName } from "./object-closures.js";
import { checkAccessorObjectUses } from "./literal-accessors.js";
import { celledNames } from "./cells.js";
import type { Binding, StaticFunction } from "../resolve/targets.js";
import { describeNode } from "./describe.js";
import { bindPattern, lowerParameterDefault } from "./destructure.js";
import { constructedClassName, constructorStatements, newInstance } from "./construct.js";
import { lowerCondition, lowerExpression } from "./expressions.js";
import { annotationText, signatureOf } from "../types/signature.js";
import { lowerStatements } from "./statements.js";
import { withRecovery } from "./recovery.js";
import { expectType } from "./expect-type.js";
import { lowerValue } from "./members.js";
import { capturedVariableAdvice, parameterAdvice } from "./annotation-advice.js";
import { checkHoles } from "./hole-checks.js";
import { checkEscapingHoles } from "./hole-exits.js";
import { checkModuleArrays } from "./module-holes.js";
import { zeroMissingElements } from "./typed-updates.js";
import { thisResult } from "./this-result.js";

// Entry point of lowering: one user function → one IR function, plus the user functions it
// calls (for the driver to lower next). Errors abort with a CompileAbort carrying the diagnostic.

/** The recursive entry points every file of lower/ reaches through the context. */
const LOWERING: Lowering = {
  expression: lowerExpression,
  value: lowerValue,
  condition: lowerCondition,
  statements: lowerStatements,
  function: lowerFunction,
};

export function lowerFunction(
  program: ProgramGraph,
  module: SourceModule,
  key: string,
  name: string,
  node: FunctionLike,
  options: LowerOptions = {},
): LoweredFunction {
  const widened = new Map<string, ObjectType>();
  for (;;) {
    try {
      return withRecovery(module.file, node, (skipped) =>
        lowerFunctionOnce(program, module, key, name, node, { ...options, skipped, widened }),
      );
    } catch (error) {
      // Again, with that `new` building its instance as the wider type it joins.
      if (!(error instanceof WidenConstruction) || widened.has(error.at)) throw error;
      widened.set(error.at, error.type);
    }
  }
}

function lowerFunctionOnce(
  program: ProgramGraph,
  module: SourceModule,
  key: string,
  name: string,
  node: FunctionLike,
  options: LowerOptions,
): LoweredFunction {
  const read = signatureOf(node, typeResolver(program, module, options.typeArguments));
  // An arrow whose body is an expression returns what its body is: lowering knows that
  // without asking TypeScript (so a lambda given to an operator does not start the checker).
  const bodyTyped = node.type === "ArrowFunctionExpression" && node.expression && !node.returnType;
  const signature = bodyTyped ? { params: read.params, result: undefined } : read;
  const body: Region = { params: [], ops: [] };
  const contextualResult = options.contextual?.result;
  // `return this` of a method, which the checker cannot type in a generic class.
  const selfResult = signature.result ? undefined : thisResult(node, options.thisType);
  // `hasAux`: each return gives the loss, a number (see aux.ts).
  let resultType: Type = options.aux
    ? "number"
    : (options.constructs ?? signature.result ?? selfResult ?? contextualResult ?? "number");
  // Messages name the user's function, not its `hasAux` form (`loss$aux`, see aux.ts).
  const shown = options.aux ? name.replace(/\$aux$/, "") : name;
  const ctx = new LowerContext(
    LOWERING,
    module,
    program,
    shown,
    body,
    resultType,
    options.typeArguments,
  );
  if (options.skipped) ctx.skipped = options.skipped;
  if (options.widened) ctx.widened = options.widened;
  if (options.codeContext) ctx.codeContext = options.codeContext;
  ctx.celled = celledNames(node);
  ctx.resultDefaulted =
    !options.aux && !options.constructs && !signature.result && !selfResult && !contextualResult;
  if (options.aux) ctx.auxReturn = { declared: signature.result };
  /** Names bound to function values, in binding order: their carried values follow the params. */
  const boundSlots: [Slot | undefined, Binding][] = [];
  /** The parameters' values, for the bindings of their fields (`opts.onStep`). */
  const paramValues = new Map<string, { value: Value; node: Node }>();
  if (options.thisType) {
    const self = ctx.builder.newValue(options.thisType, "self");
    body.params.push(self);
    ctx.declare("this", "const", options.thisType, self);
  }
  const where = node.type === "FunctionDeclaration" && node.id ? node.id : node;

  if (node.async || node.generator) {
    ctx.fail(
      where,
      unsupportedSyntax.isOnlyPlainFunctionsCan(shown, node.async ? "async" : "a generator"),
    );
  }
  if (node.returnType && !selfResult && (!signature.result || signature.result === "opaque")) {
    const text = annotationText(module.text, node.returnType);
    ctx.fail(
      node.returnType,
      unsupportedType.returnsDifferentiableFunctionsReturnNumbers(shown, text),
    );
  }

  signature.params.forEach((p, i) => {
    if (p.unsupported) {
      const what =
        p.node.type === "Identifier" ? `the optional parameter '${p.name}'` : describeNode(p.node);
      ctx.fail(p.node, unsupportedSyntax.constructNotSupported(what, constructHelp(p.node.type)));
    }
    const binding = options.bindings?.find((b) => b.name === p.name);
    if (binding) {
      boundSlots.push([ctx.declareFunctionName(p.name), binding]);
      return;
    }
    let type = p.type ?? options.contextual?.params[i];
    const annotation = (p.node.type === "Identifier" ? p.node.typeAnnotation : undefined) as
      TSTypeAnnotation | null | undefined;
    const callable = parameterFunctionTypeOf(program, module, p.node);
    if (!type && callable) {
      // A function-typed parameter no call binds (a root, or a `@differentiable` function):
      // its value is chosen at run time among the functions the program uses as values.
      const value = ctx.builder.newValue("opaque", p.name);
      body.params.push(value);
      const slot = ctx.declare(p.name, "param", "opaque", value);
      const fn: StaticFunction = {
        kind: "dynamic",
        type: callable,
        what: `parameter '${p.name}' of ${functionLabel(name)}`,
        origin: ctx.loc(p.node),
      };
      ctx.bound.set(slot, { fn, values: [value] });
      return;
    }
    if (!type) {
      if (annotation) {
        const text = annotationText(module.text, annotation);
        ctx.fail(
          p.node,
          admitsArraysOnly(annotation.typeAnnotation)
            ? unsupportedType.parameterOfHasSeveralArrayKinds(p.name, shown, text)
            : unsupportedType.parameterOfHasTypeWhich(p.name, shown, text),
        );
      }
      if (!options.contextualNumberParams) {
        ctx.fail(
          p.node,
          unknownType.cannotDetermineTypeOfParameter(p.name, shown, parameterAdvice(node, p.name)),
        );
      }
      type = "number";
    }
    if (type === "void" || type === "opaque")
      ctx.fail(p.node, unsupportedType.parameterHasType(p.name, type));
    const value = ctx.builder.newValue(type, p.name);
    body.params.push(value);
    ctx.declare(p.name, "param", type, value);
    paramValues.set(p.name, { value, node: p.node });
  });

  // What it reads of enclosing functions lives in a scope around its own: its local functions
  // (local-function-reads.ts) read it there, not the parameters and locals written inside.
  const own = ctx.scope;
  ctx.scope = new Scope(undefined);
  /** Where its captures and carried values start among its parameters. */
  const ownParams = body.params.length;
  for (const capture of options.captures ?? []) {
    refuseUnpassable(ctx, capture);
    if (!capture.type && holdsFunction(program, module, capture.node)) {
      return ctx.fail(
        capture.node,
        closureCapture.holdsFunctionWhichReadsFrom(capture.name, functionLabel(name)),
      );
    }
    if (!capture.type) {
      return ctx.fail(
        capture.node,
        unknownType.cannotDetermineTypeOfWhich(
          capture.name,
          functionLabel(name),
          capturedVariableAdvice(module, capture.node, capture.name),
        ),
      );
    }
    const value = ctx.builder.newValue(
      capture.cell ? cellType(capture.type) : capture.type,
      capture.name,
    );
    body.params.push(value);
    declareCapture(ctx, capture, value);
  }
  // Called, its code is inlined as in the enclosing function, reading the captures.
  for (const local of options.localFunctions ?? [])
    ctx.closures.set(ctx.declareFunctionName(local.name), { node: local.node, scope: ctx.scope });
  const self = options.recursive && ctx.declareFunctionName(options.recursive.name);
  // Functions it reads (not its parameters) are bound there too: its local functions call them.
  for (const binding of options.bindings ?? []) {
    if (!boundSlots.some(([, b]) => b === binding))
      boundSlots.push([
        fieldBindingName(binding.name) ? undefined : ctx.declareFunctionName(binding.name),
        binding,
      ]);
  }
  ctx.scope = withParent(own, ctx.scope);
  for (const [slot, binding] of boundSlots) {
    const values = carriedValues(binding.fn, binding.name).map((c) => {
      const v = ctx.builder.newValue(c.type, c.name);
      body.params.push(v);
      return v;
    });
    if (slot) {
      ctx.bound.set(slot, { fn: binding.fn, values });
      continue;
    }
    // `opts.onStep`: a function written in the object literal the call passes (object-closures.ts).
    const { param, field } = fieldBindingName(binding.name)!;
    const object = paramValues.get(param);
    // `this.area` in a method of an object literal lifted with `this` captured.
    const captured = object ? undefined : ctx.scope.lookup(param);
    if (captured) {
      bindParameterField(
        ctx,
        ctx.value(captured),
        field,
        { fn: binding.fn, values },
        ctx.loc(node),
      );
      continue;
    }
    if (!object) throw new Error(`internal: no parameter '${param}' for ${binding.name}`);
    bindParameterField(ctx, object.value, field, { fn: binding.fn, values }, ctx.loc(object.node));
  }
  // A local function calling itself: called again with the captures and functions it was given.
  if (self)
    ctx.bound.set(self, { fn: options.recursive!.fn, values: body.params.slice(ownParams) });

  for (const p of signature.params) {
    // A function parameter bound by the call (its default, if omitted) has no value to test.
    // An object parameter whose functions are bound is always given (no default applies).
    const bound = options.bindings?.some(
      (b) => b.name === p.name || fieldBindingName(b.name)?.param === p.name,
    );
    if (p.defaultValue && !bound) lowerParameterDefault(ctx, p.name, p.defaultValue);
    if (p.pattern) bindPattern(ctx, p.pattern, ctx.value(ctx.scope.lookup(p.name)!), p.name);
  }
  if (options.constructs) {
    ctx.at(node);
    const instance = newInstance(
      ctx,
      options.constructs,
      constructedClassName(name, options.constructs),
      node,
    );
    ctx.declare("this", "const", options.constructs, instance);
  }

  ctx.at(node);
  if (node.type === "ArrowFunctionExpression" && node.expression) {
    const expression = node.body as Expression;
    if (ctx.auxReturn) {
      const loss = lowerAuxReturn(ctx, expression, ctx.auxReturn.declared);
      ctx.at(expression);
      ctx.builder.emit("return", [loss], []);
      checkHoles(ctx, body, ctx.visits);
      checkEscapingHoles(ctx, body, shown, node.start, visitedReads(ctx));
      checkModuleArrays(ctx, body, shown);
      zeroMissingElements(ctx, body, ctx.elementUpdates);
      return { fn: functionOf(ctx, key, name, body, ["number"], options, node), calls: ctx.calls };
    }
    // `(v: number): Expr => ({ kind: "num", v })`: a literal takes the declared result type.
    const lowered = signature.result
      ? lowerValue(ctx, expression, signature.result)
      : lowerExpression(ctx, expression);
    // `(t: number) => [t, t * t]`: an arrow without a return type returns what its body is.
    if (!signature.result && isAggregate(lowered.type)) resultType = lowered.type;
    // `(c: Config) => c.mode === "a"`: a helper whose body is a boolean or a string, and which
    // nothing asks for a number, returns what its body is too.
    else if (ctx.resultDefaulted && (lowered.type === "boolean" || lowered.type === "string"))
      resultType = lowered.type;
    const value = expectType(ctx, expression, lowered, resultType);
    ctx.at(expression);
    ctx.builder.emit("return", [value], []);
  } else {
    ctx.returnedFlag = ctx.hiddenSlot("returned", "boolean", false);
    const initial = resultType === "boolean" ? false : resultType === "number" ? NaN : undefined;
    if (resultType !== "void") ctx.resultSlot = ctx.hiddenSlot("result", resultType, initial);
    const block = node.body as FunctionBody | null;
    const statements = options.constructs
      ? constructorStatements(
          ctx,
          constructedClassName(name, options.constructs),
          node,
          block?.body ?? [],
        )
      : (block?.body ?? []);
    const exits = lowerStatements(ctx, statements);
    if (!exits && resultType !== "void") {
      ctx.fail(
        { start: node.end - 1, end: node.end },
        missingReturn.canReachItsEndWithout(shown, typeText(resultType)),
      );
    }
    ctx.at({ start: node.end - 1, end: node.end });
    ctx.builder.emit("return", ctx.resultSlot ? [ctx.value(ctx.resultSlot)] : [], []);
  }

  checkHoles(ctx, body, ctx.visits);
  checkEscapingHoles(ctx, body, shown, node.start, visitedReads(ctx));
  checkModuleArrays(ctx, body, shown);
  zeroMissingElements(ctx, body, ctx.elementUpdates);
  const resultTypes = resultType === "void" ? [] : [resultType];
  return { fn: functionOf(ctx, key, name, body, resultTypes, options, node), calls: ctx.calls };
}

/** The lowered function. */
function functionOf(
  ctx: LowerContext,
  key: string,
  name: string,
  body: Region,
  resultTypes: Type[],
  options: LowerOptions,
  node: FunctionLike,
): IRFunction {
  // Objects holding functions written in literals go only where their functions are known.
  checkBoundObjectUses(ctx);
  checkAccessorObjectUses(ctx);
  return {
    key,
    name,
    params: body.params,
    captures: options.liftedCaptures ? 0 : (options.captures?.length ?? 0),
    resultTypes,
    body,
    loc: ctx.loc(node),
  };
}

/** `scope` with the same names, inside `parent`. */
function withParent(scope: Scope, parent: Scope): Scope {
  const moved = new Scope(parent);
  for (const [name, slot] of scope.names) moved.names.set(name, slot);
  return moved;
}

/**
 * Whether a captured declaration holds a function: a function-typed parameter, `c ? f : g`, or
 * a variable TypeScript types as a function (`const g = f`).
 */
function holdsFunction(program: ProgramGraph, module: SourceModule, node: Node): boolean {
  if (node.type === "Identifier")
    return parameterFunctionTypeOf(program, module, node) !== undefined;
  if (node.type !== "VariableDeclarator" || !node.init) return false;
  if (typeResolver(program, module).inferred?.functionTypeAt(node.id.start)) return true;
  const leaves = (n: Node): Node[] =>
    n.type === "ConditionalExpression"
      ? [...leaves(n.consequent), ...leaves(n.alternate)]
      : n.type === "ParenthesizedExpression"
        ? leaves(n.expression)
        : [n];
  return leaves(node.init).every(
    (leaf) =>
      leaf.type === "ArrowFunctionExpression" ||
      leaf.type === "FunctionExpression" ||
      (leaf.type === "Identifier" && program.resolveLocalFunction(module, leaf.name) !== undefined),
  );
}

/** The element reads of the methods that skip holes, which hole-checks.ts looks after. */
function visitedReads(ctx: LowerContext): Set<Op> {
  return new Set(ctx.visits.map((v) => v.read));
}
