import { derivative } from "nabla";

// (b) A long loop carrying scalars: 10^6 semi-implicit Euler steps of a damped pendulum,
// with its energy accumulated along the way. The parameter is the initial angle, so every
// carried value is active and the derivative loop carries twice as many scalars.

export function pendulum(theta0: number): number {
  const h = 1e-5;
  let theta = theta0;
  let omega = 0;
  let energy = 0;
  for (let i = 0; i < 1000000; i++) {
    omega = omega - (9.81 * Math.sin(theta) + 0.1 * omega) * h;
    theta = theta + omega * h;
    energy = energy + (0.5 * omega * omega - 9.81 * Math.cos(theta)) * h;
  }
  return theta + energy;
}

/** d pendulum / d theta0: sensitivity of the final state to the initial angle. */
export const dPendulum = derivative(pendulum);
