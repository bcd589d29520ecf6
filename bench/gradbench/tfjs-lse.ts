// GradBench lse in TensorFlow.js: tf.logSumExp (stable: it subtracts the maximum) and its
// gradient, the softmax, with tf.grad.

import * as tf from "@tensorflow/tfjs";
import type { TfjsEval } from "./tfjs-eval.js";

export const lse: TfjsEval = {
  prepare(raw) {
    const x = tf.tensor1d((raw as { x: number[] }).x);
    const gradient = tf.grad((xt: tf.Tensor) => tf.logSumExp(xt));
    return {
      primal: () => tf.tidy(() => tf.logSumExp(x).dataSync()[0]!),
      derivative: () => tf.tidy(() => Array.from(gradient(x).dataSync())),
      dispose: () => x.dispose(),
    };
  },
};
