import { gradient } from "nabla";

// Reverse mode (d): recursion — the nested radical √(25a + x√(24a + x√(… + x√(a + x))))
// evaluated as a recursion of depth 26, one call per level. Unlike Horner's rule its
// derivative needs the value of every level, so a reverse sweep must remember them.

export const DEPTH = 25;

export function radical(x: number, a: number, n: number): number {
  if (n === 0) return 1;
  return Math.sqrt(n * a + x * radical(x, a, n - 1));
}

/** The function the benchmark differentiates, of x and a. */
export function nested(x: number, a: number): number {
  return radical(x, a, DEPTH);
}

/** [∂nested/∂x, ∂nested/∂a]. */
export const gradNested = gradient(nested);
