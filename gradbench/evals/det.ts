// GradBench "det": determinant by cofactor expansion along the first row (recursive minors),
// O(ell!) on purpose. Rows and columns are removed without copying: `rows[i]` / `cols[i]` is the
// index following i in the linked list of rows / columns still in the minor, and the list heads
// are stored at index ell (the cmpad formulation GradBench uses).
import { gradient } from "nabla";

function detOfMinor(
  a: Float64Array,
  ell: number,
  size: number,
  rows: number[],
  cols: number[],
): number {
  const r0 = rows[ell];
  let cj = cols[ell];
  if (size === 1) {
    return a[r0 * ell + cj];
  }

  let det = 0;
  let sign = 1;
  rows[ell] = rows[r0]; // remove the minor's first row from every sub-minor
  let previous = ell; // the list entry pointing at column cj
  for (let j = 0; j < size; j++) {
    const m0j = a[r0 * ell + cj];
    cols[previous] = cols[cj]; // remove column cj
    const sub = detOfMinor(a, ell, size - 1, rows, cols);
    cols[previous] = cj; // put it back
    if (sign > 0) {
      det += m0j * sub;
    } else {
      det -= m0j * sub;
    }
    previous = cj;
    cj = cols[cj];
    sign = -sign;
  }
  rows[ell] = r0;
  return det;
}

export function determinant(a: Float64Array, ell: number): number {
  const rows: number[] = [];
  const cols: number[] = [];
  for (let i = 0; i < ell; i++) {
    rows.push(i + 1);
    cols.push(i + 1);
  }
  rows.push(0); // list heads: row 0 and column 0
  cols.push(0);
  return detOfMinor(a, ell, ell, rows, cols);
}

// --- GradBench wrappers (see ../README.md for the prepare/run convention) ---

export interface DetInput {
  A: number[];
  ell: number;
}

export interface DetPrepared {
  a: Float64Array;
  ell: number;
}

export function preparePrimal(input: DetInput): DetPrepared {
  return { a: Float64Array.from(input.A), ell: input.ell };
}

export function runPrimal(p: DetPrepared): number {
  return determinant(p.a, p.ell);
}

export const prepareGradient = preparePrimal;

export function runGradient(p: DetPrepared): Float64Array {
  return gradient(determinant, { wrt: 0 })(p.a, p.ell);
}
