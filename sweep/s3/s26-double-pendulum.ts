// A double pendulum: state as a readonly tuple, an RK4 step through a `Derivative` type,
// immutable updates of a state object; gradient of the tip's final height w.r.t. the initial
// angles, a jacobian of the whole state, wasm gradient.
import { gradient, jacobian, differential } from "nabla";
import { compare, fdGrad, fdJac, summary } from "./check.ts";

type State = readonly [theta1: number, theta2: number, omega1: number, omega2: number];
type Derivative = (s: State) => State;

const L1 = 1;
const L2 = 0.8;
const M1 = 1;
const M2 = 0.6;
const G = 9.81;

const pendulum: Derivative = ([t1, t2, w1, w2]) => {
  const d = t1 - t2;
  const den = 2 * M1 + M2 - M2 * Math.cos(2 * d);
  const a1 = (-G * (2 * M1 + M2) * Math.sin(t1) - M2 * G * Math.sin(t1 - 2 * t2) - 2 * Math.sin(d) * M2 * (w2 * w2 * L2 + w1 * w1 * L1 * Math.cos(d))) / (L1 * den);
  const a2 = (2 * Math.sin(d) * (w1 * w1 * L1 * (M1 + M2) + G * (M1 + M2) * Math.cos(t1) + w2 * w2 * L2 * M2 * Math.cos(d))) / (L2 * den);
  return [w1, w2, a1, a2];
};

const axpy = (s: State, k: State, h: number): State => [s[0] + h * k[0], s[1] + h * k[1], s[2] + h * k[2], s[3] + h * k[3]];

function rk4(f: Derivative, s: State, h: number): State {
  const k1 = f(s);
  const k2 = f(axpy(s, k1, h / 2));
  const k3 = f(axpy(s, k2, h / 2));
  const k4 = f(axpy(s, k3, h));
  return [0, 1, 2, 3].map((i) => s[i] + (h / 6) * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i])) as unknown as State;
}

function evolve(angles: number[]): number[] {
  let s: State = [angles[0], angles[1], 0, 0];
  for (let i = 0; i < 50; i++) s = rk4(pendulum, s, 0.01);
  return [...s];
}

function tipHeight(angles: number[]): number {
  const [t1, t2] = evolve(angles);
  return -L1 * Math.cos(t1) - L2 * Math.cos(t2);
}

const a0 = [1.2, -0.4];
const g = gradient(tipHeight)(a0);
compare("grad vs fd", g, fdGrad(tipHeight, a0));
compare("fwd vs rev", differential(tipHeight)(a0)([1, 1]), g[0] + g[1]);
const J = jacobian(evolve)(a0);
compare("jacobian vs fd", J, fdJac(evolve, a0));
compare("jacobian fwd vs rev", J, jacobian(evolve, { mode: "reverse" })(a0));
compare("wasm grad", gradient(tipHeight, { backend: "wasm" })(a0), g);
summary("s26-double-pendulum");
