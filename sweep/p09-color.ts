// Graphics: sRGB -> linear -> XYZ -> Lab color difference (CIE76) with lookup tables.
import { gradient, jacobian, differential } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

type RGB = [r: number, g: number, b: number];
const M: ReadonlyArray<readonly [number, number, number]> = [
  [0.4124, 0.3576, 0.1805],
  [0.2126, 0.7152, 0.0722],
  [0.0193, 0.1192, 0.9505],
];
const WHITE = { X: 0.95047, Y: 1.0, Z: 1.08883 } as const;

const toLinear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
const labF = (t: number) => (t > (6 / 29) ** 3 ? Math.cbrt(t) : t / (3 * (6 / 29) ** 2) + 4 / 29);

function rgbToLab(rgb: RGB): { L: number; a: number; b: number } {
  const lin = rgb.map(toLinear);
  const [X, Y, Z] = M.map((row) => row.reduce((s, m, i) => s + m * lin[i], 0));
  const fx = labF(X / WHITE.X);
  const fy = labF(Y / WHITE.Y);
  const fz = labF(Z / WHITE.Z);
  return { L: 116 * fy - 16, a: 500 * (fx - fy), b: 200 * (fy - fz) };
}

function deltaE(c1: RGB, c2: RGB): number {
  const a = rgbToLab(c1);
  const b = rgbToLab(c2);
  const keys = ["L", "a", "b"] as const;
  return Math.sqrt(keys.reduce((s, k) => s + (a[k] - b[k]) ** 2, 0));
}

function labVec(rgb: number[]): number[] {
  const { L, a, b } = rgbToLab(rgb as RGB);
  return [L, a, b];
}

const c1: RGB = [0.8, 0.3, 0.02];
const c2: RGB = [0.6, 0.35, 0.1];
const [g1, g2] = gradient(deltaE)(c1, c2);
compare(
  "g1 vs fd",
  g1,
  fdGrad((x) => deltaE(x as RGB, c2), c1),
);
compare(
  "g2 vs fd",
  g2,
  fdGrad((x) => deltaE(c1, x as RGB), c2),
);
compare("fwd vs rev", differential(deltaE)(c1, c2)([1, 0, 0], [0, 0, 1]), g1[0] + g2[2]);
const Jf = jacobian(labVec, { mode: "forward" })(c1);
const Jr = jacobian(labVec, { mode: "reverse" })(c1);
compare("jac f vs r", Jf, Jr);
compare(
  "jac vs fd",
  Jr,
  [0, 1, 2].map((i) => fdGrad((x) => labVec(x)[i], c1)),
);
compare("wasm", gradient(deltaE, { backend: "wasm" })(c1, c2), [g1, g2]);
summary("p09-color");
