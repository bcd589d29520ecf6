import { test } from "node:test";
import { checkTwoWays } from "./support/two-ways.js";

// Closures that assign a variable they capture, passed to a function of the program: an
// optimizer's progress callback, a neighbour loop's visitor, an integrator's step hook. The
// variable is held in a cell the closure and the enclosing function share (lower/cells.ts).
// Each program is checked against central differences and forward mode against reverse mode.

test("a progress callback keeps the best value and counts the calls", async () => {
  await checkTwoWays(`function minimize(f: (x: number) => number, x0: number, report: (x: number, fx: number) => void): number {
  let x = x0;
  for (let i = 0; i < 12; i++) {
    const fx = f(x);
    report(x, fx);
    x -= 0.1 * (f(x + 1e-3) - f(x - 1e-3)) / 2e-3;
  }
  return x;
}
export function f(a: number, b: number): number {
  let best = Infinity;
  let calls = 0;
  let bestAt = 0;
  minimize((x) => (x - a) * (x - a) + b * Math.sin(x), 0, (x, fx) => {
    calls++;
    if (fx < best) {
      best = fx;
      bestAt = x;
    }
  });
  return best + bestAt * b + calls * 0.01;
}`);
});

test("a visitor summing over neighbours, passed down two levels, and one held in a const", async () => {
  await checkTwoWays(`function forEachNeighbor(n: number, i: number, visit: (j: number) => void): void {
  if (i > 0) visit(i - 1);
  if (i < n - 1) visit(i + 1);
}
function eachInterior(n: number, visit: (j: number) => void): void {
  for (let i = 1; i < n - 1; i++) forEachNeighbor(n, i, visit);
}
export function f(x: number, y: number): number {
  const u = [x, y, x * y, Math.exp(x), y - x];
  const w = [0.5, 1, 2, 1, 0.5];
  let sum = 0;
  forEachNeighbor(u.length, 2, (j) => {
    sum += w[j] * u[j];
  });
  let laplacian = 0;
  eachInterior(u.length, (j) => {
    laplacian += u[j] * u[j] - sum * 0.1;
  });
  let energy = 0;
  const add = (j: number) => {
    energy = energy + u[j] * w[j];
  };
  eachInterior(u.length, add);
  return sum + laplacian + energy;
}`);
});

test("a step hook of an integrator (a peak), a hook never called, and a hook run in the callee's loop", async () => {
  await checkTwoWays(
    `type Deriv = (t: number, y: number[]) => number[];
function euler(f: Deriv, y0: number[], steps: number, dt: number, onStep: (t: number, y: number[]) => void): number[] {
  let y = y0.slice();
  for (let k = 0; k < steps; k++) {
    const d = f(k * dt, y);
    y = y.map((v, i) => v + dt * d[i]);
    onStep((k + 1) * dt, y);
  }
  return y;
}
export function f(a: number, b: number): number {
  const lotka: Deriv = (_t, [prey, pred]) => [a * prey - 0.1 * prey * pred, -b * pred + 0.02 * prey * pred];
  let peak = 0;
  let when = 0;
  const last = euler(lotka, [10, 5], 20, 0.05, (t, [prey]) => {
    if (prey > peak) {
      peak = prey;
      when = t;
    }
  });
  let untouched = a * 2;
  euler(lotka, [1, 1], 0, 0.1, () => {
    untouched = 0;
  });
  return peak + when * a + last[1] + untouched;
}`,
    [
      [1.1, 0.4],
      [0.9, 0.6],
    ],
    false,
  );
});
