// Nested configuration with optional chaining and `??` defaults everywhere: an optimizer
// config driving a few steps of gradient descent written by hand (momentum, clipping); the
// meta-gradient of the final loss w.r.t. the learning rate and the initial point.
import { gradient, differential, valueWithGradient } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

interface OptimizerConfig {
  schedule?: { lr?: number; decay?: number; warmup?: { steps: number; start?: number } };
  momentum?: { beta?: number; nesterov?: boolean };
  clip?: { norm?: number } | null;
  weightDecay?: number;
}

function objective(x: number[]): number {
  return (x[0] - 1) ** 2 + 3 * (x[1] + 0.5) ** 2 + x[0] * x[1];
}

function objectiveGrad(x: number[]): number[] {
  return [2 * (x[0] - 1) + x[1], 6 * (x[1] + 0.5) + x[0]];
}

function learningRate(cfg: OptimizerConfig, step: number): number {
  const base = cfg.schedule?.lr ?? 0.1;
  const warm = cfg.schedule?.warmup;
  if (warm && step < warm.steps) {
    const start = warm.start ?? base / 10;
    return start + ((base - start) * step) / warm.steps;
  }
  return base * (cfg.schedule?.decay ?? 1) ** step;
}

function descend(x0: number[], cfg: OptimizerConfig, steps = 12): number {
  let x = [...x0];
  let velocity = x.map(() => 0);
  const beta = cfg.momentum?.beta ?? 0;
  for (let s = 0; s < steps; s++) {
    let g = objectiveGrad(cfg.momentum?.nesterov ? x.map((v, i) => v - beta * velocity[i]) : x);
    const norm = Math.hypot(...g);
    const maxNorm = cfg.clip?.norm ?? Infinity;
    if (norm > maxNorm) g = g.map((v) => (v * maxNorm) / norm);
    const lr = learningRate(cfg, s);
    velocity = velocity.map((v, i) => beta * v + g[i] + (cfg.weightDecay ?? 0) * x[i]);
    x = x.map((v, i) => v - lr * velocity[i]);
  }
  return objective(x);
}

function tune(hyper: number[], x0: number[]): number {
  const [lr, beta] = hyper;
  return descend(x0, {
    schedule: { lr, decay: 0.95, warmup: { steps: 3 } },
    momentum: { beta, nesterov: true },
    clip: { norm: 2 },
    weightDecay: 0.01,
  });
}

const hyper = [0.08, 0.6];
const x0 = [3, 2];
const { value, gradient: g } = valueWithGradient(tune)(hyper, x0);
compare("value", value, tune(hyper, x0));
compare("grad hyper vs fd", g[0], fdGrad((h) => tune(h, x0), hyper));
compare("grad x0 vs fd", g[1], fdGrad((x) => tune(hyper, x), x0));
compare("fwd vs rev", differential(tune)(hyper, x0)([1, 0], [0, 1]), g[0][0] + g[1][1]);
const plainCfg: OptimizerConfig = { clip: null };
const gp = gradient((x: number[]) => descend(x, plainCfg))(x0);
compare("null clip, defaults: grad vs fd", gp, fdGrad((x) => descend(x, plainCfg), x0));
summary("s16-config-chaining");
