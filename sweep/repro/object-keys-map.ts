// Repro (refused, unclear message): a Map keyed by objects. The message says nabla "cannot tell
// the key and value types" and advises giving them, though they are given; the limitation is
// object keys.
import { gradient } from "nabla";
interface P {
  x: number;
  y: number;
}
function f(xs: number[]): number {
  const m = new Map<P, number>();
  for (const x of xs) m.set({ x, y: 2 * x }, 1);
  let t = 0;
  for (const [p, w] of m) t += p.x * p.y * w;
  return t;
}
console.log(gradient(f)([1, 2]));
