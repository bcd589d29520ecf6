import type { Node, TSType, TSTypeAnnotation } from "oxc-parser";
import type { FunctionTypeInfo, Type } from "../ir/types.js";
import type { FunctionLike } from "../parse/module.js";

// The types of a function's parameters and result, read from its annotations.

/** The IR type a type annotation denotes in its module (see declared-types.ts), if nabla can tell. */
export interface TypeResolver {
  (node: TSType): Type | undefined;
  /** What TypeScript's checker infers for the module's code that is not annotated (resolver.ts). */
  readonly inferred?: InferredTypes;
}

/** A call's types as TypeScript resolved it. */
export interface CallTypes {
  params: (Type | undefined)[];
  result: Type | undefined;
}

/** The checker's types at places of one module (UTF-16 offsets of its text). */
export interface InferredTypes {
  /** The type of the name or expression starting at `position`. */
  typeAt(position: number): Type | undefined;
  /** The result type of the function written at [start, end). */
  returnTypeOf(start: number, end: number): Type | undefined;
  /** Whether the function written at [start, end) returns a function (its result is `opaque`). */
  returnsFunction(start: number, end: number): boolean;
  /** The type the expression at [start, end) is expected to have where it stands, else its own. */
  expectedTypeOf(start: number, end: number): Type | undefined;
  /** The type of parameter `index` of the function written at [start, end). */
  parameterTypeOf(start: number, end: number, index: number): Type | undefined;
  /** The parameter and result types of the call written at [start, end), as resolved. */
  callAt(start: number, end: number): CallTypes | undefined;
  /** The values of the union of literals the name at `position` has (`"add" | "mul"`), if so. */
  literalsAt(position: number): (string | number)[] | undefined;
  /** The function type of the name at `position`, if it holds a function (`const g = a ?? b`). */
  functionTypeAt(position: number): FunctionTypeInfo | undefined;
  /** The value of the enum member named at `position` (`Mode.Fast`), if it is one. */
  enumValueAt(position: number): string | number | undefined;
  /** Whether the expression at [start, end) may be undefined or null, as the checker narrows it. */
  mayBeAbsentIn(start: number, end: number): boolean;
}

export interface ParamInfo {
  name: string;
  type: Type | undefined;
  node: Node;
  /** A destructuring or rest parameter, which lowering does not support yet. */
  unsupported: boolean;
  /** `x = 1`: the value it takes when the argument is undefined or omitted. */
  defaultValue?: Node;
  /** `h?: number` or with a default: a call may omit it. */
  omissible?: boolean;
  /** `{ S, K }: Option`, `[a, b]`: the pattern the argument is destructured into. */
  pattern?: Node;
  /**
   * `...xs: number[]`: a rest parameter, an array of the trailing arguments. Calls pack them
   * into one array argument (lower/spread-arguments.ts), so the function takes the array.
   */
  rest?: boolean;
}

export interface Signature {
  params: ParamInfo[];
  result: Type | undefined;
}

/**
 * The IR type an annotation denotes. Without a resolver only keywords are known; with one,
 * arrays, typed arrays, object types and declared interfaces, aliases and classes too.
 */
export function annotationType(
  annotation: TSTypeAnnotation | null | undefined,
  resolve?: TypeResolver,
): Type | undefined {
  if (!annotation) return undefined;
  if (resolve) return resolve(annotation.typeAnnotation);
  switch (annotation.typeAnnotation.type) {
    case "TSNumberKeyword":
      return "number";
    case "TSBooleanKeyword":
      return "boolean";
    case "TSStringKeyword":
      return "string";
    case "TSVoidKeyword":
      return "void";
    default:
      return undefined;
  }
}

/**
 * The types of a function's parameters and result: as annotated, else as TypeScript infers them
 * (an unannotated result, a callback's parameters).
 */
