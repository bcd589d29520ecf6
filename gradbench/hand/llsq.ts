// Hand-written baseline for GradBench "llsq" (no AD): the gradient of
// y(x) = ½ Σ_i r_i², r_i = sign(t_i) − Σ_j x_j t_i^j, is ∂y/∂x_j = −Σ_i r_i t_i^j.
// The primal, the input types and the prepare functions are those of ../evals/llsq.ts.
import { samplePoint, type LlsqPrepared } from "../evals/llsq.js";

export type { LlsqInput, LlsqPrepared } from "../evals/llsq.js";
export { llsqObjective, preparePrimal, runPrimal, prepareGradient } from "../evals/llsq.js";

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

export function runGradient(p: LlsqPrepared): Float64Array {
  return llsqGradient(p.x, p.n);
}
