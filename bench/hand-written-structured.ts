// Reverse derivatives (gradients) of the structured-data benchmark programs
// (bench/programs/structured.ts), written by hand as a careful engineer would: loops over the
// arrays, the adjoints accumulated straight into the gradient arrays, scratch memory kept from
// call to call, and a tape only where the backward sweep needs values the primal overwrote.
// Each function returns a fresh gradient of the shape nabla's `gradient` returns.
import { Scratch } from "./scratch.js";

// ---- (e) matrix–vector product: ‖A·x‖² ----

const matvecScratch = new Scratch();

/**
 * [∂/∂A, ∂/∂x] of matvecLoss: y = A·x is kept in scratch memory, then with ȳ = 2y,
 * Ā = ȳ xᵀ and x̄ = Aᵀ ȳ in one pass over the rows of A.
 */
export function matvecLossGradient(
  A: Float64Array,
  x: Float64Array,
  n: number,
): [Float64Array, Float64Array] {
  const y = matvecScratch.reserve(n);
  for (let i = 0; i < n; i++) {
    const row = i * n;
    let s = 0;
    for (let j = 0; j < n; j++) s += A[row + j]! * x[j]!;
    y[i] = s;
  }
  const dA = new Float64Array(n * n);
  const dx = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const row = i * n;
    const dy = 2 * y[i]!;
    for (let j = 0; j < n; j++) {
      dA[row + j] = dy * x[j]!;
      dx[j] += dy * A[row + j]!;
    }
  }
  return [dA, dx];
}

/** Float64 entries of scratch memory the last matvec gradient used. */
export function matvecScratchEntries(): number {
  return matvecScratch.used;
}

// ---- (f) the two-layer perceptron ----

export interface DenseParameters {
  w: Float64Array;
  b: Float64Array;
}

export interface MlpParameters {
  hidden: DenseParameters;
  output: DenseParameters;
}

const mlpScratch = new Scratch();

/**
 * ∂/∂model of mlpLoss. The parameters do not change during the loop over the batch, so each
 * sample's forward and backward sweeps run back to back: the hidden activations h = tanh(W₁x + b₁)
 * and the output adjoint ȳ = 2(W₂h + b₂ − t)/B live in scratch memory reused from sample to
 * sample; then W̄₂ += ȳ hᵀ, b̄₂ += ȳ, h̄ = W₂ᵀ ȳ, z̄ = h̄ (1 − h²), W̄₁ += z̄ xᵀ, b̄₁ += z̄.
 */
export function mlpLossGradient(
  model: MlpParameters,
  inputs: readonly Float64Array[],
  targets: readonly Float64Array[],
): MlpParameters {
  const w1 = model.hidden.w;
  const b1 = model.hidden.b;
  const w2 = model.output.w;
  const b2 = model.output.b;
  const hidden = b1.length;
  const outputs = b2.length;
  const g: MlpParameters = {
    hidden: { w: new Float64Array(w1.length), b: new Float64Array(hidden) },
    output: { w: new Float64Array(w2.length), b: new Float64Array(outputs) },
  };
  const gw1 = g.hidden.w;
  const gb1 = g.hidden.b;
  const gw2 = g.output.w;
  const gb2 = g.output.b;
  const scratch = mlpScratch.reserve(2 * hidden + outputs);
  const h = scratch.subarray(0, hidden);
  const hB = scratch.subarray(hidden, 2 * hidden);
  const yB = scratch.subarray(2 * hidden, 2 * hidden + outputs);
  const scale = 2 / inputs.length;
  for (let k = 0; k < inputs.length; k++) {
    const x = inputs[k]!;
    const t = targets[k]!;
    const n = x.length;
    // Forward sweep.
    for (let j = 0; j < hidden; j++) {
      const row = j * n;
      let s = b1[j]!;
      for (let i = 0; i < n; i++) s += w1[row + i]! * x[i]!;
      h[j] = Math.tanh(s);
    }
    for (let o = 0; o < outputs; o++) {
      const row = o * hidden;
      let s = b2[o]!;
      for (let j = 0; j < hidden; j++) s += w2[row + j]! * h[j]!;
      yB[o] = scale * (s - t[o]!);
    }
    // Backward sweep.
    hB.fill(0);
    for (let o = 0; o < outputs; o++) {
      const row = o * hidden;
      const d = yB[o]!;
      gb2[o] += d;
      for (let j = 0; j < hidden; j++) {
        gw2[row + j] += d * h[j]!;
        hB[j] += d * w2[row + j]!;
      }
    }
    for (let j = 0; j < hidden; j++) {
      const row = j * n;
      const hj = h[j]!;
      const d = hB[j]! * (1 - hj * hj);
      gb1[j] += d;
      for (let i = 0; i < n; i++) gw1[row + i] += d * x[i]!;
    }
  }
  return g;
}

