// GradBench gmm in TensorFlow.js, vectorized over the n points and k components: the
// lower-triangular factors Q_k assembled as k × d × d (exp(q) on the diagonal, l's segments
// stacked as columns below it), the points centred on every mean at once (k × n × d),
// transformed by one batched matMul, and the log-sum-exp taken over the components; the
// gradient with respect to alpha, mu, q and l with tf.grads. (Gathering Q from a flat
// [exp(q) | l | 0] with one tf.gather reads better, but tfjs's gradient of a gather over 2,000
// entries takes seconds on the cpu backend: it loops over the entries.)

import * as tf from "@tensorflow/tfjs";
import type { TfjsEval } from "./tfjs-eval.js";

interface GmmInput {
  d: number;
  k: number;
  n: number;
  x: number[][];
  m: number;
  gamma: number;
  alpha: number[];
  mu: number[][];
  q: number[][];
  l: number[][];
}

/** log Γ(x) for x > 0 (Lanczos, g = 7). */
function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
    1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  const z = x - 1;
  let a = c[0]!;
  for (let i = 1; i < 9; i++) a += c[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** The terms of the log-posterior that do not depend on the parameters. */
function constantTerms(d: number, k: number, n: number, m: number, gamma: number): number {
  const dof = d + m + 1;
  let logMultiGamma = 0.25 * d * (d - 1) * Math.log(Math.PI);
  for (let j = 1; j <= d; j++) logMultiGamma += logGamma(0.5 * dof + 0.5 * (1 - j));
  const wishart = dof * d * (Math.log(gamma) - 0.5 * Math.log(2)) - logMultiGamma;
  return -n * d * 0.5 * Math.log(2 * Math.PI) + k * wishart;
}

/**
 * The factors Q (k × d × d): diagonal exp(q), strict lower part from l filled column by column
 * (column c holds the next d − c − 1 entries of l, below the diagonal).
 */
function factors(qdiag: tf.Tensor2D, l: tf.Tensor2D, eye: tf.Tensor2D): tf.Tensor3D {
  const [k, d] = qdiag.shape;
  const columns: tf.Tensor2D[] = [];
  let offset = 0;
  for (let col = 0; col < d; col++) {
    const length = d - col - 1;
    columns.push(
      length === 0
        ? tf.zeros([k, d])
        : tf.concat([tf.zeros([k, col + 1]), l.slice([0, offset], [k, length])], 1),
    );
    offset += length;
  }
  return tf.stack(columns, 2).add(qdiag.expandDims(2).mul(eye)) as tf.Tensor3D;
}

export const gmm: TfjsEval = {
  prepare(raw) {
    const input = raw as GmmInput;
    const { d, k, n, m, gamma } = input;
    const [x, alpha, mu, q, l, eye] = [
      tf.tensor2d(input.x, [n, d]),
      tf.tensor1d(input.alpha),
      tf.tensor2d(input.mu, [k, d]),
      tf.tensor2d(input.q, [k, d]),
      tf.tensor2d(input.l, [k, (d * (d - 1)) / 2]),
      tf.eye(d),
    ] as const;
    const constant = constantTerms(d, k, n, m, gamma);

    const objective = (
      alpha: tf.Tensor1D,
      mu: tf.Tensor2D,
      q: tf.Tensor2D,
      l: tf.Tensor2D,
    ): tf.Scalar => {
      const qdiag = q.exp();
      const centred = x.expandDims(0).sub(mu.expandDims(1)); // k × n × d
      const transformed = tf.matMul(centred, factors(qdiag, l, eye), false, true); // Q_k (x_i − μ_k)
      const sumQ = q.sum(1);
      const main = alpha.add(sumQ).expandDims(1).sub(transformed.square().sum(2).mul(0.5)); // k × n
      const slse = tf.logSumExp(main, 0).sum();
      const frobenius = qdiag.square().sum().add(l.square().sum());
      const prior = frobenius.mul(0.5 * gamma * gamma).sub(sumQ.sum().mul(m));
      return slse.sub(tf.logSumExp(alpha).mul(n)).sub(prior).add(constant) as tf.Scalar;
    };
    const gradient = tf.grads((a: tf.Tensor, b: tf.Tensor, c: tf.Tensor, e: tf.Tensor) =>
      objective(a as tf.Tensor1D, b as tf.Tensor2D, c as tf.Tensor2D, e as tf.Tensor2D),
    );
    return {
      primal: () => tf.tidy(() => objective(alpha, mu, q, l).dataSync()[0]!),
      derivative: () =>
        tf.tidy(() => {
          const [ga, gmu, gq, gl] = gradient([alpha, mu, q, l]);
          return {
            alpha: ga!.arraySync() as number[],
            mu: gmu!.arraySync() as number[][],
            q: gq!.arraySync() as number[][],
            l: gl!.arraySync() as number[][],
          };
        }),
      dispose: () => [x, alpha, mu, q, l, eye].forEach((t) => t.dispose()),
    };
  },
};
