// PDE: the 1-D heat equation with an explicit scheme, two buffers swapped by destructuring
// (`[u, next] = [next, u]`), Array.from initial conditions, boundary values from a readonly
// tuple; jacobian of the final profile w.r.t. the initial one, gradient w.r.t. diffusivity.
import { jacobian, gradient, differential } from "nabla";
import { compare, fdGrad, fdJac, summary } from "./check.ts";

const BOUNDARY: readonly [left: number, right: number] = [0, 0.25];

function diffuse(initial: number[], kappa: number, steps = 30): number[] {
  const n = initial.length;
  const dx = 1 / (n - 1);
  const dt = 0.4 * dx * dx;
  let u = [...initial];
  let next = new Array<number>(n).fill(0);
  for (let s = 0; s < steps; s++) {
    [next[0], next[n - 1]] = BOUNDARY;
    for (let i = 1; i < n - 1; i++) next[i] = u[i] + ((kappa * dt) / (dx * dx)) * (u[i - 1] - 2 * u[i] + u[i + 1]);
    [u, next] = [next, u];
  }
  return u;
}

const u0 = Array.from({ length: 8 }, (_, i) => Math.sin((Math.PI * i) / 7) + 0.1 * i);
const J = jacobian((u: number[]) => diffuse(u, 0.9))(u0);
compare("jacobian vs fd", J, fdJac((u) => diffuse(u, 0.9), u0));
compare("jacobian fwd vs rev", J, jacobian((u: number[]) => diffuse(u, 0.9), { mode: "reverse" })(u0));
const heatAtMiddle = (kappa: number): number => diffuse(u0, kappa)[4];
const gk = gradient(heatAtMiddle)(0.9);
compare("d/dkappa vs fd", gk, fdGrad(([k]) => heatAtMiddle(k), [0.9]));
compare("fwd vs rev", differential(heatAtMiddle)(0.9)(1), gk);
summary("s19-heat-swap");
