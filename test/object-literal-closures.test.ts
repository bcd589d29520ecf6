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
