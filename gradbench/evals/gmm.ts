// GradBench "gmm": log-posterior of a Gaussian mixture model with a Wishart prior on the
// precision matrices, parameterized as in ADBench: component j has weight logit alpha[j], mean
// mu[j], and precision factor Q_j, lower triangular with diagonal exp(q[j]) and strict lower
// part l[j] (filled column by column).
import { gradient } from "nabla";

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

/** log Γ(x) for x > 0 (Lanczos approximation, g = 7). */
function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
    1.5056327351493116e-7,
  ];
  if (x < 0.5) {
    return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  }
  x -= 1;
  let a = c[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** log of the multivariate gamma function Γ_p(a). */
function logMultiGamma(a: number, p: number): number {
  let result = 0.25 * p * (p - 1) * Math.log(Math.PI);
  for (let j = 1; j <= p; j++) result += logGamma(a + 0.5 * (1 - j));
  return result;
}

function logSumExp(v: Float64Array): number {
  let max = -Infinity;
  for (const x of v) if (x > max) max = x;
  let sum = 0;
  for (const x of v) sum += Math.exp(x - max);
  return max + Math.log(sum);
}

function squaredNorm(v: Float64Array): number {
  let sum = 0;
  for (const x of v) sum += x * x;
  return sum;
}

/** out = Q·x, Q lower triangular with diagonal qdiag and strict lower part l (by columns). */
export function qTimesX(
  qdiag: Float64Array,
  l: Float64Array,
  x: Float64Array,
  out: Float64Array,
): void {
  const d = x.length;
  for (let i = 0; i < d; i++) out[i] = qdiag[i] * x[i];
  let idx = 0;
  for (let col = 0; col < d; col++) {
    for (let row = col + 1; row < d; row++) {
      out[row] += l[idx] * x[col];
      idx++;
    }
  }
}

function logWishartPrior(
  qdiags: Float64Array[],
  sumQs: number[],
  l: Float64Array[],
  wishart: Wishart,
): number {
  const k = qdiags.length;
  const d = qdiags[0].length;
  const n = d + wishart.m + 1;
  const c = n * d * (Math.log(wishart.gamma) - 0.5 * Math.log(2)) - logMultiGamma(0.5 * n, d);
  let out = 0;
  for (let j = 0; j < k; j++) {
    const frobenius = squaredNorm(qdiags[j]) + squaredNorm(l[j]);
    out += 0.5 * wishart.gamma * wishart.gamma * frobenius - wishart.m * sumQs[j];
  }
  return k * c - out;
}

export function gmmObjective(params: GmmParams, x: Float64Array[], wishart: Wishart): number {
  const k = params.alpha.length;
  const n = x.length;
  const d = x[0].length;

  const qdiags = params.q.map((qj) => qj.map((v) => Math.exp(v)));
  const sumQs = params.q.map((qj) => qj.reduce((s, v) => s + v, 0));

  const centered = new Float64Array(d);
  const transformed = new Float64Array(d);
  const mainTerm = new Float64Array(k);
  let slse = 0;
  for (const xi of x) {
    for (let j = 0; j < k; j++) {
      const muj = params.mu[j];
      for (let t = 0; t < d; t++) centered[t] = xi[t] - muj[t];
      qTimesX(qdiags[j], params.l[j], centered, transformed);
      mainTerm[j] = params.alpha[j] + sumQs[j] - 0.5 * squaredNorm(transformed);
    }
    slse += logSumExp(mainTerm);
  }

  const constant = -n * d * 0.5 * Math.log(2 * Math.PI);
  return (
    constant +
    slse -
    n * logSumExp(params.alpha) +
    logWishartPrior(qdiags, sumQs, params.l, wishart)
  );
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

export function runJacobian(p: GmmPrepared): GmmParams {
  return gradient(gmmObjective, { wrt: 0 })(p.params, p.x, p.wishart);
}
