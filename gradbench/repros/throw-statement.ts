// NABLA101 "a 'throw' statement is not supported in differentiable code": argument validation
// with `throw` in a function on the differentiated path (common in ordinary TS). Not used by the
// evals as written; found while trying variants of gd.ts.
import { gradient } from "nabla";

function norm(v: number[]): number {
  if (v.length === 0) throw new Error("empty vector");
  let s = 0;
  for (const x of v) s += x * x;
  return Math.sqrt(s);
}

console.log(gradient(norm)([3, 4])); // expected [0.6, 0.8]
