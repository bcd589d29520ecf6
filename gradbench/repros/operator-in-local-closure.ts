// NABLA108 "'gradient' needs a function whose source nabla can see": gradient of a function
// parameter called inside a local arrow function. The same call written directly in
// minimize's body (as in docs/guide.md, "Operators on a function parameter") compiles.
import { gradient } from "nabla";

function minimize(loss: (p: number[]) => number, p0: number[], steps: number): number[] {
  const grad = (p: number[]): number[] => gradient(loss)(p);
  const p = p0.slice();
  for (let s = 0; s < steps; s++) {
    const g = grad(p);
    for (let i = 0; i < p.length; i++) p[i] -= 0.1 * g[i];
  }
  return p;
}

console.log(minimize((q) => (q[0] - 1) ** 2 + (q[1] + 2) ** 2, [0, 0], 50)); // ≈ [1, -2]
