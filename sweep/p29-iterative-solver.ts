// Implicit layers: Newton's method to a tolerance with early return; fixed point in a loop.
import { gradient, derivative, differential } from "nabla";
import { compare, fdGrad, fd1, summary } from "./check.ts";

function solveKepler(meanAnomaly: number, e: number, tol = 1e-14): number {
  let E = meanAnomaly;
  for (let iter = 0; iter < 100; iter++) {
    const f = E - e * Math.sin(E) - meanAnomaly;
    if (Math.abs(f) < tol) return E;
    E -= f / (1 - e * Math.cos(E));
  }
  throw new Error("no convergence");
}

function orbitPosition(params: { M: number; e: number; a: number }): [number, number] {
  const E = solveKepler(params.M, params.e);
  const x = params.a * (Math.cos(E) - params.e);
  const y = params.a * Math.sqrt(1 - params.e ** 2) * Math.sin(E);
  return [x, y];
}

function fixedPointSqrt(a: number): number {
  let x = a > 1 ? a / 2 : 1;
  let prev = Infinity;
  while (Math.abs(x - prev) > 1e-15) {
    prev = x;
    x = 0.5 * (x + a / x);
  }
  return x;
}

const dE = derivative((M: number) => solveKepler(M, 0.3))(1.1);
compare(
  "kepler dM fwd vs fd",
  dE,
  fd1((M) => solveKepler(M, 0.3), 1.1),
  1e-6,
);
const gE = gradient(solveKepler, { wrt: [0, 1] })(1.1, 0.3);
compare("kepler rev vs fwd", gE[0], dE);
compare(
  "kepler de vs fd",
  gE[1],
  fd1((e) => solveKepler(1.1, e), 0.3),
  1e-6,
);
const p = { M: 1.1, e: 0.3, a: 2 };
const fx = (v: number[]) => orbitPosition({ M: v[0], e: v[1], a: v[2] })[0];
const gx = gradient((q: { M: number; e: number; a: number }) => orbitPosition(q)[0])(p);
compare("orbit x vs fd", [gx.M, gx.e, gx.a], fdGrad(fx, [1.1, 0.3, 2]), 1e-6);
compare(
  "orbit fwd",
  differential((q: { M: number; e: number; a: number }) => orbitPosition(q)[0])(p)({
    M: 1,
    e: 0,
    a: 0,
  }),
  gx.M,
);
compare("sqrt fwd", derivative(fixedPointSqrt)(3), 0.5 / Math.sqrt(3), 1e-8);
compare("sqrt rev", gradient(fixedPointSqrt)(3), 0.5 / Math.sqrt(3), 1e-8);
summary("p29-iterative-solver");
