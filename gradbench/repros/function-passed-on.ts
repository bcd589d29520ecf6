// Documented limitation, hit by the natural argmax-via-argmin solver (saddle.ts, gd.ts): a
// function value handed on through a further function arrives without the derivative nabla
// attaches, so the plain run throws "TypeError: nabla: 'gradient(f)' needs the derivative of the
// function passed as 'f', and this function value has none". Calling descend directly works.
import { gradient } from "nabla";

function descend(f: (p: number[]) => number, p: number[]): number[] {
  const g = gradient(f)(p);
  return p.map((pi, i) => pi - 0.1 * g[i]);
}

function descendFrom(f: (p: number[]) => number, p: number[]): number[] {
  return descend(f, p);
}

console.log(descendFrom((q) => q[0] * q[0], [1])); // expected [0.8]
