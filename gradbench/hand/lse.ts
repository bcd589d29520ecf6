// Hand-written baseline for GradBench "lse" (no AD): the gradient of log-sum-exp is softmax.

export function logSumExp(x: Float64Array): number {
  let max = -Infinity;
  for (let i = 0; i < x.length; i++) {
    if (x[i] > max) max = x[i];
  }
  let sum = 0;
  for (let i = 0; i < x.length; i++) {
    sum += Math.exp(x[i] - max);
  }
  return max + Math.log(sum);
}

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

export function preparePrimal(input: { x: number[] }): Float64Array {
  return Float64Array.from(input.x);
}

export function runPrimal(x: Float64Array): number {
  return logSumExp(x);
}

export const prepareGradient = preparePrimal;

export function runGradient(x: Float64Array): number[] {
  return Array.from(logSumExpGradient(x));
}
