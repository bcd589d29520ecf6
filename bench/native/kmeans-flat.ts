// Hand-written JavaScript kmeans on flat row-major Float64Arrays: the code of kmeans.c and
// kmeans.wat, line for line, so that JavaScript, C and WebAssembly are compared on one
// algorithm and one memory layout (the eval, gradbench/evals/kmeans.ts, uses an array of rows).

export function flatCost(
  points: Float64Array,
  centroids: Float64Array,
  n: number,
  k: number,
  d: number,
): number {
  let total = 0;
  for (let p = 0; p < n; p++) {
    let nearest = Infinity;
    for (let j = 0; j < k; j++) {
      let dist = 0;
      for (let i = 0; i < d; i++) {
        const diff = points[p * d + i]! - centroids[j * d + i]!;
        dist += diff * diff;
      }
      if (dist < nearest) nearest = dist;
    }
    total += nearest;
  }
  return total;
}

/** J ⊘ H into `dir` (k·d); `count` (k) is scratch. */
export function flatDir(
  points: Float64Array,
  centroids: Float64Array,
  n: number,
  k: number,
  d: number,
  dir: Float64Array,
  count: Float64Array,
): void {
  dir.fill(0);
  count.fill(0);
  for (let p = 0; p < n; p++) {
    let nearest = Infinity;
    let best = 0;
    for (let j = 0; j < k; j++) {
      let dist = 0;
      for (let i = 0; i < d; i++) {
        const diff = points[p * d + i]! - centroids[j * d + i]!;
        dist += diff * diff;
      }
      if (dist < nearest) {
        nearest = dist;
        best = j;
      }
    }
    for (let i = 0; i < d; i++) {
      dir[best * d + i]! += 2 * (centroids[best * d + i]! - points[p * d + i]!);
    }
    count[best]! += 1;
  }
  for (let j = 0; j < k; j++) {
    const h = 2 * count[j]!;
    for (let i = 0; i < d; i++) dir[j * d + i]! /= h;
  }
}

/** Rows of d, concatenated. */
export function flatten(rows: readonly Float64Array[], d: number): Float64Array {
  const flat = new Float64Array(rows.length * d);
  rows.forEach((row, i) => flat.set(row, i * d));
  return flat;
}
