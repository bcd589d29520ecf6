import type { Type } from "./types.js";

// Where a value of a given type may hold a plain array, which may have holes (elements never
// written): what the runtime's refuseHoles looks through (runtime/holes.ts), so it reads only
// those arrays and the fields and elements that lead to them, not every number of a model.
// A shape is JSON: `1` a plain array of numbers (or other values without arrays), `{"a": s}`
// a plain array whose elements have shape s, `{"o": {"f": s}}` an object's fields that may
// hold one, `{"r": s}` a record's values; `0` anything (a tuple, a type holding itself),
// looked through entirely.

export type HoleShape =
  0 | 1 | { a: HoleShape } | { o: Record<string, HoleShape> } | { r: HoleShape };

/** The shape to look through for holes in a value of `type`, or undefined when it holds none. */
export function holeShape(type: Type, seen: Set<Type> = new Set()): HoleShape | undefined {
  if (typeof type !== "object") return undefined;
  // A type that holds itself (a tree): looked through entirely.
  if (seen.has(type)) return 0;
  seen.add(type);
  try {
    switch (type.kind) {
      case "array": {
        // A typed array holds numbers, and no holes.
        if (type.storage !== "Array") return undefined;
        if (type.elements) return 0;
        const inner = holeShape(type.element, seen);
        return inner === undefined ? 1 : { a: inner };
      }
      case "object": {
        const fields: Record<string, HoleShape> = {};
        for (const f of type.fields) {
          const inner = holeShape(f.type, seen);
          if (inner !== undefined) fields[f.name] = inner;
        }
        return Object.keys(fields).length === 0 ? undefined : { o: fields };
      }
      case "keyed": {
        if (type.storage !== "Record") return undefined;
        const inner = holeShape(type.value, seen);
        return inner === undefined ? undefined : { r: inner };
      }
      default:
        return undefined;
    }
  } finally {
    seen.delete(type);
  }
}
