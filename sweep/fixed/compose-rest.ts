// Fixed (branch frontend-gaps; test/frontend-gaps.test.ts): a compose helper taking functions as a
// rest parameter and returning a closure. Was refused ("'Math.sin' is not a Math constant"; with
// an arrow, "a nested arrow function is not supported"); now differentiated.
import { derivative } from "nabla";
type Fn = (x: number) => number;
const compose =
  (...fns: Fn[]): Fn =>
  (x) =>
    fns.reduceRight((acc, f) => f(acc), x);
function g(x: number): number {
  return compose(Math.sin, (v) => v * v)(x);
}
console.log(derivative(g)(0.7));
