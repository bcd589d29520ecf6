// Statistics: Welford's online mean/variance with an object accumulator in reduce, a
// covariance by reduce over zipped pairs, z-scores, a Pearson correlation; gradients.
import { gradient, differential, hessian } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

interface Running {
  n: number;
  mean: number;
  m2: number;
}

const describe = (xs: readonly number[]): Running =>
  xs.reduce<Running>(
    (acc, x) => {
      const n = acc.n + 1;
      const delta = x - acc.mean;
      const mean = acc.mean + delta / n;
      return { n, mean, m2: acc.m2 + delta * (x - mean) };
    },
    { n: 0, mean: 0, m2: 0 },
  );

function variance(xs: readonly number[]): number {
  const { n, m2 } = describe(xs);
  return n > 1 ? m2 / (n - 1) : 0;
}

function pearson(xs: number[], ys: number[]): number {
  const mx = describe(xs).mean;
  const my = describe(ys).mean;
  const { sxy, sxx, syy } = xs
    .map((x, i) => [x - mx, ys[i] - my] as const)
    .reduce((a, [dx, dy]) => ({ sxy: a.sxy + dx * dy, sxx: a.sxx + dx * dx, syy: a.syy + dy * dy }), { sxy: 0, sxx: 0, syy: 0 });
  return sxy / Math.sqrt(sxx * syy);
}

const xs = [1.2, 0.4, 2.2, 3.1, 1.9, 0.7];
const ys = [2.0, 1.1, 3.9, 6.5, 3.3, 1.0];
const gv = gradient(variance)(xs);
compare("variance grad vs fd", gv, fdGrad(variance, xs));
const gp = gradient(pearson)(xs, ys);
compare("pearson grad x vs fd", gp[0], fdGrad((x) => pearson(x, ys), xs));
compare("pearson grad y vs fd", gp[1], fdGrad((y) => pearson(xs, y), ys));
compare("fwd vs rev", differential(pearson)(xs, ys)(xs, ys), gp[0].reduce((s, g, i) => s + g * xs[i] + gp[1][i] * ys[i], 0));
const H = hessian(variance)(xs);
compare("variance hessian vs fd", H, xs.map((_, i) => fdGrad((x) => gradient(variance)(x)[i], xs)));
summary("s23-welford");
