// The check every native result passes before it is timed: agreement with JavaScript's result
// (nabla's) to a relative 1e-12, element by element.

export const TOLERANCE = 1e-12;

/**
 * The largest relative difference |x − y| / max(|x|, |y|) over the elements (0 where they are
 * equal or both NaN, as J ⊘ H of a centroid no point is nearest to; Infinity for a length
 * mismatch or one NaN).
 */
export function relativeDifference(
  expected: ArrayLike<number> | number,
  actual: ArrayLike<number> | number,
): number {
  const xs = typeof expected === "number" ? [expected] : expected;
  const ys = typeof actual === "number" ? [actual] : actual;
  if (xs.length !== ys.length) return Infinity;
  let worst = 0;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!;
    const y = ys[i]!;
    if (x === y || (Number.isNaN(x) && Number.isNaN(y))) continue;
    const r = Math.abs(x - y) / Math.max(Math.abs(x), Math.abs(y));
    worst = Number.isNaN(r) ? Infinity : Math.max(worst, r);
  }
  return worst;
}

/** Rows concatenated, for comparing a k×d result with a flat one. */
export function concat(rows: readonly ArrayLike<number>[]): Float64Array {
  const out = new Float64Array(rows.reduce((s, r) => s + r.length, 0));
  let at = 0;
  for (const row of rows) {
    out.set(row, at);
    at += row.length;
  }
  return out;
}
