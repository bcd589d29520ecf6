import type { TSType } from "oxc-parser";
import type { FieldType, FunctionTypeInfo, ObjectType, Type } from "../ir/types.js";
import { fieldOf, isObject, sameType } from "../ir/type-system.js";
import type { ProgramGraph } from "../parse/program.js";
import type { CallTypes } from "./signature.js";
import { annotationResolver, genericClassType } from "./declared-types.js";
import { classNamed } from "../parse/class-hierarchy.js";
import { unionOfClasses } from "./class-unions.js";
import { provideCheckedTypeAt } from "./checked-type-lookup.js";
import { fixedTuple, varyingTuple } from "./tuple-types.js";
import {
  openChecker,
  type CheckedShape,
  type CheckedType,
  type CheckerView,
} from "./typescript-checker.js";

// TypeScript's types → IR types: what lowering asks when the source does not say (an
// unannotated result, parameter or variable, a call's result, a loop variable). Named types
// declared in the user's files go through the same resolver as annotations (declared-types.ts),
// so a type reads the same whether it was written or inferred; the rest is built from the
// checker's description. Types nabla cannot carry come back undefined, and the caller reports.

/** The checker's types of one program, as IR types. */
export interface CheckedTypes {
  /** The IR type TypeScript gives the name or expression at `position` of `file`. */
  typeAt(file: string, position: number): Type | undefined;
  /** The IR result type of the function written at [start, end) of `file`. */
  returnTypeOf(file: string, start: number, end: number): Type | undefined;
  /** The IR type the expression at [start, end) of `file` is expected to have, else its own. */
  expectedTypeOf(file: string, start: number, end: number): Type | undefined;
  /** The IR type of parameter `index` of the function written at [start, end) of `file`. */
  parameterTypeOf(file: string, start: number, end: number, index: number): Type | undefined;
  /** The parameter and result types of the call at [start, end), type arguments filled in. */
  callAt(file: string, start: number, end: number): CallTypes | undefined;
  /** How TypeScript writes the type at `position`, for messages. */
  textAt(file: string, position: number): string | undefined;
  /** The values of the union of literals TypeScript gives the name at `position`, if it is one. */
  literalsAt(file: string, position: number): (string | number)[] | undefined;
  /** The function type TypeScript gives the name at `position`, if it holds a function. */
  functionTypeAt(file: string, position: number): FunctionTypeInfo | undefined;
  /** The value of the enum member named at `position` (`Mode.Fast`'s `Fast`), if it is one. */
  enumValueAt(file: string, position: number): string | number | undefined;
  /**
   * Whether the value of the expression at [start, end) may be undefined or null, as the
   * checker narrows it there (`maybe`, `config.overrides`, `lookup(k)`).
   */
  mayBeAbsentIn(file: string, start: number, end: number): boolean;
  /**
   * Whether a value of the type the expression at [start, end) of `file` is expected to have
   * may hold a function somewhere inside (a type nabla has no IR type for, such as
   * `number[] | Float64Array`, included); undefined when the checker gives no type.
   */
  mayHoldFunctionsAt(file: string, start: number, end: number): boolean | undefined;
}

const perProgram = new WeakMap<ProgramGraph, CheckedTypes>();

provideCheckedTypeAt((program, file, position) => checkedTypes(program).typeAt(file, position));

/** The checker's types for `program`, opened when first asked. */
export function checkedTypes(program: ProgramGraph): CheckedTypes {
  let found = perProgram.get(program);
  if (!found) perProgram.set(program, (found = new ProgramTypes(program)));
  return found;
}

class ProgramTypes implements CheckedTypes {
  private opened: CheckerView | undefined;
  private readonly converted = new Map<string, Type | null>();
  /** Set when a conversion met a type it is converting already (a recursive type). */
  private cycle = false;
  /** Placeholders of the types being converted that were met inside themselves. */
  private readonly pending = new Map<
    string,
    { -readonly [K in keyof ObjectType]: ObjectType[K] }
  >();

