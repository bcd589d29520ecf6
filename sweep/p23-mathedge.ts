// Math edge cases: atan2, pow with negative bases, %, floor-based interpolation, hypot, cbrt, sign.
import { gradient, derivative, differential, hessian } from "nabla";
import { compare, fdGrad, fd1, summary } from "./check.ts";

const table = [0, 0.8, 1.5, 1.9, 2.1, 2.0, 1.4];

function interp(t: number): number {
  const clamped = Math.min(Math.max(t, 0), table.length - 1.000001);
  const i = Math.floor(clamped);
  const frac = clamped - i;
  return table[i] * (1 - frac) + table[i + 1] * frac;
}

function angles(p: number[]): number {
  const [x, y, z] = p;
  const theta = Math.atan2(y, x);
  const wrapped = ((theta % Math.PI) + Math.PI) % Math.PI;
  const r = Math.hypot(x, y, z);
  return wrapped * r + Math.cbrt(z) + Math.pow(x, 3) + (-x) ** 3 + Math.sign(y) * y ** 2 + x ** 2.5;
}

function logsum(p: number[]): number {
  return (
    Math.log2(p[0]) +
    Math.log10(p[1]) +
    Math.expm1(p[2]) +
    Math.asinh(p[0] * p[1]) +
    Math.atanh(p[2] / 2) +
    Math.acos(p[2] / 3) +
    Math.trunc(p[0]) +
    Math.fround(p[1]) * 0
  );
}

compare("interp", derivative(interp)(2.3), fd1(interp, 2.3));
compare("interp rev", gradient(interp)(2.3), fd1(interp, 2.3));
const p = [1.3, 0.8, 0.4];
const g = gradient(angles)(p);
compare("angles grad", g, fdGrad(angles, p));
compare("angles fwd", differential(angles)(p)([1, 0, 0]), g[0]);
const H = hessian(angles)(p);
compare(
  "angles hess",
  H,
  [0, 1, 2].map((i) => fdGrad((q) => gradient(angles)(q)[i], p)),
  1e-4,
);
const g2 = gradient(logsum)(p);
compare("logsum grad", g2, fdGrad(logsum, p));
compare("logsum fwd", differential(logsum)(p)([0, 1, 1]), g2[1] + g2[2]);
compare("wasm angles", gradient(angles, { backend: "wasm" })(p), g);
compare("wasm logsum", gradient(logsum, { backend: "wasm" })(p), g2);
compare("wasm hess", hessian(angles, { backend: "wasm" })(p), H);
summary("p23-mathedge");
