import { gradient } from "nabla";

// Reverse mode (b): a long loop carrying scalars — `steps` semi-implicit Euler steps of a
// damped pendulum (10⁶ in the benchmark) with its energy accumulated along the way. The
// gradient is taken with respect to the stiffness k and the damping c, which every iteration
// reads, and the initial angle; `steps` is an integer parameter, not differentiated.

export function pendulum(k: number, c: number, theta0: number, steps: number): number {
  const h = 1e-5;
  let theta = theta0;
  let omega = 0;
  let energy = 0;
  for (let i = 0; i < steps; i++) {
    omega = omega - (k * Math.sin(theta) + c * omega) * h;
    theta = theta + omega * h;
    energy = energy + (0.5 * omega * omega - k * Math.cos(theta)) * h;
  }
  return theta + energy;
}

/** [∂/∂k, ∂/∂c, ∂/∂theta0] of pendulum. */
export const gradPendulum = gradient(pendulum, { wrt: [0, 1, 2] });