  constructor(private readonly program: ProgramGraph) {}

  private get view(): CheckerView {
    this.opened ??= openChecker((file) => this.program.sourceText(file), process.cwd());
    return this.opened;
  }

  typeAt(file: string, position: number): Type | undefined {
    const [type] = this.view.typesAt(file, [position]);
    return type && this.convert(type);
  }

  returnTypeOf(file: string, start: number, end: number): Type | undefined {
    const type = this.view.returnTypeOf(file, start, end);
    return type && this.convert(type);
  }

  callAt(file: string, start: number, end: number): CallTypes | undefined {
    const call = this.view.callAt(file, start, end);
    if (!call) return undefined;
    return {
      params: call.params.map((t) => t && this.convert(t)),
      result: call.result && this.convert(call.result),
    };
  }

  expectedTypeOf(file: string, start: number, end: number): Type | undefined {
    const type = this.view.expectedTypeOf(file, start, end);
    return type && this.convert(type);
  }

  mayHoldFunctionsAt(file: string, start: number, end: number): boolean | undefined {
    const type = this.view.expectedTypeOf(file, start, end);
    if (!type) return undefined;
    const seen = new Set<string>();
    const holds = (t: CheckedType): boolean => {
      const key = this.view.key(t);
      if (seen.has(key)) return false;
      seen.add(key);
      const shape = this.view.describe(t);
      switch (shape.kind) {
        case "union":
          return shape.members.some(holds);
        case "array":
          return holds(shape.element);
        case "tuple":
          return shape.elements.some(holds);
        case "keyed":
          return holds(shape.value);
        case "object":
          return (
            shape.callable ||
            shape.keyed ||
            shape.properties.some((p) => !p.method && holds(p.type))
          );
        case "other":
          return true;
        default:
          return false;
      }
    };
    return holds(type);
  }

  parameterTypeOf(file: string, start: number, end: number, index: number): Type | undefined {
    const type = this.view.parameterTypeOf(file, start, end, index);
    return type && this.convert(type);
  }

  literalsAt(file: string, position: number): (string | number)[] | undefined {
    const [type] = this.view.typesAt(file, [position]);
    return type && this.view.literals(type);
  }

  enumValueAt(file: string, position: number): string | number | undefined {
    const [type] = this.view.typesAt(file, [position]);
    return type && this.view.enumValue(type);
  }

  functionTypeAt(file: string, position: number): FunctionTypeInfo | undefined {
    const [type] = this.view.typesAt(file, [position]);
    return type && this.functionType(type);
  }

  mayBeAbsentIn(file: string, start: number, end: number): boolean {
    const type = this.view.expectedTypeOf(file, start, end);
    if (!type) return false;
    const absent = (t: CheckedType) => {
      const kind = this.view.describe(t).kind;
      return kind === "undefined" || kind === "null";
    };
    const shape = this.view.describe(type);
    return absent(type) || (shape.kind === "union" && shape.members.some(absent));
  }

  textAt(file: string, position: number): string | undefined {
    const [type] = this.view.typesAt(file, [position]);
    return type && this.view.text(type);
  }

  private convert(type: CheckedType): Type | undefined {
    const id = this.view.key(type);
    const done = this.converted.get(id);
    if (done !== undefined) return done ?? undefined;
    if (this.converted.has(id)) {
      // A type that holds itself (a tree): its fields point to a placeholder, which becomes
      // the type once it is built.
      this.cycle = true;
      let placeholder = this.pending.get(id);
      if (!placeholder)
        this.pending.set(id, (placeholder = { kind: "object", name: "", fields: [] }));
      return placeholder;
    }
    const before = new Set(this.converted.keys());
    this.converted.set(id, undefined as never);
    let result = this.build(this.view.describe(type));
    const placeholder = this.pending.get(id);
    if (placeholder) {
      this.pending.delete(id);
      if (result && isObject(result)) {
        result = Object.assign(placeholder, result);
      } else {
        // Not an object type: what was built pointing to the placeholder is forgotten, and
        // the field that holds the type says why.
        for (const k of [...this.converted.keys()]) if (!before.has(k)) this.converted.delete(k);
        this.cycle = true;
        result = undefined;
      }
    }
    this.converted.set(id, result ?? null);
    return result;
  }

