import type { Message } from "../diagnostics/messages/message.js";
import { badOperatorUse } from "../diagnostics/messages/index.js";
import type { Type } from "../ir/types.js";
import type { DifferentiationTarget } from "./targets.js";
import type { FunctionTypeInfo } from "../ir/types.js";
import { typeResolver } from "../types/resolver.js";
import {
  isArray,
  isDifferentiable,
  isNumberMatrix,
  isObject,
  typeText,
} from "../ir/type-system.js";
import { annotationType, signatureOf } from "../types/signature.js";
import type { CallExpression, Expression, Node, TSType } from "oxc-parser";
import { positionAt } from "../diagnostics/format.js";
import type { SourceLoc } from "../ir/types.js";
import { constantValue, type FunctionLike, type SourceModule } from "../parse/module.js";
import {
  isLocalSpecifier,
  packageFile,
  type FunctionSymbol,
  type ProgramGraph,
} from "../parse/program.js";
import {
  ancestorsIn,
  declaredLocally,
  findCaptures,
  findLocalFunction,
  type Capture,
} from "./captures.js";
import { readsOf } from "./local-function-reads.js";
import { factoryCallOf } from "../parse/closure-factory.js";
import { functionLabel, lambdaName } from "../ir/names.js";
import { isPlatformGlobal } from "../types/globals.js";
import { isCategoricalAnnotation } from "../types/enum-types.js";
import { staticMethodSymbol } from "../parse/class-hierarchy.js";
import { functionKey } from "../ir/function-key.js";
import { isHigherOrder, operatorsTaking, optionNames, type Operator } from "../../api/operators.js";
import type { Backend } from "../../api/wasm-entry.js";

// One call of a nabla operator, read from source: the operator, the function it is given
// (named, a lambda, a derivative of one), its options, and what the function captures.

export interface OperatorCall {
  operator: Operator;
  call: CallExpression;
  target: DifferentiationTarget;
  /** Indices of the differentiated parameters, in `wrt` order. */
  wrt: number[];
  loc: SourceLoc;
  /** `hasAux: true`: the result holds the aux as well (the target has `aux` set). */
  hasAux?: boolean;
  /** `jacobian`'s `mode`: forward or reverse mode chosen by the user (default: by n and m). */
  mode?: "forward" | "reverse";
  /** The `backend` option: which backend emits the derivative (default JavaScript). */
  backend?: Backend;
  /**
   * A derivative attached to a function passed on (see resolve/attachments.ts), not a call:
   * the name it is attached under, the parameters of the factories it is wrapped in, and the
   * expressions its wrapper passes for the target's captures (when not their own names).
   */
  attach?: { key: string; factories: string[][]; captures?: string[] };
}

export const NABLA_SPECIFIERS = new Set(["nabla", "nabla/runtime"]);

/** Why a derivative attached to a function passed on matters (see `attachments`). */

/** The `const f = …` statement that holds a function expression, for its JSDoc. */
export function declarationOf(module: SourceModule, fn: FunctionLike): Node {
  for (const statement of module.program.body) {
    const decl = statement.type === "ExportNamedDeclaration" ? statement.declaration : statement;
    if (decl?.type === "VariableDeclaration" && decl.declarations.some((d) => d.init === fn)) {
      return statement;
    }
  }
  return fn;
}

