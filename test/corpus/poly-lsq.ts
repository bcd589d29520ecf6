// Weighted polynomial least-squares fit via normal equations and Gaussian elimination; objective = held-out error of the fit.

export interface Sample {
  x: number;
  y: number;
  weight?: number;
}

export interface FitResult {
  coefficients: number[];
  residualSS: number;
}

export const evalPoly = (coeffs: number[], x: number) => coeffs.reduceRight((acc, c) => acc * x + c, 0);

export function solveLinear(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]]);
  for (let col = 0; col < n; col++) {
    // partial pivoting
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(M[r][col]) > Math.abs(M[pivot][col])) pivot = r;
    [M[col], M[pivot]] = [M[pivot], M[col]];
    for (let r = col + 1; r < n; r++) {
      const factor = M[r][col] / M[col][col];
      for (let c = col; c <= n; c++) M[r][c] -= factor * M[col][c];
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let i = n - 1; i >= 0; i--) {
    let s = M[i][n];
    for (let j = i + 1; j < n; j++) s -= M[i][j] * x[j];
    x[i] = s / M[i][i];
  }
  return x;
}

export function fitPolynomial(samples: Sample[], degree: number, ridge = 1e-8): FitResult {
  const m = degree + 1;
  const normal = Array.from({ length: m }, () => new Array<number>(m).fill(0));
  const rhs = new Array<number>(m).fill(0);
  for (const { x, y, weight = 1 } of samples) {
    const powers = Array.from({ length: m }, (_, k) => x ** k);
    powers.forEach((pi, i) => {
      rhs[i] += weight * pi * y;
      powers.forEach((pj, j) => (normal[i][j] += weight * pi * pj));
    });
  }
  normal.forEach((row, i) => (row[i] += ridge));
  const coefficients = solveLinear(normal, rhs);
  const residualSS = samples.reduce((s, { x, y, weight }) => s + (weight ?? 1) * (evalPoly(coefficients, x) - y) ** 2, 0);
  return { coefficients, residualSS };
}

export function objective(training: Sample[], validation: Sample[], degree = 3): number {
  const { coefficients, residualSS } = fitPolynomial(training, degree);
  const validationMSE = validation.map(({ x, y }) => (evalPoly(coefficients, x) - y) ** 2).reduce((a, b) => a + b, 0) / validation.length;
  return validationMSE + 0.01 * residualSS;
}

const truth = (x: number) => 0.5 - 1.2 * x + 0.8 * x ** 2 + 0.3 * Math.sin(4 * x);

export const training: Sample[] = Array.from({ length: 16 }, (_, i) => {
  const x = -1 + (2 * i) / 15 + 0.013 * Math.cos(5 * i);
  return { x, y: truth(x) + 0.04 * Math.sin(11 * i), weight: i % 4 === 0 ? 0.5 : undefined };
});

export const validation: Sample[] = [-0.9, -0.55, -0.2, 0.15, 0.45, 0.8].map((x) => ({ x, y: truth(x) }));

export const args: Parameters<typeof objective> = [training, validation, 3];
