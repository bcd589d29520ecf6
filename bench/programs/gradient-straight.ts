import { gradient } from "nabla";

// Reverse mode (a): straight-line code of 8 inputs and about 100 arithmetic and Math
// operations — the potential energy of a chain of four atoms in the plane (Lennard-Jones
// between every pair, harmonic bonds along the chain, a bending and a torsion-like term and a
// soft wall). Its gradient is the vector of the negated forces, 8 numbers from one backward sweep.

export function energy(
  x1: number,
  y1: number,
  x2: number,
  y2: number,
  x3: number,
  y3: number,
  x4: number,
  y4: number,
): number {
  const dx12 = x1 - x2;
  const dy12 = y1 - y2;
  const dx13 = x1 - x3;
  const dy13 = y1 - y3;
  const dx14 = x1 - x4;
  const dy14 = y1 - y4;
  const dx23 = x2 - x3;
  const dy23 = y2 - y3;
  const dx24 = x2 - x4;
  const dy24 = y2 - y4;
  const dx34 = x3 - x4;
  const dy34 = y3 - y4;
  const q12 = dx12 * dx12 + dy12 * dy12;
  const q13 = dx13 * dx13 + dy13 * dy13;
  const q14 = dx14 * dx14 + dy14 * dy14;
  const q23 = dx23 * dx23 + dy23 * dy23;
  const q24 = dx24 * dx24 + dy24 * dy24;
  const q34 = dx34 * dx34 + dy34 * dy34;
  // (σ/r)^6 with σ = 1, from the squared distances.
  const s12 = 1 / (q12 * q12 * q12);
  const s13 = 1 / (q13 * q13 * q13);
  const s14 = 1 / (q14 * q14 * q14);
  const s23 = 1 / (q23 * q23 * q23);
  const s24 = 1 / (q24 * q24 * q24);
  const s34 = 1 / (q34 * q34 * q34);
  const lj =
    4 *
    (s12 * s12 -
      s12 +
      (s13 * s13 - s13) +
      (s14 * s14 - s14) +
      (s23 * s23 - s23) +
      (s24 * s24 - s24) +
      (s34 * s34 - s34));
  const r12 = Math.sqrt(q12);
  const r23 = Math.sqrt(q23);
  const r34 = Math.sqrt(q34);
  const b12 = r12 - 1.2;
  const b23 = r23 - 1.2;
  const b34 = r34 - 1.2;
  const bonds = 50 * (b12 * b12 + b23 * b23 + b34 * b34);
  const cosine = -(dx12 * dx23 + dy12 * dy23) / (r12 * r23);
  const bend = Math.acos(cosine) - 1.9;
  const phi = Math.atan2(dy34, dx34) - Math.atan2(dy12, dx12);
  const angles = 10 * bend * bend + 2 * (1 + Math.cos(phi));
  const wall = Math.exp(0.3 * (y1 + y2 + y3 + y4));
  return lj + bonds + angles + wall;
}

/** ∂energy/∂(x1, y1, …, y4): all 8 partial derivatives, as an array. */
export const gradEnergy = gradient(energy);
