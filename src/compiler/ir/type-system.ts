import type {
  ArrayType,
  FieldType,
  IntegerArrayStorage,
  KeyedType,
  ObjectType,
  Type,
  TypedArrayStorage,
} from "./types.js";

// Questions about IR types: aggregates (arrays, objects, keyed collections) versus scalars, which parts carry
// derivatives, and how to print and compare types.

export function isAggregate(t: Type): t is ArrayType | ObjectType | KeyedType {
  return typeof t === "object";
}

export function isArray(t: Type): t is ArrayType {
  return typeof t === "object" && t.kind === "array";
}

export const INTEGER_ARRAY_STORAGES: readonly IntegerArrayStorage[] = [
  "Int32Array",
  "Uint32Array",
  "Int16Array",
  "Uint16Array",
  "Int8Array",
  "Uint8Array",
  "Uint8ClampedArray",
];

export const TYPED_ARRAY_STORAGES: readonly TypedArrayStorage[] = [
  "Float64Array",
  "Float32Array",
  ...INTEGER_ARRAY_STORAGES,
];

/** Whether `name` is the name of a typed array (`Float64Array`, `Int32Array`…). */
export function isTypedArrayName(name: string): name is TypedArrayStorage {
  return (TYPED_ARRAY_STORAGES as readonly string[]).includes(name);
}

/** An `Int32Array`, `Uint8Array`…: numbers that carry no derivative (see IntegerArrayStorage). */
export function isIntegerArray(t: Type): boolean {
  return isArray(t) && (INTEGER_ARRAY_STORAGES as readonly string[]).includes(t.storage);
}

export function isObject(t: Type): t is ObjectType {
  return typeof t === "object" && t.kind === "object";
}

/** A record: a plain object used as a dictionary (read and written with brackets). */
export function isRecord(t: Type): t is KeyedType {
  return isKeyed(t) && t.storage === "Record";
}

/** A `Set` of keys (no derivatives: its values are whether it has a key). */
export function isSet(t: Type): t is KeyedType {
  return isKeyed(t) && t.storage === "Set";
}

/** A `Map` (read and written with `get` and `set`). */
export function isMap(t: Type): t is KeyedType {
  return isKeyed(t) && t.storage === "Map";
}

/** `Record<string, T>`, index signatures and `Map`s. */
export function isKeyed(t: Type): t is KeyedType {
  return typeof t === "object" && t.kind === "keyed";
}

// Object types may hold themselves (a tree: `{ v: number; kids: Node[] }`), so the questions
// that walk into fields keep the objects they are inside of: met again, an object adds
// nothing (isDifferentiable), or is taken to agree (sameType, assignable: equal unless a
// difference shows elsewhere).
const walking = new Set<ObjectType>();
const comparing: [Type, Type][] = [];

/** Whether values of this type have a tangent: numbers, and aggregates holding some. */
export function isDifferentiable(t: Type): boolean {
  if (t === "number") return true;
  if (!isAggregate(t)) return false;
  if (t.kind === "array") {
    if (isIntegerArray(t)) return false;
    return t.elements ? t.elements.some(isDifferentiable) : isDifferentiable(t.element);
  }
  if (t.kind === "keyed") return isDifferentiable(t.value);
  if (walking.has(t)) return false;
  walking.add(t);
  try {
    return t.fields.some((f) => !f.noDerivative && isDifferentiable(f.type));
  } finally {
    walking.delete(t);
  }
}

/** Whether an object type holds itself, directly or not (a tree, a linked list). */
export function isRecursiveType(t: Type, inside: readonly Type[] = []): boolean {
  if (!isAggregate(t)) return false;
  if (inside.includes(t)) return true;
  const within = [...inside, t];
  if (t.kind === "array")
    return [t.element, ...(t.elements ?? [])].some((e) => isRecursiveType(e, within));
  if (t.kind === "keyed") return isRecursiveType(t.value, within);
  return t.fields.some((f) => isRecursiveType(f.type, within));
}

/** `f` while the pair (a, b) is taken to agree (types that hold themselves meet it again). */
function assuming(a: Type, b: Type, f: () => boolean): boolean {
  if (comparing.some(([x, y]) => x === a && y === b)) return true;
  comparing.push([a, b]);
  try {
    return f();
  } finally {
    comparing.pop();
  }
}

/** The fields that appear in the tangent of an object type. */
export function differentiableFields(t: ObjectType): FieldType[] {
  return t.fields.filter((f) => !f.noDerivative && isDifferentiable(f.type));
}

/** The element type at a position: the tuple's type there, else the element type. */
export function elementAt(t: ArrayType, index: number | undefined): Type {
  if (t.elements && index !== undefined) return t.elements[index] ?? t.element;
  return t.element;
}

export function fieldOf(t: ObjectType, name: string): FieldType | undefined {
  return t.fields.find((f) => f.name === name);
}

/**
 * A readable type for messages, as TypeScript would write it (named object types by name). A
 * value nabla carries without looking into (the IR's `opaque`: a function, a union it cannot
 * represent…) is described, and written `unknown` inside another type.
 */
export function typeText(t: Type): string {
  return t === "opaque" ? "value nabla does not differentiate" : written(t, "unknown");
}

