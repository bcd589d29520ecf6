// What generated code tells the runtime about a function compiled to WebAssembly: the shared
// vocabulary of the wasm backend (src/compiler/emit/wasm/, which writes it) and the runtime
// (src/runtime/wasm.ts, which copies values in and out by it).

/**
 * How a value crosses between JavaScript and wasm: a number (f64), a boolean (i32), an array of
 * numbers, of arrays or of objects (an i32 address in wasm memory), built as a `Float64Array`,
 * a `Float32Array` (held as f64s in wasm, each store rounded to float32), an integer typed
 * array (`Int32Array`, `Uint8Array`…: held as f64s, each store converted as JavaScript's) or an
 * `Array` when copied out, or a plain object (an i32 address too), its fields in this order.
 * An object's field of a type wasm does not carry (a string, an optional field, a function) is
 * "opaque": it has a cell, never copied, and the wasm code never reads or writes it.
 */
export type WasmKind =
  | "number"
  | "boolean"
  /**
   * A string, as an i32 id: wasm code only compares strings for equality, so each distinct
   * string of a call has an id of its own (WasmEntrySpec.strings); 0 is no string (undefined).
   */
  | "string"
  | "opaque"
  | { array: WasmArrayStorage; of: WasmKind }
  | { fields: [name: string, kind: WasmKind][] }
  /**
   * An optional field: its cell holds NaN (a number) or 0 (a boolean, an array, an object)
   * when the object lacks it, and the object's presence mask (the i32 4 bytes into its block)
   * has bit k set for its k-th field when it has it.
   */
  | { optional: WasmKind };

/** How an array crossing between JavaScript and wasm is built in JavaScript. */
export type WasmArrayStorage =
  | "Array"
  | "Float64Array"
  | "Float32Array"
  | "Int32Array"
  | "Uint32Array"
  | "Int16Array"
  | "Uint16Array"
  | "Int8Array"
  | "Uint8Array"
  | "Uint8ClampedArray";

/** A module-level value wasm code reads (WasmEntrySpec.globals). */
export type WasmGlobal = "f64" | "i32" | { copied: WasmKind };

/** One function compiled to WebAssembly, callable like the JavaScript function it stands for. */
export interface WasmEntrySpec {
  /** The module's bytes, base64. */
  bytes: string;
  /**
   * A pullback's module: `entry` runs the forward sweep, and its export `back` the backward
   * sweep on what that left (runtime/wasm-pullback.ts), taking and returning these.
   */
  back?: { params: WasmKind[]; results: WasmKind[] };
  /** Its exported function `entry` takes these. */
  params: WasmKind[];
  /** And returns these: the first is returned, the others go to `out.v1`, `out.v2`… */
  results: WasmKind[];
  /**
   * The array and object parameters the function writes (reverse mode's shadows): copied back
   * into the caller's (arrays element by element, objects' number fields).
   */
  written: number[];
  /**
   * Of `written`, the parameters a function tagged `@backend wasm` only stores numbers into,
   * never reading what they held (compiler/analysis/write-only-params.ts): their arrays made
   * by `wasmArrays` are written in place. Present (maybe empty) when the function writes its
   * arguments: the runtime then also checks that no array is passed both ways.
   */
  writeOnly?: number[];
  /**
   * What the function returns may be, or hold, an array or object it was given (or a
   * module-level one): a result at the address such an argument was copied to, or read in
   * place at, is that argument itself, as in JavaScript, not a copy.
   */
  returnsExisting?: true;
  /**
   * The module-level values the code reads, as the wasm globals they are imported into
   * ("globals" "0", "1"…): the call site's `readGlobals` gives their values, read before each
   * call. A number (f64) or a boolean (i32) is the global's value; an array or an object
   * (`copied`, of that kind) is copied in with the arguments, and the global is its address.
   */
  globals?: WasmGlobal[];
  /**
   * The strings the code names (constants it compares with or stores): string `strings[k]` has
   * id k + 1. Any other string a call copies in gets an id after these, for that call only.
   */
  strings?: string[];
}

/** The operators' `backend` option. */
export type Backend = "wasm" | "js" | "auto";
