import type { Node, TSType, TSTypeAnnotation } from "oxc-parser";
import type { Type } from "../ir/types.js";
import type { FunctionLike } from "../parse/module.js";

// The types of a function's parameters and result, read from its annotations.

/** The IR type a type annotation denotes in its module (see declared-types.ts), if nabla can tell. */
export type TypeResolver = (node: TSType) => Type | undefined;

export interface ParamInfo {
  name: string;
  type: Type | undefined;
  node: Node;
  /** A destructuring, rest or defaulted parameter, which lowering does not support yet. */
  unsupported: boolean;
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

export function signatureOf(fn: FunctionLike, resolve?: TypeResolver): Signature {
  const params = fn.params.map((p): ParamInfo => {
    if (p.type === "Identifier") {
      return {
        name: p.name,
        type: annotationType(p.typeAnnotation, resolve),
        node: p,
        unsupported: (p as { optional?: boolean }).optional === true,
      };
    }
    return { name: "", type: undefined, node: p, unsupported: true };
  });
  return { params, result: annotationType(fn.returnType, resolve) };
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
