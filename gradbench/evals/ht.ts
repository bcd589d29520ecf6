// GradBench "ht": hand tracking (ADBench). A hand model is posed by 26 parameters theta (global
// angle-axis rotation, translation, and 4 angles per finger), skinned by linear blend skinning,
// and compared with measured points: in the simple variant with the corresponding vertices, in
// the complicated variant with points u0·a + u1·b + (1−u0−u1)·c on corresponding triangles.
import { jacobian } from "nabla";

export type Matrix = number[][];

export interface HandModel {
  boneNames: string[];
  parents: number[]; // −1 for the root; a parent comes before its children
  baseRelatives: Matrix[]; // 4×4 per bone
  inverseBaseAbsolutes: Matrix[]; // 4×4 per bone
  basePositions: Matrix; // vertex × 4 (homogeneous)
  weights: Matrix; // vertex × bone
  triangles: number[][]; // triangle × 3 vertex indices
  isMirrored: boolean;
}

export interface HandData {
  model: HandModel;
  correspondences: number[];
  points: Matrix; // N × 3
}

function matMul(a: Matrix, b: Matrix): Matrix {
  const n = a.length;
  const k = b.length;
  const m = b[0].length;
  const out: Matrix = [];
  for (let i = 0; i < n; i++) {
    const row: number[] = [];
    for (let j = 0; j < m; j++) {
      let sum = 0;
      for (let t = 0; t < k; t++) sum += a[i][t] * b[t][j];
      row.push(sum);
    }
    out.push(row);
  }
  return out;
}

function identity(n: number): Matrix {
  const out: Matrix = [];
  for (let i = 0; i < n; i++) {
    const row = new Array<number>(n).fill(0);
    row[i] = 1;
    out.push(row);
  }
  return out;
}

function angleAxisToRotationMatrix(angleAxis: number[]): Matrix {
  const norm = Math.sqrt(
    angleAxis[0] * angleAxis[0] + angleAxis[1] * angleAxis[1] + angleAxis[2] * angleAxis[2],
  );
  if (norm < 0.0001) {
    return identity(3);
  }
  const x = angleAxis[0] / norm;
  const y = angleAxis[1] / norm;
  const z = angleAxis[2] / norm;
  const s = Math.sin(norm);
  const c = Math.cos(norm);
  return [
    [x * x + (1 - x * x) * c, x * y * (1 - c) - z * s, x * z * (1 - c) + y * s],
    [x * y * (1 - c) + z * s, y * y + (1 - y * y) * c, y * z * (1 - c) - x * s],
    [x * z * (1 - c) - y * s, z * y * (1 - c) + x * s, z * z + (1 - z * z) * c],
  ];
}

/** Rotation from Euler angles stored in x, z, y order: Rz·Ry·Rx. */
function eulerAnglesToRotationMatrix(xzy: number[]): Matrix {
  const tx = xzy[0];
  const ty = xzy[2];
  const tz = xzy[1];
  const rx = [
    [1, 0, 0],
    [0, Math.cos(tx), -Math.sin(tx)],
    [0, Math.sin(tx), Math.cos(tx)],
  ];
  const ry = [
    [Math.cos(ty), 0, Math.sin(ty)],
    [0, 1, 0],
    [-Math.sin(ty), 0, Math.cos(ty)],
  ];
  const rz = [
    [Math.cos(tz), -Math.sin(tz), 0],
    [Math.sin(tz), Math.cos(tz), 0],
    [0, 0, 1],
  ];
  return matMul(matMul(rz, ry), rx);
}

