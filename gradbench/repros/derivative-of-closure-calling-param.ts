// NABLA103 "cannot determine the type of 'f', which this function reads from the enclosing
// function; annotate its declaration (': number')" — f is annotated, with a function type: a
// lambda given to `derivative` that calls a function-typed parameter of the enclosing function.
import { derivative } from "nabla";

function slope(f: (x: number) => number, x: number): number {
  return derivative((t: number) => f(t))(x);
}

console.log(slope((x) => x * x * x, 2)); // expected 12
