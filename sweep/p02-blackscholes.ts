// Finance: Black-Scholes price of a portfolio of options; Greeks via gradient, hessian.
import { gradient, hessian, derivative, valueWithGradient, jacobian } from "nabla";
import { compare, fdGrad, fd1, summary } from "./check.ts";

type OptionKind = "call" | "put";
interface OptionSpec {
  kind: OptionKind;
  strike: number;
  expiry: number;
  quantity?: number;
}

function erf(x: number): number {
  // Abramowitz-Stegun 7.1.26
  const sign = Math.sign(x);
  const ax = Math.abs(x);
  const t = 1 / (1 + 0.3275911 * ax);
  const poly = [0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429].reduceRight(
    (acc, c) => acc * t + c,
    0,
  );
  return sign * (1 - poly * t * Math.exp(-ax * ax));
}
const normCdf = (x: number): number => 0.5 * (1 + erf(x / Math.SQRT2));

function price(spot: number, vol: number, rate: number, opt: OptionSpec): number {
  const { kind, strike, expiry, quantity = 1 } = opt;
  const sqrtT = Math.sqrt(expiry);
  const d1 = (Math.log(spot / strike) + (rate + (vol * vol) / 2) * expiry) / (vol * sqrtT);
  const d2 = d1 - vol * sqrtT;
  const df = Math.exp(-rate * expiry);
  let p: number;
  switch (kind) {
    case "call":
      p = spot * normCdf(d1) - strike * df * normCdf(d2);
      break;
    case "put":
      p = strike * df * normCdf(-d2) - spot * normCdf(-d1);
      break;
  }
  return quantity * p;
}

const book: OptionSpec[] = [
  { kind: "call", strike: 100, expiry: 1 },
  { kind: "put", strike: 95, expiry: 0.5, quantity: 2 },
  { kind: "call", strike: 110, expiry: 2, quantity: -1 },
];

function portfolio(market: readonly [number, number, number]): number {
  const [spot, vol, rate] = market;
  return book.reduce((total, o) => total + price(spot, vol, rate, o), 0);
}
function portfolioOfSpot(spot: number): number {
  return portfolio([spot, 0.2, 0.03]);
}

const m: [number, number, number] = [102, 0.25, 0.03];
const { value, gradient: g } = valueWithGradient(portfolio)(m);
compare("value", value, portfolio(m), 1e-12);
compare(
  "grad vs fd",
  g,
  fdGrad((x) => portfolio([x[0], x[1], x[2]]), m),
);
const J = jacobian(portfolio, { mode: "forward" })(m);
compare("jacfwd vs grad", J, g);
const delta = derivative(portfolioOfSpot)(102);
compare("delta fd", delta, fd1(portfolioOfSpot, 102));
const gamma = hessian(portfolioOfSpot)(102);
compare(
  "gamma vs fd of delta",
  gamma,
  fd1((s) => derivative(portfolioOfSpot)(s), 102),
  1e-4,
);
const H = hessian(portfolio)(m);
const Hfd = [0, 1, 2].map((i) => fdGrad((x) => gradient(portfolio)([x[0], x[1], x[2]])[i], m));
compare("hessian vs fd of grad", H, Hfd, 1e-4);
compare("wasm", gradient(portfolio, { backend: "wasm" })(m), g);
summary("p02-blackscholes");
