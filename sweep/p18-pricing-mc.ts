// Finance: Monte Carlo Asian option with a seeded RNG class, pathwise greeks; Float64Array paths.
import { gradient, derivative, valueWithGradient } from "nabla";
import { compare, fd1, fdGrad, summary } from "./check.ts";

class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (Math.imul(this.state, 1664525) + 1013904223) >>> 0;
    return this.state / 4294967296;
  }
  gaussian(): number {
    const u = Math.max(this.next(), 1e-12);
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}

interface MarketParams {
  spot: number;
  vol: number;
  rate: number;
}

function asianCall(params: MarketParams, strike: number, nPaths = 200, nSteps = 12): number {
  const { spot, vol, rate } = params;
  const dt = 1 / nSteps;
  const rng = new Rng(42);
  const path = new Float64Array(nSteps);
  let payoffSum = 0;
  for (let p = 0; p < nPaths; p++) {
    let s = spot;
    for (let k = 0; k < nSteps; k++) {
      s *= Math.exp((rate - 0.5 * vol * vol) * dt + vol * Math.sqrt(dt) * rng.gaussian());
      path[k] = s;
    }
    const avg = path.reduce((a, b) => a + b, 0) / nSteps;
    payoffSum += Math.max(avg - strike, 0);
  }
  return Math.exp(-rate) * (payoffSum / nPaths);
}

const mp: MarketParams = { spot: 100, vol: 0.3, rate: 0.02 };
const { value, gradient: g } = valueWithGradient(asianCall, { wrt: 0 })(mp, 100);
compare("value", value, asianCall(mp, 100), 1e-12);
compare(
  "grad vs fd",
  [g.rate, g.spot, g.vol],
  fdGrad((v) => asianCall({ spot: v[1], vol: v[2], rate: v[0] }, 100), [0.02, 100, 0.3], 1e-6),
  1e-4,
);
const vega = derivative((vol: number) => asianCall({ ...mp, vol }, 100))(0.3);
compare("fwd vega vs rev", vega, g.vol);
const dStrike = gradient(asianCall, { wrt: 1 })(mp, 100);
compare(
  "dStrike vs fd",
  dStrike,
  fd1((k) => asianCall(mp, k), 100, 1e-6),
  1e-4,
);
compare("wasm", gradient(asianCall, { wrt: 0, backend: "wasm" })(mp, 100), g);
summary("p18-pricing-mc");
