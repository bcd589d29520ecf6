// warning NABLA103 "cannot determine the type of 'mode', which this function reads from the
// enclosing function; annotate its declaration (': number')" — `mode` is annotated, with a
// string-literal union type alias; then the plain run throws because the derivative attached to
// the lambda is missing (TypeError). With `type Mode = string` (or a boolean) it prints [12].
import { gradient } from "nabla";

type Mode = "fast" | "slow";

function slopeAt(loss: (p: number[]) => number, p: number[]): number[] {
  return gradient(loss)(p);
}

function scaled(x: number, mode: Mode): number {
  return mode === "fast" ? 2 * x * x : x * x;
}

function run(mode: Mode): number[] {
  return slopeAt((p) => scaled(p[0], mode), [3]);
}

console.log(run("fast")); // expected [12]
