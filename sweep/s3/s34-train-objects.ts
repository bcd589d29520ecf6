// A training step over structured parameters: the parameters are an object of arrays
// ({ W: number[][], b: number[], scale: number }), a string enum picks the activation, the
// loss returns aux metrics (hasAux), gradients come back shaped like the parameters; HVP along
// a flattened direction and the wasm backend.
import { valueWithGradient, gradient, hessianVectorProduct, differential } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

enum Act {
  Tanh = "tanh",
  Softplus = "softplus",
  Gelu = "gelu",
}

interface Params {
  W: number[][];
  b: number[];
  scale: number;
}

const act = (a: Act, z: number): number =>
  a === Act.Tanh ? Math.tanh(z) : a === Act.Softplus ? Math.log1p(Math.exp(z)) : 0.5 * z * (1 + Math.tanh(0.7978845608 * (z + 0.044715 * z ** 3)));

const X = [
  [0.2, -0.4],
  [1.0, 0.3],
  [-0.7, 0.8],
];
const Y = [0.1, 0.9, 0.4];

function loss(p: Params, a: Act): [number, { accuracy: number; predictions: number[] }] {
  const predictions = X.map((x) => p.scale * p.W.reduce((s, row, j) => s + act(a, row[0] * x[0] + row[1] * x[1] + p.b[j]), 0));
  const mse = predictions.reduce((s, yhat, i) => s + (yhat - Y[i]) ** 2, 0) / Y.length;
  const accuracy = predictions.filter((yhat, i) => Math.abs(yhat - Y[i]) < 0.2).length / Y.length;
  return [mse, { accuracy, predictions }];
}

const flatten = (p: Params): number[] => [...p.W.flat(), ...p.b, p.scale];
const unflatten = (v: number[]): Params => ({ W: [v.slice(0, 2), v.slice(2, 4), v.slice(4, 6)], b: v.slice(6, 9), scale: v[9] });
const lossOnly = (v: number[], a: Act): number => loss(unflatten(v), a)[0];

const p0: Params = { W: [[0.3, -0.2], [0.5, 0.1], [-0.4, 0.6]], b: [0.0, 0.1, -0.1], scale: 0.8 };
for (const a of [Act.Tanh, Act.Softplus, Act.Gelu]) {
  const r = valueWithGradient(loss, { wrt: 0, hasAux: true })(p0, a);
  compare(`${a}: value`, r.value, loss(p0, a)[0]);
  compare(`${a}: aux`, r.aux.predictions, loss(p0, a)[1].predictions);
  compare(`${a}: grad vs fd`, flatten(r.gradient), fdGrad((v) => lossOnly(v, a), flatten(p0)));
  const dir = flatten(p0).map((_, i) => Math.cos(i));
  compare(`${a}: fwd vs rev`, differential(lossOnly, { wrt: 0 })(flatten(p0), a)(dir), flatten(r.gradient).reduce((s, g, i) => s + g * dir[i], 0));
  const hv = hessianVectorProduct(lossOnly, { wrt: 0 })(flatten(p0), a, dir);
  compare(`${a}: hvp vs fd`, hv, fdGrad((v) => gradient(lossOnly, { wrt: 0 })(v, a).reduce((s, g, i) => s + g * dir[i], 0), flatten(p0)));
  compare(`${a}: wasm`, gradient(lossOnly, { wrt: 0, backend: "wasm" })(flatten(p0), a), flatten(r.gradient));
}
summary("s34-train-objects");
