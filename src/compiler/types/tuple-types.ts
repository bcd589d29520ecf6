import type { TSTupleElement, TSType } from "oxc-parser";
import type { ArrayType, Type } from "../ir/types.js";
import { sameType } from "../ir/type-system.js";

// Tuple types as IR types, for annotations (declared-types.ts) and the checker's types
// (checked-types.ts) alike. A tuple of fixed length is an array whose `elements` type each
// position. One whose length varies (`[number, number?]`, `[number, ...number[]]`) has no
// positions to fix: its elements all of one type, it is an array of that type, as long as
// the array it is given, so a gradient has that array's shape; else nabla has no type for it.

/** `[a, b, c]`: an array of these elements, in these positions. */
export function fixedTuple(elements: Type[]): ArrayType {
  const first = elements[0];
  // Alike by structure, not only the same object: `[[number, number], [number, number]]`.
  // `[]` has no element to read: numbers, so that it may be spread (`Math.max(x, ...none)`).
  const uniform = !first ? "number" : elements.every((e) => sameType(e, first)) ? first : "opaque";
  return { kind: "array", storage: "Array", element: uniform, elements };
}

/**
 * A tuple with optional or rest elements, of these element types (a rest's, its element's):
 * an array of their one type, if they have one.
 */
export function varyingTuple(elements: Type[]): ArrayType | undefined {
  const first = elements[0];
  if (!first || !elements.every((e) => sameType(e, first))) return undefined;
  return { kind: "array", storage: "Array", element: first };
}

/** An element of a tuple annotation: the type written, and whether it is optional or a rest. */
export function tupleMember(e: TSTupleElement): {
  written: TSType;
  how: "required" | "optional" | "rest";
} {
  switch (e.type) {
    case "TSOptionalType":
      return { written: tupleMember(e.typeAnnotation).written, how: "optional" };
    case "TSRestType":
      // `...c: number[]` is a rest holding a named member.
      return { written: tupleMember(e.typeAnnotation).written, how: "rest" };
    case "TSNamedTupleMember": {
      const { written, how } = tupleMember(e.elementType);
      return { written, how: e.optional ? "optional" : how };
    }
    default:
      return { written: e, how: "required" };
  }
}

/**
 * Whether the tuple annotation `t` varies in length and its elements are written with more
 * than one type (`[number, string?]`, `[number, ...string[]]`): nabla has no type for it, nor
 * is it several kinds of array. Types are told apart by how they are written.
 */
export function mixedVaryingTuple(t: TSType): boolean {
  if (t.type !== "TSTupleType") return false;
  const members = t.elementTypes.map(tupleMember);
  if (members.every((m) => m.how === "required")) return false;
  const element = ({ written, how }: ReturnType<typeof tupleMember>) =>
    how === "rest" && written.type === "TSArrayType" ? written.elementType : written;
  const shapes = new Set(members.map((m) => writtenShape(element(m))));
  return shapes.size > 1;
}

/** A type as written, without where: equal for `number` and `number`. */
function writtenShape(t: TSType): string {
  return JSON.stringify(t, (key, value: unknown) =>
    key === "start" || key === "end" || key === "range" ? undefined : value,
  );
}
