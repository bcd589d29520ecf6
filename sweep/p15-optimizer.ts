// Optimization: Adam on Rosenbrock inside a differentiated function (unrolled meta-loss wrt lr).
import { derivative, valueWithGradient } from "nabla";
import { compare, fd1, fdGrad, summary } from "./check.ts";

interface AdamState {
  m: number[];
  v: number[];
  t: number;
}

const rosen = (p: readonly number[]): number =>
  p.slice(0, -1).reduce((s, x, i) => s + 100 * (p[i + 1] - x * x) ** 2 + (1 - x) ** 2, 0);

function rosenGrad(p: readonly number[]): number[] {
  const g = new Array<number>(p.length).fill(0);
  for (let i = 0; i + 1 < p.length; i++) {
    const b = p[i + 1] - p[i] * p[i];
    g[i] += -400 * p[i] * b - 2 * (1 - p[i]);
    g[i + 1] += 200 * b;
  }
  return g;
}

function adamStep(
  p: number[],
  state: AdamState,
  lr: number,
  beta1 = 0.9,
  beta2 = 0.999,
  eps = 1e-8,
): void {
  const g = rosenGrad(p);
  state.t++;
  for (let i = 0; i < p.length; i++) {
    state.m[i] = beta1 * state.m[i] + (1 - beta1) * g[i];
    state.v[i] = beta2 * state.v[i] + (1 - beta2) * g[i] ** 2;
    const mh = state.m[i] / (1 - beta1 ** state.t);
    const vh = state.v[i] / (1 - beta2 ** state.t);
    p[i] -= (lr * mh) / (Math.sqrt(vh) + eps);
  }
}

function metaLoss(lr: number, start: number[]): number {
  const p = [...start];
  const state: AdamState = { m: p.map(() => 0), v: Array(p.length).fill(0), t: 0 };
  for (let k = 0; k < 15; k++) adamStep(p, state, lr);
  return rosen(p);
}

const start = [-1.2, 1, 0.5];
const d = derivative((lr: number) => metaLoss(lr, start))(0.01);
compare(
  "d/dlr vs fd",
  d,
  fd1((lr) => metaLoss(lr, start), 0.01, 1e-7),
  1e-4,
);
const { gradient: g } = valueWithGradient(metaLoss)(0.01, start);
compare("rev vs fwd lr", g[0], d);
compare(
  "grad start vs fd",
  g[1],
  fdGrad((s) => metaLoss(0.01, s), start, 1e-6),
  1e-4,
);
summary("p15-optimizer");
