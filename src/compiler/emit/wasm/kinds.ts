import type { WasmKind } from "../../../api/wasm-entry.js";
import type { ArrayType, Type } from "../../ir/types.js";
import { isArray, typeText } from "../../ir/type-system.js";
import { NotForWasm } from "./not-for-wasm.js";

// Which IR types the wasm backend carries, and how: numbers as f64, booleans as i32, and
// arrays of numbers (or of such arrays) as the i32 address of a block in wasm memory: its
// length (i32) at the address, its elements from 8 bytes on, 8 bytes each (an f64, or the i32
// address of an inner array).

export type WasmValueType = "f64" | "i32";

/** How values of `type` cross between JavaScript and wasm; undefined when they cannot. */
export function kindOf(type: Type): WasmKind | undefined {
  if (type === "number" || type === "boolean") return type;
  if (!isArray(type) || type.storage === "Float32Array") return undefined;
  const elements = type.elements ?? [type.element];
  const element = elements[0] ?? type.element;
  if (!elements.every((e) => e === "number" || isArray(e))) return undefined;
  if (elements.some((e) => (e === "number") !== (element === "number"))) return undefined;
  const of = kindOf(element);
  if (of === undefined || of === "boolean") return undefined;
  return { array: type.storage, of };
}

/** The wasm type of values of `type`, or NotForWasm saying which value has which type. */
export function wasmType(type: Type, what: string): WasmValueType {
  const kind = kindOf(type);
  if (kind === undefined) throw new NotForWasm(`${what} is of type ${typeText(type)}`);
  return kind === "number" ? "f64" : "i32";
}

/** Whether an array's elements are numbers (else addresses of inner arrays). */
export function holdsNumbers(type: ArrayType): boolean {
  return (type.elements?.[0] ?? type.element) === "number";
}
