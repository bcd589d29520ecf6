// Closures from factories: makeLoss(config) returns `(params) => number`, a regularizer
// factory, and a schedule; the user differentiates the closure the factory returned.
import { gradient, valueWithGradient, differential } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

interface LossConfig {
  xs: number[];
  ys: number[];
  l2?: number;
  robust?: { delta: number };
}

type Loss = (params: number[]) => number;

function makeRegularizer(strength: number): (p: number[]) => number {
  return (p) => strength * p.reduce((s, v) => s + v * v, 0);
}

function makeLoss(config: LossConfig): Loss {
  const reg = makeRegularizer(config.l2 ?? 0);
  const delta = config.robust?.delta;
  return (params) => {
    let total = 0;
    config.xs.forEach((x, i) => {
      const r = params[0] * Math.exp(params[1] * x) - config.ys[i];
      total += delta === undefined ? r * r : Math.abs(r) < delta ? r * r : 2 * delta * Math.abs(r) - delta * delta;
    });
    return total + reg(params);
  };
}

const cfg: LossConfig = { xs: [0, 0.5, 1, 1.5], ys: [1, 1.7, 2.6, 4.6], l2: 0.01, robust: { delta: 0.5 } };
const loss = makeLoss(cfg);
const p = [1.1, 0.9];
const { value, gradient: g } = valueWithGradient(loss)(p);
compare("value", value, loss(p));
compare("grad vs fd", g, fdGrad(loss, p));
compare("fwd vs rev", differential(loss)(p)([0.5, 2]), 0.5 * g[0] + 2 * g[1]);
const plain = makeLoss({ xs: cfg.xs, ys: cfg.ys });
compare("second closure grad vs fd", gradient(plain)(p), fdGrad(plain, p));
summary("s14-loss-factory");
