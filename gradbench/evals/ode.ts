// GradBench "ode": y0' = x0, yi' = xi·y(i−1), y(0) = 0, integrated with classical RK4 from
// t = 0 to t = 2 in s steps. The gradient is that of the last component of y(2).
import { gradient } from "nabla";

function odeRhs(x: Float64Array, y: Float64Array, out: Float64Array): void {
  out[0] = x[0];
  for (let i = 1; i < x.length; i++) {
    out[i] = x[i] * y[i - 1];
  }
}

export function solveOde(x: Float64Array, steps: number): Float64Array {
  const n = x.length;
  const h = 2 / steps;
  const y = new Float64Array(n);
  const k1 = new Float64Array(n);
  const k2 = new Float64Array(n);
  const k3 = new Float64Array(n);
  const k4 = new Float64Array(n);
  const tmp = new Float64Array(n);

  for (let step = 0; step < steps; step++) {
    odeRhs(x, y, k1);
    for (let i = 0; i < n; i++) tmp[i] = y[i] + (h * k1[i]) / 2;
    odeRhs(x, tmp, k2);
    for (let i = 0; i < n; i++) tmp[i] = y[i] + (h * k2[i]) / 2;
    odeRhs(x, tmp, k3);
    for (let i = 0; i < n; i++) tmp[i] = y[i] + h * k3[i];
    odeRhs(x, tmp, k4);
    for (let i = 0; i < n; i++) {
      y[i] += (h * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i])) / 6;
    }
  }
  return y;
}

export function lastComponent(x: Float64Array, steps: number): number {
  const y = solveOde(x, steps);
  return y[y.length - 1];
}

// --- GradBench wrappers (see ../README.md for the prepare/run convention) ---

export interface OdeInput {
  x: number[];
  s: number;
}

export interface OdePrepared {
  x: Float64Array;
  s: number;
}

export function preparePrimal(input: OdeInput): OdePrepared {
  return { x: Float64Array.from(input.x), s: input.s };
}

export function runPrimal(p: OdePrepared): Float64Array {
  return solveOde(p.x, p.s);
}

export const prepareGradient = preparePrimal;

export function runGradient(p: OdePrepared): Float64Array {
  return gradient(lastComponent, { wrt: 0 })(p.x, p.s);
}
