// JavaScript's 32-bit integer operations in wasm: ToInt32 of a number, exactly as the
// ECMAScript spec defines it, and the bit operators (`|`, `&`, `^`, `<<`, `>>`, `>>>`, `~`,
// Math.imul, Math.clz32), which apply it to their operands. Not wasm's saturating
// truncation: JavaScript wraps modulo 2^32 (2^32 + 5 → 5, 2^31 → -2^31), and NaN and
// ±Infinity become 0.
//
// ToInt32 of any f64 x: r = x − trunc(x · 2^−32) · 2^32 has the sign of x and |r| < 2^32;
// every step is exact (scaling by a power of two, truncation, and a difference that is
// representable), and trunc(r) ≡ trunc(x) modulo 2^32, so i64.trunc_sat of r, wrapped to 32
// bits, is ToInt32(x). NaN and ±Infinity give NaN for r (∞ − ∞), which trunc_sat makes 0.

/**
 * ToInt32 of an f64 expression, as an i32; `scratch` is an f64 local it uses (x is read
 * twice), and `${scratch}_int` an i32 one. An x that is already an int32 (the usual case: an
 * index, a count) is one truncation that converts back to x; only the others take the
 * reduction modulo 2^32 above.
 */
export function toInt32(value: string, scratch: string): string {
  const int = `${scratch}_int`;
  const quotient = `(f64.trunc (f64.mul (local.get ${scratch}) (f64.const 0x1p-32)))`;
  const remainder = `(f64.sub (local.get ${scratch}) (f64.mul ${quotient} (f64.const 0x1p+32)))`;
  return (
    `(block (result i32) (local.set ${int} (i32.trunc_sat_f64_s (local.tee ${scratch} ${value})))` +
    ` (if (result i32) (f64.eq (f64.convert_i32_s (local.get ${int})) (local.get ${scratch}))` +
    ` (then (local.get ${int})) (else (i32.wrap_i64 (i64.trunc_sat_f64_s ${remainder})))))`
  );
}

/** The i32 instruction of each binary bit operator (a shift's count is taken modulo 32, as in JavaScript). */
const BINARY: Record<string, string> = {
  "|": "i32.or",
  "&": "i32.and",
  "^": "i32.xor",
  "<<": "i32.shl",
  ">>": "i32.shr_s",
  ">>>": "i32.shr_u",
  "Math.imul": "i32.mul",
};

/** Whether `callee` (a `nondiff` op's) is a bit operation this file computes. */
export function isBitOperation(callee: string, operands: number): boolean {
  if (callee === "~" || callee === "Math.clz32") return operands === 1;
  return callee in BINARY && operands === 2;
}

/** Whether the result of bit operation `callee` is an int32 (all but `>>>`, whose is a uint32). */
export function isSignedBitOperation(callee: string): boolean {
  return callee !== ">>>";
}

/**
 * Bit operation `callee` (isBitOperation) of operands already converted by ToInt32 (i32
 * expressions), as an i32: the bits of its result (unsigned for `>>>`, see isSignedBitOperation).
 */
export function bitOperation(callee: string, operands: string[]): string {
  const [a, b] = operands as [string, string | undefined];
  if (callee === "~") return `(i32.xor ${a} (i32.const -1))`;
  if (callee === "Math.clz32") return `(i32.clz ${a})`;
  return `(${BINARY[callee]} ${a} ${b})`;
}
