import { test } from "node:test";
import { checkTwoWays } from "./support/two-ways.js";

// Functions written as fields of an object literal handed to a function of the program: an
// options object's callbacks, a solver's `{ f, df }`, a minimizer's progress hook. The callee
// is specialized for the object's functions (lower/object-closures.ts), as it is for a function
// passed as an argument; variables such a function assigns are held in cells (lower/cells.ts).
// Each program is checked against central differences and forward mode against reverse mode.

const RK4 = `type Deriv = (t: number, y: number[]) => number[];
interface SolveOptions {
  steps?: number;
  onStep?: (t: number, y: number[]) => void;
}
function rk4(f: Deriv, y0: number[], t1: number, opts: SolveOptions = {}): number[] {
  const n = opts.steps ?? 100;
  const h = t1 / n;
  let y = [...y0];
  let t = 0;
  for (let s = 0; s < n; s++) {
    const k1 = f(t, y);
    const k2 = f(t + h / 2, y.map((v, i) => v + (h / 2) * k1[i]));
    const k3 = f(t + h / 2, y.map((v, i) => v + (h / 2) * k2[i]));
    const k4 = f(t + h, y.map((v, i) => v + h * k3[i]));
    y = y.map((v, i) => v + (h / 6) * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]));
    t += h;
    opts.onStep?.(t, y);
  }
  return y;
}`;

test("an ODE solver's options object with a step hook that tracks a peak", async () => {
  await checkTwoWays(`${RK4}
export function f(k: number, c: number): number {
  let peak = 0;
  const y = rk4((t, [x, v]) => [v, -k * x - c * v], [1, 0], 2, {
    steps: 50,
    onStep: (t, [x]) => {
      if (x * x > peak) peak = x * x;
    },
  });
  return y[0] * y[0] + peak;
}`);
});

test("the same solver given no options, and options whose hook is chosen by a condition", async () => {
  await checkTwoWays(`${RK4}
export function f(k: number, c: number): number {
  const plain = rk4((t, [x, v]) => [v, -k * x], [1, 0], 1);
  let energy = 0;
  const verbose = k > 1;
  const y = rk4((t, [x, v]) => [v, -c * x - 0.1 * v], [0.5, 0], 1, {
    steps: 20,
    onStep: verbose ? (t, [x, v]) => { energy += x * x + v * v; } : undefined,
  });
  return plain[0] + y[1] * k + energy * c;
}`);
});

test("a Newton solver taking { f, df }, destructured or read as fields", async () => {
  await checkTwoWays(`interface Problem {
  f: (x: number) => number;
  df: (x: number) => number;
}
function newton({ f, df }: Problem, x0: number, iterations = 20): number {
  let x = x0;
  for (let i = 0; i < iterations; i++) x -= f(x) / df(x);
  return x;
}
function newtonFields(p: Problem, x0: number): number {
  let x = x0;
  for (let i = 0; i < 20; i++) x -= p.f(x) / p.df(x);
  return x;
}
export function f(a: number, b: number): number {
  const cubic = newton({ f: (x) => x * x * x + a * a * x - b, df: (x) => 3 * x * x + a * a }, 1);
  const shifted = newtonFields({ f: (x) => Math.exp(x) - a * a - b * b, df: Math.exp }, 0.5);
  return cubic + shifted;
}`);
});

test("a minimizer's onIteration hook counting calls and keeping the best value and point", async () => {
  await checkTwoWays(`interface MinimizeOptions {
  rate?: number;
  iterations?: number;
  onIteration?: (i: number, x: number[], fx: number) => void;
}
function minimize(f: (x: number[]) => number, x0: number[], options: MinimizeOptions = {}): number[] {
  const rate = options.rate ?? 0.1;
  const x = x0.slice();
  for (let i = 0; i < (options.iterations ?? 30); i++) {
    const fx = f(x);
    if (options.onIteration) options.onIteration(i, x, fx);
    const g = x.map((_, j) => {
      const xp = x.slice();
      xp[j] += 1e-4;
      return (f(xp) - fx) / 1e-4;
    });
    for (let j = 0; j < x.length; j++) x[j] -= rate * g[j];
  }
  return x;
}
export function f(a: number, b: number): number {
  let calls = 0;
  let best = Infinity;
  let bestAt = [0, 0];
  const x = minimize((p) => (p[0] - a) ** 2 + (b * b + 1) * (p[1] + 1) ** 2 + p[0] * p[1] * 0.1, [0, 0], {
    rate: 0.2,
    onIteration: (i, p, fx) => {
      calls++;
      if (fx < best) {
        best = fx;
        bestAt = p.slice();
      }
    },
  });
  return best + calls * 0.01 + bestAt[0] * x[1];
}`);
});

test("an options object built in a variable first, then passed (its closure sees later assignments)", async () => {
  await checkTwoWays(`${RK4}
export function f(k: number, c: number): number {
  let scale = 1;
  let total = 0;
  const options: SolveOptions = {
    steps: 25,
    onStep: (t, [x]) => {
      total += scale * x;
    },
  };
  scale = c;
  const y = rk4((t, [x, v]) => [v, -k * x], [1, 0], 1, options);
  scale = 2 * c;
  const z = rk4((t, [x, v]) => [v, -c * c * x], [y[0], y[1]], 0.5, options);
  return z[0] + total;
}`);
});
