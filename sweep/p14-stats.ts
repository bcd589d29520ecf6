// Stats: robust regression (Huber) + median via sort, for...in over params object, Set.
import { gradient, derivative, differential } from "nabla";
import { compare, fdGrad, fd1, summary } from "./check.ts";

interface LineParams {
  slope: number;
  intercept: number;
  [extra: string]: number;
}

function huber(r: number, delta = 1.0): number {
  const a = Math.abs(r);
  return a <= delta ? 0.5 * r * r : delta * (a - 0.5 * delta);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function robustLoss(p: LineParams, xs: number[], ys: number[], outliers: Set<number>): number {
  const residuals = xs.map((x, i) => ys[i] - (p.slope * x + p.intercept));
  const scale = median(residuals.map(Math.abs)) + 0.1;
  let loss = 0;
  residuals.forEach((r, i) => {
    if (outliers.has(i)) return;
    loss += huber(r / scale);
  });
  let penalty = 0;
  for (const key in p) penalty += 1e-3 * p[key] * p[key];
  return loss + penalty;
}

const xs = [0, 1, 2, 3, 4, 5, 6];
const ys = [0.1, 1.2, 1.9, 3.3, 10, 5.1, 5.8];
const out = new Set([4]);
const p0: LineParams = { slope: 0.8, intercept: 0.3 };
const g = gradient(robustLoss, { wrt: 0 })(p0, xs, ys, out);
compare(
  "grad vs fd",
  [g.slope, g.intercept],
  fdGrad((v) => robustLoss({ slope: v[0], intercept: v[1] }, xs, ys, out), [0.8, 0.3]),
);
const fwd = differential(robustLoss, { wrt: 0 })(p0, xs, ys, out)({ slope: 1, intercept: -2 });
compare("fwd vs rev", fwd, g.slope - 2 * g.intercept);
const m = (s: number) => median(xs.map((x, i) => ys[i] - s * x));
compare("median deriv", derivative(m)(0.9), fd1(m, 0.9));
summary("p14-stats");
