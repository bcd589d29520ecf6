// Run-time ReferenceError "Cannot access 'b' before initialization", no diagnostic. The lambda
// handed to `descend` (whose body takes its gradient) contains a nested lambda with a parameter
// `b`; the enclosing function also declares `const b` later. The derivative nabla attaches at
// the call passes the outer `b` as a capture: `lambda_13_24$grad$r0(p, b, dp, 1)`. Renaming the
// outer const prints [0.7, 5]. (Same in saddle.ts: warning NABLA103 "cannot determine the type
// of 'p2', which this function reads from the enclosing function", then the same crash.)
import { gradient } from "nabla";

function descend(loss: (p: number[]) => number, p: number[]): number[] {
  const g = gradient(loss)(p);
  return [p[0] - 0.1 * g[0]];
}

function sumOf(f: (x: number) => number): number {
  return f(1) + f(2);
}

function solve(): number[] {
  const step = descend((p: number[]) => sumOf((b) => b * p[0]), [1]);
  const b = 5;
  return [step[0], b];
}
console.log(solve()); // expected [0.7, 5]
