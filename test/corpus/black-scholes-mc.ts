// Monte Carlo pricing of an arithmetic Asian call under Black-Scholes with a mulberry32 PRNG and a geometric control variate.

export type Rng = () => number;

export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function gaussianSource(rng: Rng): Rng {
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const z = spare;
      spare = null;
      return z;
    }
    const u = 1 - rng();
    const v = rng();
    const r = Math.sqrt(-2 * Math.log(u));
    spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  };
}

// Abramowitz–Stegun 7.1.26 based normal CDF
export function normCdf(x: number): number {
  const t = 1 / (1 + 0.3275911 * Math.abs(x) / Math.SQRT2);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-(x * x) / 2);
  return x >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

export interface Market {
  spot: number;
  vol: number;
  rate: number;
}

export interface AsianOption {
  strike: number;
  maturity: number;
  fixings: number;
}

// Closed form for the discretely monitored geometric-average Asian call
function geometricAsianCall({ spot, vol, rate }: Market, { strike, maturity, fixings: n }: AsianOption) {
  const dt = maturity / n;
  const meanT = (dt * (n + 1)) / 2;
  const varG = (vol * vol * dt * (n + 1) * (2 * n + 1)) / (6 * n);
  const muG = Math.log(spot) + (rate - 0.5 * vol * vol) * meanT;
  const d2 = (muG - Math.log(strike)) / Math.sqrt(varG);
  const d1 = d2 + Math.sqrt(varG);
  return Math.exp(-rate * maturity) * (Math.exp(muG + 0.5 * varG) * normCdf(d1) - strike * normCdf(d2));
}

export function objective(market: Market, option: AsianOption, paths = 4000, seed = 20240611): number {
  const { spot, vol, rate } = market;
  const { strike, maturity, fixings } = option;
  const dt = maturity / fixings;
  const drift = (rate - 0.5 * vol * vol) * dt;
  const diffusion = vol * Math.sqrt(dt);
  const normal = gaussianSource(mulberry32(seed));
  const discount = Math.exp(-rate * maturity);

  let sumArith = 0;
  let sumGeo = 0;
  for (let p = 0; p < paths / 2; p++) {
    const shocks = Array.from({ length: fixings }, normal);
    // antithetic pair
    for (const sign of [1, -1]) {
      let logS = Math.log(spot);
      let arith = 0;
      let logGeo = 0;
      for (const z of shocks) {
        logS += drift + diffusion * sign * z;
        arith += Math.exp(logS);
        logGeo += logS;
      }
      sumArith += Math.max(arith / fixings - strike, 0);
      sumGeo += Math.max(Math.exp(logGeo / fixings) - strike, 0);
    }
  }
  const mcArith = (discount * sumArith) / paths;
  const mcGeo = (discount * sumGeo) / paths;
  return mcArith - mcGeo + geometricAsianCall(market, option);
}

export const args: Parameters<typeof objective> = [
  { spot: 100, vol: 0.25, rate: 0.03 },
  { strike: 102, maturity: 1, fixings: 12 },
  4000,
  20240611,
];
