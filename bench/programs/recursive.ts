import { derivative } from "nabla";

// (c) Recursion: Horner evaluation of the degree-24 polynomial Σ x^k / (k + 1), written as
// a recursion of depth 25 — one call per coefficient, so call overhead dominates.

export const DEGREE = 24;

export function horner(x: number, n: number): number {
  if (n === 0) return 1;
  return 1 / (n + 1) + x * horner(x, n - 1);
}

/** The polynomial at x, the function the benchmark differentiates. */
export function poly(x: number): number {
  return horner(x, DEGREE);
}

export const dPoly = derivative(poly);
