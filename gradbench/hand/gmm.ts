// Hand-written baseline for GradBench "gmm" (no AD): the gradient of the log-posterior by a
// hand-written reverse sweep. The primal, the data layout, the input types and the prepare
// functions are those of ../evals/gmm.ts.
import { qTimesX, type GmmParams, type GmmPrepared, type Wishart } from "../evals/gmm.js";

export type { GmmInput, GmmParams, GmmPrepared, Wishart } from "../evals/gmm.js";
export { gmmObjective, prepareObjective, runObjective, prepareJacobian } from "../evals/gmm.js";

function expRows(q: Float64Array[]): Float64Array[] {
  return q.map((row) => {
    const out = new Float64Array(row.length);
    for (let i = 0; i < row.length; i++) out[i] = Math.exp(row[i]);
    return out;
  });
}

function rowSum(row: Float64Array): number {
  let s = 0;
  for (let i = 0; i < row.length; i++) s += row[i];
  return s;
}

function maxOf(v: Float64Array): number {
  let m = -Infinity;
  for (let i = 0; i < v.length; i++) if (v[i] > m) m = v[i];
  return m;
}

export function gmmGradient(params: GmmParams, x: Float64Array[], wishart: Wishart): GmmParams {
  const k = params.alpha.length;
  const n = x.length;
  const d = x[0].length;
  const qdiags = expRows(params.q);
  const sumQs = params.q.map(rowSum);
  const g: GmmParams = {
    alpha: new Float64Array(k),
    mu: params.mu.map((r) => new Float64Array(r.length)),
    q: params.q.map((r) => new Float64Array(r.length)),
    l: params.l.map((r) => new Float64Array(r.length)),
  };
  const centered: Float64Array[] = [];
  const zs: Float64Array[] = [];
  for (let j = 0; j < k; j++) {
    centered.push(new Float64Array(d));
    zs.push(new Float64Array(d));
  }
  const main = new Float64Array(k);
  const dz = new Float64Array(d);
  const dcentered = new Float64Array(d);

  for (const xi of x) {
    // forward for this point, keeping xc and z of every component
    for (let j = 0; j < k; j++) {
      const muj = params.mu[j];
      const xc = centered[j];
      for (let t = 0; t < d; t++) xc[t] = xi[t] - muj[t];
      qTimesX(qdiags[j], params.l[j], xc, zs[j]);
      let sq = 0;
      for (let t = 0; t < d; t++) sq += zs[j][t] * zs[j][t];
      main[j] = params.alpha[j] + sumQs[j] - 0.5 * sq;
    }
    const mx = maxOf(main);
    let s = 0;
    for (let j = 0; j < k; j++) {
      main[j] = Math.exp(main[j] - mx);
      s += main[j];
    }
    // reverse: ∂lse/∂main_j = softmax_j
    for (let j = 0; j < k; j++) {
      const w = main[j] / s;
      g.alpha[j] += w;
      const gq = g.q[j];
      const gl = g.l[j];
      const gmu = g.mu[j];
      const qd = qdiags[j];
      const lj = params.l[j];
      const xc = centered[j];
      const z = zs[j];
      for (let t = 0; t < d; t++) {
        gq[t] += w; // through sum(q)
        dz[t] = -w * z[t];
        gq[t] += dz[t] * xc[t] * qd[t];
        dcentered[t] = qd[t] * dz[t];
      }
      let idx = 0;
      for (let col = 0; col < d; col++) {
        for (let row = col + 1; row < d; row++) {
          gl[idx] += dz[row] * xc[col];
          dcentered[col] += lj[idx] * dz[row];
          idx++;
        }
      }
      for (let t = 0; t < d; t++) gmu[t] -= dcentered[t];
    }
  }

  // − n·logsumexp(alpha)
  const amax = maxOf(params.alpha);
  let asum = 0;
  for (let j = 0; j < k; j++) asum += Math.exp(params.alpha[j] - amax);
  for (let j = 0; j < k; j++) g.alpha[j] -= (n * Math.exp(params.alpha[j] - amax)) / asum;

  // Wishart prior: −Σ_j [½γ²(‖exp(q_j)‖² + ‖l_j‖²) − m·Σ q_j]
  const gamma2 = wishart.gamma * wishart.gamma;
  for (let j = 0; j < k; j++) {
    for (let t = 0; t < d; t++) g.q[j][t] += wishart.m - gamma2 * qdiags[j][t] * qdiags[j][t];
    const lj = params.l[j];
    for (let t = 0; t < lj.length; t++) g.l[j][t] -= gamma2 * lj[t];
  }
  return g;
}

// --- GradBench wrappers (see ../README.md for the prepare/run convention) ---

export function runJacobian(p: GmmPrepared): GmmParams {
  return gmmGradient(p.params, p.x, p.wishart);
}
