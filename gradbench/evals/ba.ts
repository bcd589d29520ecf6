// GradBench "ba": bundle adjustment (ADBench). Observation i sees point obs[i].point from camera
// obs[i].camera; its reprojection error is w_i·(project(cam, X) − feat_i), and its weight error
// 1 − w_i². The Jacobian is sparse: each observation's two residual rows depend on its camera
// (11), its point (3) and its weight (1) only, so it is assembled from one pullback per
// observation (two adjoints each), in CSR form.
import { derivative, pullback } from "nabla";

export type Vec3 = [number, number, number];

function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

/** Rotates pt by the angle-axis vector rot (Rodrigues' formula, as in Ceres). */
function rodriguesRotatePoint(rot: Vec3, pt: Vec3): Vec3 {
  const sqTheta = rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2];
  if (sqTheta !== 0) {
    const theta = Math.sqrt(sqTheta);
    const cos = Math.cos(theta);
    const sin = Math.sin(theta);
    const w: Vec3 = [rot[0] / theta, rot[1] / theta, rot[2] / theta];
    const wCrossPt = cross(w, pt);
    const tmp = (w[0] * pt[0] + w[1] * pt[1] + w[2] * pt[2]) * (1 - cos);
    return [
      pt[0] * cos + wCrossPt[0] * sin + w[0] * tmp,
      pt[1] * cos + wCrossPt[1] * sin + w[1] * tmp,
      pt[2] * cos + wCrossPt[2] * sin + w[2] * tmp,
    ];
  }
  const rotCrossPt = cross(rot, pt);
  return [pt[0] + rotCrossPt[0], pt[1] + rotCrossPt[1], pt[2] + rotCrossPt[2]];
}

/** cam = [r1 r2 r3 C1 C2 C3 f u0 v0 k1 k2]: angle-axis rotation, centre, focal length,
 *  principal point, radial distortion. */
function project(cam: Float64Array, x: Float64Array): [number, number] {
  const rotation: Vec3 = [cam[0], cam[1], cam[2]];
  const offset: Vec3 = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
  const p = rodriguesRotatePoint(rotation, offset);
  const u = p[0] / p[2];
  const v = p[1] / p[2];
  const rsq = u * u + v * v;
  const distortion = 1 + cam[9] * rsq + cam[10] * rsq * rsq;
  return [u * distortion * cam[6] + cam[7], v * distortion * cam[6] + cam[8]];
}

export function reprojectionError(
  cam: Float64Array,
  x: Float64Array,
  w: number,
  feat: Float64Array,
): [number, number] {
  const proj = project(cam, x);
  return [w * (proj[0] - feat[0]), w * (proj[1] - feat[1])];
}

export function weightError(w: number): number {
  return 1 - w * w;
}

export interface Observation {
  camera: number;
  point: number;
}

export interface BaProblem {
  cams: Float64Array[];
  points: Float64Array[];
  weights: Float64Array;
  obs: Observation[];
  feats: Float64Array[];
}

export interface BaErrors {
  reprojErr: Float64Array; // 2p
  wErr: Float64Array; // p
}

export function baObjective(problem: BaProblem): BaErrors {
  const p = problem.obs.length;
  const reprojErr = new Float64Array(2 * p);
  const wErr = new Float64Array(p);
  for (let i = 0; i < p; i++) {
    const { camera, point } = problem.obs[i];
    const e = reprojectionError(
      problem.cams[camera],
      problem.points[point],
      problem.weights[i],
      problem.feats[i],
    );
    reprojErr[2 * i] = e[0];
    reprojErr[2 * i + 1] = e[1];
    wErr[i] = weightError(problem.weights[i]);
  }
  return { reprojErr, wErr };
}

export interface SparseMatrix {
  nrows: number;
  ncols: number;
  rows: Int32Array; // nrows + 1 offsets
  cols: Int32Array;
  vals: Float64Array;
}

export const CAM_PARAMS = 11;

/** The Jacobian's storage: per observation, two reprojection rows of 15 entries and a weight row. */
export function emptyJacobian(problem: BaProblem): SparseMatrix {
  const n = problem.cams.length;
  const m = problem.points.length;
  const p = problem.obs.length;
  const nnz = 2 * p * (CAM_PARAMS + 3 + 1) + p;
  return {
    nrows: 3 * p,
    ncols: CAM_PARAMS * n + 3 * m + p,
    rows: new Int32Array(3 * p + 1),
    cols: new Int32Array(nnz),
    vals: new Float64Array(nnz),
  };
}

