// Solving Kepler's equation M = E − e·sin(E) for the eccentric anomaly E with Newton's
// method, where nabla supplies the derivative of the residual.
import { derivative } from "nabla";

function residual(E: number, e: number, M: number): number {
  return E - e * Math.sin(E) - M;
}

/** Eccentric anomaly of an orbit with eccentricity `e` at mean anomaly `M`. */
export function eccentricAnomaly(M: number, e: number): number {
  const slope = derivative((E: number) => residual(E, e, M));
  let E = M;
  for (let i = 0; i < 50; i++) {
    const step = residual(E, e, M) / slope(E);
    E -= step;
    if (Math.abs(step) < 1e-14) break;
  }
  return E;
}

for (const e of [0.1, 0.5, 0.9]) {
  const E = eccentricAnomaly(1, e);
  console.log(`e = ${e}: E = ${E.toFixed(12)}, check M = ${(E - e * Math.sin(E)).toFixed(12)}`);
}
