// gmm's triangular product Q·x as a TypeScript developer writes it, and a sum over points
// that calls it the way gmm's objective does (two arrays made once, written for each point).
// Shared by the tests of the element read moved out of its loop (loop-invariant-reads) and of
// the element held in a local (wasm-promoted-slots).

/** out = Q·x with Q lower triangular (diagonal qdiag, strict lower part l by columns). */
export const TRIANGULAR = `function qTimesX(qdiag: Float64Array, l: Float64Array, x: Float64Array, out: Float64Array): void {
  const d = x.length;
  for (let i = 0; i < d; i++) out[i] = qdiag[i] * x[i];
  let idx = 0;
  for (let col = 0; col < d; col++) {
    for (let row = col + 1; row < d; row++) {
      out[row] += l[idx] * x[col];
      idx++;
    }
  }
}`;

/** `f(qdiag, l, points)`: Σ over points of ‖Q·(p ⊙ qdiag − 0.5)‖². */
export const TRIANGULAR_SUM = `${TRIANGULAR}

export function f(qdiag: Float64Array, l: Float64Array, points: Float64Array[]): number {
  const d = qdiag.length;
  const out = new Float64Array(d);
  const centered = new Float64Array(d);
  let total = 0;
  for (const p of points) {
    for (let t = 0; t < d; t++) centered[t] = p[t] * qdiag[t] - 0.5;
    qTimesX(qdiag, l, centered, out);
    for (let t = 0; t < d; t++) total += out[t] * out[t];
  }
  return total;
}`;
