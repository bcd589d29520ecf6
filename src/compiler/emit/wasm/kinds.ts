import type { WasmKind } from "../../../api/wasm-entry.js";
import type { ArrayType, IntegerArrayStorage, ObjectType, Type } from "../../ir/types.js";
import {
  isArray,
  isIntegerArray,
  isObject,
  isRecursiveType,
  typeText,
} from "../../ir/type-system.js";
import { NotForWasm } from "./not-for-wasm.js";
import { convertsStores } from "./typed-array-stores.js";

// Which IR types the wasm backend carries, and how: numbers as f64, booleans as i32, strings
// as i32 ids (equal strings, equal ids: the code only tests strings for equality; 0 is
// undefined), and arrays and objects as the i32 address of a block in wasm memory. An array's
// block holds its length (i32) at the address and its elements from 8 bytes on, 8 bytes each
// (an f64, or the i32 address of an inner array or object, or a string's id); an array the
// function appends to keeps its capacity in the i32 4 bytes in (growing-arrays.ts). An
// object's block holds its fields the same way, from 8 bytes on in the order of its type's
// fields (the count at the address is unused). An element address of 0 is an element never
// written (JavaScript's `undefined`). A Float32Array is held the same way, as f64s (each
// exactly a float32), and every store into one is rounded to float32 first, as JavaScript's
// stores into it are; an integer typed array (Int32Array, Uint8ClampedArray…) too, as f64s
// each exactly one of its integers, every store converted as JavaScript's (ToInt32,
// clamping: typed-array-stores.ts). An optional field (one of an object's first 32) is carried
// with its presence: bit k of the i32 4 bytes into the object's block says whether the object
// has its field k (when it has not, the cell holds NaN for a number, what JavaScript computes
// with undefined as, and 0 otherwise). A field of a type not carried (a later optional field,
// a function…) is opaque: its cell stays 0, and the code that reads or writes it is not
// compiled to wasm (function.ts asks `opaqueField`), so objects of such types can be passed as
// long as those fields are unused.

export type WasmValueType = "f64" | "i32";

/** How values of `type` cross between JavaScript and wasm; undefined when they cannot. */
export function kindOf(type: Type): WasmKind | undefined {
  const carried = carry(type);
  return isNot(carried) ? undefined : carried;
}

/** Why values of a type cannot cross ("" when the type's name says it). */
interface NotCarried {
  not: string;
}

const not = (why: string): NotCarried => ({ not: why });

function isNot(kind: WasmKind | NotCarried): kind is NotCarried {
  return typeof kind === "object" && "not" in kind;
}

/** A value's kind, or why values of `type` cannot cross, for the message. */
function carry(type: Type): WasmKind | NotCarried {
  if (type === "number" || type === "boolean" || type === "string") return type;
  if (isObject(type)) return objectKind(type);
  if (!isArray(type)) return not("");
  // Integer arrays: f64 cells too, each store converted as JavaScript's (ToInt32, clamping…).
  if (isIntegerArray(type)) return { array: type.storage as IntegerArrayStorage, of: "number" };
  const elements = type.elements?.length ? type.elements : [type.element];
  // Each element's kind once: carrying one twice per level was exponential in the nesting.
  const kinds = elements.map((e) => carry(e));
  const of = kinds[0]!;
  if (isNot(of)) return of;
  if (of === "boolean") return not("arrays of booleans are not covered");
  if (type.storage === "Float32Array" && of !== "number") return not("");
  // One layout for every element (a tuple's too): an element's code does not know which it is.
  const layout = layoutKey(of);
  if (kinds.some((k) => layoutKey(isNot(k) ? undefined : k) !== layout))
    return not("its elements are of different kinds");
  return { array: type.storage, of };
}

/**
 * Plain objects and class instances. Not: an interface several classes implement (its fields
 * are those of any of them), types that hold themselves (trees). Fields not carried are
 * opaque (above).
 */
function objectKind(type: ObjectType): WasmKind | NotCarried {
  if (type.interfaceKey !== undefined) return not("an interface classes implement is not covered");
  if (isRecursiveType(type)) return not("a type that holds itself is not covered");
  const fields: [string, WasmKind][] = type.fields.map((f, k) => {
    if (opaqueField(f, k) !== undefined) return [f.name, "opaque"];
    const kind = carry(f.type) as WasmKind;
    return [f.name, f.optional ? { optional: kind } : kind];
  });
  return { fields };
}

