import type { FieldType, ObjectType, Type } from "../ir/types.js";
import { fieldOf, isObject, sameType } from "../ir/type-system.js";
import { genericKey } from "../ir/function-key.js";

// A union of classes or of interfaces classes implement (`Disk | Square`), typed as the
// interface they would share if they had one: its value is an instance of one of their
// classes, so its type has room for each one's fields (optional where some member lacks one),
// and a call of its method runs the one of the object's class (lower/class-dispatch.ts). A
// plain object type among the members has no class to dispatch on: such a union is not one.

/** The type of the union of `members`, written `text`; undefined if it is not such a union. */
export function unionOfClasses(
  members: readonly (Type | undefined)[],
  text: string,
): ObjectType | undefined {
  const objects = members.filter((t): t is ObjectType => t !== undefined && isObject(t));
  if (objects.length < 2 || objects.length !== members.length) return undefined;
  if (!objects.every((t) => t.classKey !== undefined || t.interfaceKey !== undefined))
    return undefined;
  // `Shape | Triangle`, `Shape` naming a union: its members'.
  const keys = [
    ...new Set(objects.flatMap((t) => t.unionOf ?? [t.classKey ?? t.interfaceKey!])),
  ].sort();
  // Two instantiations of one generic class (`Box<number> | Box<Vec>`) are one class at run
  // time: an object's class cannot tell which one's methods to run.
  if (new Set(keys.map(genericKey)).size !== keys.length) return undefined;
  const fields = new Map<string, FieldType>();
  for (const t of objects) {
    for (const f of t.fields) {
      const known = fields.get(f.name);
      // One field, two types (or with and without derivative): no object type holds both.
      if (known && (!sameType(known.type, f.type) || known.noDerivative !== f.noDerivative))
        return undefined;
      const lacking = objects.some((o) => {
        const g = fieldOf(o, f.name);
        return g === undefined || g.optional === true;
      });
      fields.set(f.name, { ...(known ?? f), ...(lacking ? { optional: true } : {}) });
    }
  }
  return {
    kind: "object",
    name: text,
    fields: [...fields.values()],
    interfaceKey: keys.join(" | "),
    unionOf: keys,
  };
}
