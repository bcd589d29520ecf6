// Hand-written baseline for GradBench "ba" (no AD): one observation's 2×15 Jacobian block (11
// camera parameters, 3 point coordinates, the weight) by a hand-written reverse sweep, run once
// per residual row; assembled in CSR form as in ../evals/ba.ts. The primal, the problem and
// matrix types, the input expansion and the output compression are those of ../evals/ba.ts.
import {
  CAM_PARAMS,
  compressJacobian,
  emptyJacobian,
  type BaJacobianOutput,
  type BaProblem,
  type SparseMatrix,
} from "../evals/ba.js";

export type {
  BaErrors,
  BaInput,
  BaJacobianOutput,
  BaObjectiveOutput,
  BaProblem,
  Observation,
  SparseMatrix,
} from "../evals/ba.js";
export {
  baObjective,
  expandBaInput,
  prepareObjective,
  runObjective,
  prepareJacobian,
} from "../evals/ba.js";

/** Scratch space of one observation's forward sweep, reused by its reverse sweeps. */
class Projection {
  xo = new Float64Array(3);
  w = new Float64Array(3);
  wxp = new Float64Array(3);
  xcam = new Float64Array(3);
  rotated = false;
  theta = 0;
  cos = 0;
  sin = 0;
  dot = 0;
  tmp = 0;
  px = 0;
  py = 0;
  rsq = 0;
  dist = 0;
  proj0 = 0;
  proj1 = 0;

  /** Forward sweep; returns nothing, leaves the intermediates and proj0/proj1 in this. */
  forward(cam: Float64Array, x: Float64Array): void {
    const xo = this.xo;
    xo[0] = x[0] - cam[3];
    xo[1] = x[1] - cam[4];
    xo[2] = x[2] - cam[5];
    const r0 = cam[0];
    const r1 = cam[1];
    const r2 = cam[2];
    const sqTheta = r0 * r0 + r1 * r1 + r2 * r2;
    const xc = this.xcam;
    if (sqTheta !== 0) {
      this.rotated = true;
      const theta = Math.sqrt(sqTheta);
      this.theta = theta;
      this.cos = Math.cos(theta);
      this.sin = Math.sin(theta);
      const w = this.w;
      w[0] = r0 / theta;
      w[1] = r1 / theta;
      w[2] = r2 / theta;
      const wxp = this.wxp;
      wxp[0] = w[1] * xo[2] - w[2] * xo[1];
      wxp[1] = w[2] * xo[0] - w[0] * xo[2];
      wxp[2] = w[0] * xo[1] - w[1] * xo[0];
      this.dot = w[0] * xo[0] + w[1] * xo[1] + w[2] * xo[2];
      this.tmp = this.dot * (1 - this.cos);
      for (let i = 0; i < 3; i++) xc[i] = xo[i] * this.cos + wxp[i] * this.sin + w[i] * this.tmp;
    } else {
      this.rotated = false;
      xc[0] = xo[0] + (r1 * xo[2] - r2 * xo[1]);
      xc[1] = xo[1] + (r2 * xo[0] - r0 * xo[2]);
      xc[2] = xo[2] + (r0 * xo[1] - r1 * xo[0]);
    }
    this.px = xc[0] / xc[2];
    this.py = xc[1] / xc[2];
    this.rsq = this.px * this.px + this.py * this.py;
    this.dist = 1 + cam[9] * this.rsq + cam[10] * this.rsq * this.rsq;
    this.proj0 = this.px * this.dist * cam[6] + cam[7];
    this.proj1 = this.py * this.dist * cam[6] + cam[8];
  }

