// Gaussian-process regression: negative log marginal likelihood of an RBF + noise kernel via a hand-written Cholesky solve.

export interface Hyperparameters {
  logLengthScale: number;
  logSignalStd: number;
  logNoiseStd: number;
}

type Kernel = (a: number[], b: number[]) => number;

const sqDist = (a: number[], b: number[]) => a.reduce((s, ai, i) => s + (ai - b[i]) ** 2, 0);

export const rbf =
  (lengthScale: number, signalVar: number): Kernel =>
  (a, b) =>
    signalVar * Math.exp(-sqDist(a, b) / (2 * lengthScale * lengthScale));

export function cholesky(A: number[][]): number[][] {
  const n = A.length;
  const L = A.map(() => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = A[i][j];
      for (let k = 0; k < j; k++) sum -= L[i][k] * L[j][k];
      if (i === j) {
        if (sum <= 0) throw new Error(`matrix not positive definite at row ${i}`);
        L[i][i] = Math.sqrt(sum);
      } else {
        L[i][j] = sum / L[j][j];
      }
    }
  }
  return L;
}

function forwardSubstitute(L: number[][], b: number[]) {
  const y: number[] = [];
  b.forEach((bi, i) => {
    const s = L[i].slice(0, i).reduce((acc, lik, k) => acc + lik * y[k], 0);
    y.push((bi - s) / L[i][i]);
  });
  return y;
}

export function objective(hyper: Hyperparameters, inputs: number[][], targets: number[]): number {
  const lengthScale = Math.exp(hyper.logLengthScale);
  const signalVar = Math.exp(2 * hyper.logSignalStd);
  const noiseVar = Math.exp(2 * hyper.logNoiseStd);
  const k = rbf(lengthScale, signalVar);

  const mean = targets.reduce((a, b) => a + b, 0) / targets.length;
  const centered = targets.map((t) => t - mean);
  const K = inputs.map((xi, i) => inputs.map((xj, j) => k(xi, xj) + (i === j ? noiseVar + 1e-9 : 0)));
  const L = cholesky(K);
  // y^T K^{-1} y = |L^{-1} y|^2
  const alpha = forwardSubstitute(L, centered);
  const dataFit = 0.5 * alpha.reduce((s, a) => s + a * a, 0);
  const logDet = L.reduce((s, row, i) => s + Math.log(row[i]), 0);
  return dataFit + logDet + 0.5 * targets.length * Math.log(2 * Math.PI);
}

export const inputs: number[][] = Array.from({ length: 14 }, (_, i) => [i * 0.45, Math.cos(i * 0.7)]);
export const targets = inputs.map(([x, z], i) => Math.sin(x) + 0.5 * z + 0.05 * Math.sin(17 * i));

export const args: Parameters<typeof objective> = [
  { logLengthScale: Math.log(1.2), logSignalStd: Math.log(0.9), logNoiseStd: Math.log(0.1) },
  inputs,
  targets,
];