export function analyzeCall(
  program: ProgramGraph,
  module: SourceModule,
  call: CallExpression,
  ancestors: readonly Node[],
  operator: Operator,
  error: (node: Node, message: Message) => void,
): OperatorCall | undefined {
  const [fnArg, options, ...extra] = call.arguments;
  if (!fnArg || fnArg.type === "SpreadElement") {
    error(call, badOperatorUse.needsFunctionToDifferentiateAs(operator));
    return undefined;
  }
  const single = operator === "derivative" || operator === "valueWithDerivative";
  // `derivative(f)` takes no `wrt` (its function has one parameter), only a `backend`.
  if (extra.length > 0 || (single && options && !onlyBackend(options as Expression))) {
    error(
      call,
      badOperatorUse.takes(
        operator,
        single ? "one argument: the function" : "the function and an optional options object",
      ),
    );
    return undefined;
  }
  const target = resolveTarget(program, module, fnArg as Expression, ancestors);
  if (!target && fnArg.type === "Identifier" && findLocalFunction(fnArg.name, ancestors)) {
    error(fnArg, badOperatorUse.isLetVariableHoldingFunction(fnArg.name));
    return undefined;
  }
  if (!target && isMethodOfValue(module, fnArg as Expression, ancestors)) {
    const member = module.text.slice(fnArg.start, fnArg.end);
    error(fnArg, badOperatorUse.cannotTellWhichMethod(operator, member));
    return undefined;
  }
  const factory =
    !target && fnArg.type === "Identifier" ? factoryCallOf(module, fnArg.name) : undefined;
  if (factory !== undefined) {
    error(
      fnArg,
      badOperatorUse.holdsClosureFromCall(operator, (fnArg as { name: string }).name, factory),
    );
    return undefined;
  }
  if (!target) {
    error(fnArg, unresolvedTargetMessage(module, fnArg as Expression, ancestors, operator));
    return undefined;
  }
  if (target.node.params.some((p) => p.type === "RestElement")) {
    error(fnArg, badOperatorUse.restParameterOfOperatorTarget(target.name));
    return undefined;
  }
  const arity = target.node.params.length;
  // By default, every required parameter whose type has a tangent (not strings or booleans):
  // an optional or defaulted one is a setting, which the caller may omit (its tangent would
  // be zero) and the editor's types leave out. Only where no required parameter has a
  // tangent are the optional ones differentiated.
  const signature = signatureOf(target.node, typeResolver(program, target.module));
  const differentiable = [...Array(arity).keys()].filter((i) => {
    const type = signature.params[i]?.type;
    return (type === undefined || isDifferentiable(type)) && !isCategorical(target, i, program);
  });
  const required = differentiable.filter((i) => signature.params[i]?.omissible !== true);
  let wrt = required.length > 0 ? required : differentiable;
  if (wrt.length === 0 && arity > 0) wrt = [...Array(arity).keys()];
  let parsed: ParsedOptions = {};
  if (options) {
    const read = parseOptions(options as Expression, arity, operator);
    if ("message" in read) {
      error(read.node, read);
      return undefined;
    }
    parsed = read;
    if (parsed.wrt) wrt = parsed.wrt;
  }
  if (arity === 0) {
    error(fnArg, badOperatorUse.needsFunctionOfAtLeast(operator));
    return undefined;
  }
  if (single && arity !== 1) {
    error(fnArg, badOperatorUse.differentiatesFunctionsOfOneNumber(operator, target.name, arity));
    return undefined;
  }
  if (isHigherOrder(operator)) {
    // `jacobian` and `hessian` may take several parameters: a block per parameter (per pair
    // of parameters for `hessian`).
    const several = operator === "jacobian" || operator === "hessian";
    if (wrt.length !== 1 && !(several && wrt.length > 1)) {
      error(
        options ?? fnArg,
        badOperatorUse.differentiatesWithRespectToOne(
          operator,
          functionLabel(target.name),
          wrt.length,
        ),
      );
      return undefined;
    }
    for (const i of wrt) {
      const type =
        signature.params[i]?.type ?? (target.contextualNumberParams ? "number" : undefined);
      const vector =
        type === "number" ||
        (type !== undefined &&
          (isNumberVector(type) || (operator === "jacobian" && isNumberMatrix(type))));
      // A Jacobian with respect to an object: a pullback per output, each row the object's
      // adjoint (reverse mode only: forward mode would need a basis of its numbers).
      const object = operator === "jacobian" && type !== undefined && isObject(type);
      if (object && parsed.mode === "forward") {
        error(options ?? fnArg, badOperatorUse.jacobianOfObjectIsReverse(typeText(type)));
        return undefined;
      }
      if (
        operator !== "hessianVectorProduct" &&
        operator !== "gradientAndHessianVectorProduct" &&
        !vector &&
        !object
      ) {
        error(
          target.node.params[i] ?? fnArg,
          badOperatorUse.needsDifferentiatedParameterToBe(
            operator,
            type === undefined ? "this type" : `a ${typeText(type)}`,
          ),
        );
        return undefined;
      }
    }
  }
  return {
    operator,
    call,
    // The function with its result split into the loss and the aux (see lower/aux.ts): a
    // function of its own, next to `target` differentiated as it is.
    target: parsed.hasAux ? { ...target, name: `${target.name}$aux`, aux: true } : target,
    wrt,
    loc: { file: module.file, start: call.start, end: call.end },
    ...(parsed.hasAux ? { hasAux: true } : {}),
    ...(parsed.mode ? { mode: parsed.mode } : {}),
    ...(parsed.backend ? { backend: parsed.backend } : {}),
  };
}

