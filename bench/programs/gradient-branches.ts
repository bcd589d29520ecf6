import { gradient } from "nabla";

// Reverse mode (c): a data-dependent if/else in every iteration of a long loop — an
// asymmetric oscillator, pendulum-like (soft) for x > 0 and a stiffening Duffing spring for
// x ≤ 0, with the squared displacement integrated along the way. The two forces agree to first
// order at x = 0, so the result is smooth in the parameters although the branch taken changes.
// The gradient is taken with respect to the stiffness k, the damping c, the hardening b and the
// initial position; `steps` (10⁶ in the benchmark) is not differentiated.

export function oscillator(k: number, c: number, b: number, x0: number, steps: number): number {
  const h = 1e-3;
  let x = x0;
  let v = 0;
  let cost = 0;
  for (let i = 0; i < steps; i++) {
    let acc: number;
    if (x > 0) {
      acc = -k * Math.sin(x) - c * v;
    } else {
      acc = -k * x * (1 + b * x * x) - c * v;
    }
    v = v + acc * h;
    x = x + v * h;
    cost = cost + x * x * h;
  }
  return x + cost;
}

/** [∂/∂k, ∂/∂c, ∂/∂b, ∂/∂x0] of oscillator. */
export const gradOscillator = gradient(oscillator, { wrt: [0, 1, 2, 3] });
