// The differentiable part of the app: a tiny neural network y = f(x), its mean squared error
// on the points, and the Adam optimizer. The gradient of the error with respect to every
// weight comes from nabla: `valueWithGradient(loss, { wrt: 0 })` below is compiled into
// reverse-mode derivative code when the app is built.
import { valueWithGradient, type Tangent } from "nabla";

/** A point in the plot's coordinates: x and y both run from -1 to 1. */
export interface Point {
  x: number;
  y: number;
}

/** Neurons in the hidden layer. */
export const HIDDEN = 16;

/**
 * A 1 → 16 → 1 network with tanh neurons: y = Σⱼ w2ⱼ · tanh(w1ⱼ · x + b1ⱼ) + b2.
 * `b2` is an array of one number so that every parameter lives in a Float64Array.
 */
export interface Params {
  w1: Float64Array;
  b1: Float64Array;
  w2: Float64Array;
  b2: Float64Array;
}

/** The network's output at `x`. */
export function predict(params: Params, x: number): number {
  let y = params.b2[0];
  for (let j = 0; j < params.w1.length; j++) {
    y += params.w2[j] * Math.tanh(params.w1[j] * x + params.b1[j]);
  }
  return y;
}

/** Mean squared error of the network on the points. */
export function loss(params: Params, points: readonly Point[]): number {
  let total = 0;
  for (const point of points) {
    const r = predict(params, point.x) - point.y;
    total += r * r;
  }
  return total / points.length;
}

/** The loss and its gradient with respect to the parameters (a `Tangent<Params>`). */
export const lossAndGradient = valueWithGradient(loss, { wrt: 0 });

/** A pseudo-random generator (mulberry32): the same seed gives the same network. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Fresh parameters. Each hidden neuron is a smooth step, tanh(w1·(x − c)), with its centre
 * c somewhere in [-1, 1] and a steepness between 2 and 6, so that the steps cover the plot;
 * the output weights start small, so the first curve is nearly flat.
 */
export function initParams(seed: number): Params {
  const next = random(seed);
  const params: Params = {
    w1: new Float64Array(HIDDEN),
    b1: new Float64Array(HIDDEN),
    w2: new Float64Array(HIDDEN),
    b2: new Float64Array(1),
  };
  for (let j = 0; j < HIDDEN; j++) {
    const steepness = (2 + 4 * next()) * (next() < 0.5 ? -1 : 1);
    const centre = 2 * next() - 1;
    params.w1[j] = steepness;
    params.b1[j] = -steepness * centre;
    params.w2[j] = (2 * next() - 1) * 0.3;
  }
  return params;
}

/** Adam (Kingma & Ba, 2015): per-weight step sizes from running moments of the gradient. */
export class Adam {
  private readonly m: Params;
  private readonly v: Params;
  private t = 0;

  constructor(
    params: Params,
    readonly rate = 0.01,
    readonly beta1 = 0.9,
    readonly beta2 = 0.999,
    readonly epsilon = 1e-8,
  ) {
    this.m = zerosLike(params);
    this.v = zerosLike(params);
  }

  /** Moves every parameter one step against its gradient. */
  update(params: Params, gradient: Tangent<Params>): void {
    this.t++;
    const correct1 = 1 - this.beta1 ** this.t;
    const correct2 = 1 - this.beta2 ** this.t;
    for (const key of PARAM_KEYS) {
      const p = params[key];
      const g = gradient[key];
      const m = this.m[key];
      const v = this.v[key];
      for (let i = 0; i < p.length; i++) {
        m[i] = this.beta1 * m[i] + (1 - this.beta1) * g[i];
        v[i] = this.beta2 * v[i] + (1 - this.beta2) * g[i] * g[i];
        p[i] -= (this.rate * (m[i] / correct1)) / (Math.sqrt(v[i] / correct2) + this.epsilon);
      }
    }
  }
}

const PARAM_KEYS = ["w1", "b1", "w2", "b2"] as const;

function zerosLike(params: Params): Params {
  return {
    w1: new Float64Array(params.w1.length),
    b1: new Float64Array(params.b1.length),
    w2: new Float64Array(params.w2.length),
    b2: new Float64Array(params.b2.length),
  };
}

/** One training step: returns the loss before the step. */
export function trainStep(params: Params, optimizer: Adam, points: readonly Point[]): number {
  const { value, gradient } = lossAndGradient(params, points);
  optimizer.update(params, gradient);
  return value;
}