/** `{ backend: … }` and nothing else. */
/**
 * Why an operator's function cannot be followed to its code: a variable or parameter holding a
 * function value (`for (const f of fns) derivative(f)`), perhaps under another operator
 * (`derivative(derivative(f))` of a parameter `f`), or something else.
 */
function unresolvedTargetMessage(
  module: SourceModule,
  fnArg: Expression,
  ancestors: readonly Node[],
  operator: Operator,
): Message {
  const held = (node: Node, at: readonly Node[]) =>
    node.type === "Identifier" && declaredLocally(node.name, at) ? node.name : undefined;
  const plain = held(fnArg, ancestors);
  if (plain !== undefined) return badOperatorUse.variableHoldingFunction(operator, plain);
  if (
    fnArg.type === "MemberExpression" &&
    fnArg.object.type === "Identifier" &&
    fnArg.object.name === "Math" &&
    fnArg.property.type === "Identifier" &&
    ["max", "min", "hypot"].includes(fnArg.property.name) &&
    !declaredLocally("Math", ancestors) &&
    isPlatformGlobal(module, "Math")
  )
    return badOperatorUse.mathFunctionOfNoFixedArity(operator, fnArg.property.name);
  if (fnArg.type === "CallExpression" && nablaOperatorOf(module, fnArg.callee)) {
    const arg = fnArg.arguments[0];
    const name = arg && held(arg, [...ancestors, fnArg]);
    if (name !== undefined) {
      const inner = module.text.slice(fnArg.start, fnArg.end);
      return badOperatorUse.derivativeOfHeldFunction(operator, inner, name);
    }
  }
  return badOperatorUse.needsFunctionWhoseSourceNabla(operator);
}

function onlyBackend(options: Expression): boolean {
  return (
    options.type === "ObjectExpression" &&
    options.properties.length === 1 &&
    options.properties[0]!.type === "Property" &&
    options.properties[0]!.key.type === "Identifier" &&
    options.properties[0]!.key.name === "backend"
  );
}

function resolveTarget(
  program: ProgramGraph,
  module: SourceModule,
  node: Expression,
  ancestors: readonly Node[],
): DifferentiationTarget | undefined {
  if (node.type === "CallExpression" && nablaOperatorOf(module, node.callee)) {
    return derivedTarget(program, module, node, ancestors);
  }
  if (node.type === "ArrowFunctionExpression" || node.type === "FunctionExpression") {
    const pos = positionAt(module.text, node.start);
    return {
      module,
      name: lambdaName(pos.line, pos.column),
      node,
      // TypeScript types a lambda's parameters from the operator's signature: numbers.
      contextualNumberParams: true,
      ...lambdaReads(program, module, node, ancestors),
    };
  }
  if (node.type === "Identifier") {
    // A parameter or local of an enclosing function shadows a module-level function.
    const symbol = declaredLocally(node.name, ancestors)
      ? undefined
      : program.resolveLocalFunction(module, node.name);
    if (symbol) return namedTarget(symbol);
    // A function of a package, differentiable through its registered rule.
    const binding = module.imports.get(node.name);
    if (binding && !isLocalSpecifier(module.file, binding.specifier)) {
      const rule = program.rules.get(functionKey(packageFile(binding.specifier), binding.imported));
      if (rule) return namedTarget(rule.symbol);
    }
    // A function defined in the enclosing function: differentiated like a lambda written here,
    // reading the variables it reads where it is written (the call site passes them).
    const local = findLocalFunction(node.name, ancestors);
    if (local?.constant) {
      const pos = positionAt(module.text, local.node.start);
      return {
        module,
        name: lambdaName(pos.line, pos.column),
        node: local.node,
        contextualNumberParams: true,
        ...lambdaReads(program, module, local.node, ancestors, node.name),
      };
    }
  }
  if (
    node.type === "MemberExpression" &&
    !node.computed &&
    node.object.type === "Identifier" &&
    node.property.type === "Identifier"
  ) {
    const math = mathTarget(program, module, node, ancestors);
    if (math) return math;
    const target = program.namespaceModule(module, node.object.name);
    const symbol = target && program.resolveExport(target, node.property.name);
    if (symbol) return namedTarget(symbol);
    if (!declaredLocally(node.object.name, ancestors)) {
      const method = staticMethodSymbol(program, module, node.object.name, node.property.name);
      if (method) return namedTarget(method);
    }
  }
  return undefined;
}

