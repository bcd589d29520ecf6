import { gradient } from "nabla";

// Function values: a generic RK4 integrator that takes the dynamics as a function-typed
// parameter, used on a pendulum whose dynamics are a local arrow capturing the pendulum's
// length. nabla specializes `rk4` for the call site (the arrow is known there), so the
// gradient should cost what the gradient of the same loop with the dynamics inlined by hand
// costs: `finalAngleInlined` is that loop, performing exactly the same floating-point
// operations in the same order.

/** RK4 steps from t = 0 to t = 10. */
export const STEPS = 1000;

/** Gravity, m/s². */
const G = 9.81;

/** Integrates y' = f(t, y) from t0 to t1 with `steps` classic 4-stage Runge–Kutta steps. */
export function rk4(
  f: (t: number, y: Float64Array, out: Float64Array) => void,
  y0: Float64Array,
  t0: number,
  t1: number,
  steps: number,
): Float64Array {
  const n = y0.length;
  const h = (t1 - t0) / steps;
  const y = y0.slice();
  const k1 = new Float64Array(n);
  const k2 = new Float64Array(n);
  const k3 = new Float64Array(n);
  const k4 = new Float64Array(n);
  const tmp = new Float64Array(n);
  for (let s = 0; s < steps; s++) {
    const t = t0 + s * h;
    f(t, y, k1);
    for (let i = 0; i < n; i++) tmp[i] = y[i] + 0.5 * h * k1[i];
    f(t + 0.5 * h, tmp, k2);
    for (let i = 0; i < n; i++) tmp[i] = y[i] + 0.5 * h * k2[i];
    f(t + 0.5 * h, tmp, k3);
    for (let i = 0; i < n; i++) tmp[i] = y[i] + h * k3[i];
    f(t + h, tmp, k4);
    for (let i = 0; i < n; i++) y[i] += (h / 6) * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }
  return y;
}

/** The angle of a pendulum of the given length after 10 s, released at rest from theta0. */
export function finalAngle(length: number, theta0: number): number {
  const g = G;
  // State (θ, ω): θ' = ω, ω' = −(g/L) sin θ. The arrow captures `length`, so `rk4` cannot be
  // compiled once for all callers: nabla specializes it for this call.
  const dynamics = (_t: number, y: Float64Array, out: Float64Array): void => {
    out[0] = y[1];
    out[1] = -(g / length) * Math.sin(y[0]);
  };
  const y0 = new Float64Array(2);
  y0[0] = theta0;
  y0[1] = 0;
  const y = rk4(dynamics, y0, 0, 10, STEPS);
  return y[0];
}

/**
 * The baseline: `finalAngle` with `rk4` and the dynamics inlined by hand. Same operations in
 * the same order (the state loops over its 2 components are kept), so the results are
 * bit-identical to `finalAngle`'s.
 */
export function finalAngleInlined(length: number, theta0: number): number {
  const g = G;
  const t0 = 0;
  const t1 = 10;
  const steps = STEPS;
  const y0 = new Float64Array(2);
  y0[0] = theta0;
  y0[1] = 0;
  const n = y0.length;
  const h = (t1 - t0) / steps;
  const y = y0.slice();
  const k1 = new Float64Array(n);
  const k2 = new Float64Array(n);
  const k3 = new Float64Array(n);
  const k4 = new Float64Array(n);
  const tmp = new Float64Array(n);
  for (let s = 0; s < steps; s++) {
    k1[0] = y[1];
    k1[1] = -(g / length) * Math.sin(y[0]);
    for (let i = 0; i < n; i++) tmp[i] = y[i] + 0.5 * h * k1[i];
    k2[0] = tmp[1];
    k2[1] = -(g / length) * Math.sin(tmp[0]);
    for (let i = 0; i < n; i++) tmp[i] = y[i] + 0.5 * h * k2[i];
    k3[0] = tmp[1];
    k3[1] = -(g / length) * Math.sin(tmp[0]);
    for (let i = 0; i < n; i++) tmp[i] = y[i] + h * k3[i];
    k4[0] = tmp[1];
    k4[1] = -(g / length) * Math.sin(tmp[0]);
    for (let i = 0; i < n; i++) y[i] += (h / 6) * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }
  return y[0];
}

/** [∂/∂length, ∂/∂theta0] of finalAngle, through the specialized `rk4`. */
export const gradFinalAngle = gradient(finalAngle);
/** The same gradient of the hand-inlined loop. */
export const gradFinalAngleInlined = gradient(finalAngleInlined);
