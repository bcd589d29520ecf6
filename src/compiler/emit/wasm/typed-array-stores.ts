import type { ArrayType } from "../../ir/types.js";
import { isIntegerArray } from "../../ir/type-system.js";
import { toInt32 } from "./int32.js";

// What a store into an array makes of the number stored, as JavaScript's does. wasm holds
// every array of numbers as f64 cells (kinds.ts), so a typed array's cell must hold the
// number JavaScript would read back from it: a Float32Array's rounded to float32; an integer
// array's converted as the ECMAScript spec converts (ToInt32, ToUint8Clamp…). These are
// not wasm's saturating truncations: JavaScript wraps modulo 2^32 (2^32 + 5 → 5), and NaN
// and ±Infinity become 0 (int32.ts). The narrower kinds take the low 8 or 16 bits of ToInt32
// (ToInt8 and the others are ToInt32 modulo a smaller power of two). A Uint8ClampedArray
// clamps to 0…255 and rounds half to even (f64.nearest), NaN to 0, -0 to +0.

/** Whether a store into an array of `storage` converts the number (not a plain f64 cell). */
export function convertsStores(storage: ArrayType["storage"]): boolean {
  return storage !== "Array" && storage !== "Float64Array";
}

/**
 * Whether every element of an array of `storage` is an int32 (held exactly in its f64 cell):
 * an integer array's but a Uint32Array's, whose may reach 2^32 − 1.
 */
export function holdsInt32(storage: ArrayType["storage"]): boolean {
  return isIntegerArray({ kind: "array", storage, element: "number" }) && storage !== "Uint32Array";
}

/** Whether the elements of an array of `storage` are integers ≥ 0 (a Uint8Array's…). */
export function isUnsigned(storage: ArrayType["storage"]): boolean {
  return ["Uint8Array", "Uint8ClampedArray", "Uint16Array", "Uint32Array"].includes(storage);
}

/**
 * The f64 a store of `value` into an array of `type` puts in its cell: `value` an f64
 * expression, or with `int` an i32 one (an integer wasm keeps as i32, integers.ts: its own
 * ToInt32, so an integer array takes its bits without the conversion). `scratch` is an f64
 * local the conversion may use (it reads `value` twice).
 */
export function storedValue(type: ArrayType, value: string, scratch: string, int = false): string {
  const number = int ? `(f64.convert_i32_s ${value})` : value;
  const bits = () => (int ? value : toInt32(value, scratch));
  switch (type.storage) {
    case "Array":
    case "Float64Array":
      return number;
    case "Float32Array":
      return `(f64.promote_f32 (f32.demote_f64 ${number}))`;
    case "Uint8ClampedArray":
      return (
        `(select (f64.nearest (f64.min (f64.max (local.tee ${scratch} ${number}) (f64.const 0)) (f64.const 255)))` +
        ` (f64.const 0) (f64.eq (local.get ${scratch}) (local.get ${scratch})))`
      );
    case "Int32Array":
      return `(f64.convert_i32_s ${bits()})`;
    case "Uint32Array":
      return `(f64.convert_i32_u ${bits()})`;
    case "Int16Array":
      return `(f64.convert_i32_s ${signExtended(bits(), 16)})`;
    case "Uint16Array":
      return `(f64.convert_i32_u (i32.and ${bits()} (i32.const 0xffff)))`;
    case "Int8Array":
      return `(f64.convert_i32_s ${signExtended(bits(), 24)})`;
    case "Uint8Array":
      return `(f64.convert_i32_u (i32.and ${bits()} (i32.const 0xff)))`;
  }
}

/** The low 32 − `shift` bits of an i32, sign-extended (shifts: no sign-extension feature). */
function signExtended(value: string, shift: number): string {
  return `(i32.shr_s (i32.shl ${value} (i32.const ${shift})) (i32.const ${shift}))`;
}
