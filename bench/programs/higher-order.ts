import { checkpoint, gradient, hessian, hessianVectorProduct } from "nabla";
import { step, type Particles } from "./structured.js";

// Higher-order derivatives and checkpointing: the Hessian and Hessian-vector products of the
// Rosenbrock function, and the particle system of structured.ts with its steps grouped into
// segments, each segment a plain call or a checkpointed one.

// ---- (h) Rosenbrock ----

/** The dimension of the benchmark's Rosenbrock function. */
export const DIMENSION = 100;

/** Σᵢ 100 (xᵢ₊₁ − xᵢ²)² + (1 − xᵢ)², the classic banana valley in n dimensions. */
export function rosen(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length - 1; i++) {
    const a = x[i + 1] - x[i] * x[i];
    const b = 1 - x[i];
    s += 100 * a * a + b * b;
  }
  return s;
}

/** ∇rosen. */
export const gradRosen = gradient(rosen);
/** The n × n Hessian of rosen, as n rows. */
export const hessRosen = hessian(rosen);
/** ∇²rosen(x) · v, reverse mode over forward mode. */
export const hvpRosen = hessianVectorProduct(rosen);

// ---- (i) the particle system of (g), in checkpointed segments ----

/** The steps of (g), grouped: SEGMENTS × STEPS_PER_SEGMENT = 100. */
export const SEGMENTS = 10;
export const STEPS_PER_SEGMENT = 10;

const DT = 0.01;

/** `steps` steps of structured.ts's `step`, in place. */
export function segment(p: Particles, steps: number, h: number): void {
  for (let s = 0; s < steps; s++) {
    step(p, h);
  }
}

/** The squared distance of the particles to (1, 0.5): the end of structured.ts's particlesLoss. */
function distance(p: Particles): number {
  let loss = 0;
  for (let i = 0; i < p.x.length; i++) {
    const dx = p.x[i] - 1;
    const dy = p.y[i] - 0.5;
    loss += dx * dx + dy * dy;
  }
  return loss;
}

function copy(initial: Particles): Particles {
  return {
    x: initial.x.slice(),
    y: initial.y.slice(),
    vx: initial.vx.slice(),
    vy: initial.vy.slice(),
  };
}

/** structured.ts's particlesLoss, its steps run as `segments` calls of `segment`. */
export function segmentedLoss(initial: Particles, segments: number, steps: number): number {
  const p = copy(initial);
  for (let k = 0; k < segments; k++) {
    segment(p, steps, DT);
  }
  return distance(p);
}

/** The same, each segment checkpointed: reverse mode reruns it instead of taping it. */
export function checkpointedLoss(initial: Particles, segments: number, steps: number): number {
  const p = copy(initial);
  for (let k = 0; k < segments; k++) {
    checkpoint(segment)(p, steps, DT);
  }
  return distance(p);
}

/** ∂segmentedLoss/∂initial: { x, y, vx, vy }. */
export const gradSegmented = gradient(segmentedLoss, { wrt: 0 });
/** ∂checkpointedLoss/∂initial: { x, y, vx, vy }. */
export const gradCheckpointed = gradient(checkpointedLoss, { wrt: 0 });
