// Control flow: a backtracking (Armijo) line search in a do…while with `**=` shrinking, a
// labelled outer loop with `break outer`, ternary chains for a step policy; the final value of
// a few Newton-like iterations, differentiated w.r.t. the problem's parameters.
import { gradient, differential, hessian } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

function f(x: number, y: number, a: number, b: number): number {
  return (a - x) ** 2 + b * (y - x * x) ** 2;
}

function grad(x: number, y: number, a: number, b: number): [number, number] {
  return [-2 * (a - x) - 4 * b * x * (y - x * x), 2 * b * (y - x * x)];
}

function minimize(params: number[]): number {
  const [a, b] = params;
  let x = -1.2;
  let y = 1;
  let iterations = 0;
  outer: while (true) {
    const [gx, gy] = grad(x, y, a, b);
    const gnorm = Math.hypot(gx, gy);
    const policy = gnorm > 10 ? "cautious" : gnorm > 1 ? "normal" : "bold";
    let t = policy === "cautious" ? 0.01 : policy === "normal" ? 0.05 : 0.2;
    const f0 = f(x, y, a, b);
    let tries = 0;
    do {
      const fx = f(x - t * gx, y - t * gy, a, b);
      if (fx <= f0 - 1e-4 * t * gnorm * gnorm) break;
      t *= 0.5;
      t **= 1.05;
      tries++;
    } while (tries < 20);
    x -= t * gx;
    y -= t * gy;
    iterations++;
    for (const limit of [15, 30]) {
      if (iterations >= limit && gnorm < 1e-3 * limit) break outer;
    }
    if (iterations >= 25) break;
  }
  return f(x, y, a, b) + x + 2 * y;
}

const p = [1.0, 4.0];
const g = gradient(minimize)(p);
compare("grad vs fd", g, fdGrad(minimize, p, 1e-7));
compare("fwd vs rev", differential(minimize)(p)([1, 2]), g[0] + 2 * g[1]);
const H = hessian(minimize)(p);
compare("hessian vs fd", H, [0, 1].map((i) => fdGrad((q) => gradient(minimize)(q)[i], p, 1e-6)), 1e-4);
summary("s17-line-search");
