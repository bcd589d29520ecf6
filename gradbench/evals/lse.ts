// GradBench "lse": log-sum-exp, computed stably around the largest element.
import { gradient } from "nabla";

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

// --- GradBench wrappers (see ../README.md for the prepare/run convention) ---

export interface LseInput {
  x: number[];
}

export function preparePrimal(input: LseInput): Float64Array {
  return Float64Array.from(input.x);
}

export function runPrimal(x: Float64Array): number {
  return logSumExp(x);
}

export const prepareGradient = preparePrimal;

export function runGradient(x: Float64Array): Float64Array {
  return gradient(logSumExp)(x);
}
