// Graphics: HSV->RGB with sector switch, gamma, tone mapping; jacobian of the color transform.
import { jacobian, gradient, differential } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

type Triple = [number, number, number];

function hsvToRgb([h, s, v]: Triple): Triple {
  const hh = (((h % 360) + 360) % 360) / 60;
  const sector = Math.floor(hh);
  const f = hh - sector;
  const p = v * (1 - s);
  const q = v * (1 - s * f);
  const t = v * (1 - s * (1 - f));
  switch (sector) {
    case 0:
      return [v, t, p];
    case 1:
      return [q, v, p];
    case 2:
      return [p, v, t];
    case 3:
      return [p, q, v];
    case 4:
      return [t, p, v];
    default:
      return [v, p, q];
  }
}

const reinhard = (c: number, white = 4) => (c * (1 + c / (white * white))) / (1 + c);

function toneMapped(hsv: number[], exposure: number): number[] {
  const rgb = hsvToRgb(hsv as Triple).map((c) => c * 2 ** exposure);
  return rgb.map((c) => reinhard(c) ** (1 / 2.2));
}
const luminance = (hsv: number[], exposure: number): number => {
  const [r, g, b] = toneMapped(hsv, exposure);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};

for (const hsv of [
  [30, 0.6, 0.8],
  [200, 0.3, 0.5],
  [-50, 0.9, 0.4],
  [400, 0.5, 0.7],
]) {
  const Jf = jacobian(toneMapped, { wrt: 0, mode: "forward" })(hsv, 0.5);
  const Jr = jacobian(toneMapped, { wrt: 0, mode: "reverse" })(hsv, 0.5);
  compare(`jac f vs r ${hsv[0]}`, Jf, Jr);
  compare(
    `jac vs fd ${hsv[0]}`,
    Jr,
    [0, 1, 2].map((i) => fdGrad((x) => toneMapped(x, 0.5)[i], hsv)),
  );
  const g = gradient(luminance)(hsv, 0.5);
  compare(
    `lum exposure ${hsv[0]}`,
    g[1],
    (luminance(hsv, 0.5 + 1e-5) - luminance(hsv, 0.5 - 1e-5)) / 2e-5,
  );
  compare(
    `lum fwd ${hsv[0]}`,
    differential(luminance)(hsv, 0.5)([1, 1, 1], 0),
    g[0].reduce((a, b) => a + b),
  );
}
compare(
  "wasm",
  gradient(luminance, { backend: "wasm" })([30, 0.6, 0.8], 0.5),
  gradient(luminance)([30, 0.6, 0.8], 0.5),
);
summary("p36-hsv");
