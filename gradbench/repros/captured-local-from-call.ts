// warning NABLA103 "cannot determine the type of 'target', which this function reads from the
// enclosing function; annotate its declaration (': number')", then the plain run throws
// (TypeError: nabla could not differentiate this function …). `target` is initialized by a call
// of a function with a declared return type (number[]); the message also suggests ': number' for
// an array. With `const target: number[] = …` it prints [1.2, 1.4].
import { gradient } from "nabla";

function descend(f: (p: number[]) => number, p: number[]): number[] {
  const g = gradient(f)(p);
  return p.map((pi, i) => pi - 0.1 * g[i]);
}

function makeTarget(): number[] {
  return [2, 3];
}

function run(): number[] {
  const target = makeTarget();
  return descend((q) => (q[0] - target[0]) ** 2 + (q[1] - target[1]) ** 2, [1, 1]);
}

console.log(run()); // expected [1.2, 1.4]