/** Float64 entries of scratch memory the last MLP gradient used. */
export function mlpScratchEntries(): number {
  return mlpScratch.used;
}

// ---- (g) the particle system ----

export interface ParticleState {
  x: Float64Array;
  y: Float64Array;
  vx: Float64Array;
  vy: Float64Array;
}

const STIFFNESS = 4;
const DRAG = 0.3;
const DT = 0.01;

const particlesTape = new Scratch();

/**
 * ∂/∂initial of particlesLoss. The forward sweep steps a copy of the state and saves, per
 * particle and step, the velocity before the step and the speed (3 float64): the backward
 * sweep needs the old velocities for the drag (the positions enter linearly) and saving the
 * speed spares it a square root. Per step, with s = |v|, a = −k x − c s v:
 * x' = x + v' h and v' = v + a h give v̄' += x̄' h, ā = v̄' h, x̄ += −k ā,
 * v̄ = v̄' − c s ā − c (ā·v) v / s.
 */
export function particlesLossGradient(initial: ParticleState, steps: number): ParticleState {
  const n = initial.x.length;
  const x = initial.x.slice();
  const y = initial.y.slice();
  const vx = initial.vx.slice();
  const vy = initial.vy.slice();
  const tape = particlesTape.reserve(3 * n * steps);
  for (let s = 0, j = 0; s < steps; s++) {
    for (let i = 0; i < n; i++, j += 3) {
      const u = vx[i]!;
      const w = vy[i]!;
      const speed = Math.sqrt(u * u + w * w);
      tape[j] = u;
      tape[j + 1] = w;
      tape[j + 2] = speed;
      const u1 = u + (-STIFFNESS * x[i]! - DRAG * speed * u) * DT;
      const w1 = w + (-STIFFNESS * y[i]! - DRAG * speed * w) * DT;
      vx[i] = u1;
      vy[i] = w1;
      x[i] = x[i]! + u1 * DT;
      y[i] = y[i]! + w1 * DT;
    }
  }
  // The adjoint of the loss Σ (x − 1)² + (y − 0.5)², reusing the final state's arrays.
  const gx = x;
  const gy = y;
  const gvx = vx;
  const gvy = vy;
  for (let i = 0; i < n; i++) {
    gx[i] = 2 * (x[i]! - 1);
    gy[i] = 2 * (y[i]! - 0.5);
    gvx[i] = 0;
    gvy[i] = 0;
  }
  for (let j = 3 * n * steps - 3; j >= 0;) {
    for (let i = n - 1; i >= 0; i--, j -= 3) {
      const u = tape[j]!;
      const w = tape[j + 1]!;
      const speed = tape[j + 2]!;
      const xB = gx[i]!;
      const yB = gy[i]!;
      const uB = gvx[i]! + xB * DT;
      const wB = gvy[i]! + yB * DT;
      const axB = uB * DT;
      const ayB = wB * DT;
      const speedB = (-DRAG * (axB * u + ayB * w)) / speed;
      gx[i] = xB - STIFFNESS * axB;
      gy[i] = yB - STIFFNESS * ayB;
      gvx[i] = uB - DRAG * speed * axB + speedB * u;
      gvy[i] = wB - DRAG * speed * ayB + speedB * w;
    }
  }
  return { x: gx, y: gy, vx: gvx, vy: gvy };
}

/** Float64 entries of the tape the last particle gradient used. */
export function particlesTapeEntries(): number {
  return particlesTape.used;
}
