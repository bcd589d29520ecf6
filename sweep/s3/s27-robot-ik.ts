// Robotics: a planar 3-link arm with link lengths in an `as const` readonly tuple, forward
// kinematics by a running sum of angles, a damped least-squares IK step that uses the
// jacobian computed by hand; the cost after a few IK steps differentiated w.r.t. the target.
import { gradient, jacobian, differential } from "nabla";
import { compare, fdGrad, fdJac, summary } from "./check.ts";

const LINKS = [1.0, 0.7, 0.4] as const;

function forward(q: readonly number[]): [number, number] {
  let x = 0;
  let y = 0;
  let angle = 0;
  for (const [i, len] of LINKS.entries()) {
    angle += q[i];
    x += len * Math.cos(angle);
    y += len * Math.sin(angle);
  }
  return [x, y];
}

function handJacobian(q: readonly number[]): number[][] {
  const cumulative = q.reduce<number[]>((acc, v) => [...acc, (acc.at(-1) ?? 0) + v], []);
  const row = (f: (a: number) => number) =>
    q.map((_, j) => LINKS.reduce((s, len, i) => (i >= j ? s + len * f(cumulative[i]) : s), 0));
  return [row((a) => -Math.sin(a)), row(Math.cos)];
}

function ikSteps(target: number[], steps = 5, damping = 0.1): number[] {
  let q = [0.3, 0.3, 0.3];
  for (let k = 0; k < steps; k++) {
    const [x, y] = forward(q);
    const e = [target[0] - x, target[1] - y];
    const J = handJacobian(q);
    // dq = J^T (J J^T + λ² I)^-1 e, the 2x2 solved in closed form
    const a = J[0].reduce((s, v) => s + v * v, 0) + damping ** 2;
    const b = J[0].reduce((s, v, i) => s + v * J[1][i], 0);
    const d = J[1].reduce((s, v) => s + v * v, 0) + damping ** 2;
    const det = a * d - b * b;
    const u = [(d * e[0] - b * e[1]) / det, (-b * e[0] + a * e[1]) / det];
    q = q.map((qi, i) => qi + J[0][i] * u[0] + J[1][i] * u[1]);
  }
  return q;
}

function reachCost(target: number[]): number {
  const q = ikSteps(target);
  const [x, y] = forward(q);
  return (x - target[0]) ** 2 + (y - target[1]) ** 2 + 0.01 * q.reduce((s, v) => s + v * v, 0);
}

const target = [1.2, 1.1];
const J = jacobian((q: number[]) => forward(q))([0.3, 0.5, -0.2]);
compare("fk jacobian vs hand", J, handJacobian([0.3, 0.5, -0.2]));
const Jik = jacobian((t: number[]) => ikSteps(t))(target);
compare("ik jacobian vs fd", Jik, fdJac((t) => ikSteps(t), target));
compare("ik jacobian fwd vs rev", Jik, jacobian((t: number[]) => ikSteps(t), { mode: "reverse" })(target));
const g = gradient(reachCost)(target);
compare("cost grad vs fd", g, fdGrad(reachCost, target));
compare("fwd vs rev", differential(reachCost)(target)([1, -1]), g[0] - g[1]);
summary("s27-robot-ik");
