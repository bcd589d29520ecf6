// Repro (refused): a compose helper taking functions as a rest parameter and returning a closure.
// 'Math.sin' as an argument: "'Math.sin' is not a Math constant"; an arrow instead: "a nested
// arrow function is not supported".
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
