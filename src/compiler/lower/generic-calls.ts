import type { CallExpression, Node, TSType } from "oxc-parser";
import { instanceKey, symbolKey } from "../ir/function-key.js";
import { irTypeText, TYPED_ARRAY_STORAGES } from "../ir/type-system.js";
import type { FunctionKey, Type } from "../ir/types.js";
import type { FunctionSymbol } from "../parse/program.js";
import type { FunctionLike } from "../parse/module.js";
import type { TypeArguments } from "../types/declared-types.js";
import { instantiationOf } from "../types/generic-classes.js";
import type { ProgramGraph } from "../parse/program.js";
import { signatureOf, type Signature, type TypeResolver } from "../types/signature.js";
import { typeResolver } from "../types/resolver.js";
import type { LowerContext } from "./context.js";
import { mixedVaryingTuple } from "../types/tuple-types.js";

// Calls of generic functions (`function sumBy<T>(xs: T[], f: (x: T) => number)`): each
// instantiation TypeScript resolves at a call is a function of its own, as nabla already makes
// one per function value a function is given. Its parameters and result take the types the
// checker resolved for the call, and its type parameters stand for what the declared
// parameter types say they are (`xs: T[]` given a `Point[]` makes T a `Point`), so annotations
// in its body that name them read right.

/** One instantiation of a generic function, as a call resolved it. */
export interface GenericInstance {
  /** The key of the instantiation: the function's, with its parameter types. */
  key: FunctionKey;
  typeArguments: TypeArguments;
  /** The parameters' types (undefined: not one nabla can use) and the result's. */
  params: (Type | undefined)[];
  result: Type | undefined;
}

/**
 * The instantiation a call of `symbol` makes, if `symbol` is generic: `argumentTypes` are the
 * types of the arguments as lowered (undefined where not lowered yet: function values), which
 * decide where the checker cannot (a call inside another generic function, whose own type
 * parameters are known only in its instantiation).
 */
export function genericInstance(
  ctx: LowerContext,
  node: CallExpression,
  symbol: FunctionSymbol,
  signature: Signature,
  argumentTypes: readonly (Type | undefined)[],
): GenericInstance | undefined {
  const parameters = symbol.node.typeParameters?.params ?? [];
  const given = node.arguments.length;
  const byArrayKind = arrayKindParameters(symbol, signature, argumentTypes, given);
  if (parameters.length === 0 && byArrayKind.length === 0) return undefined;
  const call = ctx.types.inferred?.callAt(node.start, node.end);
  const names = new Set(parameters.map((p) => p.name.name));
  // A method of a generic class's instantiation: its class's type parameters too.
  const typeArguments = new Map<string, Type>(symbol.typeArguments ?? []);
  signature.params.forEach((p, i) => {
    const declared = annotationOf(p.node);
    const actual = argumentTypes[i] ?? call?.params[i];
    if (declared && actual) bind(ctx.program, declared, actual, names, typeArguments);
  });
  // A type parameter only a function argument's result gives (`zipWith<A, B, C>(…, fn: (x: A,
  // y: B) => C): C[]`): the call's result, as the checker resolved it, says what it is.
  const declaredResult = symbol.node.returnType?.typeAnnotation;
  if (declaredResult && call?.result)
    bind(ctx.program, declaredResult, call.result, names, typeArguments);
  // The declared types again, now that the type parameters stand for something.
  const resolve = typeResolver(ctx.program, symbol.module, typeArguments);
  const resolved = signatureOf(symbol.node, resolve);
  const params = resolved.params.map(
    (p, i) =>
      p.type ??
      argumentTypes[i] ??
      (byArrayKind.includes(i) && i >= given ? omittedArrayType(p.node, resolve) : undefined) ??
      call?.params[i],
  );
  // One instantiation per distinct parameter types, named by the program.
  const shown = params.map((t) => (t ? irTypeText(t) : "?")).join(", ");
  const base = symbolKey(symbol);
  const instance = ctx.program.generatedName(
    symbol.module.file,
    `${base}<${shown}>`,
    `${symbol.name}$of`,
  );
  return {
    key: instanceKey(base, instance),
    typeArguments,
    params,
    result: resolved.result ?? call?.result ?? assertedResult(symbol.node, typeArguments),
  };
}