  private build(shape: CheckedShape): Type | undefined {
    switch (shape.kind) {
      case "number":
      case "boolean":
      case "string":
      case "void":
        return shape.kind;
      case "undefined":
      case "null":
        return undefined;
      case "union": {
        const present = shape.members.filter((m) => !isNullish(this.view.describe(m)));
        const types = present.map((m) => this.convert(m));
        const first = types[0];
        if (first !== undefined && types.every((t) => t === first)) return first;
        const text = shape.name ?? present.map((m) => this.view.text(m)).join(" | ");
        return unionOfClasses(types, text) ?? mergedObjects(types, text);
      }
      case "array": {
        const element = this.convert(shape.element);
        return element && { kind: "array", storage: "Array", element };
      }
      case "tuple": {
        const elements = shape.elements.map((e) => this.convert(e));
        if (!elements.every((e): e is Type => e !== undefined)) return undefined;
        return shape.variadic ? varyingTuple(elements) : fixedTuple(elements);
      }
      case "typedArray":
        return { kind: "array", storage: shape.storage, element: "number" };
      case "keyed": {
        // `Map<Kind, V>` of an enum, `Map<"a" | "b", V>`: keyed by what its members are.
        const key = this.keyType(shape.key);
        const value = this.convert(shape.value);
        // Records are keyed by text (JavaScript turns number keys into text: a
        // `Record<number, V>` is one of text); maps by either.
        if (!value || value === "void") return undefined;
        if (key !== "string" && key !== "number") return undefined;
        const keyedBy = shape.storage === "Record" ? "string" : key;
        return { kind: "keyed", storage: shape.storage, key: keyedBy, value };
      }
      case "set": {
        const key = this.keyType(shape.key);
        if (key !== "string" && key !== "number") return undefined;
        return { kind: "keyed", storage: "Set", key, value: "boolean" };
      }
      case "object":
        return this.object(shape);
      case "other":
        return undefined;
    }
  }

  /** A key type's kind: a union of number (or of string) literals, an enum's, is that kind. */
  private keyType(key: CheckedType): string {
    const kind = this.view.describe(key).kind;
    if (kind !== "union") return kind;
    const converted = this.convert(key);
    return converted === "number" || converted === "string" ? converted : kind;
  }

  private object(checked: Extract<CheckedShape, { kind: "object" }>): Type | undefined {
    const shape = this.ownName(checked);
    if (shape.callable) return "opaque";
    if (shape.keyed) return undefined;
    // An instance of a generic class whose type arguments are no types nabla has (`Box<U>` in
    // generic code, where U is a type parameter): not an instance of any instantiation.
    if (shape.typeArguments?.some((t) => this.convert(t) === undefined)) return undefined;
    const declared = this.declared(shape);
    if (declared) return declared;
    const fields: FieldType[] = [];
    for (const p of shape.properties) {
      if (p.method) continue;
      const described = this.view.describe(p.type);
      const optional =
        p.optional ||
        (described.kind === "union" &&
          described.members.some((m) => isNullish(this.view.describe(m))));
      this.cycle = false;
      const enumChoice = this.view.isNumericEnum(p.type);
      const type = this.convert(p.type);
      const recursive = type === undefined && this.cycle;
      const callable = type === "opaque" ? this.functionType(p.type) : undefined;
      fields.push({
        name: p.name,
        type: type ?? "opaque",
        // A numeric enum's value is a discrete choice: as declared-types.ts reads its field.
        noDerivative: enumChoice,
        ...(enumChoice ? { enumChoice } : {}),
        ...(optional ? { optional } : {}),
        ...(recursive ? { recursive } : {}),
        ...(callable ? { callable } : {}),
      });
    }
    const name = shape.name ?? shape.text;
    const classKey =
      shape.isClass && shape.declaredIn && shape.name
        ? `${shape.declaredIn}#${shape.name}`
        : undefined;
    return { kind: "object", name, fields, ...(classKey ? { classKey } : {}) };
  }

