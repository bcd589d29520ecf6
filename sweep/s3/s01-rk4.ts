// ODE integration: classic RK4 with a `Derivative` function type, a Lotka–Volterra model whose
// parameters come from a config object; gradient of a fit loss, jacobian of the final state.
import { gradient, jacobian, differential } from "nabla";
import { compare, fdGrad, fdJac, summary } from "./check.ts";

type State = readonly number[];
type Derivative = (t: number, y: State) => number[];

function addScaled(y: State, k: readonly number[], h: number): number[] {
  return y.map((v, i) => v + h * k[i]);
}

function rk4Step(f: Derivative, t: number, y: State, h: number): number[] {
  const k1 = f(t, y);
  const k2 = f(t + h / 2, addScaled(y, k1, h / 2));
  const k3 = f(t + h / 2, addScaled(y, k2, h / 2));
  const k4 = f(t + h, addScaled(y, k3, h));
  return y.map((v, i) => v + (h / 6) * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]));
}

function integrate(f: Derivative, y0: State, t1: number, steps: number): number[][] {
  const h = t1 / steps;
  const out: number[][] = [[...y0]];
  let y = [...y0];
  for (let s = 0; s < steps; s++) {
    y = rk4Step(f, s * h, y, h);
    out.push(y);
  }
  return out;
}

function trajectory(params: number[], y0: number[]): number[][] {
  const [alpha, beta, delta, gamma] = params;
  const lotkaVolterra: Derivative = (_t, [prey, pred]) => [
    alpha * prey - beta * prey * pred,
    delta * prey * pred - gamma * pred,
  ];
  return integrate(lotkaVolterra, y0, 2, 20);
}

const observed = Array.from({ length: 21 }, (_, i) => [1 + 0.3 * Math.sin(i / 3), 0.5 + 0.1 * i / 20]);

function fitLoss(params: number[]): number {
  const traj = trajectory(params, [1, 0.5]);
  return traj.reduce((s, y, i) => s + (y[0] - observed[i][0]) ** 2 + (y[1] - observed[i][1]) ** 2, 0);
}

function finalState(y0: number[]): number[] {
  const traj = trajectory([1.1, 0.4, 0.1, 0.4], y0);
  return traj[traj.length - 1];
}

const p0 = [1.1, 0.4, 0.1, 0.4];
const g = gradient(fitLoss)(p0);
compare("grad vs fd", g, fdGrad(fitLoss, p0));
const dp = [0.3, -0.2, 0.5, 1];
compare("fwd vs rev", differential(fitLoss)(p0)(dp), g.reduce((s, gi, i) => s + gi * dp[i], 0));
const J = jacobian(finalState)([1, 0.5]);
compare("jacobian vs fd", J, fdJac(finalState, [1, 0.5]));
const Jr = jacobian(finalState, { mode: "reverse" })([1, 0.5]);
compare("jacobian fwd vs rev", J, Jr);
summary("s01-rk4");
