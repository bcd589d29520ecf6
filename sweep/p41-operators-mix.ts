// Operator coverage on one realistic model (a small Gaussian-process-like kernel regression):
// jacobian with several wrt, gradientAndHessianVectorProduct, valueWithDifferential, checkpoint,
// a pullback applied twice and after the inputs changed.
import {
  checkpoint,
  gradient,
  gradientAndHessianVectorProduct,
  hessian,
  jacobian,
  pullback,
  valueWithDifferential,
} from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

function kernel(a: number, b: number, lengthScale: number): number {
  return Math.exp(-((a - b) ** 2) / (2 * lengthScale * lengthScale));
}
function smooth(xs: number[], ys: number[], at: number, lengthScale: number): number {
  let num = 0;
  let den = 1e-9;
  xs.forEach((x, i) => {
    const w = kernel(x, at, lengthScale);
    num += w * ys[i];
    den += w;
  });
  return num / den;
}
function predictions(ys: number[], lengthScale: number): number[] {
  const xs = ys.map((_, i) => i * 0.5);
  return [0.2, 0.9, 1.7].map((t) => checkpoint(smooth)(xs, ys, t, lengthScale));
}
function loss(ys: number[], lengthScale: number): number {
  return predictions(ys, lengthScale).reduce((s, p, i) => s + (p - i) ** 2, 0);
}

const ys = [0.1, 0.8, 1.1, 2.3];
const ls = 0.7;
const [Jy, Jl] = [0, 1].map((k) => k);
void Jy;
void Jl;
const J = jacobian(predictions, { wrt: [0, 1] })(ys, ls) as unknown as [number[], number][];
const Jfd = [0, 1, 2].map((i) => [
  fdGrad((y) => predictions(y, ls)[i], ys),
  (predictions(ys, ls + 1e-6)[i] - predictions(ys, ls - 1e-6)[i]) / 2e-6,
]);
compare("jacobian several wrt vs fd", J, Jfd);
const g = gradient(loss)(ys, ls);
compare("grad vs fd", g, [
  fdGrad((y) => loss(y, ls), ys),
  (loss(ys, ls + 1e-6) - loss(ys, ls - 1e-6)) / 2e-6,
]);
const v = [1, 0, -1, 0.5];
const gh = gradientAndHessianVectorProduct(loss, { wrt: 0 })(ys, ls, v);
compare("gHvp gradient", gh.gradient, g[0]);
const H = hessian(loss, { wrt: 0 })(ys, ls);
compare(
  "gHvp hvp vs H v",
  gh.hessianVectorProduct,
  H.map((row) => row.reduce((s, h, j) => s + h * v[j], 0)),
);
compare(
  "H vs fd",
  H,
  ys.map((_, i) => fdGrad((y) => gradient(loss)(y, ls)[0][i], ys)),
  1e-4,
);
const { value, differential } = valueWithDifferential(loss)(ys, ls);
compare("vwd value", value, loss(ys, ls), 1e-12);
compare("vwd fwd vs rev", differential(v, 1), g[0].reduce((s, gi, i) => s + gi * v[i], 0) + g[1]);
const ysMut = ys.slice();
const pb = pullback(predictions)(ysMut, ls);
const first = pb([1, 1, 1]);
ysMut[0] = 100; // changing the input after taking the pullback
const second = pb([1, 1, 1]);
compare("pullback replay", second, first);
compare(
  "pullback vs J^T 1",
  first[0],
  ys.map((_, j) => J.reduce((s, row) => s + row[0][j], 0)),
);
summary("p41-operators-mix");
