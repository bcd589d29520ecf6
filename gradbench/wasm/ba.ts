// GradBench "ba" for the WebAssembly backend: the same residuals as ../evals/ba.ts, with the
// Jacobian assembled in a function tagged `@backend wasm`, so the whole loop over
// observations runs in wasm. A `pullback` called from JavaScript cannot do that (its closure
// runs as JavaScript); inside a function run as WebAssembly, each observation's two
// residual rows are taken as two gradients instead, which run there in reverse mode.
//
// The Jacobian is filled into storage the caller keeps (made once, by `prepareJacobian`),
// as GradBench's C++ tool fills its output: the function only stores into it, so arrays of a
// `wasmArrays` memory are written where they are, with no copy in or out. Its `rows` and
// `cols` are Float64Arrays (integers held exactly) because `wasmArrays` makes Float64Arrays.
import { derivative, gradient } from "nabla";
import {
  CAM_PARAMS,
  compressJacobian,
  expandBaInput,
  reprojectionError,
  weightError,
  type BaInput,
  type BaJacobianOutput,
  type BaProblem,
} from "../evals/ba.js";

/** A sparse matrix in CSR form, its offsets and columns held as Float64Arrays. */
export interface SparseMatrixF64 {
  nrows: number;
  ncols: number;
  rows: Float64Array; // nrows + 1 offsets
  cols: Float64Array;
  vals: Float64Array;
}

/** Storage for the Jacobian of `problem`'s residuals. */
export function jacobianStorage(problem: BaProblem): SparseMatrixF64 {
  const p = problem.obs.length;
  const nnz = 2 * p * (CAM_PARAMS + 3 + 1) + p;
  return {
    nrows: 3 * p,
    ncols: CAM_PARAMS * problem.cams.length + 3 * problem.points.length + p,
    rows: new Float64Array(3 * p + 1),
    cols: new Float64Array(nnz),
    vals: new Float64Array(nnz),
  };
}

/**
 * Fills `jac` with the Jacobian of ba's residuals, row by row: the gradient of each
 * reprojection residual with respect to its camera, point and weight, then each weight
 * residual's derivative.
 *
 * @backend wasm
 */
export function fillJacobian(problem: BaProblem, jac: SparseMatrixF64): void {
  const camParams = 11;
  const n = problem.cams.length;
  const m = problem.points.length;
  const p = problem.obs.length;
  let k = 0;
  jac.rows[0] = 0;
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
}

// --- GradBench wrappers: the objective as ../evals/ba.ts's; the Jacobian into kept storage ---

export { prepareObjective, runObjective } from "../evals/ba.js";

export interface BaJacobianInput {
  problem: BaProblem;
  jac: SparseMatrixF64;
}

export function prepareJacobian(input: BaInput): BaJacobianInput {
  const problem = expandBaInput(input);
  return { problem, jac: jacobianStorage(problem) };
}

export function runJacobian({ problem, jac }: BaJacobianInput): BaJacobianOutput {
  fillJacobian(problem, jac);
  return compressJacobian(jac);
}
