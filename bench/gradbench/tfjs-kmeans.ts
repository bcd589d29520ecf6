// GradBench kmeans in TensorFlow.js: the cost from all point–centroid squared distances at once
// (n × k), the minimum over the centroids, the sum. `dir` is the gradient J divided elementwise
// by the Hessian's diagonal H, obtained as the Hessian-vector product with a vector of ones
// (tf.grad of ⟨J, 1⟩: reverse over reverse), since the Hessian is diagonal. tfjs cannot take
// the second derivative through `min` (its gradient uses `equal`, which has none), so the
// derivatives use the usual formulation: each point's nearest centroid is found first and held
// constant (a one-hot mask), and the cost is the sum of the masked distances, which equals the
// cost and has the same derivatives wherever no point is equidistant from two centroids.

import * as tf from "@tensorflow/tfjs";
import type { TfjsEval } from "./tfjs-eval.js";

interface KmeansInput {
  points: number[][];
  centroids: number[][];
}

export const kmeans: TfjsEval = {
  prepare(raw) {
    const input = raw as KmeansInput;
    const points = tf.tensor2d(input.points);
    const centroids = tf.tensor2d(input.centroids);
    const k = input.centroids.length;
    /** n × k: ‖P_i − C_j‖². */
    const distances = (c: tf.Tensor): tf.Tensor =>
      points.expandDims(1).sub(c.expandDims(0)).square().sum(2);
    const cost = (c: tf.Tensor): tf.Scalar => distances(c).min(1).sum();
    return {
      primal: () => tf.tidy(() => cost(centroids).dataSync()[0]!),
      derivative: () =>
        tf.tidy(() => {
          const nearest = tf.oneHot(distances(centroids).argMin(1), k);
          const assigned = (c: tf.Tensor): tf.Scalar => distances(c).mul(nearest).sum();
          const gradient = tf.grad(assigned);
          const hessianDiagonal = tf.grad((c: tf.Tensor) => gradient(c).sum());
          return gradient(centroids).div(hessianDiagonal(centroids)).arraySync() as number[][];
        }),
      dispose: () => [points, centroids].forEach((t) => t.dispose()),
    };
  },
};
