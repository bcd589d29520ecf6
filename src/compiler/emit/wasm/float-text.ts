// Numbers as WAT literals that denote exactly the same float64: hexadecimal floats, read from
// the bits, so no decimal rounding (ours or the assembler's) can change a constant.

/** `x` as a WAT f64 literal: `0x1.8p+1` for 3, `-0x0p+0`, `inf`, `nan`. */
export function f64Text(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  const bits = new DataView(new ArrayBuffer(8));
  bits.setFloat64(0, x);
  const high = bits.getUint32(0);
  const low = bits.getUint32(4);
  const sign = high >>> 31 ? "-" : "";
  const exponent = (high >>> 20) & 0x7ff;
  const mantissa = (
    (high & 0xfffff).toString(16).padStart(5, "0") + low.toString(16).padStart(8, "0")
  ).replace(/0+$/, "");
  const fraction = mantissa ? `.${mantissa}` : "";
  if (exponent === 0) {
    // Zero, or a subnormal: 0x0.<mantissa>p-1022.
    return mantissa ? `${sign}0x0${fraction}p-1022` : `${sign}0x0p+0`;
  }
  const e = exponent - 1023;
  return `${sign}0x1${fraction}p${e < 0 ? "-" : "+"}${Math.abs(e)}`;
}