/** Math functions of a fixed number of numbers, by that number (variadic ones are not). */
const MATH_ARITY: ReadonlyMap<string, number> = new Map([
  ...[
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "exp",
    "expm1",
    "log",
    "log1p",
    "log2",
    "log10",
    "sqrt",
    "cbrt",
    "abs",
    "sign",
    "floor",
    "ceil",
    "round",
    "trunc",
    "fround",
  ].map((name) => [name, 1] as const),
  ["atan2", 2],
  ["pow", 2],
]);

/**
 * `derivative(Math.sin)`, `gradient(Math.atan2)`: differentiated as the lambda
 * `(x) => Math.sin(x)` (`(a, b) => Math.atan2(a, b)`) written there would be.
 */
function mathTarget(
  program: ProgramGraph,
  module: SourceModule,
  node: Expression & { type: "MemberExpression" },
  ancestors: readonly Node[],
): DifferentiationTarget | undefined {
  if (node.object.type !== "Identifier" || node.property.type !== "Identifier") return undefined;
  if (node.object.name !== "Math" || declaredLocally("Math", ancestors)) return undefined;
  if (!isPlatformGlobal(module, "Math")) return undefined;
  const arity = MATH_ARITY.get(node.property.name);
  if (arity === undefined) return undefined;
  const at = { start: node.start, end: node.end };
  const params = ["x", "y"].slice(0, arity).map((name) => ({
    type: "Identifier",
    name,
    ...at,
    decorators: [],
    optional: false,
    // Annotated, so no type is looked up at its (borrowed) position.
    typeAnnotation: {
      type: "TSTypeAnnotation",
      ...at,
      typeAnnotation: { type: "TSNumberKeyword", ...at },
    },
  }));
  return callingLambda(program, module, node, params as never, params as never, ancestors);
}

/**
 * The target of the lambda `(params) => callee(args)` written where `callee` is (an operator
 * given `Math.sin` or `derivative(f)`, which it differentiates as that lambda).
 */
function callingLambda(
  program: ProgramGraph,
  module: SourceModule,
  callee: Node,
  params: readonly Node[],
  args: readonly Node[],
  ancestors: readonly Node[],
): DifferentiationTarget {
  const at = { start: callee.start, end: callee.end };
  const lambda = {
    type: "ArrowFunctionExpression",
    ...at,
    params,
    body: { type: "CallExpression", ...at, callee, arguments: args, optional: false },
    expression: true,
    async: false,
    generator: false,
    returnType: null,
    typeParameters: null,
    id: null,
  } as unknown as FunctionLike;
  const pos = positionAt(module.text, callee.start);
  return {
    module,
    name: lambdaName(pos.line, pos.column),
    node: lambda,
    contextualNumberParams: true,
    ...lambdaReads(program, module, lambda, ancestors),
  };
}

/**
 * `act.softplus`: a method read off an object of the program (not a namespace import, nor a
 * platform global such as `Math.sin`), which nabla cannot follow to its code.
 */
function isMethodOfValue(module: SourceModule, node: Expression, ancestors: readonly Node[]) {
  if (node.type !== "MemberExpression" || node.computed) return false;
  if (node.object.type !== "Identifier") return true;
  const name = node.object.name;
  if (declaredLocally(name, ancestors)) return true;
  return !isPlatformGlobal(module, name) && !module.imports.has(name);
}

/** `number[]`, a tuple of numbers, or a typed array: what `hessian` and `jacobian` take. */
export function isNumberVector(type: Type): boolean {
  return (
    isArray(type) &&
    type.element === "number" &&
    (type.elements === undefined || type.elements.every((e) => e === "number"))
  );
}

/** The nabla export `callee` names in `module` (`derivative`, `ns.gradient`), if any. */
export function nablaOperatorOf(module: SourceModule, callee: Node): string | undefined {
  const path =
    callee.type === "Identifier"
      ? [callee.name]
      : callee.type === "MemberExpression" &&
          !callee.computed &&
          callee.object.type === "Identifier" &&
          callee.property.type === "Identifier"
        ? [callee.object.name, callee.property.name]
        : undefined;
  const binding = path && module.imports.get(path[0]!);
  if (!binding || !NABLA_SPECIFIERS.has(binding.specifier)) return undefined;
  if (binding.imported === "*") return path.length === 2 ? path[1] : undefined;
  return path.length === 1 ? binding.imported : undefined;
}

/**
 * `derivative(f)` given to another operator (`derivative(derivative(f))`): differentiated as
 * the lambda `(x) => derivative(f)(x)` would be, with the parameters of the inner function.
 */
