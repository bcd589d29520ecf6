import type { Node, TSType, TSTypeAnnotation } from "oxc-parser";
import type { Type } from "../ir/types.js";
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
  /** The parameter and result types of the call written at [start, end), as resolved. */
  callAt(start: number, end: number): CallTypes | undefined;
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
  const params = fn.params.map((p): ParamInfo => {
    if (p.type === "Identifier") {
      const optional = (p as { optional?: boolean }).optional === true;
      return {
        name: p.name,
        // An annotation nabla cannot read itself (a class with getters, `Pick<…>`) is read by
        // the checker too: the parameter's declared type.
        type: annotationType(p.typeAnnotation, resolve) ?? resolve?.inferred?.typeAt(p.start),
        node: p,
        unsupported: false,
        ...(optional ? { omissible: true } : {}),
      };
    }
    if (p.type === "AssignmentPattern" && p.left.type === "Identifier") {
      const left = p.left;
      return {
        name: left.name,
        type: annotationType(left.typeAnnotation, resolve) ?? resolve?.inferred?.typeAt(left.start),
        node: left,
        unsupported: false,
        defaultValue: p.right,
        omissible: true,
      };
    }
    return { name: "", type: undefined, node: p, unsupported: true };
  });
  const result =
    annotationType(fn.returnType, resolve) ?? resolve?.inferred?.returnTypeOf(fn.start, fn.end);
  return { params, result };
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
