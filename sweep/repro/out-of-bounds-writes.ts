// Repro (silently wrong, not fixed): writes out of bounds. A typed array ignores them, a plain
// array grows holes that reduce skips; the derivative code reads them: gradient of typedOob is
// NaN (forward is right), derivative of holesGrow is NaN (reverse is right).
import { gradient, derivative } from "nabla";
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
for (const [name, f] of [
  ["typedOob", typedOob],
  ["holesGrow", holesGrow],
  ["negativeIndex", negativeIndex],
] as const) {
  console.log(name, "value", f(1.5), "fd", (f(1.5 + 1e-6) - f(1.5 - 1e-6)) / 2e-6);
}
console.log("typedOob", derivative(typedOob)(1.5), gradient(typedOob)(1.5));
console.log("holesGrow", derivative(holesGrow)(1.5), gradient(holesGrow)(1.5));
console.log("negativeIndex", derivative(negativeIndex)(1.5), gradient(negativeIndex)(1.5));
