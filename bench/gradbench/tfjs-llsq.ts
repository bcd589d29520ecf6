// GradBench llsq in TensorFlow.js: y(x) = ½ ‖s − T x‖² with T the n × m Vandermonde matrix of
// the sample points t_i = −1 + 2i/(n−1) and s = sign(t); the gradient with tf.grad.

import * as tf from "@tensorflow/tfjs";
import type { TfjsEval } from "./tfjs-eval.js";

interface LlsqInput {
  x: number[];
  n: number;
}

/** ½ Σ_i (sign(t_i) − Σ_j x_j t_i^j)², vectorized: one pow, one matrix-vector product. */
function objective(x: tf.Tensor1D, n: number): tf.Scalar {
  const m = x.shape[0];
  const t = tf.linspace(-1, 1, n);
  const powers = tf.pow(t.expandDims(1), tf.range(0, m).expandDims(0)); // n × m: t_i^j
  const residual = tf.sign(t).sub(powers.matMul(x.expandDims(1)).squeeze([1]));
  return residual.square().sum().div(2);
}

export const llsq: TfjsEval = {
  prepare(raw) {
    const input = raw as LlsqInput;
    const x = tf.tensor1d(input.x);
    const gradient = tf.grad((xt: tf.Tensor) => objective(xt as tf.Tensor1D, input.n));
    return {
      primal: () => tf.tidy(() => objective(x, input.n).dataSync()[0]!),
      derivative: () => tf.tidy(() => Array.from(gradient(x).dataSync())),
      dispose: () => x.dispose(),
    };
  },
};