/** The bit of the presence mask that says an object has optional field `k` (see above). */
export const presenceBit = (k: number): number => (1 << k) >>> 0;

/**
 * The field `name` of `type` if it is optional and carried (among the first 32 fields): its
 * position, whose bit of the presence mask says the object has it.
 */
export function optionalField(type: Type, name: string): number | undefined {
  if (!isObject(type)) return undefined;
  const k = type.fields.findIndex((f) => f.name === name);
  const f = type.fields[k];
  return f?.optional && opaqueField(f, k) === undefined ? k : undefined;
}

/**
 * Why wasm code cannot read or write field `k` (which is then opaque), or undefined if it can:
 * an optional field after the first 32 (the presence mask has 32 bits), a function, a
 * `#private` field, one holding its own type, or one of a type not carried.
 */
export function opaqueField(f: ObjectType["fields"][number], k: number): string | undefined {
  if (f.optional && k >= 32) return "optional";
  if (f.callable) return "a function";
  if (f.recursive || f.name.startsWith("#")) return "not covered";
  const kind = carry(f.type);
  if (isNot(kind)) return kind.not || `of type ${typeText(f.type)}`;
  return undefined;
}

/** Whether a kind holds an opaque field: a value of it copied out would lack that field. */
export function holdsOpaque(kind: WasmKind): boolean {
  if (kind === "opaque") return true;
  if (typeof kind === "string") return false;
  if ("optional" in kind) return holdsOpaque(kind.optional);
  return "of" in kind ? holdsOpaque(kind.of) : kind.fields.some(([, k]) => holdsOpaque(k));
}

/** A kind's layout in wasm memory, as text: arrays' storage aside (but Float32Array's rounding). */
function layoutKey(kind: WasmKind | undefined): string {
  if (kind === undefined) return "?";
  if (typeof kind === "string") return kind;
  if ("optional" in kind) return `${layoutKey(kind.optional)}?`;
  // A Float32Array's stores round, an Int32Array's wrap…: code for one must not be given another.
  if ("of" in kind) return `${convertsStores(kind.array) ? kind.array : ""}[${layoutKey(kind.of)}]`;
  return `{${kind.fields.map(([name, k]) => `${JSON.stringify(name)}:${layoutKey(k)}`).join(",")}}`;
}

/**
 * Whether values of type `from` lie in memory as values of type `to` do: not so for an object
 * of a type with more fields, or the same in another order, passed where `to` is expected.
 */
export function sameLayout(from: Type, to: Type): boolean {
  if (from === to || typeof from !== "object" || typeof to !== "object") return true;
  return layoutKey(kindOf(from)) === layoutKey(kindOf(to));
}

/** The wasm type of values of `type`, or NotForWasm saying which value has which type. */
export function wasmType(type: Type, what: string): WasmValueType {
  const kind = carry(type);
  if (isNot(kind)) {
    // "opaque": a function value, or a value of a type nabla does not read.
    if (type === "opaque")
      throw new NotForWasm(`${what} is a function or a value of an unread type`);
    // A tangent has its value's shape: named as that type (`Tangent<P>` is the compiler's).
    const text = typeText(type).replace(/Tangent<([^<>]*)>/g, "$1");
    throw new NotForWasm(`${what} is of type ${text}${kind.not ? ` (${kind.not})` : ""}`);
  }
  return kind === "number" ? "f64" : "i32";
}

/** Whether an array's elements are numbers (else addresses of inner arrays or objects). */
export function holdsNumbers(type: ArrayType): boolean {
  return (type.elements?.[0] ?? type.element) === "number";
}

/** Whether a value of `type` holds an instance of a class (which a copy out could not make). */
export function holdsInstances(type: Type): boolean {
  if (isObject(type))
    return type.classKey !== undefined || type.fields.some((f) => holdsInstances(f.type));
  if (isArray(type)) return [type.element, ...(type.elements ?? [])].some(holdsInstances);
  return false;
}
