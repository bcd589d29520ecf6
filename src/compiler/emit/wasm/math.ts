// Math functions in wasm. Those that are exact IEEE operations are instructions, with the
// same results as JavaScript's by definition (sqrt is correctly rounded; abs, floor, ceil and
// trunc are exact; min and max order -0 below +0 and propagate NaN as Math.min and Math.max
// do). exp, sin and cos are computed in the code, by the engine's own algorithms (exp.ts,
// trig.ts). The others (log, tanh, pow…) are imports of the engine's own Math functions, so a wasm function computes
// exactly the bits its JavaScript twin computes, on every engine; V8 calls an imported Math
// function directly, without a JavaScript frame (see docs/native-gap.md for what it costs).

/** Math functions of one number that are one f64 instruction. */
export const UNARY_INSTRUCTIONS: Readonly<Record<string, string>> = {
  sqrt: "f64.sqrt",
  abs: "f64.abs",
  floor: "f64.floor",
  ceil: "f64.ceil",
  trunc: "f64.trunc",
};

/** Math.min and Math.max of any number of arguments: a chain of the instruction. */
export const FOLDED_INSTRUCTIONS: Readonly<Record<string, { op: string; empty: string }>> = {
  min: { op: "f64.min", empty: "inf" },
  max: { op: "f64.max", empty: "-inf" },
};

/**
 * Math functions wasm code may not call: each call of `Math.random` draws a new number, and
 * a call the backend reruns as JavaScript (after a trap) would draw others.
 */
export const NOT_IMPORTED = new Set(["random"]);

/** Whether `Math[name]` is a function of numbers the wasm module may import. */
export function importableMath(name: string): boolean {
  return (
    !NOT_IMPORTED.has(name) &&
    Object.hasOwn(Math, name) &&
    typeof (Math as unknown as Record<string, unknown>)[name] === "function"
  );
}
