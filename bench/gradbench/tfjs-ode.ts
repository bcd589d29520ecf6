// GradBench ode in TensorFlow.js: classical RK4 on whole vectors, the right-hand side
// y' = x ⊙ [1, y_0, …, y_{n−2}] as one shift and one product; the gradient of the last
// component of y(2) with tf.grad.

import * as tf from "@tensorflow/tfjs";
import type { TfjsEval } from "./tfjs-eval.js";

interface OdeInput {
  x: number[];
  s: number;
}

function solve(x: tf.Tensor1D, steps: number): tf.Tensor1D {
  const n = x.shape[0];
  const h = 2 / steps;
  const one = tf.ones([1]);
  const rhs = (y: tf.Tensor1D): tf.Tensor1D => x.mul(tf.concat([one, y.slice(0, n - 1)]));
  let y: tf.Tensor1D = tf.zeros([n]);
  for (let step = 0; step < steps; step++) {
    const k1 = rhs(y);
    const k2 = rhs(y.add(k1.mul(h / 2)));
    const k3 = rhs(y.add(k2.mul(h / 2)));
    const k4 = rhs(y.add(k3.mul(h)));
    y = y.add(
      k1
        .add(k2.mul(2))
        .add(k3.mul(2))
        .add(k4)
        .mul(h / 6),
    );
  }
  return y;
}

export const ode: TfjsEval = {
  prepare(raw) {
    const input = raw as OdeInput;
    const x = tf.tensor1d(input.x);
    const n = input.x.length;
    const gradient = tf.grad((xt: tf.Tensor) =>
      solve(xt as tf.Tensor1D, input.s)
        .slice(n - 1, 1)
        .sum(),
    );
    return {
      primal: () => tf.tidy(() => Array.from(solve(x, input.s).dataSync())),
      derivative: () => tf.tidy(() => Array.from(gradient(x).dataSync())),
      dispose: () => x.dispose(),
    };
  },
  // On the workloads the gradient underflows to 0 (n ≥ 1000): check it where it does not.
  extraChecks: [{ x: [1.3, 1.9, 1.5, 1.7, 1.2, 1.8, 1.6, 1.4], s: 10 }],
};