/** Pose parameters as columns: global rotation, scale, translation, then one per bone. */
function toPoseParams(theta: Float64Array, boneCount: number): number[][] {
  const pose: number[][] = [];
  for (let i = 0; i < boneCount + 3; i++) pose.push([0, 0, 0]);
  pose[0] = [theta[0], theta[1], theta[2]];
  pose[1] = [1, 1, 1];
  pose[2] = [theta[3], theta[4], theta[5]];
  let iTheta = 6;
  let iPose = 5; // the wrist and the first bone keep zero angles
  for (let finger = 0; finger < 5; finger++) {
    for (let joint = 2; joint <= 4; joint++) {
      pose[iPose][0] = theta[iTheta++];
      if (joint === 2) {
        pose[iPose][1] = theta[iTheta++];
      }
      iPose++;
    }
    iPose++;
  }
  return pose;
}

function posedRelatives(model: HandModel, pose: number[][]): Matrix[] {
  const relatives: Matrix[] = [];
  for (let i = 0; i < model.boneNames.length; i++) {
    const r = eulerAnglesToRotationMatrix(pose[i + 3]);
    const transform = identity(4);
    for (let row = 0; row < 3; row++) {
      for (let col = 0; col < 3; col++) transform[row][col] = r[row][col];
    }
    relatives.push(matMul(model.baseRelatives[i], transform));
  }
  return relatives;
}

function relativesToAbsolutes(relatives: Matrix[], parents: number[]): Matrix[] {
  const absolutes: Matrix[] = [];
  for (let i = 0; i < relatives.length; i++) {
    if (parents[i] === -1) {
      absolutes.push(relatives[i]);
    } else {
      absolutes.push(matMul(absolutes[parents[i]], relatives[i]));
    }
  }
  return absolutes;
}

function applyGlobalTransform(pose: number[][], positions: Matrix): void {
  const r = angleAxisToRotationMatrix(pose[0]);
  for (let row = 0; row < 3; row++) {
    for (let col = 0; col < 3; col++) r[row][col] *= pose[1][col];
  }
  for (const p of positions) {
    const x = r[0][0] * p[0] + r[0][1] * p[1] + r[0][2] * p[2];
    const y = r[1][0] * p[0] + r[1][1] * p[1] + r[1][2] * p[2];
    const z = r[2][0] * p[0] + r[2][1] * p[1] + r[2][2] * p[2];
    p[0] = x + pose[2][0];
    p[1] = y + pose[2][1];
    p[2] = z + pose[2][2];
  }
}

/** Vertex positions (vertex × 3) of the posed, skinned hand. */
function skinnedVertexPositions(model: HandModel, pose: number[][]): Matrix {
  const relatives = posedRelatives(model, pose);
  const absolutes = relativesToAbsolutes(relatives, model.parents);
  const transforms = absolutes.map((a, i) => matMul(a, model.inverseBaseAbsolutes[i]));

  const positions: Matrix = model.basePositions.map(() => [0, 0, 0]);
  for (let bone = 0; bone < transforms.length; bone++) {
    const t = transforms[bone];
    for (let v = 0; v < positions.length; v++) {
      const base = model.basePositions[v];
      const weight = model.weights[v][bone];
      for (let row = 0; row < 3; row++) {
        const moved =
          t[row][0] * base[0] + t[row][1] * base[1] + t[row][2] * base[2] + t[row][3] * base[3];
        positions[v][row] += moved * weight;
      }
    }
  }
  if (model.isMirrored) {
    for (const p of positions) p[0] = -p[0];
  }
  applyGlobalTransform(pose, positions);
  return positions;
}

/** Residuals of the simple variant: 3 per correspondence. */
export function handObjective(theta: Float64Array, data: HandData): Float64Array {
  const pose = toPoseParams(theta, data.model.boneNames.length);
  const vertices = skinnedVertexPositions(data.model, pose);
  const err = new Float64Array(3 * data.correspondences.length);
  for (let i = 0; i < data.correspondences.length; i++) {
    const vertex = vertices[data.correspondences[i]];
    for (let j = 0; j < 3; j++) err[3 * i + j] = data.points[i][j] - vertex[j];
  }
  return err;
}