export function signatureOf(fn: FunctionLike, resolve?: TypeResolver): Signature {
  // What annotations say is read now; what only the checker can say, when first asked, so a
  // program whose types are all written never starts the checker.
  const declared = (annotation: TSTypeAnnotation | null | undefined, position: number) =>
    annotationType(annotation, resolve) ?? lazy(() => resolve?.inferred?.typeAt(position));
  const params = fn.params.map((param, i): ParamInfo => {
    // `constructor(public x: number)`: a parameter that also declares a field.
    const p = param.type === "TSParameterProperty" ? param.parameter : param;
    if (p.type === "Identifier") {
      const optional = (p as { optional?: boolean }).optional === true;
      // An annotation nabla cannot read itself (a class with getters, `Pick<…>`) is read by
      // the checker too: the parameter's declared type.
      return withType(declared(p.typeAnnotation, p.start), {
        name: p.name,
        node: p,
        unsupported: false,
        ...(optional ? { omissible: true } : {}),
      });
    }
    if (p.type === "AssignmentPattern" && p.left.type === "Identifier") {
      const left = p.left;
      return withType(declared(left.typeAnnotation, left.start), {
        name: left.name,
        node: left,
        unsupported: false,
        defaultValue: p.right,
        omissible: true,
      });
    }
    const pattern = p.type === "AssignmentPattern" ? p.left : p;
    if (pattern.type === "ObjectPattern" || pattern.type === "ArrayPattern") {
      // Named for the argument's place; the pattern's names are declared from it.
      const annotation = (pattern as { typeAnnotation?: TSTypeAnnotation | null }).typeAnnotation;
      const inferred = lazy(() => resolve?.inferred?.parameterTypeOf(fn.start, fn.end, i));
      return withType(annotationType(annotation, resolve) ?? inferred, {
        name: `$arg${i}`,
        node: p,
        unsupported: false,
        pattern,
        ...(p.type === "AssignmentPattern" ? { defaultValue: p.right, omissible: true } : {}),
      });
    }
    if (p.type === "RestElement" && p.argument.type === "Identifier") {
      return withType(declared(p.typeAnnotation, p.argument.start), {
        name: p.argument.name,
        node: p,
        unsupported: false,
        omissible: true,
        rest: true,
      });
    }
    return { name: "", type: undefined, node: p, unsupported: true };
  });
  const result =
    annotationType(fn.returnType, resolve) ??
    lazy(() => resolve?.inferred?.returnTypeOf(fn.start, fn.end));
  return withResult(result, { params });
}

/** A value computed when first read. */
interface Lazy<T> {
  readonly lazy: () => T;
}

function lazy<T>(compute: () => T): Lazy<T> {
  let done = false;
  let value: T;
  return {
    lazy: () => {
      if (!done) [value, done] = [compute(), true];
      return value;
    },
  };
}

const isLazy = <T>(v: T | Lazy<T>): v is Lazy<T> =>
  typeof v === "object" && v !== null && "lazy" in v;

/** `target` with a `type` property that is `type`, or reads it when first asked. */
function withType(type: Type | Lazy<Type | undefined>, target: Omit<ParamInfo, "type">): ParamInfo {
  if (!isLazy(type)) return { ...target, type };
  return Object.defineProperty(target, "type", { enumerable: true, get: type.lazy }) as ParamInfo;
}

function withResult(
  result: Type | Lazy<Type | undefined>,
  target: Omit<Signature, "result">,
): Signature {
  if (!isLazy(result)) return { ...target, result };
  return Object.defineProperty(target, "result", {
    enumerable: true,
    get: result.lazy,
  }) as Signature;
}

/** Whether a parameter or return annotation is present but names a type nabla cannot differentiate. */
export function annotationText(
  source: string,
  annotation: TSTypeAnnotation | null | undefined,
): string | undefined {
  return annotation
    ? source.slice(annotation.typeAnnotation.start, annotation.typeAnnotation.end)
    : undefined;
}
