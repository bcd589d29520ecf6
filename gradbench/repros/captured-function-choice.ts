// warning NABLA103 "cannot determine the type of 'act', which this function reads from the
// enclosing function; annotate its declaration (': number')" and then, at run time, the attached
// derivative is missing: a lambda handed to a function that differentiates it captures a local
// holding one of two functions (`smooth ? softplus : square`). Calling `act` directly in a
// differentiated function works (docs/guide.md, "A function chosen at run time is followed").
import { gradient } from "nabla";

function softplus(x: number): number {
  return Math.log(1 + Math.exp(x));
}
function square(x: number): number {
  return x * x;
}

function slopeAt(loss: (p: number[]) => number, p: number[]): number[] {
  return gradient(loss)(p);
}

function run(smooth: boolean): number[] {
  const act = smooth ? softplus : square;
  return slopeAt((p) => act(p[0]), [3]);
}

console.log(run(false)); // expected [6]