/**
 * `<S>(y: S, …) => y.map(…) as S`: an arrow without a return type whose body asserts a type
 * parameter returns what that parameter stands for (the checker cannot say so inside another
 * generic function, whose own type parameters it does not know).
 */
function assertedResult(
  fn: FunctionLike,
  typeArguments: ReadonlyMap<string, Type>,
): Type | undefined {
  if (fn.type !== "ArrowFunctionExpression" || !fn.expression || fn.returnType) return undefined;
  let body = fn.body as Node;
  while (body.type === "ParenthesizedExpression") body = body.expression;
  if (body.type !== "TSAsExpression") return undefined;
  const asserted = body.typeAnnotation;
  if (asserted.type !== "TSTypeReference" || asserted.typeName.type !== "Identifier")
    return undefined;
  return typeArguments.get(asserted.typeName.name);
}

function annotationOf(param: Node): TSType | undefined {
  const annotation = "typeAnnotation" in param ? param.typeAnnotation : undefined;
  return (annotation as { typeAnnotation?: TSType } | null | undefined)?.typeAnnotation;
}

/** Binds the type parameters `declared` names to the parts of `actual` they stand for. */
function bind(
  program: ProgramGraph,
  declared: TSType,
  actual: Type,
  names: ReadonlySet<string>,
  out: Map<string, Type>,
): void {
  switch (declared.type) {
    case "TSTypeReference": {
      if (declared.typeName.type !== "Identifier") return;
      const name = declared.typeName.name;
      if (names.has(name)) {
        if (!out.has(name)) out.set(name, actual);
        return;
      }
      const [element] = declared.typeArguments?.params ?? [];
      if ((name === "Array" || name === "ReadonlyArray") && element && isArrayType(actual))
        bind(program, element, actual.element, names, out);
      else bindClassArguments(program, declared.typeArguments?.params ?? [], actual, names, out);
      return;
    }
    case "TSArrayType":
      if (isArrayType(actual)) bind(program, declared.elementType, actual.element, names, out);
      return;
    case "TSTypeOperator":
    case "TSParenthesizedType":
      bind(program, declared.typeAnnotation, actual, names, out);
      return;
    case "TSTupleType":
      if (isArrayType(actual) && actual.elements) {
        declared.elementTypes.forEach((e, i) => {
          const element = actual.elements![i];
          if (element && e.type !== "TSOptionalType" && e.type !== "TSRestType")
            bind(
              program,
              e.type === "TSNamedTupleMember" ? (e.elementType as TSType) : e,
              element,
              names,
              out,
            );
        });
      }
      return;
    default:
      return;
  }
}

/**
 * `Box<U>` given an instance of the instantiation `Box<number>`: U is number (a generic method
 * `map<U>(f: (x: T) => U): Box<U>`, whose U only its result tells).
 */
function bindClassArguments(
  program: ProgramGraph,
  declaredArguments: readonly TSType[],
  actual: Type,
  names: ReadonlySet<string>,
  out: Map<string, Type>,
): void {
  if (declaredArguments.length === 0 || typeof actual !== "object" || actual.kind !== "object")
    return;
  const instantiation = instantiationOf(program, actual.classKey);
  if (!instantiation) return;
  const params = instantiation.cls.decl.typeParameters?.params ?? [];
  declaredArguments.forEach((declared, i) => {
    const given = params[i] && instantiation.typeArguments.get(params[i].name.name);
    if (given) bind(program, declared, given, names, out);
  });
}

function isArrayType(t: Type): t is Extract<Type, { kind: "array" }> {
  return typeof t === "object" && t.kind === "array";
}

