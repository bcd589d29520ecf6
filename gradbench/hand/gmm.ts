// Hand-written baseline for GradBench "gmm" (no AD): the log-posterior and its gradient by a
// hand-written reverse sweep. Same data layout as ../evals/gmm.ts.

export interface GmmParams {
  alpha: Float64Array;
  mu: Float64Array[];
  q: Float64Array[];
  l: Float64Array[];
}

export interface Wishart {
  gamma: number;
  m: number;
}

function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
    1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  x -= 1;
  let a = c[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

function logMultiGamma(a: number, p: number): number {
  let result = 0.25 * p * (p - 1) * Math.log(Math.PI);
  for (let j = 1; j <= p; j++) result += logGamma(a + 0.5 * (1 - j));
  return result;
}

function wishartConstant(d: number, k: number, wishart: Wishart): number {
  const n = d + wishart.m + 1;
  return k * (n * d * (Math.log(wishart.gamma) - 0.5 * Math.log(2)) - logMultiGamma(0.5 * n, d));
}

/** z = Q·x for Q with diagonal qdiag and strict lower part l (column by column). */
function qTimesX(qdiag: Float64Array, l: Float64Array, x: Float64Array, z: Float64Array): void {
  const d = x.length;
  for (let i = 0; i < d; i++) z[i] = qdiag[i] * x[i];
  let idx = 0;
  for (let col = 0; col < d; col++) {
    for (let row = col + 1; row < d; row++) z[row] += l[idx++] * x[col];
  }
}

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

export function gmmObjective(params: GmmParams, x: Float64Array[], wishart: Wishart): number {
  const k = params.alpha.length;
  const n = x.length;
  const d = x[0].length;
  const qdiags = expRows(params.q);
  const sumQs = params.q.map(rowSum);
  const centered = new Float64Array(d);
  const z = new Float64Array(d);
  const main = new Float64Array(k);
  let slse = 0;
  for (const xi of x) {
    for (let j = 0; j < k; j++) {
      const muj = params.mu[j];
      for (let t = 0; t < d; t++) centered[t] = xi[t] - muj[t];
      qTimesX(qdiags[j], params.l[j], centered, z);
      let sq = 0;
      for (let t = 0; t < d; t++) sq += z[t] * z[t];
      main[j] = params.alpha[j] + sumQs[j] - 0.5 * sq;
    }
    const mx = maxOf(main);
    let s = 0;
    for (let j = 0; j < k; j++) s += Math.exp(main[j] - mx);
    slse += mx + Math.log(s);
  }
  const amax = maxOf(params.alpha);
  let asum = 0;
  for (let j = 0; j < k; j++) asum += Math.exp(params.alpha[j] - amax);
  const lseAlpha = amax + Math.log(asum);

  let prior = 0;
  for (let j = 0; j < k; j++) {
    let frob = 0;
    for (let t = 0; t < d; t++) frob += qdiags[j][t] * qdiags[j][t];
    const lj = params.l[j];
    for (let t = 0; t < lj.length; t++) frob += lj[t] * lj[t];
    prior += 0.5 * wishart.gamma * wishart.gamma * frob - wishart.m * sumQs[j];
  }
  const constant = -n * d * 0.5 * Math.log(2 * Math.PI);
  return constant + slse - n * lseAlpha + wishartConstant(d, k, wishart) - prior;
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

export interface GmmInput {
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

export interface GmmPrepared {
  params: GmmParams;
  x: Float64Array[];
  wishart: Wishart;
}

const rows = (m: number[][]): Float64Array[] => m.map((r) => Float64Array.from(r));
const lists = (m: Float64Array[]): number[][] => m.map((r) => Array.from(r));

export function prepareObjective(input: GmmInput): GmmPrepared {
  return {
    params: {
      alpha: Float64Array.from(input.alpha),
      mu: rows(input.mu),
      q: rows(input.q),
      l: rows(input.l),
    },
    x: rows(input.x),
    wishart: { gamma: input.gamma, m: input.m },
  };
}

export function runObjective(p: GmmPrepared): number {
  return gmmObjective(p.params, p.x, p.wishart);
}

export const prepareJacobian = prepareObjective;

export function runJacobian(p: GmmPrepared): {
  alpha: number[];
  mu: number[][];
  q: number[][];
  l: number[][];
} {
  const g = gmmGradient(p.params, p.x, p.wishart);
  return { alpha: Array.from(g.alpha), mu: lists(g.mu), q: lists(g.q), l: lists(g.l) };
}
