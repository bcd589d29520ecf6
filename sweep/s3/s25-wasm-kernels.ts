// WebAssembly backend on plain numeric kernels a developer would write: a Float64Array
// log-likelihood with a do…while, a Rosenbrock chain, a matrix–vector loop with labelled
// continue; gradient, valueWithGradient and hessian with { backend: "wasm" } against JS.
import { gradient, valueWithGradient, hessian, differential } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

function studentT(params: Float64Array, data: Float64Array): number {
  const [mu, logScale] = params;
  const nu = 4;
  const scale = Math.exp(logScale);
  let nll = 0;
  let i = 0;
  do {
    const z = (data[i] - mu) / scale;
    nll += logScale + ((nu + 1) / 2) * Math.log1p((z * z) / nu);
    i++;
  } while (i < data.length);
  return nll;
}

function rosenbrock(x: number[]): number {
  let s = 0;
  for (let i = 0; i + 1 < x.length; i++) s += 100 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2;
  return s;
}

function banded(x: number[]): number {
  const n = x.length;
  let total = 0;
  rows: for (let i = 0; i < n; i++) {
    let acc = 0;
    for (let j = 0; j < n; j++) {
      if (Math.abs(i - j) > 1) continue;
      if (x[j] === 0) continue rows;
      acc += (i === j ? 2 : -1) * x[j];
    }
    total += acc * acc * 0.5 + Math.cos(x[i]);
  }
  return total;
}

const data = Float64Array.from([0.3, -1.2, 2.5, 0.1, 0.7, 4.2, -0.4]);
const th = Float64Array.from([0.2, -0.1]);
const gj = gradient(studentT, { wrt: 0 })(th, data);
const gw = gradient(studentT, { wrt: 0, backend: "wasm" })(th, data);
compare("studentT js vs fd", gj, fdGrad((t) => studentT(Float64Array.from(t), data), [...th]));
compare("studentT wasm vs js", gw, gj);
compare("studentT fwd vs rev", differential(studentT, { wrt: 0 })(th, data)(Float64Array.from([1, 1])), gj[0] + gj[1]);
const x = [-1.2, 1, 0.8, 1.3];
const vg = valueWithGradient(rosenbrock, { backend: "wasm" })(x);
compare("rosenbrock value", vg.value, rosenbrock(x));
compare("rosenbrock wasm grad vs fd", vg.gradient, fdGrad(rosenbrock, x));
compare("rosenbrock fwd vs rev", differential(rosenbrock)(x)(x), vg.gradient.reduce((s, g, i) => s + g * x[i], 0));
const Hw = hessian(rosenbrock, { backend: "wasm" })(x);
compare("rosenbrock hessian wasm vs js", Hw, hessian(rosenbrock)(x));
compare("rosenbrock hessian vs fd", Hw, x.map((_, i) => fdGrad((y) => gradient(rosenbrock)(y)[i], x)), 1e-4);
const y = [0.5, -0.3, 1.2, 0.8, -0.9];
const gb = gradient(banded, { backend: "wasm" })(y);
compare("banded wasm vs fd", gb, fdGrad(banded, y));
compare("banded wasm vs js", gb, gradient(banded)(y));
compare("banded fwd vs rev", differential(banded)(y)(y), gb.reduce((s, g, i) => s + g * y[i], 0));
summary("s25-wasm-kernels");
