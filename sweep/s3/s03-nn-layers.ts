// A small neural net written without AD in mind: layers as class instances with an abstract
// base, overridden forward, `super` calls; softmax cross-entropy with the log-sum-exp trick.
import { gradient, hessianVectorProduct, differential } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

abstract class Layer {
  constructor(readonly name: string) {}
  abstract forward(x: number[]): number[];
  paramCount(): number {
    return 0;
  }
}

class Dense extends Layer {
  constructor(
    readonly weights: number[][],
    readonly bias: number[],
  ) {
    super("dense");
  }
  forward(x: number[]): number[] {
    return this.weights.map((row, i) => row.reduce((s, w, j) => s + w * x[j], this.bias[i]));
  }
  override paramCount(): number {
    return this.weights.length * this.weights[0].length + this.bias.length;
  }
}

class Activation extends Layer {
  forward(x: number[]): number[] {
    return x.map((v) => this.apply(v));
  }
  apply(v: number): number {
    return v;
  }
}

class Tanh extends Activation {
  constructor() {
    super("tanh");
  }
  override apply(v: number): number {
    return Math.tanh(v);
  }
}

class LeakyRelu extends Activation {
  constructor(private readonly slope = 0.01) {
    super("leaky");
  }
  override apply(v: number): number {
    return v > 0 ? v : this.slope * v;
  }
}

function logSumExp(xs: number[]): number {
  const m = Math.max(...xs);
  return m + Math.log(xs.reduce((s, x) => s + Math.exp(x - m), 0));
}

function crossEntropy(logits: number[], label: number): number {
  return logSumExp(logits) - logits[label];
}

function unpack(theta: number[]): Layer[] {
  const W1 = Array.from({ length: 3 }, (_, i) => theta.slice(i * 2, i * 2 + 2));
  const b1 = theta.slice(6, 9);
  const W2 = Array.from({ length: 2 }, (_, i) => theta.slice(9 + i * 3, 12 + i * 3));
  const b2 = theta.slice(15, 17);
  return [new Dense(W1, b1), new Tanh(), new Dense(W2, b2), new LeakyRelu(0.1)];
}

const data: [number[], number][] = [
  [[0.1, 0.9], 0],
  [[0.8, 0.2], 1],
  [[-0.4, 0.3], 0],
  [[0.5, -0.7], 1],
];

function loss(theta: number[]): number {
  const net = unpack(theta);
  let total = 0;
  for (const [x, y] of data) {
    const logits = net.reduce((h, layer) => layer.forward(h), x);
    total += crossEntropy(logits, y);
  }
  return total / data.length;
}

const theta = Array.from({ length: 17 }, (_, i) => Math.sin(i * 1.7) * 0.5);
const g = gradient(loss)(theta);
compare("grad vs fd", g, fdGrad(loss, theta));
const v = theta.map((_, i) => (i % 3) - 1);
compare("fwd vs rev", differential(loss)(theta)(v), g.reduce((s, gi, i) => s + gi * v[i], 0));
const hv = hessianVectorProduct(loss)(theta, v);
compare("hvp vs fd of grad", hv, fdGrad((t) => gradient(loss)(t).reduce((s, gi, i) => s + gi * v[i], 0), theta));
summary("s03-nn-layers");
