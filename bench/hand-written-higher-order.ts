// Derivatives of the Rosenbrock function of bench/programs/higher-order.ts written by hand from
// its analytic form, f(x) = Σᵢ₌₀ⁿ⁻² 100 (xᵢ₊₁ − xᵢ²)² + (1 − xᵢ)²:
//   ∂f/∂xⱼ   = −400 xⱼ (xⱼ₊₁ − xⱼ²) − 2 (1 − xⱼ)   [j < n−1]   + 200 (xⱼ − xⱼ₋₁²)   [j > 0]
//   ∂²f/∂xⱼ² = 1200 xⱼ² − 400 xⱼ₊₁ + 2            [j < n−1]   + 200                [j > 0]
//   ∂²f/∂xⱼ∂xⱼ₊₁ = −400 xⱼ, and every other entry of the Hessian is zero (it is tridiagonal).
// Each function returns a fresh result of the shape nabla's operator returns.

/** ∇f(x). */
export function rosenGradient(x: Float64Array): Float64Array {
  const n = x.length;
  const g = new Float64Array(n);
  for (let i = 0; i < n - 1; i++) {
    const xi = x[i]!;
    const a = x[i + 1]! - xi * xi;
    g[i] += -400 * xi * a - 2 * (1 - xi);
    g[i + 1] += 200 * a;
  }
  return g;
}

/** ∇²f(x) as n rows of n (the layout of nabla's `hessian`), filled along the three diagonals. */
export function rosenHessian(x: Float64Array): Float64Array[] {
  const n = x.length;
  const rows: Float64Array[] = [];
  for (let j = 0; j < n; j++) rows.push(new Float64Array(n));
  for (let i = 0; i < n - 1; i++) {
    const xi = x[i]!;
    rows[i]![i] += 1200 * xi * xi - 400 * x[i + 1]! + 2;
    rows[i + 1]![i + 1] += 200;
    rows[i]![i + 1] = -400 * xi;
    rows[i + 1]![i] = -400 * xi;
  }
  return rows;
}

/** ∇²f(x)·v from the three diagonals, without forming the Hessian. */
export function rosenHessianVectorProduct(x: Float64Array, v: Float64Array): Float64Array {
  const n = x.length;
  const hv = new Float64Array(n);
  for (let i = 0; i < n - 1; i++) {
    const xi = x[i]!;
    const off = -400 * xi;
    hv[i] += (1200 * xi * xi - 400 * x[i + 1]! + 2) * v[i]! + off * v[i + 1]!;
    hv[i + 1] += 200 * v[i + 1]! + off * v[i]!;
  }
  return hv;
}
