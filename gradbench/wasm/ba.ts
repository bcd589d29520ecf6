// GradBench "ba" for the WebAssembly backend: the same residuals as ../evals/ba.ts, with the
// Jacobian assembled in a function tagged `@backend wasm`, so the whole loop over
// observations runs in wasm. A `pullback` called from JavaScript cannot do that (its closure
// runs as JavaScript); inside a function run as WebAssembly, each observation's two
// residual rows are taken as two gradients instead, which run there in reverse mode.
import { derivative, gradient } from "nabla";
import {
  compressJacobian,
  reprojectionError,
  weightError,
  type BaJacobianOutput,
  type BaProblem,
  type SparseMatrix,
} from "../evals/ba.js";

/**
 * The Jacobian of ba's residuals, row by row: the gradient of each reprojection residual with
 * respect to its camera, point and weight, then each weight residual's derivative.
 *
 * @backend wasm
 */
export function baJacobianRows(problem: BaProblem): SparseMatrix {
  const camParams = 11;
  const n = problem.cams.length;
  const m = problem.points.length;
  const p = problem.obs.length;
  const nnz = 2 * p * (camParams + 3 + 1) + p;
  const jac: SparseMatrix = {
    nrows: 3 * p,
    ncols: camParams * n + 3 * m + p,
    rows: new Int32Array(3 * p + 1),
    cols: new Int32Array(nnz),
    vals: new Float64Array(nnz),
  };
  let k = 0;
  for (let i = 0; i < p; i++) {
    const { camera, point } = problem.obs[i];
    const feat = problem.feats[i];
    for (let row = 0; row < 2; row++) {
      const [dcam, dpoint, dw] = gradient(
        (cam: Float64Array, x: Float64Array, w: number) => reprojectionError(cam, x, w, feat)[row],
        { wrt: [0, 1, 2] },
      )(problem.cams[camera], problem.points[point], problem.weights[i]);
      for (let j = 0; j < camParams; j++) {
        jac.cols[k] = camParams * camera + j;
        jac.vals[k++] = dcam[j];
      }
      for (let j = 0; j < 3; j++) {
        jac.cols[k] = camParams * n + 3 * point + j;
        jac.vals[k++] = dpoint[j];
      }
      jac.cols[k] = camParams * n + 3 * m + i;
      jac.vals[k++] = dw;
      jac.rows[2 * i + row + 1] = k;
    }
  }
  for (let i = 0; i < p; i++) {
    jac.cols[k] = camParams * n + 3 * m + i;
    jac.vals[k++] = derivative(weightError)(problem.weights[i]);
    jac.rows[2 * p + i + 1] = k;
  }
  return jac;
}

// --- GradBench wrappers: the same as ../evals/ba.ts, but for the Jacobian's driver ---

export { prepareObjective, runObjective, prepareJacobian } from "../evals/ba.js";

export function runJacobian(problem: BaProblem): BaJacobianOutput {
  return compressJacobian(baJacobianRows(problem));
}
