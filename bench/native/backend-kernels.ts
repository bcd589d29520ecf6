// The kernels `npm run bench:wasm` times with both backends: kmeans' cost and lse, each as
// written in gradbench/evals (kmeans.ts, lse.ts), once plain (JavaScript) and once tagged
// `@backend wasm` (the same body), with their gradients and forward derivatives asked of each
// backend by the operators' `backend` option, and their pullbacks (valueWithPullback).
import { differential, gradient, valueWithPullback } from "nabla";
export { wasmArrays, wasmStats } from "nabla";

function squaredDistance(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const diff = a[i]! - b[i]!;
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

/** `kmeansCost` run as WebAssembly. @backend wasm */
export function kmeansCostWasm(points: Float64Array[], centroids: Float64Array[]): number {
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

export function lse(x: Float64Array): number {
  let m = -Infinity;
  for (let i = 0; i < x.length; i++) m = Math.max(m, x[i]!);
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.exp(x[i]! - m);
  return Math.log(s) + m;
}

/** `lse` run as WebAssembly. @backend wasm */
export function lseWasm(x: Float64Array): number {
  let m = -Infinity;
  for (let i = 0; i < x.length; i++) m = Math.max(m, x[i]!);
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.exp(x[i]! - m);
  return Math.log(s) + m;
}

export const kmeansGradientJs = gradient(kmeansCost, { wrt: 1 });
export const kmeansGradientWasm = gradient(kmeansCost, { wrt: 1, backend: "wasm" });
export const kmeansForwardJs = differential(kmeansCost, { wrt: 1 });
export const kmeansForwardWasm = differential(kmeansCost, { wrt: 1, backend: "wasm" });
export const lseGradientJs = gradient(lse);
export const lseGradientWasm = gradient(lse, { backend: "wasm" });
export const lseForwardJs = differential(lse);
export const lseForwardWasm = differential(lse, { backend: "wasm" });
export const kmeansPullbackJs = valueWithPullback(kmeansCost, { wrt: 1 });
export const kmeansPullbackWasm = valueWithPullback(kmeansCost, { wrt: 1, backend: "wasm" });
export const lsePullbackJs = valueWithPullback(lse);
export const lsePullbackWasm = valueWithPullback(lse, { backend: "wasm" });
