// A two-layer network written with classes and Float64Arrays learns y = sin(x) by gradient
// descent. `gradient` differentiates the loss with respect to the whole model and returns a
// plain object of the same shape: { hidden: { w, b }, out: { w, b } }.
import { gradient, type Tangent } from "nabla";

class Dense {
  w: Float64Array;
  b: Float64Array;
  /** @noDerivative */ inputs: number;
  constructor(inputs: number, outputs: number, random: () => number) {
    this.inputs = inputs;
    this.w = Float64Array.from({ length: inputs * outputs }, () => random() - 0.5);
    this.b = new Float64Array(outputs);
  }
  /** tanh(W·x + b) when `squash`, else W·x + b. */
  forward(x: Float64Array, squash: boolean): Float64Array {
    const y = new Float64Array(this.b.length);
    for (let o = 0; o < y.length; o++) {
      let s = this.b[o];
      for (let i = 0; i < this.inputs; i++) s += this.w[o * this.inputs + i] * x[i];
      y[o] = squash ? Math.tanh(s) : s;
    }
    return y;
  }
}

class Model {
  hidden: Dense;
  out: Dense;
  constructor(width: number, random: () => number) {
    this.hidden = new Dense(1, width, random);
    this.out = new Dense(width, 1, random);
  }
  predict(x: number): number {
    return this.out.forward(this.hidden.forward(new Float64Array([x]), true), false)[0];
  }
}

function loss(model: Model, xs: number[], ys: number[]): number {
  let total = 0;
  for (let k = 0; k < xs.length; k++) {
    const r = model.predict(xs[k]) - ys[k];
    total += r * r;
  }
  return total / xs.length;
}

/** Subtracts rate · gradient from every weight of a layer. */
function descend(layer: Dense, g: Tangent<Dense>, rate: number): void {
  for (let i = 0; i < layer.w.length; i++) layer.w[i] -= rate * g.w[i]!;
  for (let i = 0; i < layer.b.length; i++) layer.b[i] -= rate * g.b[i]!;
}

let seed = 7;
const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
const xs = Array.from({ length: 24 }, (_, i) => -3 + (6 * i) / 23);
const ys = xs.map(Math.sin);
const model = new Model(12, random);
const grad = gradient(loss, { wrt: 0 });

for (let step = 0; step <= 3000; step++) {
  const g = grad(model, xs, ys);
  descend(model.hidden, g.hidden, 0.1);
  descend(model.out, g.out, 0.1);
  if (step % 1000 === 0) console.log(`step ${step}: loss ${loss(model, xs, ys).toFixed(5)}`);
}
console.log(`sin(1) ≈ ${model.predict(1).toFixed(3)} (exact ${Math.sin(1).toFixed(3)})`);
