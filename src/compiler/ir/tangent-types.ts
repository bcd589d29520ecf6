import { differentiableFields, isAggregate } from "./type-system.js";
import type { FieldType, ObjectType, Type } from "./types.js";

// The tangent type of each IR type (DESIGN.md's contract): numbers → numbers; arrays, tuples
// and typed arrays → the same kind of array of tangents; objects and class instances → plain
// objects of the tangents of their differentiable fields; records and maps → the same kind of
// collection, of the same keys, holding the values' tangents. In reverse mode the same shape holds
// adjoints: a *shadow*.

export function tangentType(t: Type): Type {
  if (!isAggregate(t)) return t === "number" ? "number" : t;
  if (t.kind === "array") {
    return {
      kind: "array",
      storage: t.storage,
      element: tangentType(t.element),
      ...(t.elements ? { elements: t.elements.map(tangentType) } : {}),
    };
  }
  if (t.kind === "keyed") return { ...t, value: tangentType(t.value) };
  // One tangent type per object type, made before its fields: a type that holds itself (a
  // tree) gets a tangent type that holds itself.
  const known = tangentOfObject.get(t);
  if (known) return known;
  const fields: FieldType[] = [];
  const tangent: ObjectType = { kind: "object", name: `Tangent<${t.name}>`, fields };
  tangentOfObject.set(t, tangent);
  for (const f of differentiableFields(t)) {
    fields.push({
      name: f.name,
      type: tangentType(f.type),
      noDerivative: false,
      ...(f.optional ? { optional: true } : {}),
    });
  }
  return tangent;
}

const tangentOfObject = new WeakMap<ObjectType, ObjectType>();

/** The field `name` of an object type's tangent, if that field has a derivative. */
export function tangentFieldOf(t: Type, name: string): FieldType | undefined {
  if (!isAggregate(t) || t.kind !== "object") return undefined;
  return differentiableFields(t).find((f) => f.name === name);
}
