// ML: an MLP with configurable activations, trained with cross-entropy; gradient wrt params.
import { gradient, valueWithGradient, differential, hessianVectorProduct } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

enum Activation {
  Relu,
  Tanh,
  Sigmoid,
}

interface Layer {
  weights: number[][];
  bias: number[];
  activation: Activation;
}

const activate = (z: number, a: Activation): number => {
  switch (a) {
    case Activation.Relu:
      return Math.max(0, z);
    case Activation.Tanh:
      return Math.tanh(z);
    case Activation.Sigmoid:
      return 1 / (1 + Math.exp(-z));
    default:
      return z;
  }
};

function forward(layers: Layer[], input: number[]): number[] {
  return layers.reduce(
    (x, layer) =>
      layer.weights.map((row, j) =>
        activate(
          row.reduce((s, w, i) => s + w * x[i], layer.bias[j]),
          layer.activation,
        ),
      ),
    input,
  );
}

function softmax(logits: number[]): number[] {
  const m = Math.max(...logits);
  const exps = logits.map((z) => Math.exp(z - m));
  const total = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / total);
}

function crossEntropy(layers: Layer[], xs: number[][], labels: number[]): number {
  let loss = 0;
  for (const [k, x] of xs.entries()) {
    const probs = softmax(forward(layers, x));
    loss -= Math.log(probs[labels[k]] + 1e-12);
  }
  return loss / xs.length;
}

let seed = 7;
const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5;
const makeLayer = (nIn: number, nOut: number, activation: Activation): Layer => ({
  weights: Array.from({ length: nOut }, () => Array.from({ length: nIn }, rand)),
  bias: new Array(nOut).fill(0).map(() => rand() * 0.1),
  activation,
});
const net = [
  makeLayer(3, 5, Activation.Tanh),
  makeLayer(5, 4, Activation.Sigmoid),
  makeLayer(4, 3, Activation.Relu),
];
const xs = [
  [0.1, -0.4, 0.9],
  [1.2, 0.3, -0.5],
  [-0.7, 0.8, 0.2],
];
const labels = [0, 2, 1];

// flatten/unflatten to compare with finite differences
const flatten = (ls: Layer[]) => ls.flatMap((l) => [...l.weights.flat(), ...l.bias]);
function unflatten(v: number[]): Layer[] {
  let k = 0;
  return net.map((l) => ({
    weights: l.weights.map((r) => r.map(() => v[k++])),
    bias: l.bias.map(() => v[k++]),
    activation: l.activation,
  }));
}
const { value, gradient: g } = valueWithGradient(crossEntropy, { wrt: 0 })(net, xs, labels);
compare("value", value, crossEntropy(net, xs, labels), 1e-12);
const p0 = flatten(net);
compare(
  "grad vs fd",
  flatten(g as unknown as Layer[]),
  fdGrad((p) => crossEntropy(unflatten(p), xs, labels), p0),
);
const dir = p0.map((_, i) => Math.sin(i));
const fwd = differential(crossEntropy, { wrt: 0 })(net, xs, labels)(unflatten(dir) as never);
compare(
  "fwd vs rev",
  fwd,
  flatten(g as unknown as Layer[]).reduce((s, gi, i) => s + gi * dir[i], 0),
);
const gw = gradient(crossEntropy, { wrt: 0, backend: "wasm" })(net, xs, labels);
compare("wasm", flatten(gw as unknown as Layer[]), flatten(g as unknown as Layer[]));
// HVP on input
const inputLoss = (x: number[]) => crossEntropy(net, [x], [1]);
const hv = hessianVectorProduct(inputLoss)([0.3, 0.2, -0.1], [1, 0.5, -1]);
const hvfd = fdGrad(
  (x) => {
    const gg = gradient(inputLoss)(x);
    return gg[0] * 1 + gg[1] * 0.5 - gg[2];
  },
  [0.3, 0.2, -0.1],
);
compare("hvp vs fd", hv, hvfd, 1e-4);
summary("p03-mlp");
