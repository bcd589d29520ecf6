// GradBench "saddle": for f(p1, p2) = ‖p1‖² − ‖p2‖², find p1* = argmin over p1 of
// max over p2 of f(p1, p2) — the inner maximum found by gradient descent, which the outer descent
// differentiates through (nested AD) — then p2* = argmax over p2 of f(p1*, p2). Every descent
// starts at `start`. The two letters of ff/fr/rf/rr name the mode of the outer (p1) and the
// inner (p2) gradient.
import { multivariateArgmax, multivariateArgmin, multivariateMax, type Mode } from "./gd.js";

function objective(p1: number[], p2: number[]): number {
  return p1[0] * p1[0] + p1[1] * p1[1] - (p2[0] * p2[0] + p2[1] * p2[1]);
}

export function saddlePoint(start: number[], outer: Mode, inner: Mode): number[] {
  const worstCase = (p1: number[]): number =>
    multivariateMax((p2) => objective(p1, p2), start, inner);
  const p1 = multivariateArgmin(worstCase, start, outer);
  const p2 = multivariateArgmax((q) => objective(p1, q), start, inner);
  return [...p1, ...p2];
}

// --- GradBench wrappers (see ../README.md for the prepare/run convention) ---

export interface SaddleInput {
  start: number[];
}

export function prepareFf(input: SaddleInput): number[] {
  return input.start.slice();
}
export const prepareFr = prepareFf;
export const prepareRf = prepareFf;
export const prepareRr = prepareFf;

export function runFf(start: number[]): number[] {
  return saddlePoint(start, "forward", "forward");
}
export function runFr(start: number[]): number[] {
  return saddlePoint(start, "forward", "reverse");
}
export function runRf(start: number[]): number[] {
  return saddlePoint(start, "reverse", "forward");
}
export function runRr(start: number[]): number[] {
  return saddlePoint(start, "reverse", "reverse");
}