  /** Reverse sweep for the adjoint (e0b, e1b) of the two residuals; writes 15 adjoints to out:
   *  11 camera parameters, 3 point coordinates, the weight. */
  reverse(
    cam: Float64Array,
    w8: number,
    feat: Float64Array,
    e0b: number,
    e1b: number,
    out: Float64Array,
  ): void {
    out.fill(0);
    out[14] = e0b * (this.proj0 - feat[0]) + e1b * (this.proj1 - feat[1]);
    const p0b = w8 * e0b;
    const p1b = w8 * e1b;
    out[7] = p0b;
    out[8] = p1b;
    const dx = this.px * this.dist;
    const dy = this.py * this.dist;
    out[6] = p0b * dx + p1b * dy;
    const dxb = p0b * cam[6];
    const dyb = p1b * cam[6];
    let pxb = dxb * this.dist;
    let pyb = dyb * this.dist;
    const lb = dxb * this.px + dyb * this.py;
    out[9] = lb * this.rsq;
    out[10] = lb * this.rsq * this.rsq;
    const rsqb = lb * (cam[9] + 2 * cam[10] * this.rsq);
    pxb += 2 * this.px * rsqb;
    pyb += 2 * this.py * rsqb;
    const xc = this.xcam;
    const xcb0 = pxb / xc[2];
    const xcb1 = pyb / xc[2];
    const xcb2 = -(pxb * this.px + pyb * this.py) / xc[2];
    const xo = this.xo;
    let xob0: number, xob1: number, xob2: number;
    if (this.rotated) {
      const w = this.w;
      const wxp = this.wxp;
      const c = this.cos;
      const s = this.sin;
      // xcam = xo·c + (w × xo)·s + w·tmp
      let cb = xcb0 * xo[0] + xcb1 * xo[1] + xcb2 * xo[2];
      xob0 = c * xcb0;
      xob1 = c * xcb1;
      xob2 = c * xcb2;
      const sb = xcb0 * wxp[0] + xcb1 * wxp[1] + xcb2 * wxp[2];
      const g0 = s * xcb0;
      const g1 = s * xcb1;
      const g2 = s * xcb2;
      let wb0 = this.tmp * xcb0;
      let wb1 = this.tmp * xcb1;
      let wb2 = this.tmp * xcb2;
      const tmpb = xcb0 * w[0] + xcb1 * w[1] + xcb2 * w[2];
      // tmp = dot·(1 − c)
      const dotb = tmpb * (1 - c);
      cb -= tmpb * this.dot;
      // dot = w·xo
      wb0 += dotb * xo[0];
      wb1 += dotb * xo[1];
      wb2 += dotb * xo[2];
      xob0 += dotb * w[0];
      xob1 += dotb * w[1];
      xob2 += dotb * w[2];
      // w × xo with adjoint g: w̄ += xo × g, x̄o += g × w
      wb0 += xo[1] * g2 - xo[2] * g1;
      wb1 += xo[2] * g0 - xo[0] * g2;
      wb2 += xo[0] * g1 - xo[1] * g0;
      xob0 += g1 * w[2] - g2 * w[1];
      xob1 += g2 * w[0] - g0 * w[2];
      xob2 += g0 * w[1] - g1 * w[0];
      // w = r / θ
      const theta = this.theta;
      let thetab = -(wb0 * cam[0] + wb1 * cam[1] + wb2 * cam[2]) / (theta * theta);
      thetab += -s * cb + c * sb;
      // θ = sqrt(r·r)
      const sqb = thetab / (2 * theta);
      out[0] = wb0 / theta + 2 * cam[0] * sqb;
      out[1] = wb1 / theta + 2 * cam[1] * sqb;
      out[2] = wb2 / theta + 2 * cam[2] * sqb;
    } else {
      // xcam = xo + r × xo: r̄ = xo × g, x̄o = g + g × r
      out[0] = xo[1] * xcb2 - xo[2] * xcb1;
      out[1] = xo[2] * xcb0 - xo[0] * xcb2;
      out[2] = xo[0] * xcb1 - xo[1] * xcb0;
      xob0 = xcb0 + (xcb1 * cam[2] - xcb2 * cam[1]);
      xob1 = xcb1 + (xcb2 * cam[0] - xcb0 * cam[2]);
      xob2 = xcb2 + (xcb0 * cam[1] - xcb1 * cam[0]);
    }
    // xo = X − C
    out[3] = -xob0;
    out[4] = -xob1;
    out[5] = -xob2;
    out[11] = xob0;
    out[12] = xob1;
    out[13] = xob2;
  }
}

export function baJacobian(problem: BaProblem): SparseMatrix {
  const n = problem.cams.length;
  const m = problem.points.length;
  const p = problem.obs.length;
  const jac = emptyJacobian(problem);
  const proj = new Projection();
  const block = new Float64Array(15);
  let k = 0;
  for (let i = 0; i < p; i++) {
    const { camera, point } = problem.obs[i];
    const cam = problem.cams[camera];
    proj.forward(cam, problem.points[point]);
    for (let row = 0; row < 2; row++) {
      proj.reverse(
        cam,
        problem.weights[i],
        problem.feats[i],
        row === 0 ? 1 : 0,
        row === 1 ? 1 : 0,
        block,
      );
      for (let j = 0; j < CAM_PARAMS; j++) {
        jac.cols[k] = CAM_PARAMS * camera + j;
        jac.vals[k++] = block[j];
      }
      for (let j = 0; j < 3; j++) {
        jac.cols[k] = CAM_PARAMS * n + 3 * point + j;
        jac.vals[k++] = block[11 + j];
      }
      jac.cols[k] = CAM_PARAMS * n + 3 * m + i;
      jac.vals[k++] = block[14];
      jac.rows[2 * i + row + 1] = k;
    }
  }
  for (let i = 0; i < p; i++) {
    jac.cols[k] = CAM_PARAMS * n + 3 * m + i;
    jac.vals[k++] = -2 * problem.weights[i];
    jac.rows[2 * p + i + 1] = k;
  }
  return jac;
}

// --- GradBench wrappers (see ../README.md for the prepare/run convention) ---

export function runJacobian(problem: BaProblem): BaJacobianOutput {
  return compressJacobian(baJacobian(problem));
}
