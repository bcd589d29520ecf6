// Stats: L2-regularized logistic regression negative log-likelihood with Float64Array.
import { gradient, hessian, valueWithGradient, differential } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

interface Dataset {
  features: Float64Array[];
  labels: number[];
}

const log1pExp = (z: number) => (z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z)));

function nll(w: Float64Array, data: Dataset, lambda = 0.01): number {
  let total = 0;
  data.features.forEach((x, i) => {
    let z = 0;
    for (let j = 0; j < w.length; j++) z += w[j] * x[j];
    total += data.labels[i] === 1 ? log1pExp(-z) : log1pExp(z);
  });
  const reg = w.reduce((s, wi) => s + wi * wi, 0);
  return total / data.features.length + (lambda / 2) * reg;
}

const data: Dataset = {
  features: [
    Float64Array.of(1, 0.5, -1.2),
    Float64Array.of(1, -0.3, 0.8),
    Float64Array.of(1, 2.1, 0.1),
    Float64Array.of(1, -1.5, -0.4),
  ],
  labels: [1, 0, 1, 0],
};
const w0 = new Float64Array([0.1, -0.2, 0.3]);
const f = (w: number[]) => nll(Float64Array.from(w), data);
const { value, gradient: g } = valueWithGradient(nll, { wrt: 0 })(w0, data);
compare("value", value, nll(w0, data), 1e-12);
compare("grad vs fd", g, fdGrad(f, [...w0]));
const d = differential(nll, { wrt: 0 })(w0, data)(Float64Array.of(1, 2, 3));
compare("fwd vs rev", d, g[0] + 2 * g[1] + 3 * g[2]);
const H = hessian(nll, { wrt: 0 })(w0, data);
const Hfd = [0, 1, 2].map((i) =>
  fdGrad((x) => gradient(nll, { wrt: 0 })(Float64Array.from(x), data)[i], [...w0]),
);
compare("hessian vs fd", H, Hfd, 1e-4);
compare("wasm", gradient(nll, { wrt: 0, backend: "wasm" })(w0, data), g);
// lambda gradient
const gl = gradient(nll, { wrt: 2 })(w0, data, 0.5);
compare("grad lambda", gl, (nll(w0, data, 0.5 + 1e-5) - nll(w0, data, 0.5 - 1e-5)) / 2e-5);
summary("p05b-logistic");