/** Array types a parameter may be declared to take several of, by name. */
const ARRAY_NAMES = new Set(["Array", "ReadonlyArray", "ArrayLike", ...TYPED_ARRAY_STORAGES]);

/**
 * The parameters of `symbol` whose declared type admits several kinds of array
 * (`number[] | Float64Array`, `ArrayLike<number>`, `readonly number[] | Float32Array`), which
 * nabla cannot give one tangent type, and which this call gives an array: the call's function
 * is then an instantiation, as a generic one's is, with the arrays the call gives (TypeScript
 * has checked that they fit).
 */
export function arrayKindParameters(
  symbol: FunctionSymbol,
  signature: Signature,
  argumentTypes: readonly (Type | undefined)[],
  /** How many arguments the call writes. */
  given: number,
): number[] {
  return signature.params.flatMap((p, i) => {
    if (p.type !== undefined) return [];
    const param = symbol.node.params[i];
    const declared = annotationOf(param?.type === "AssignmentPattern" ? param.left : p.node);
    if (!declared || !admitsArraysOnly(declared)) return [];
    const type = argumentTypes[i];
    // `new Matrix(2, 2)` of `data?: ArrayLike<number>`: undefined, typed as one array it admits.
    const omitted = i >= given && p.omissible === true && p.defaultValue === undefined;
    return (type !== undefined && isArrayType(type)) || omitted ? [i] : [];
  });
}

/**
 * The type an omitted parameter admitting several kinds of array takes in its instantiation:
 * the first kind its annotation names (it holds undefined, so any one would do).
 */
function omittedArrayType(param: Node, resolve: TypeResolver): Type | undefined {
  const first = (t: TSType): Type | undefined => {
    switch (t.type) {
      case "TSUnionType":
        return t.types.map(first).find((m) => m !== undefined);
      case "TSTypeOperator":
      case "TSParenthesizedType":
        return first(t.typeAnnotation);
      case "TSTypeReference": {
        // `ArrayLike<number>`, which no IR type is: a plain array of its elements.
        const element = t.typeArguments?.params[0];
        if (t.typeName.type === "Identifier" && t.typeName.name === "ArrayLike" && element) {
          const type = resolve(element);
          return type && { kind: "array", storage: "Array", element: type };
        }
        return resolve(t);
      }
      default:
        return resolve(t);
    }
  };
  const declared = annotationOf(param);
  return declared && first(declared);
}

/** Whether every type `t` admits is an array (`number[] | Float64Array`, `ArrayLike<number>`). */
export function admitsArraysOnly(t: TSType): boolean {
  switch (t.type) {
    case "TSUnionType":
      return t.types.every(admitsArraysOnly);
    case "TSArrayType":
      // `(number | string)[]` is one kind of array, of elements nabla has no type for.
      return !mixesPrimitives(t.elementType);
    case "TSTupleType":
      // `[number, string?]` is no array nabla has a type for, of any kind.
      return !mixedVaryingTuple(t);
    case "TSTypeOperator":
      return t.operator === "readonly" && admitsArraysOnly(t.typeAnnotation);
    case "TSParenthesizedType":
      return admitsArraysOnly(t.typeAnnotation);
    case "TSTypeReference":
      return t.typeName.type === "Identifier" && ARRAY_NAMES.has(t.typeName.name);
    default:
      return false;
  }
}

/** `number | string`: a union of primitives of more than one kind (no IR type holds it). */
function mixesPrimitives(t: TSType): boolean {
  if (t.type === "TSParenthesizedType") return mixesPrimitives(t.typeAnnotation);
  if (t.type !== "TSUnionType") return false;
  const kinds = t.types.map((m) => {
    if (m.type === "TSNumberKeyword") return "number";
    if (m.type === "TSStringKeyword") return "string";
    if (m.type === "TSBooleanKeyword") return "boolean";
    if (m.type === "TSLiteralType") return typeof (m.literal as { value?: unknown }).value;
    return undefined;
  });
  return kinds.every((k) => k !== undefined) && new Set(kinds).size > 1;
}
