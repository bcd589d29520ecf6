// GradBench lstm in TensorFlow.js. An LSTM runs one character after the other, so the ops are
// on vectors of b = 14 (the diagonal weights of each gate): per character and layer a dozen
// elementwise ops. The gradient with respect to the main and extra parameters with tf.grads.
// Tens of thousands of small eager ops take seconds per call, so only the first workload is
// timed.

import * as tf from "@tensorflow/tfjs";
import type { TfjsEval } from "./tfjs-eval.js";

interface LstmInput {
  main_params: number[][];
  extra_params: number[][];
  state: number[][];
  sequence: number[][];
}

export const lstm: TfjsEval = {
  prepare(raw) {
    const input = raw as LstmInput;
    const b = input.sequence[0]!.length;
    const layers = input.main_params.length / 2;
    const main = tf.tensor2d(input.main_params);
    const extra = tf.tensor2d(input.extra_params);
    const state = tf.tensor2d(input.state);
    const sequence = tf.tensor2d(input.sequence);
    // The sequence and the initial state as rows, once: constants of every call.
    const characters = tf.unstack(sequence);
    const initial = tf.unstack(state);

    const objective = (main: tf.Tensor, extra: tf.Tensor): tf.Scalar => {
      const gates = (row: number) => tf.unstack(main.slice([row, 0], [1, 4 * b]).reshape([4, b]));
      const weights = Array.from({ length: layers }, (_, i) => gates(2 * i));
      const biases = Array.from({ length: layers }, (_, i) => gates(2 * i + 1));
      const [wIn, wOut, bOut] = tf.unstack(extra);
      const hidden = Array.from({ length: layers }, (_, i) => initial[2 * i]!);
      const cell = Array.from({ length: layers }, (_, i) => initial[2 * i + 1]!);
      let total: tf.Tensor = tf.scalar(0);
      for (let t = 0; t < characters.length - 1; t++) {
        let x = characters[t]!.mul(wIn!);
        for (let i = 0; i < layers; i++) {
          const [wf, wi, wo, wc] = weights[i]!;
          const [bf, bi, bo, bc] = biases[i]!;
          const forget = tf.sigmoid(x.mul(wf!).add(bf!));
          const ingate = tf.sigmoid(hidden[i]!.mul(wi!).add(bi!));
          const outgate = tf.sigmoid(x.mul(wo!).add(bo!));
          const change = tf.tanh(hidden[i]!.mul(wc!).add(bc!));
          cell[i] = cell[i]!.mul(forget).add(ingate.mul(change));
          hidden[i] = outgate.mul(tf.tanh(cell[i]!));
          x = hidden[i]!;
        }
        const prediction = x.mul(wOut!).add(bOut!);
        const lse = prediction.exp().sum().add(2).log();
        total = total.add(characters[t + 1]!.mul(prediction.sub(lse)).sum());
      }
      return total.div(-(characters.length - 1) * b) as tf.Scalar;
    };
    const gradient = tf.grads((m: tf.Tensor, e: tf.Tensor) => objective(m, e));
    return {
      primal: () => tf.tidy(() => objective(main, extra).dataSync()[0]!),
      derivative: () =>
        tf.tidy(() => {
          const [gm, ge] = gradient([main, extra]);
          return [...gm!.dataSync(), ...ge!.dataSync()];
        }),
      dispose: () =>
        [main, extra, state, sequence, ...characters, ...initial].forEach((t) => t.dispose()),
    };
  },
  maxWorkloads: 1,
};