/** Residuals of the complicated variant; us holds (u0, u1) of each correspondence. */
export function handObjectiveComplicated(
  theta: Float64Array,
  us: Float64Array,
  data: HandData,
): Float64Array {
  const shiftAndTheta = new Float64Array(theta.length + 2);
  shiftAndTheta.set(theta, 2);
  return shiftedComplicatedObjective(shiftAndTheta, us, data);
}

/**
 * The complicated residuals with every correspondence's (u0, u1) moved by the same shift,
 * params = [shift0, shift1, ...theta]. Each residual depends on its own (u_i0, u_i1) only, so
 * the derivative with respect to shift0 at zero is the column ∂/∂u_i0 of every row at once,
 * and shift1 gives ∂/∂u_i1: the Jacobian at shift 0 is GradBench's 3N × 28, in one pass.
 */
export function shiftedComplicatedObjective(
  params: Float64Array,
  us: Float64Array,
  data: HandData,
): Float64Array {
  const pose = toPoseParams(params.slice(2), data.model.boneNames.length);
  const vertices = skinnedVertexPositions(data.model, pose);
  const err = new Float64Array(3 * data.correspondences.length);
  for (let i = 0; i < data.correspondences.length; i++) {
    const [a, b, c] = data.model.triangles[data.correspondences[i]];
    const u0 = us[2 * i] + params[0];
    const u1 = us[2 * i + 1] + params[1];
    for (let j = 0; j < 3; j++) {
      const point = u0 * vertices[a][j] + u1 * vertices[b][j] + (1 - u0 - u1) * vertices[c][j];
      err[3 * i + j] = data.points[i][j] - point;
    }
  }
  return err;
}

/**
 * Jacobian rows: 3N × 26 (simple) or 3N × 28 (complicated: ∂/∂u_i0, ∂/∂u_i1, then theta, from
 * shiftedComplicatedObjective: the 28 directions in one forward pass).
 */
export function handJacobian(
  theta: Float64Array,
  us: Float64Array | null,
  data: HandData,
): Float64Array[] {
  if (us === null) return jacobian(handObjective, { wrt: 0 })(theta, data);
  const shiftAndTheta = new Float64Array(theta.length + 2);
  shiftAndTheta.set(theta, 2);
  return jacobian(shiftedComplicatedObjective, { wrt: 0 })(shiftAndTheta, us, data);
}

// --- GradBench wrappers (see ../README.md for the prepare/run convention) ---

export interface HtInput {
  theta: number[];
  data: {
    model: {
      bone_count: number;
      bone_names: string[];
      parents: number[];
      base_relatives: number[][][];
      inverse_base_absolutes: number[][][];
      base_positions: number[][];
      weights: number[][];
      triangles: number[][];
      is_mirrored: boolean;
    };
    correspondences: number[];
    points: number[][];
  };
  us: number[][];
}

export interface HtPrepared {
  theta: Float64Array;
  us: Float64Array | null; // null in the simple variant
  data: HandData;
}

export function prepareObjective(input: HtInput): HtPrepared {
  const m = input.data.model;
  return {
    theta: Float64Array.from(input.theta),
    us: input.us.length === 0 ? null : Float64Array.from(input.us.flat()),
    data: {
      model: {
        boneNames: m.bone_names,
        parents: m.parents,
        baseRelatives: m.base_relatives,
        inverseBaseAbsolutes: m.inverse_base_absolutes,
        basePositions: m.base_positions,
        weights: m.weights,
        triangles: m.triangles,
        isMirrored: m.is_mirrored,
      },
      correspondences: input.data.correspondences,
      points: input.data.points,
    },
  };
}

export function runObjective(p: HtPrepared): Float64Array {
  const err =
    p.us === null
      ? handObjective(p.theta, p.data)
      : handObjectiveComplicated(p.theta, p.us, p.data);
  return err;
}

export const prepareJacobian = prepareObjective;

export function runJacobian(p: HtPrepared): Float64Array[] {
  return handJacobian(p.theta, p.us, p.data);
}