export function baJacobian(problem: BaProblem): SparseMatrix {
  const n = problem.cams.length;
  const m = problem.points.length;
  const p = problem.obs.length;
  const jac = emptyJacobian(problem);
  const reprojPullback = pullback(reprojectionError, { wrt: [0, 1, 2] });
  const weightDerivative = derivative(weightError);

  let k = 0;
  for (let i = 0; i < p; i++) {
    const { camera, point } = problem.obs[i];
    const back = reprojPullback(
      problem.cams[camera],
      problem.points[point],
      problem.weights[i],
      problem.feats[i],
    );
    for (let row = 0; row < 2; row++) {
      const [dcam, dpoint, dw] = back(row === 0 ? [1, 0] : [0, 1]);
      for (let j = 0; j < CAM_PARAMS; j++) {
        jac.cols[k] = CAM_PARAMS * camera + j;
        jac.vals[k++] = dcam[j];
      }
      for (let j = 0; j < 3; j++) {
        jac.cols[k] = CAM_PARAMS * n + 3 * point + j;
        jac.vals[k++] = dpoint[j];
      }
      jac.cols[k] = CAM_PARAMS * n + 3 * m + i;
      jac.vals[k++] = dw;
      jac.rows[2 * i + row + 1] = k;
    }
  }
  for (let i = 0; i < p; i++) {
    jac.cols[k] = CAM_PARAMS * n + 3 * m + i;
    jac.vals[k++] = weightDerivative(problem.weights[i]);
    jac.rows[2 * p + i + 1] = k;
  }
  return jac;
}

// --- GradBench wrappers (see ../README.md for the prepare/run convention) ---

export interface BaInput {
  n: number;
  m: number;
  p: number;
  cam: number[];
  x: number[];
  w: number;
  feat: number[];
}

/** Expands GradBench's compressed input: one camera, point, weight and feature, replicated. */
export function expandBaInput(input: BaInput): BaProblem {
  const cams: Float64Array[] = [];
  for (let i = 0; i < input.n; i++) cams.push(Float64Array.from(input.cam));
  const points: Float64Array[] = [];
  for (let i = 0; i < input.m; i++) points.push(Float64Array.from(input.x));
  const weights = new Float64Array(input.p).fill(input.w);
  const obs: Observation[] = [];
  const feats: Float64Array[] = [];
  for (let i = 0; i < input.p; i++) {
    obs.push({ camera: i % input.n, point: i % input.m });
    feats.push(Float64Array.from(input.feat));
  }
  return { cams, points, weights, obs, feats };
}

export interface BaObjectiveOutput {
  reproj_error: { elements: number[]; repeated: number };
  w_err: { element: number; repeated: number };
}

export function compressObjective(e: BaErrors): BaObjectiveOutput {
  return {
    reproj_error: { elements: [e.reprojErr[0], e.reprojErr[1]], repeated: e.reprojErr.length / 2 },
    w_err: { element: e.wErr[0], repeated: e.wErr.length },
  };
}

export interface BaJacobianOutput {
  rows: number[];
  cols: number[];
  vals: number[];
}

/** The first `n` numbers of `a` (all of them if fewer), as a plain array. */
function head(a: ArrayLike<number>, n: number): number[] {
  return Array.from({ length: Math.min(n, a.length) }, (_, k) => a[k]!);
}

/** GradBench's truncated CSR: the first 30 entries (observation 0's two rows) and the last. */

export function compressJacobian(
  j: Pick<SparseMatrix, "vals"> & { rows: ArrayLike<number>; cols: ArrayLike<number> },
): BaJacobianOutput {
  const first = 2 * (CAM_PARAMS + 3 + 1);
  return {
    rows: [...head(j.rows, first), j.rows[j.rows.length - 1]!],
    cols: [...head(j.cols, first), j.cols[j.cols.length - 1]!],
    vals: [...head(j.vals, first), j.vals[j.vals.length - 1]!],
  };
}

export const prepareObjective = expandBaInput;

export function runObjective(problem: BaProblem): BaObjectiveOutput {
  return compressObjective(baObjective(problem));
}

export const prepareJacobian = expandBaInput;

export function runJacobian(problem: BaProblem): BaJacobianOutput {
  return compressJacobian(baJacobian(problem));
}
