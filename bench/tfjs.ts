import * as tf from "@tensorflow/tfjs";

// The reverse-mode benchmark programs written for TensorFlow.js, what TypeScript users reach for
// today to get gradients: eager tf ops on scalars (tf.scalar), `tf.grads` for the gradient, the
// pure-JavaScript 'cpu' backend (no native binding, no GPU). Each function mirrors the one in
// bench/programs/gradient-*.ts op for op; constants used in a loop are made tensors once, as a
// careful tfjs user would. tfjs computes in float32 (its CPU backend has no float64).

/** A tensor of rank 0 (tfjs's op methods are typed as returning a Tensor of any rank). */
type Scalar = tf.Tensor;
type GradientFn = (...args: number[]) => number[];

/**
 * Selects the pure-JS CPU backend in production mode (no debug checks). tfjs's console output
 * is silenced while it starts: the CPU backend advertises the native one on first use (which
 * production mode suppresses too).
 */
export async function initTfjs(): Promise<string> {
  const saved = { log: console.log, warn: console.warn, info: console.info };
  console.log = console.warn = console.info = () => {};
  try {
    tf.enableProdMode();
    if (!(await tf.setBackend("cpu"))) throw new Error("tfjs: the 'cpu' backend is unavailable");
    await tf.ready();
    // The first tensor triggers the backend's first-use message.
    tf.tidy(() => tf.scalar(0).dataSync());
  } finally {
    Object.assign(console, saved);
  }
  if (tf.getBackend() !== "cpu") throw new Error(`tfjs runs on '${tf.getBackend()}', not 'cpu'`);
  return tf.version.tfjs;
}

/** The gradient of a tfjs function of scalars, as plain numbers; no tensor outlives a call. */
function gradientOf(f: (...args: Scalar[]) => Scalar): GradientFn {
  const grads = tf.grads((...args: tf.Tensor[]) => f(...args));
  return (...args: number[]) =>
    tf.tidy(() => grads(args.map((v) => tf.scalar(v))).map((g) => g.dataSync()[0]!));
}

/** Tensors created by tfjs that are still alive (a leak check). */
export function tfjsTensorCount(): number {
  return tf.memory().numTensors;
}

// ---- (a) straight-line ----

function energy(
  x1: Scalar,
  y1: Scalar,
  x2: Scalar,
  y2: Scalar,
  x3: Scalar,
  y3: Scalar,
  x4: Scalar,
  y4: Scalar,
): Scalar {
  const dx12 = x1.sub(x2);
  const dy12 = y1.sub(y2);
  const dx13 = x1.sub(x3);
  const dy13 = y1.sub(y3);
  const dx14 = x1.sub(x4);
  const dy14 = y1.sub(y4);
  const dx23 = x2.sub(x3);
  const dy23 = y2.sub(y3);
  const dx24 = x2.sub(x4);
  const dy24 = y2.sub(y4);
  const dx34 = x3.sub(x4);
  const dy34 = y3.sub(y4);
  const sq = (dx: Scalar, dy: Scalar) => dx.mul(dx).add(dy.mul(dy));
  const q12 = sq(dx12, dy12);
  const q13 = sq(dx13, dy13);
  const q14 = sq(dx14, dy14);
  const q23 = sq(dx23, dy23);
  const q24 = sq(dx24, dy24);
  const q34 = sq(dx34, dy34);
  const lj = (q: Scalar) => {
    const s = tf.div(1, q.mul(q).mul(q));
    return s.mul(s).sub(s);
  };
  const ljSum = lj(q12).add(lj(q13)).add(lj(q14)).add(lj(q23)).add(lj(q24)).add(lj(q34)).mul(4);
  const r12 = q12.sqrt();
  const r23 = q23.sqrt();
  const r34 = q34.sqrt();
  const b12 = r12.sub(1.2);
  const b23 = r23.sub(1.2);
  const b34 = r34.sub(1.2);
  const bonds = b12.mul(b12).add(b23.mul(b23)).add(b34.mul(b34)).mul(50);
  const cosine = dx12.mul(dx23).add(dy12.mul(dy23)).neg().div(r12.mul(r23));
  const bend = cosine.acos().sub(1.9);
  const phi = tf.atan2(dy34, dx34).sub(tf.atan2(dy12, dx12));
  const angles = bend.mul(10).mul(bend).add(phi.cos().add(1).mul(2));
  const wall = y1.add(y2).add(y3).add(y4).mul(0.3).exp();
  return ljSum.add(bonds).add(angles).add(wall);
}

export const tfEnergyGradient: GradientFn = gradientOf(energy);

// ---- (b) loop ----

/** The pendulum of gradient-loop.ts with `steps` iterations, as a tfjs function of (k, c, θ₀). */
function pendulum(steps: number) {
  return (k: Scalar, c: Scalar, theta0: Scalar): Scalar => {
    const h = tf.scalar(1e-5);
    const half = tf.scalar(0.5);
    let theta = theta0;
    let omega = tf.scalar(0);
    let energy = tf.scalar(0);
    for (let i = 0; i < steps; i++) {
      omega = omega.sub(k.mul(theta.sin()).add(c.mul(omega)).mul(h));
      theta = theta.add(omega.mul(h));
      energy = energy.add(half.mul(omega).mul(omega).sub(k.mul(theta.cos())).mul(h));
    }
    return theta.add(energy);
  };
}

/** [∂/∂k, ∂/∂c, ∂/∂θ₀] of pendulum with `steps` iterations. */
export function tfPendulumGradient(steps: number): GradientFn {
  return gradientOf(pendulum(steps));
}

// ---- (c) branches in a loop ----