function derivedTarget(
  program: ProgramGraph,
  module: SourceModule,
  inner: CallExpression,
  ancestors: readonly Node[],
): DifferentiationTarget | undefined {
  const fnArg = inner.arguments[0];
  if (!fnArg || fnArg.type === "SpreadElement") return undefined;
  const innerTarget = resolveTarget(program, module, fnArg as Expression, [...ancestors, inner]);
  if (!innerTarget) return undefined;
  const params = innerTarget.node.params;
  const identifiers = params.filter((p) => p.type === "Identifier");
  if (identifiers.length !== params.length) return undefined;
  const args = identifiers.map((p) => ({
    type: "Identifier",
    name: p.name,
    start: p.start,
    end: p.end,
  }));
  return callingLambda(program, module, inner, params, args as never, ancestors);
}

/**
 * What a function differentiated for an operator call (`ancestors` enclose it) reads: a lambda
 * written there, or the local function `localName`.
 */
export function lambdaReads(
  program: ProgramGraph,
  module: SourceModule,
  fn: FunctionLike,
  ancestors: readonly Node[],
  localName?: string,
): Pick<DifferentiationTarget, "captures" | "localFunctions"> {
  const { captures, localFunctions } = readsOf(
    module.program,
    fn,
    localName === undefined ? ancestors : ancestorsIn(module.program, fn),
    ancestors,
    (node, at) => capturesOf(program, module, node, at),
    localName,
  );
  return { captures, ...(localFunctions.length > 0 ? { localFunctions } : {}) };
}

/** The variables of enclosing functions `lambda` reads, typed as far as the program tells. */
function capturesOf(
  program: ProgramGraph,
  module: SourceModule,
  lambda: FunctionLike,
  ancestors: readonly Node[],
): Capture[] {
  const resultOf = (callee: string): Type | undefined => {
    const symbol = program.resolveLocalFunction(module, callee);
    const annotation = symbol?.node.returnType;
    return symbol && annotation
      ? annotationType(annotation, typeResolver(program, symbol.module))
      : undefined;
  };
  // `const force = c ? forceA : forceB`: top-level functions, not shadowed where `lambda` is.
  const choiceOf = (init: Node): FunctionTypeInfo | undefined => {
    const leaves = functionLeaves(init);
    const symbols = leaves.map((leaf) =>
      leaf.type === "Identifier" && !declaredLocally(leaf.name, ancestors)
        ? program.resolveLocalFunction(module, leaf.name)
        : undefined,
    );
    const first = symbols[0];
    if (!first || symbols.some((s) => !s || s.thisType)) return undefined;
    const signature = signatureOf(first.node, typeResolver(program, first.module));
    return {
      params: signature.params.map((p) => p.type),
      result: signature.result ?? "number",
      text: first.name,
    };
  };
  return findCaptures(lambda, ancestors, typeResolver(program, module), resultOf, choiceOf, (n) =>
    isPlatformGlobal(module, n),
  );
}

/** The nodes enclosing `target` in `module`, outermost first (for a call lowering meets). */
export function ancestorsOf(module: SourceModule, target: Node): Node[] {
  return ancestorsIn(module.program, target);
}

/** A function declared in the program, as a differentiation target. */
export function namedTarget(symbol: FunctionSymbol): DifferentiationTarget {
  return {
    module: symbol.module,
    name: symbol.name,
    node: symbol.node,
    contextualNumberParams: false,
    captures: [],
    ...(symbol.thisType ? { thisType: symbol.thisType } : {}),
    ...(symbol.constructs ? { constructs: symbol.constructs } : {}),
    ...(symbol.typeArguments ? { typeArguments: symbol.typeArguments } : {}),
  };
}

/** A problem with the options, and the node to point at. */
interface OptionsProblem extends Message {
  node: Node;
}

/** What the options object of an operator call says, as read from its source. */
interface ParsedOptions {
  wrt?: number[];
  hasAux?: boolean;
  mode?: "forward" | "reverse";
  backend?: Backend;
}

/**
 * `{ wrt: [0, 2], hasAux: true }` → what it says, or what is wrong and where. Values must be
 * literals: the compiler decides what code to generate from them.
 */
