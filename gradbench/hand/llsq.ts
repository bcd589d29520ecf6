// Hand-written baseline for GradBench "llsq" (no AD): the gradient of
// y(x) = ½ Σ_i r_i², r_i = sign(t_i) − Σ_j x_j t_i^j, is ∂y/∂x_j = −Σ_i r_i t_i^j.

function samplePoint(i: number, n: number): number {
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

export function llsqGradient(x: Float64Array, n: number): Float64Array {
  const m = x.length;
  const grad = new Float64Array(m);
  for (let i = 0; i < n; i++) {
    const t = samplePoint(i, n);
    let residual = Math.sign(t);
    let power = 1;
    for (let j = 0; j < m; j++) {
      residual -= x[j] * power;
      power *= t;
    }
    power = 1;
    for (let j = 0; j < m; j++) {
      grad[j] -= residual * power;
      power *= t;
    }
  }
  return grad;
}

// --- GradBench wrappers (see ../README.md for the prepare/run convention) ---

export interface LlsqPrepared {
  x: Float64Array;
  n: number;
}

export function preparePrimal(input: { x: number[]; n: number }): LlsqPrepared {
  return { x: Float64Array.from(input.x), n: input.n };
}

export function runPrimal(p: LlsqPrepared): number {
  return llsqObjective(p.x, p.n);
}

export const prepareGradient = preparePrimal;

export function runGradient(p: LlsqPrepared): number[] {
  return Array.from(llsqGradient(p.x, p.n));
}
