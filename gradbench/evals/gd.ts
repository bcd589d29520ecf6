// The gradient-descent solver GradBench's particle and saddle evals prescribe (upstream
// cpp/gradbench/gd.hpp): start with η = 1e-5; stop when ‖g‖ ≤ 1e-5 or when the step ‖η·g‖ is
// ≤ 1e-5; accept a step only if f decreases, doubling η after 10 accepted steps in a row;
// halve η and reset the count on a rejected step. The gradient is taken in forward mode
// (one directional derivative per coordinate) or in reverse mode.
import { derivative, gradient } from "nabla";

export type Mode = "forward" | "reverse";

function magnitude(v: number[]): number {
  let sum = 0;
  for (const x of v) sum += x * x;
  return Math.sqrt(sum);
}

function distance(u: number[], v: number[]): number {
  let sum = 0;
  for (let i = 0; i < u.length; i++) sum += (u[i] - v[i]) * (u[i] - v[i]);
  return Math.sqrt(sum);
}

export function multivariateArgmin(
  f: (x: number[]) => number,
  start: number[],
  mode: Mode,
): number[] {
  const grad = (p: number[]): number[] => {
    if (mode === "reverse") return gradient(f)(p);
    const g: number[] = [];
    for (let i = 0; i < p.length; i++) {
      const along = (t: number): number => {
        const q = p.slice();
        q[i] = t;
        return f(q);
      };
      g.push(derivative(along)(p[i]));
    }
    return g;
  };

  let x = start.slice();
  let fx = f(x);
  let gx = grad(x);
  let i = 0;
  let eta = 1e-5;
  while (true) {
    if (magnitude(gx) <= 1e-5) {
      return x;
    }
    if (i === 10) {
      eta *= 2;
      i = 0;
      continue;
    }
    const xPrime = x.map((xj, j) => xj - eta * gx[j]);
    if (distance(x, xPrime) <= 1e-5) {
      return x;
    }
    const fxPrime = f(xPrime);
    if (fxPrime < fx) {
      x = xPrime;
      fx = fxPrime;
      gx = grad(x);
      i++;
    } else {
      eta /= 2;
      i = 0;
    }
  }
}

export function multivariateArgmax(
  f: (x: number[]) => number,
  start: number[],
  mode: Mode,
): number[] {
  return multivariateArgmin((x) => -f(x), start, mode);
}

export function multivariateMax(f: (x: number[]) => number, start: number[], mode: Mode): number {
  return f(multivariateArgmax(f, start, mode));
}
