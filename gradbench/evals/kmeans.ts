// GradBench "kmeans": cost = Σ_i min_j ‖P_i − C_j‖², and one Newton step direction for the
// centroids, J ⊘ H, with J the gradient of the cost with respect to the centroids and H the
// diagonal of its Hessian. The cost's Hessian with respect to C is diagonal, so H = ∇²cost · 1,
// one Hessian-vector product with a vector of ones; one reverse-over-forward pass gives both J
// and H (the gradient of x ↦ ⟨∇cost(x), v⟩ with respect to x and v).
import { gradientAndHessianVectorProduct } from "nabla";

function squaredDistance(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const diff = a[i] - b[i];
    sum += diff * diff;
  }
  return sum;
}

export function kmeansCost(points: Float64Array[], centroids: Float64Array[]): number {
  let total = 0;
  for (const point of points) {
    let nearest = Infinity;
    for (const centroid of centroids) {
      const dist = squaredDistance(point, centroid);
      if (dist < nearest) nearest = dist;
    }
    total += nearest;
  }
  return total;
}

export function newtonDirection(points: Float64Array[], centroids: Float64Array[]): Float64Array[] {
  const ones = centroids.map((c) => new Float64Array(c.length).fill(1));
  const { gradient: grad, hessianVectorProduct: hessianDiagonal } = gradientAndHessianVectorProduct(
    kmeansCost,
    { wrt: 1 },
  )(points, centroids, ones);
  return grad.map((g, j) => g.map((gi, i) => gi / hessianDiagonal[j][i]));
}

// --- GradBench wrappers (see ../README.md for the prepare/run convention) ---

export interface KmeansInput {
  points: number[][];
  centroids: number[][];
}

export interface KmeansPrepared {
  points: Float64Array[];
  centroids: Float64Array[];
}

export function prepareCost(input: KmeansInput): KmeansPrepared {
  return {
    points: input.points.map((p) => Float64Array.from(p)),
    centroids: input.centroids.map((c) => Float64Array.from(c)),
  };
}

export function runCost(p: KmeansPrepared): number {
  return kmeansCost(p.points, p.centroids);
}

export const prepareDir = prepareCost;

export function runDir(p: KmeansPrepared): Float64Array[] {
  return newtonDirection(p.points, p.centroids);
}
