// GradBench "particle": a charged particle starts at (0, 8) with velocity (0.75, 0) and moves by
// Euler steps (Δt = 0.1) under the force −∇p of the potential p(x) = Σ 1/‖x − charge‖ of unit
// charges at (10, 10 − w) and (10, 0); when it crosses y = 0 the result is the square of where
// it hit. w is found by gradient descent, differentiating through the simulation, which itself
// differentiates the potential: nested AD. The two letters of ff/fr/rf/rr name the mode of the
// outer (w) and the inner (∇p) derivative.
import { derivative, gradient } from "nabla";
import { multivariateArgmin, type Mode } from "./gd.js";

export interface Point {
  x: number;
  y: number;
}

function distance(u: Point, v: Point): number {
  return Math.sqrt((u.x - v.x) * (u.x - v.x) + (u.y - v.y) * (u.y - v.y));
}

function potential(charges: Point[], p: Point): number {
  let sum = 0;
  for (const c of charges) sum += 1 / distance(c, p);
  return sum;
}

/** −∇p at p, with ∇p in reverse mode. */
function forceReverse(charges: Point[], p: Point): Point {
  const g = gradient(potential, { wrt: 1 })(charges, p);
  return { x: -g.x, y: -g.y };
}

/** −∇p at p, with ∇p in forward mode (one derivative per coordinate). */
function forceForward(charges: Point[], p: Point): Point {
  const dx = derivative((t: number) => potential(charges, { x: t, y: p.y }))(p.x);
  const dy = derivative((t: number) => potential(charges, { x: p.x, y: t }))(p.y);
  return { x: -dx, y: -dy };
}

/** Where the particle lands (squared x), for the lower charge at height 10 − w. */
export function naiveEuler(w: number, force: (charges: Point[], p: Point) => Point): number {
  const charges: Point[] = [
    { x: 10, y: 10 - w },
    { x: 10, y: 0 },
  ];
  const dt = 0.1;
  let x: Point = { x: 0, y: 8 };
  let v: Point = { x: 0.75, y: 0 };
  while (true) {
    const a = force(charges, x);
    const next: Point = { x: x.x + dt * v.x, y: x.y + dt * v.y };
    if (next.y <= 0) {
      const dtFinal = -x.y / v.y;
      const hit = x.x + dtFinal * v.x;
      return hit * hit;
    }
    x = next;
    v = { x: v.x + dt * a.x, y: v.y + dt * a.y };
  }
}

export function optimalW(w0: number, outer: Mode, inner: Mode): number {
  const force = inner === "forward" ? forceForward : forceReverse;
  const [w] = multivariateArgmin((ws) => naiveEuler(ws[0], force), [w0], outer);
  return w;
}

// --- GradBench wrappers (see ../README.md for the prepare/run convention) ---

export interface ParticleInput {
  w: number;
}

export function prepareFf(input: ParticleInput): number {
  return input.w;
}
export const prepareFr = prepareFf;
export const prepareRf = prepareFf;
export const prepareRr = prepareFf;

export function runFf(w0: number): number {
  return optimalW(w0, "forward", "forward");
}
export function runFr(w0: number): number {
  return optimalW(w0, "forward", "reverse");
}
export function runRf(w0: number): number {
  return optimalW(w0, "reverse", "forward");
}
export function runRr(w0: number): number {
  return optimalW(w0, "reverse", "reverse");
}
