import { gradient } from "nabla";

// Structured data: gradients of functions of arrays, objects and classes, written the way a
// TypeScript developer would write them without automatic differentiation in mind — helpers
// that fill output arrays, classes with fields and methods, a struct of arrays updated in
// place. Each gradient has the shape of its argument (Float64Array for Float64Array, a plain
// object of the differentiable fields for an object or class instance).

// ---- (e) matrix–vector product ----

/** n of the n × n matrix of the benchmark. */
export const N = 256;

/** out = A·x for a row-major n × n matrix A. */
export function matvec(out: Float64Array, A: Float64Array, x: Float64Array, n: number): void {
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < n; j++) {
      s += A[i * n + j] * x[j];
    }
    out[i] = s;
  }
}

/** ‖A·x‖². */
export function matvecLoss(A: Float64Array, x: Float64Array, n: number): number {
  const y = new Float64Array(n);
  matvec(y, A, x, n);
  let loss = 0;
  for (let i = 0; i < n; i++) {
    loss += y[i] * y[i];
  }
  return loss;
}

/** [∂/∂A, ∂/∂x] of matvecLoss. */
export const gradMatvec = gradient(matvecLoss, { wrt: [0, 1] });

// ---- (f) a two-layer perceptron ----

export const BATCH = 64;
export const WIDTH = 64;

/** A fully connected layer: y = W·x + b, with W row-major (outputs × inputs). */
export class Dense {
  w: Float64Array;
  b: Float64Array;

  constructor(inputs: number, outputs: number, seed: number) {
    this.w = new Float64Array(inputs * outputs);
    this.b = new Float64Array(outputs);
    const scale = 1 / Math.sqrt(inputs);
    for (let k = 0; k < this.w.length; k++) {
      this.w[k] = scale * Math.sin(seed + 1.7 * k);
    }
    for (let o = 0; o < outputs; o++) {
      this.b[o] = 0.1 * Math.cos(seed + o);
    }
  }

  forward(x: Float64Array): Float64Array {
    const inputs = x.length;
    const y = new Float64Array(this.b.length);
    for (let o = 0; o < y.length; o++) {
      let s = this.b[o];
      for (let i = 0; i < inputs; i++) {
        s += this.w[o * inputs + i] * x[i];
      }
      y[o] = s;
    }
    return y;
  }
}

/** inputs → hidden (tanh) → outputs (linear). */
export class MLP {
  hidden: Dense;
  output: Dense;

  constructor(inputs: number, hidden: number, outputs: number) {
    this.hidden = new Dense(inputs, hidden, 1);
    this.output = new Dense(hidden, outputs, 2);
  }

  forward(x: Float64Array): Float64Array {
    const h = this.hidden.forward(x);
    for (let i = 0; i < h.length; i++) {
      h[i] = Math.tanh(h[i]);
    }
    return this.output.forward(h);
  }
}

/** Mean over the batch of the squared error ‖model(x) − t‖². */
export function mlpLoss(model: MLP, inputs: Float64Array[], targets: Float64Array[]): number {
  let loss = 0;
  for (let k = 0; k < inputs.length; k++) {
    const y = model.forward(inputs[k]);
    const t = targets[k];
    for (let i = 0; i < y.length; i++) {
      const d = y[i] - t[i];
      loss += d * d;
    }
  }
  return loss / inputs.length;
}

/** ∂mlpLoss/∂model: { hidden: { w, b }, output: { w, b } }. */
export const gradMlp = gradient(mlpLoss, { wrt: 0 });

// ---- (g) a particle system stepped in place ----

export const PARTICLES = 64;
export const STEPS = 100;

/** Struct of arrays: particle i is at (x[i], y[i]) with velocity (vx[i], vy[i]). */
export interface Particles {
  x: Float64Array;
  y: Float64Array;
  vx: Float64Array;
  vy: Float64Array;
}

const STIFFNESS = 4;
const DRAG = 0.3;
const DT = 0.01;

/** One semi-implicit Euler step, in place: a spring to the origin and quadratic drag. */
export function step(p: Particles, h: number): void {
  for (let i = 0; i < p.x.length; i++) {
    const speed = Math.sqrt(p.vx[i] * p.vx[i] + p.vy[i] * p.vy[i]);
    const ax = -STIFFNESS * p.x[i] - DRAG * speed * p.vx[i];
    const ay = -STIFFNESS * p.y[i] - DRAG * speed * p.vy[i];
    p.vx[i] += ax * h;
    p.vy[i] += ay * h;
    p.x[i] += p.vx[i] * h;
    p.y[i] += p.vy[i] * h;
  }
}

/** Squared distance of the particles to (1, 0.5) after `steps` steps from `initial`. */
export function particlesLoss(initial: Particles, steps: number): number {
  const p: Particles = {
    x: initial.x.slice(),
    y: initial.y.slice(),
    vx: initial.vx.slice(),
    vy: initial.vy.slice(),
  };
  for (let s = 0; s < steps; s++) {
    step(p, DT);
  }
  let loss = 0;
  for (let i = 0; i < p.x.length; i++) {
    const dx = p.x[i] - 1;
    const dy = p.y[i] - 0.5;
    loss += dx * dx + dy * dy;
  }
  return loss;
}

/** ∂particlesLoss/∂initial: { x, y, vx, vy }. */
export const gradParticles = gradient(particlesLoss, { wrt: 0 });