/** The oscillator of gradient-branches.ts; the branch reads x's value, as eager tfjs allows. */
function oscillator(steps: number) {
  return (k: Scalar, c: Scalar, b: Scalar, x0: Scalar): Scalar => {
    const h = tf.scalar(1e-3);
    const one = tf.scalar(1);
    let x = x0;
    let v = tf.scalar(0);
    let cost = tf.scalar(0);
    for (let i = 0; i < steps; i++) {
      let acc: Scalar;
      if (x.dataSync()[0]! > 0) {
        acc = k.neg().mul(x.sin()).sub(c.mul(v));
      } else {
        acc = k
          .neg()
          .mul(x)
          .mul(one.add(b.mul(x).mul(x)))
          .sub(c.mul(v));
      }
      v = v.add(acc.mul(h));
      x = x.add(v.mul(h));
      cost = cost.add(x.mul(x).mul(h));
    }
    return x.add(cost);
  };
}

/** [∂/∂k, ∂/∂c, ∂/∂b, ∂/∂x₀] of oscillator with `steps` iterations. */
export function tfOscillatorGradient(steps: number): GradientFn {
  return gradientOf(oscillator(steps));
}

// ---- (d) recursion ----

function radical(x: Scalar, a: Scalar, n: number): Scalar {
  if (n === 0) return tf.scalar(1);
  return a
    .mul(n)
    .add(x.mul(radical(x, a, n - 1)))
    .sqrt();
}

/** [∂/∂x, ∂/∂a] of radical(x, a, depth). */
export function tfRadicalGradient(depth: number): GradientFn {
  return gradientOf((x, a) => radical(x, a, depth));
}

// ---- (f) structured data: the two-layer perceptron ----

/** The parameters of the MLP of bench/programs/structured.ts, as nabla's gradient lays them out. */
interface MlpLayout<T> {
  hidden: { w: T; b: T };
  output: { w: T; b: T };
}

export interface TfMlp {
  /**
   * The gradient of the mean squared error over one batch (row-major B × inputs and
   * B × outputs), in the layout of nabla's gradient; no tensor outlives a call.
   */
  gradient(inputs: Float32Array, targets: Float32Array): MlpLayout<Float32Array>;
  /** Releases the model's variables. */
  dispose(): void;
}

/**
 * The MLP written as a tfjs user would: the weights in `tf.variable`s (created once, from
 * the same values as the nabla model), the batch as one matrix, `tf.matMul` and `tf.tanh`
 * for the layers, `tf.variableGrads` for the gradient with respect to every variable.
 */
export function tfMlp(model: MlpLayout<Float64Array>, batch: number): TfMlp {
  const hidden = model.hidden.b.length;
  const outputs = model.output.b.length;
  const inputs = model.hidden.w.length / hidden;
  // tidy disposes of the initial values; the variables stay until `dispose`.
  const [w1, b1, w2, b2] = tf.tidy(() => [
    tf.variable(tf.tensor2d(Float32Array.from(model.hidden.w), [hidden, inputs])),
    tf.variable(tf.tensor1d(Float32Array.from(model.hidden.b))),
    tf.variable(tf.tensor2d(Float32Array.from(model.output.w), [outputs, hidden])),
    tf.variable(tf.tensor1d(Float32Array.from(model.output.b))),
  ]);
  const variables = [w1!, b1!, w2!, b2!];
  const loss = (x: tf.Tensor2D, t: tf.Tensor2D) => (): tf.Scalar => {
    const h = tf.tanh(tf.matMul(x, w1!, false, true).add(b1!));
    const y = tf.matMul(h, w2!, false, true).add(b2!);
    return y.sub(t).square().sum().div(batch);
  };
  return {
    gradient: (xs, ts) =>
      tf.tidy(() => {
        const x = tf.tensor2d(xs, [batch, inputs]);
        const t = tf.tensor2d(ts, [batch, outputs]);
        const { grads } = tf.variableGrads(loss(x, t), variables);
        const [gw1, gb1, gw2, gb2] = variables.map(
          (v) => grads[v.name]!.dataSync() as Float32Array,
        );
        return { hidden: { w: gw1!, b: gb1! }, output: { w: gw2!, b: gb2! } };
      }),
    dispose: () => variables.forEach((v) => v.dispose()),
  };
}

// ---- (h) higher order: the Rosenbrock function ----

export interface TfRosenbrock {
  /** ∇f(x), in float32. */
  gradient(x: Float32Array): Float32Array;
  /** ∇²f(x)·v, in float32: reverse mode over reverse mode. */
  hessianVectorProduct(x: Float32Array, v: Float32Array): Float32Array;
}

/**
 * The Rosenbrock function of bench/programs/higher-order.ts vectorized as a tfjs user would
 * write it (slices of x instead of a loop), with its gradient (`tf.grad`) and its
 * Hessian-vector product as the gradient of x ↦ ⟨∇f(x), v⟩ (`tf.grad` of `tf.grad`, tfjs's
 * gradients being differentiable ops themselves). No tensor outlives a call.
 */
export function tfRosenbrock(n: number): TfRosenbrock {
  const rosen = (x: tf.Tensor): tf.Scalar => {
    const head = x.slice(0, n - 1);
    const tail = x.slice(1, n - 1);
    const a = tail.sub(head.square());
    const b = tf.scalar(1).sub(head);
    return a.square().mul(100).add(b.square()).sum();
  };
  const grad = tf.grad(rosen);
  return {
    gradient: (x) => tf.tidy(() => grad(tf.tensor1d(x)).dataSync() as Float32Array),
    hessianVectorProduct: (x, v) =>
      tf.tidy(() => {
        const direction = tf.tensor1d(v);
        const hvp = tf.grad((xt: tf.Tensor) => grad(xt).mul(direction).sum());
        return hvp(tf.tensor1d(x)).dataSync() as Float32Array;
      }),
  };
}