function parseOptions(
  node: Expression,
  arity: number,
  operator: Operator,
): ParsedOptions | OptionsProblem {
  const names = optionNames(operator);
  const example = names.includes("hasAux")
    ? "'{ wrt: [0, 1], hasAux: true }'"
    : operator === "jacobian"
      ? "'{ wrt: 0, mode: \"reverse\" }'"
      : "'{ wrt: [0, 1] }'";
  const shape = badOperatorUse.optionsMustBeObjectLiteral(example);
  if (node.type !== "ObjectExpression") return { ...shape, node };
  const parsed: ParsedOptions = {};
  const seen = new Set<string>();
  for (const prop of node.properties) {
    const key =
      prop.type === "Property" && !prop.computed
        ? prop.key.type === "Identifier"
          ? prop.key.name
          : prop.key.type === "Literal"
            ? String(prop.key.value)
            : undefined
        : undefined;
    if (prop.type !== "Property" || key === undefined) return { ...shape, node: prop };
    if (!names.includes(key)) {
      const takes =
        names.length === 1
          ? "the only option is 'wrt'"
          : `the options of '${operator}' are ${names.map((n) => `'${n}'`).join(", ")}`;
      const others = operatorsTaking(key);
      const elsewhere =
        others.length > 0
          ? ` ('${key}' is an option of ${listed(others.map((o) => `'${o}'`))})`
          : "";
      return {
        ...badOperatorUse.unknownOption(key, takes, elsewhere),
        node: prop.key,
      };
    }
    if (seen.has(key)) return { ...badOperatorUse.optionIsGivenTwice(key), node: prop.key };
    seen.add(key);
    const value = prop.value;
    if (key === "hasAux") {
      if (value.type !== "Literal" || typeof value.value !== "boolean")
        return {
          ...badOperatorUse.hasAuxMustBeWrittenAs(),
          node: value,
        };
      parsed.hasAux = value.value;
      continue;
    }
    if (key === "mode") {
      if (value.type !== "Literal" || (value.value !== "forward" && value.value !== "reverse"))
        return {
          ...badOperatorUse.modeMustBeWrittenAs(),
          node: value,
        };
      parsed.mode = value.value;
      continue;
    }
    if (key === "backend") {
      if (
        value.type !== "Literal" ||
        (value.value !== "wasm" && value.value !== "js" && value.value !== "auto")
      )
        return { ...badOperatorUse.backendMustBeWrittenAs(), node: value };
      parsed.backend = value.value;
      continue;
    }
    const wrt = parseWrt(value, arity);
    if (!Array.isArray(wrt)) return wrt;
    parsed.wrt = wrt;
  }
  return parsed;
}

/** The value of `wrt: [0, 2]` or `wrt: 1` → indices, or what is wrong and where. */
function parseWrt(value: Expression, arity: number): number[] | OptionsProblem {
  const items = value.type === "ArrayExpression" ? value.elements : [value];
  const wrt: number[] = [];
  for (const item of items) {
    const index = item ? constantValue(item) : undefined;
    if (!item || index === undefined) {
      return {
        ...badOperatorUse.wrtMustListParameterIndices(),
        node: item ?? value,
      };
    }
    if (!Number.isInteger(index))
      return { ...badOperatorUse.wrtIndexIsNotInteger(index), node: item };
    if (index < 0 || index >= arity) {
      return {
        ...badOperatorUse.wrtIndexIsOutOf(index, arity, arity === 1 ? "" : "s"),
        node: item,
      };
    }
    if (wrt.includes(index)) return { ...badOperatorUse.wrtListsParameterTwice(index), node: item };
    wrt.push(index);
  }
  if (wrt.length === 0) return { ...badOperatorUse.wrtMustNameAtLeast(), node: value };
  return wrt;
}

/** The functions an argument may evaluate to: both branches of `c ? f : g`. */
export function functionLeaves(node: Node): Node[] {
  if (node.type === "ParenthesizedExpression") return functionLeaves(node.expression);
  if (node.type === "ConditionalExpression")
    return [...functionLeaves(node.consequent), ...functionLeaves(node.alternate)];
  return [node];
}

/** A parameter annotated by an enum or number literals (`act: Act`, `order: 1 | 2`): a choice. */
function isCategorical(target: DifferentiationTarget, i: number, program: ProgramGraph): boolean {
  const param = target.node.params[i];
  const p = param?.type === "TSParameterProperty" ? param.parameter : param;
  const named = p?.type === "AssignmentPattern" ? p.left : p;
  const annotation = (named as { typeAnnotation?: { typeAnnotation: TSType } | null } | undefined)
    ?.typeAnnotation?.typeAnnotation;
  return annotation !== undefined && isCategoricalAnnotation(program, target.module, annotation);
}

/** `a`, `a and b`, `a, b and c`. */
function listed(items: string[]): string {
  return items.length <= 1
    ? (items[0] ?? "")
    : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]!}`;
}
