// NABLA116 (documented limitation): inside differentiated code, `gradient` differentiates with
// respect to numbers or one array of numbers only, so a gradient with respect to a point object
// {x, y} cannot be differentiated again. particle.ts's inner ∇p in reverse mode (fr, rr).
import { gradient } from "nabla";

interface Point {
  x: number;
  y: number;
}

function potential(charge: Point, p: Point): number {
  return 1 / Math.sqrt((p.x - charge.x) ** 2 + (p.y - charge.y) ** 2);
}

function forceX(w: number): number {
  const g = gradient(potential, { wrt: 1 })({ x: 0, y: w }, { x: 1, y: 0 });
  return -g.x;
}

console.log(gradient(forceX)(1)); // expected -3 * 2 ** -2.5 ≈ -0.530330
