// Writes out of bounds (was repro/out-of-bounds-writes.ts: NaN in one mode, a number in the
// other). A typed array ignores them: both modes give the derivative of what the program
// computed. A plain array written past its end gets holes that reduce skips: derivative code
// stops with a RangeError naming the call, in both modes. A write at -1 is a property, which
// reduce ignores: right.
import { gradient, derivative } from "nabla";
import { compare, fd1, summary } from "./check.js";

export function typedOob(x: number): number {
  const buf = new Float64Array(3);
  buf[0] = x;
  buf[5] = x * 100; // ignored by typed arrays
  return buf.reduce((s, v) => s + v * v, 0) + buf.length;
}
export function holesGrow(x: number): number {
  const arr = [x, 2 * x, 3];
  arr[5] = x * x; // makes holes at 3, 4
  return arr.reduce((s, v) => s + v, 0) + arr.length;
}
export function negativeIndex(x: number): number {
  const arr = [x, 2];
  arr[-1] = 100 * x;
  return arr.reduce((s, v) => s + v * x, 0) + arr.length;
}

compare("typedOob forward vs fd", derivative(typedOob)(1.5), fd1(typedOob, 1.5));
compare("typedOob reverse vs forward", gradient(typedOob)(1.5), derivative(typedOob)(1.5));
compare("negativeIndex forward vs fd", derivative(negativeIndex)(1.5), fd1(negativeIndex, 1.5));
compare(
  "negativeIndex reverse vs forward",
  gradient(negativeIndex)(1.5),
  derivative(negativeIndex)(1.5),
);
const refused = (run: () => number): string => {
  try {
    return `no error: ${run()}`;
  } catch (error) {
    return error instanceof RangeError && /'\.reduce' at .* met a hole/.test(error.message)
      ? "refused"
      : `other error: ${String(error)}`;
  }
};
const both = [refused(() => derivative(holesGrow)(1.5)), refused(() => gradient(holesGrow)(1.5))];
console.log(`holesGrow: ${both.join(", ")}`);
compare("holesGrow refused in both modes", both.filter((r) => r === "refused").length, 2);
summary("p42-out-of-bounds-writes");
