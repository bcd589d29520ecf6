// Portfolio: weights in a Record<string, number>, `for…of Object.entries`, `Object.values`,
// reduce with an object accumulator; mean–variance utility, gradient and hessian.
import { gradient, hessian, differential } from "nabla";
import { compare, summary } from "./check.ts";

type Weights = Record<string, number>;

const expectedReturn: Weights = { AAPL: 0.08, MSFT: 0.07, BOND: 0.03, GOLD: 0.04 };
const volatility: Weights = { AAPL: 0.25, MSFT: 0.22, BOND: 0.05, GOLD: 0.15 };
const correlation: Record<string, Weights> = {
  AAPL: { AAPL: 1, MSFT: 0.6, BOND: -0.1, GOLD: 0.05 },
  MSFT: { AAPL: 0.6, MSFT: 1, BOND: -0.05, GOLD: 0.0 },
  BOND: { AAPL: -0.1, MSFT: -0.05, BOND: 1, GOLD: 0.2 },
  GOLD: { AAPL: 0.05, MSFT: 0.0, BOND: 0.2, GOLD: 1 },
};

function normalize(w: Weights): Weights {
  const total = Object.values(w).reduce((s, x) => s + Math.abs(x), 0);
  const out: Weights = {};
  for (const [k, v] of Object.entries(w)) out[k] = v / total;
  return out;
}

function stats(w: Weights): { mean: number; variance: number } {
  const n = normalize(w);
  return Object.entries(n).reduce(
    (acc, [a, wa]) => {
      acc.mean += wa * expectedReturn[a];
      for (const [b, wb] of Object.entries(n)) {
        acc.variance += wa * wb * volatility[a] * volatility[b] * correlation[a][b];
      }
      return acc;
    },
    { mean: 0, variance: 0 },
  );
}

function utility(w: Weights, riskAversion: number): number {
  const { mean, variance } = stats(w);
  return -(mean - 0.5 * riskAversion * variance);
}

const keys = Object.keys(expectedReturn);
const asRecord = (x: number[]): Weights => Object.fromEntries(keys.map((k, i) => [k, x[i]]));
const x0 = [0.3, 0.3, 0.3, 0.1];
const w0 = asRecord(x0);
const g = gradient(utility, { wrt: 0 })(w0, 3);
const fd = keys.map((k) => {
  const p = { ...w0, [k]: w0[k] + 1e-6 };
  const m = { ...w0, [k]: w0[k] - 1e-6 };
  return (utility(p, 3) - utility(m, 3)) / 2e-6;
});
compare("grad vs fd", keys.map((k) => g[k]), fd);
const dw: Weights = { AAPL: 1, MSFT: -0.5, BOND: 0.2, GOLD: 0 };
compare(
  "fwd vs rev",
  differential(utility, { wrt: 0 })(w0, 3)(dw),
  keys.reduce((s, k) => s + g[k] * dw[k], 0),
);
const H = hessian((x: number[]) => utility(asRecord(x), 3))(x0);
const Hfd = keys.map((_, i) => {
  const p = x0.slice();
  const m = x0.slice();
  p[i] += 1e-5;
  m[i] -= 1e-5;
  const gp = gradient((x: number[]) => utility(asRecord(x), 3))(p);
  const gm = gradient((x: number[]) => utility(asRecord(x), 3))(m);
  return gp.map((v, j) => (v - gm[j]) / 2e-5);
});
compare("hessian vs fd of grad", H, Hfd);
summary("s04-portfolio");
