// Hand-written baseline for GradBench "lse" (no AD): the gradient of log-sum-exp is softmax.
// The primal, the input type and the prepare functions are those of ../evals/lse.ts.

export type { LseInput } from "../evals/lse.js";
export { logSumExp, preparePrimal, runPrimal, prepareGradient } from "../evals/lse.js";

export function logSumExpGradient(x: Float64Array): Float64Array {
  let max = -Infinity;
  for (let i = 0; i < x.length; i++) {
    if (x[i] > max) max = x[i];
  }
  const grad = new Float64Array(x.length);
  let sum = 0;
  for (let i = 0; i < x.length; i++) {
    const e = Math.exp(x[i] - max);
    grad[i] = e;
    sum += e;
  }
  for (let i = 0; i < x.length; i++) grad[i] /= sum;
  return grad;
}

// --- GradBench wrappers (see ../README.md for the prepare/run convention) ---

export function runGradient(x: Float64Array): Float64Array {
  return logSumExpGradient(x);
}
