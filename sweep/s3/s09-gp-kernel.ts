// Gaussian process: an RBF + linear kernel matrix built with Array.from, hyperparameters in a
// nested config with optional fields and `??` defaults, Cholesky, the negative log marginal
// likelihood; gradient, hessian and an HVP w.r.t. the hyperparameters.
import { gradient, hessian, hessianVectorProduct, differential } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

interface KernelConfig {
  rbf: { lengthScale: number; variance?: number };
  linear?: { slope?: number };
  noise?: number;
}

function kernel(a: number, b: number, cfg: KernelConfig): number {
  const ls = cfg.rbf.lengthScale;
  const rbf = (cfg.rbf.variance ?? 1) * Math.exp(-((a - b) ** 2) / (2 * ls * ls));
  const lin = (cfg.linear?.slope ?? 0) * a * b;
  return rbf + lin;
}

function cholesky(K: number[][]): number[][] {
  const n = K.length;
  const L = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = K[i][j];
      for (let k = 0; k < j; k++) s -= L[i][k] * L[j][k];
      L[i][j] = i === j ? Math.sqrt(s) : s / L[j][j];
    }
  }
  return L;
}

function forwardSolve(L: number[][], b: number[]): number[] {
  const x: number[] = [];
  for (let i = 0; i < b.length; i++) {
    let s = b[i];
    for (let k = 0; k < i; k++) s -= L[i][k] * x[k];
    x.push(s / L[i][i]);
  }
  return x;
}

const xs = [0, 0.4, 1.1, 1.5, 2.3, 3.0];
const ys = [0.1, 0.5, 0.9, 1.0, 0.6, 0.1];

function nlml(cfg: KernelConfig): number {
  const noise = cfg.noise ?? 1e-3;
  const K = Array.from({ length: xs.length }, (_, i) =>
    Array.from({ length: xs.length }, (_, j) => kernel(xs[i], xs[j], cfg) + (i === j ? noise : 0)),
  );
  const L = cholesky(K);
  const alpha = forwardSolve(L, ys);
  const quad = alpha.reduce((s, a) => s + a * a, 0);
  const logDet = L.reduce((s, row, i) => s + 2 * Math.log(row[i]), 0);
  return 0.5 * quad + 0.5 * logDet + 0.5 * xs.length * Math.log(2 * Math.PI);
}

function nlmlOf(theta: number[]): number {
  const [logLs, logVar, logSlope, logNoise] = theta;
  return nlml({
    rbf: { lengthScale: Math.exp(logLs), variance: Math.exp(logVar) },
    linear: { slope: Math.exp(logSlope) },
    noise: Math.exp(logNoise),
  });
}

const theta = [-0.2, 0.1, -2, -3];
const g = gradient(nlmlOf)(theta);
compare("grad vs fd", g, fdGrad(nlmlOf, theta));
const cfg: KernelConfig = { rbf: { lengthScale: 0.8, variance: 1.1 }, linear: { slope: 0.1 }, noise: 0.05 };
const gc = gradient(nlml)(cfg);
const fdCfg = fdGrad(
  ([ls, v, sl, nz]) => nlml({ rbf: { lengthScale: ls, variance: v }, linear: { slope: sl }, noise: nz }),
  [0.8, 1.1, 0.1, 0.05],
);
compare("grad of config object vs fd", [gc.rbf.lengthScale, gc.rbf.variance ?? NaN, gc.linear?.slope ?? NaN, gc.noise ?? NaN], fdCfg);
const cfgMin: KernelConfig = { rbf: { lengthScale: 0.8 } };
const gm = gradient(nlml)(cfgMin);
compare("grad with defaults vs fd", gm.rbf.lengthScale, fdGrad(([ls]) => nlml({ rbf: { lengthScale: ls } }), [0.8]));
const v = [1, -1, 0.5, 0.2];
compare("fwd vs rev", differential(nlmlOf)(theta)(v), g.reduce((s, gi, i) => s + gi * v[i], 0));
const H = hessian(nlmlOf)(theta);
compare("hessian vs fd", H, [0, 1, 2, 3].map((i) => fdGrad((t) => gradient(nlmlOf)(t)[i], theta)));
compare("hvp vs H v", hessianVectorProduct(nlmlOf)(theta, v), H.map((r) => r.reduce((s, h, j) => s + h * v[j], 0)));
summary("s09-gp-kernel");
