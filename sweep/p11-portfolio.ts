// Finance: mean-variance portfolio utility with softmax weights; Map of asset stats.
import { gradient, hessian, differential, jacobian } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

interface Asset {
  readonly ticker: string;
  expectedReturn: number;
  volatility: number;
}

const assets: Asset[] = [
  { ticker: "AAA", expectedReturn: 0.08, volatility: 0.2 },
  { ticker: "BBB", expectedReturn: 0.05, volatility: 0.1 },
  { ticker: "CCC", expectedReturn: 0.12, volatility: 0.35 },
  { ticker: "DDD", expectedReturn: 0.03, volatility: 0.05 },
];
const correlations = new Map<string, number>([
  ["AAA|BBB", 0.3],
  ["AAA|CCC", 0.6],
  ["BBB|CCC", 0.1],
  ["CCC|DDD", -0.2],
]);

function corr(a: Asset, b: Asset): number {
  if (a.ticker === b.ticker) return 1;
  return (
    correlations.get(`${a.ticker}|${b.ticker}`) ?? correlations.get(`${b.ticker}|${a.ticker}`) ?? 0
  );
}

function weightsFrom(logits: number[]): number[] {
  const m = Math.max(...logits);
  const e = logits.map((l) => Math.exp(l - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}

function utility(logits: number[], riskAversion = 3): number {
  const w = weightsFrom(logits);
  const mean = w.reduce((acc, wi, i) => acc + wi * assets[i].expectedReturn, 0);
  let variance = 0;
  for (const [i, a] of assets.entries()) {
    for (const [j, b] of assets.entries()) {
      variance += w[i] * w[j] * a.volatility * b.volatility * corr(a, b);
    }
  }
  return mean - (riskAversion / 2) * variance;
}

const x0 = [0.1, 0.5, -0.3, 0.2];
const g = gradient(utility)(x0);
compare(
  "grad vs fd",
  g,
  fdGrad((x) => utility(x), x0),
);
compare(
  "fwd vs rev",
  differential(utility)(x0)([1, 2, 3, 4]),
  g[0] + 2 * g[1] + 3 * g[2] + 4 * g[3],
);
const H = hessian(utility)(x0);
compare(
  "hessian vs fd",
  H,
  x0.map((_, i) => fdGrad((x) => gradient(utility)(x)[i], x0)),
  1e-4,
);
const Jf = jacobian(weightsFrom, { mode: "forward" })(x0);
const Jr = jacobian(weightsFrom, { mode: "reverse" })(x0);
compare("jac f vs r", Jf, Jr);
compare("wasm", gradient(utility, { backend: "wasm" })(x0), g);
summary("p11-portfolio");
