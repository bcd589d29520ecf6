import { message, type Printable } from "./message.js";

// The messages of NABLA202 (a derivative asked for as WebAssembly runs as JavaScript (a
// warning)): every text of the code, with the parts that vary as parameters;
// docs/diagnostics.md shows examples.

export const wasmFallback = {
  /** `what`: the operator (`'gradient'`) or the function tagged `@backend wasm`, quoted. */
  runsAsJavaScript: (what: Printable, reason: Printable) =>
    message(
      "wasmFallback",
      `${what} runs as JavaScript, not WebAssembly: ${reason}`,
      `the WebAssembly backend covers functions of numbers, booleans, strings compared for equality, arrays of numbers (Float64Array, Float32Array, number[], arrays of them), integer typed arrays (Int32Array, Uint8Array…), arrays it makes and grows, and objects of them (with fields of other types, such as functions, only where the function does not use them); 'backend: "auto"' picks it only where it applies, without this warning`,
    ),
  /**
   * `what`: the operator, quoted, whose function writes its arguments or a module-level value
   * (`reason` says which): its types are covered, its writes are not.
   */
  writesArguments: (what: Printable, reason: Printable) =>
    message(
      "wasmFallback",
      `${what} runs as JavaScript, not WebAssembly: ${reason}`,
      `let the function change copies it makes ('const pos = state.pos.slice()', '{ ...p }') instead; 'backend: "auto"' picks WebAssembly only where it applies, without this warning`,
    ),
  /** `what`: the operator, quoted, asked for with 'hasAux'. */
  auxNotCovered: (what: Printable) =>
    message(
      "wasmFallback",
      `${what} runs as JavaScript, not WebAssembly: 'hasAux' is not covered yet`,
      `differentiate a function returning the number alone with backend "wasm", and compute the auxiliary values by a call of the function itself; 'backend: "auto"' picks WebAssembly only where it applies, without this warning`,
    ),
  /**
   * `what`: the function tagged `@backend wasm`, quoted, which nabla could not lower at
   * `count` constructs; notes point at them, saying why.
   */
  functionNotRead: (what: Printable, count: number) =>
    message(
      "wasmFallback",
      `${what} runs as JavaScript, not WebAssembly: nabla could not read the code ${count === 1 ? "the note points at" : "the notes point at"} (it reads a function run as WebAssembly as it reads differentiable code)`,
      `change what ${count === 1 ? "the note points at" : "the notes point at"}, or move it out into the JavaScript code that calls ${what}`,
    ),
  /**
   * `what`: the function tagged `@backend wasm`, quoted, whose inner operator would run once
   * per element in WebAssembly (forward mode); a note points at it.
   */
  perElementOperator: (what: Printable, reason: Printable, inside: Printable) =>
    message(
      "wasmFallback",
      `${what} runs as JavaScript, not WebAssembly: ${reason}`,
      `write the operator call in ${what} itself, where it runs in reverse mode inside WebAssembly (a helper such as '${inside}' is lowered as differentiated code is); or call it from the JavaScript code that calls ${what}`,
    ),
  /** The note at that operator call. */
  perElementHere: () =>
    message("wasmFallback", "this call would run the function once per element of the array"),
  /** `what`: the operator, quoted; the operator's way of computing is not covered. */
  operatorNotCovered: (what: Printable, reason: Printable) =>
    message(
      "wasmFallback",
      `${what} runs as JavaScript, not WebAssembly: ${reason}`,
      `the WebAssembly backend runs derivatives, differentials, gradients, Hessians, Hessian-vector products, the Jacobians of functions returning one number and the forward passes of those returning several; 'backend: "auto"' picks it only where it applies, without this warning`,
    ),
};
