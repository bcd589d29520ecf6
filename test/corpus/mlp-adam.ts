// Two-layer tanh MLP fit to a 1-D regression task with a few hand-written Adam steps; returns the post-training loss.

type Matrix = number[][];

export interface MlpParams {
  w1: Matrix;
  b1: number[];
  w2: Matrix;
  b2: number[];
}

interface Sample {
  x: number[];
  y: number[];
}

class DenseLayer {
  constructor(public weights: Matrix, public bias: number[], readonly activation: "tanh" | "linear" = "linear") {}

  get outSize() {
    return this.weights.length;
  }

  forward(x: number[]) {
    const pre = this.weights.map((row, i) => row.reduce((s, w, j) => s + w * x[j], this.bias[i]));
    const out = this.activation === "tanh" ? pre.map(Math.tanh) : [...pre];
    return { pre, out };
  }

  backward(x: number[], out: number[], gradOut: number[]) {
    const gradPre = this.activation === "tanh" ? gradOut.map((g, i) => g * (1 - out[i] * out[i])) : gradOut;
    const gradW = gradPre.map((g) => x.map((xj) => g * xj));
    const gradX = x.map((_, j) => gradPre.reduce((s, g, i) => s + g * this.weights[i][j], 0));
    return { gradW, gradB: gradPre, gradX };
  }
}

interface Moments {
  m: number[];
  v: number[];
}

class Adam {
  private moments = new Map<string, Moments>();
  private t = 0;

  constructor(private lr = 0.05, private beta1 = 0.9, private beta2 = 0.999, private eps = 1e-8) {}

  tick() {
    this.t++;
  }

  update(key: string, params: number[], grads: number[]): number[] {
    let state = this.moments.get(key);
    if (!state) {
      state = { m: params.map(() => 0), v: params.map(() => 0) };
      this.moments.set(key, state);
    }
    const { m, v } = state;
    const c1 = 1 - this.beta1 ** this.t;
    const c2 = 1 - this.beta2 ** this.t;
    return params.map((p, i) => {
      m[i] = this.beta1 * m[i] + (1 - this.beta1) * grads[i];
      v[i] = this.beta2 * v[i] + (1 - this.beta2) * grads[i] ** 2;
      return p - (this.lr * (m[i] / c1)) / (Math.sqrt(v[i] / c2) + this.eps);
    });
  }
}

const reshape = (flat: number[], cols: number): Matrix =>
  Array.from({ length: flat.length / cols }, (_, r) => flat.slice(r * cols, (r + 1) * cols));

function lossAndGrads(layers: DenseLayer[], data: Sample[]) {
  const grads = layers.map((l) => ({ w: l.weights.map((r) => r.map(() => 0)), b: l.bias.map(() => 0) }));
  let loss = 0;
  for (const { x, y } of data) {
    const acts = [x];
    for (const layer of layers) acts.push(layer.forward(acts[acts.length - 1]).out);
    const pred = acts[acts.length - 1];
    let g = pred.map((p, i) => (2 * (p - y[i])) / data.length);
    loss += pred.reduce((s, p, i) => s + (p - y[i]) ** 2, 0) / data.length;
    for (let l = layers.length - 1; l >= 0; l--) {
      const { gradW, gradB, gradX } = layers[l].backward(acts[l], acts[l + 1], g);
      gradW.forEach((row, i) => row.forEach((v, j) => (grads[l].w[i][j] += v)));
      gradB.forEach((v, i) => (grads[l].b[i] += v));
      g = gradX;
    }
  }
  return { loss, grads };
}

export const dataset: Sample[] = Array.from({ length: 12 }, (_, i) => {
  const x = -1 + (2 * i) / 11;
  return { x: [x], y: [Math.sin(2.5 * x) + 0.3 * x * x] };
});

export function objective(params: MlpParams, data: Sample[] = dataset, steps = 6): number {
  const layers = [
    new DenseLayer(params.w1.map((r) => [...r]), [...params.b1], "tanh"),
    new DenseLayer(params.w2.map((r) => [...r]), [...params.b2]),
  ];
  const adam = new Adam();
  for (let s = 0; s < steps; s++) {
    const { grads } = lossAndGrads(layers, data);
    adam.tick();
    layers.forEach((layer, l) => {
      const cols = layer.weights[0].length;
      layer.weights = reshape(adam.update(`w${l}`, layer.weights.flat(), grads[l].w.flat()), cols);
      layer.bias = adam.update(`b${l}`, layer.bias, grads[l].b);
    });
  }
  return lossAndGrads(layers, data).loss;
}

export const args: Parameters<typeof objective> = [
  {
    w1: [[0.8], [-1.1], [0.5], [1.7]],
    b1: [0.1, -0.2, 0.3, -0.05],
    w2: [[0.6, -0.4, 0.9, 0.25]],
    b2: [0.05],
  },
  dataset,
  6,
];
