// NABLA101 "array destructuring is not supported in differentiable code", even for a constant
// (non-differentiated) array of indices.
import { gradient } from "nabla";

function f(x: Float64Array, triangle: number[]): number {
  const [a, b, c] = triangle;
  return x[a] * x[b] + x[c];
}

console.log(gradient(f, { wrt: 0 })(new Float64Array([1, 2, 3]), [0, 1, 2])); // expected [2, 1, 1]
