// GradBench "llsq": linear least squares with a polynomial model.
//   y(x) = ½ Σ_i (sign(t_i) − Σ_j x_j t_i^j)²,  t_i = −1 + 2i/(n−1).
import { gradient } from "nabla";

export function samplePoint(i: number, n: number): number {
  return -1 + (i * 2) / (n - 1);
}

export function llsqObjective(x: Float64Array, n: number): number {
  const m = x.length;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const t = samplePoint(i, n);
    let residual = Math.sign(t);
    let power = 1;
    for (let j = 0; j < m; j++) {
      residual -= x[j] * power;
      power *= t;
    }
    sum += residual * residual;
  }
  return sum / 2;
}

// --- GradBench wrappers (see ../README.md for the prepare/run convention) ---

export interface LlsqInput {
  x: number[];
  n: number;
}

export interface LlsqPrepared {
  x: Float64Array;
  n: number;
}

export function preparePrimal(input: LlsqInput): LlsqPrepared {
  return { x: Float64Array.from(input.x), n: input.n };
}

export function runPrimal(p: LlsqPrepared): number {
  return llsqObjective(p.x, p.n);
}

export const prepareGradient = preparePrimal;

export function runGradient(p: LlsqPrepared): Float64Array {
  return gradient(llsqObjective, { wrt: 0 })(p.x, p.n);
}
