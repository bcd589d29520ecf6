// NABLA101 "a default parameter value is not supported in differentiable code". Not used by the
// evals as written; found while trying variants of gd.ts (`sign = 1`).
import { gradient } from "nabla";

function scaledSquare(x: number, scale = 1): number {
  return scale * x * x;
}

console.log(gradient((x: number) => scaledSquare(x))(3)); // expected 6