  /**
   * The shape named as its declaration names it: TypeScript names a class or interface declared
   * `export default class Vec` by its export, 'default'.
   */
  private ownName(
    shape: Extract<CheckedShape, { kind: "object" }>,
  ): Extract<CheckedShape, { kind: "object" }> {
    if (shape.name !== "default" || !shape.declaredIn) return shape;
    const mod = this.program.loadedModules().find((m) => m.file === shape.declaredIn);
    const local = mod?.exports.get("default");
    return local !== undefined && mod!.types.has(local) ? { ...shape, name: local } : shape;
  }

  /** A function type (a field holding a function), as a call of it needs it. */
  private functionType(type: CheckedType): FunctionTypeInfo | undefined {
    // An optional field's function (`act?: (z: number) => number`): the function it may hold.
    const shape = this.view.describe(type);
    if (shape.kind === "union") {
      const present = shape.members.filter((m) => !isNullish(this.view.describe(m)));
      if (present.length === 1) return this.functionType(present[0]!);
    }
    const signature = this.view.callSignature(type);
    if (!signature) return undefined;
    const result =
      this.view.describe(signature.result).kind === "void"
        ? "void"
        : this.convert(signature.result);
    return {
      params: signature.params.map((p) => this.convert(p)),
      result,
      text: this.view.text(type),
    };
  }

  /** A named type of the user's files, as its annotation would read (with `@noDerivative`). */
  private declared(shape: Extract<CheckedShape, { kind: "object" }>): Type | undefined {
    if (!shape.name || !shape.declaredIn) return undefined;
    const mod = this.program.loadedModules().find((m) => m.file === shape.declaredIn);
    if (!mod?.types.has(shape.name)) return undefined;
    if (shape.typeArguments) {
      // `new RingBuffer(8)` inferred as `RingBuffer<number>`: that instantiation.
      const cls = classNamed(this.program, mod, shape.name);
      const args = shape.typeArguments.map((t) => this.convert(t));
      if (!cls || !args.every((t): t is Type => t !== undefined)) return undefined;
      return genericClassType(this.program, cls, args);
    }
    const reference = {
      type: "TSTypeReference",
      typeName: { type: "Identifier", name: shape.name, start: 0, end: 0 },
      start: 0,
      end: 0,
    } as unknown as TSType;
    return annotationResolver(this.program, mod)(reference);
  }
}

/**
 * One object type for a union of object types (`[{ x: 1 }, { x: 2, mass: 3 }]`, or the variants
 * of a union told apart by a field): every field of any member, optional where some member
 * lacks it or may leave it undefined. A field of two different types, or a class, is not merged.
 */
function mergedObjects(types: (Type | undefined)[], text: string): Type | undefined {
  if (!types.every((t): t is ObjectType => isObject(t ?? "void") && !(t as ObjectType).classKey))
    return undefined;
  const fields = new Map<string, FieldType>();
  const absentIn = (name: string) =>
    types.some((t) => {
      const f = fieldOf(t, name);
      return !f || f.optional || f.type === "opaque";
    });
  for (const t of types) {
    for (const f of t.fields) {
      // `mass?: undefined` in the member that lacks it: TypeScript's way of saying so.
      if (f.type === "opaque" && !f.callable && f.optional) continue;
      const known = fields.get(f.name);
      if (known && !sameType(known.type, f.type)) return undefined;
      fields.set(f.name, { ...f, ...(absentIn(f.name) ? { optional: true } : {}) });
    }
  }
  return { kind: "object", name: text, fields: [...fields.values()] };
}

function isNullish(shape: CheckedShape): boolean {
  return shape.kind === "undefined" || shape.kind === "null" || shape.kind === "void";
}
