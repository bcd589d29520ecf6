// The module nabla emits does not parse: "SyntaxError: Unexpected token '{'". `sumAt` has a
// `throw`, so its copy specialized for the lambda cannot be differentiated (warning NABLA101,
// fine: the derivative is only needed optionally, for the lambda given to `descend`) — but the
// caller's specialized copy then calls it by its internal key,
//   const t = sumAt{f=…/throw-specialized-callee.ts#lambda@…}(n, q);
// so the whole program fails to load, plain run included. Without the `throw` it prints [0.7].
import { gradient } from "nabla";

function descend(f: (p: number[]) => number, p: number[]): number[] {
  const g = gradient(f)(p);
  return p.map((pi, i) => pi - 0.1 * g[i]);
}

function sumAt(f: (x: number) => number, n: number): number {
  if (n < 0) throw new Error("negative n");
  let s = 0;
  for (let i = 0; i < n; i++) s += f(i);
  return s;
}

function wrapped(f: (x: number) => number, n: number): number {
  return sumAt(f, n);
}

console.log(descend((q) => wrapped((x) => q[0] * x, 3), [1])); // expected [0.7]