/**
 * A type with its article, for messages: `a number[]`, `an object of type 'Out'`, and for an
 * inline object type (whose name is its source text), `an object with fields 'a' and 'b'`.
 */
export function typePhrase(t: Type): string {
  if (isObject(t)) {
    if (!/^[A-Za-z_$][\w$]*(<.*>)?$/.test(t.name)) {
      const names = t.fields.map((f) => `'${f.name}'`);
      if (names.length === 0) return "an object";
      const listed =
        names.length === 1 ? names[0]! : `${names.slice(0, -1).join(", ")} and ${names.at(-1)!}`;
      return `an object with field${names.length === 1 ? "" : "s"} ${listed}`;
    }
    return `an object of type '${t.name}'`;
  }
  const text = typeText(t);
  return /^[aeiou]/i.test(text) ? `an ${text}` : `a ${text}`;
}

/** A type in the IR's own notation (the printer's and the parser's: `opaque` by that name). */
export function irTypeText(t: Type): string {
  return written(t, "opaque");
}

function written(t: Type, opaque: string): string {
  if (!isAggregate(t)) return t === "opaque" ? opaque : t;
  if (t.kind === "object") return t.name;
  const inner = (u: Type) => written(u, opaque);
  if (t.kind === "keyed")
    return t.storage === "Set" ? `Set<${t.key}>` : `${t.storage}<${t.key}, ${inner(t.value)}>`;
  if (t.storage !== "Array") return t.storage;
  if (t.elements) return `[${t.elements.map(inner).join(", ")}]`;
  const element = inner(t.element);
  return isAggregate(t.element) && t.element.kind === "object" && t.element.name.startsWith("{")
    ? `(${element})[]`
    : `${element}[]`;
}

/** Structural identity of types (named object types compare by their fields). */
export function sameType(a: Type, b: Type): boolean {
  if (a === b) return true;
  if (!isAggregate(a) || !isAggregate(b)) return false;
  if (a.kind === "array" && b.kind === "array") {
    if (a.storage !== b.storage) return false;
    if (a.elements || b.elements) {
      if (!a.elements || !b.elements) {
        // A tuple where an array is expected (or back) is fine when every element fits.
        const tuple = (a.elements ?? b.elements)!;
        const element = a.elements ? b.element : a.element;
        return tuple.every((e) => sameType(e, element));
      }
      return (
        a.elements.length === b.elements.length &&
        a.elements.every((e, i) => sameType(e, b.elements![i]!))
      );
    }
    return sameType(a.element, b.element);
  }
  if (a.kind === "keyed" && b.kind === "keyed")
    return a.storage === b.storage && a.key === b.key && sameType(a.value, b.value);
  if (a.kind === "object" && b.kind === "object") {
    if (a.classKey !== b.classKey && a.classKey && b.classKey) return false;
    // An interface's type is not its classes' (a call on it is dispatched, theirs is not).
    if (a.interfaceKey !== b.interfaceKey) return false;
    return assuming(
      a,
      b,
      () =>
        a.fields.length === b.fields.length &&
        a.fields.every((f) => {
          const g = fieldOf(b, f.name);
          return g !== undefined && g.noDerivative === f.noDerivative && sameType(f.type, g.type);
        }),
    );
  }
  return false;
}

/** Whether a value of type `from` may be used where `to` is expected. */
export function assignable(from: Type, to: Type): boolean {
  if (sameType(from, to)) return true;
  if (isObject(from) && isObject(to)) {
    // Structural typing: extra fields are fine, as in TypeScript. A subclass's instance may
    // lack the optional fields its base class's type holds for the other subclasses (their
    // methods never touch them). A plain object must have every field: code inlined for the
    // wider type could write one its own type lacks, and that write's derivative would be lost.
    const widening =
      (from.classKey !== undefined || from.interfaceKey !== undefined) &&
      (to.classKey !== undefined || to.interfaceKey !== undefined);
    return assuming(from, to, () =>
      to.fields.every((f) => {
        const g = fieldOf(from, f.name);
        return g === undefined ? widening && f.optional === true : assignable(g.type, f.type);
      }),
    );
  }
  // `const terms: Term[] = squares`: an array of a class's instances where one of an interface
  // or base class it implements is expected, as TypeScript allows; the same array, whose
  // elements are each their class's (calls on them dispatch on it).
  if (
    isArray(from) &&
    isArray(to) &&
    from.storage === "Array" &&
    to.storage === "Array" &&
    !from.elements &&
    !to.elements &&
    isObject(from.element) &&
    isObject(to.element) &&
    from.element.classKey !== undefined &&
    (to.element.classKey !== undefined || to.element.interfaceKey !== undefined)
  )
    return assignable(from.element, to.element);
  return false;
}

/**
 * An array of number vectors (`number[][]`, `Float64Array[]`, `[number, number][]`), not a
 * tuple of them: what `jacobian` takes besides numbers, vectors and objects.
 */
export function isNumberMatrix(type: Type): boolean {
  if (!isArray(type) || type.elements !== undefined) return false;
  const row = type.element;
  return (
    isArray(row) &&
    row.element === "number" &&
    (row.elements === undefined || row.elements.every((e) => e === "number"))
  );
}
