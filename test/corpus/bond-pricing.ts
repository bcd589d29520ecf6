// Nelson-Siegel yield-curve calibration: prices a portfolio of bonds (abstract base class + subclasses) and returns squared pricing error.

export interface Cashflow {
  time: number;
  amount: number;
}

export interface CurveParams {
  beta0: number;
  beta1: number;
  beta2: number;
  tau: number;
}

export class NelsonSiegelCurve {
  constructor(private readonly p: CurveParams) {}

  zeroRate(t: number): number {
    const { beta0, beta1, beta2, tau } = this.p;
    const x = t / tau;
    const loading = (1 - Math.exp(-x)) / x;
    return beta0 + beta1 * loading + beta2 * (loading - Math.exp(-x));
  }

  discount(t: number) {
    return Math.exp(-this.zeroRate(t) * t);
  }
}

export abstract class Bond {
  constructor(readonly name: string, readonly face: number, readonly maturity: number) {}

  abstract cashflows(): Cashflow[];

  price(curve: NelsonSiegelCurve): number {
    return this.cashflows().reduce((pv, { time, amount }) => pv + amount * curve.discount(time), 0);
  }

  describe() {
    return `${this.name} ${this.maturity}y`;
  }

  duration(curve: NelsonSiegelCurve) {
    const pv = this.price(curve);
    return this.cashflows().reduce((d, cf) => d + (cf.time * cf.amount * curve.discount(cf.time)) / pv, 0);
  }
}

export class ZeroCouponBond extends Bond {
  cashflows(): Cashflow[] {
    return [{ time: this.maturity, amount: this.face }];
  }
}

export class FixedRateBond extends Bond {
  constructor(name: string, face: number, maturity: number, readonly couponRate: number, readonly frequency = 2) {
    super(name, face, maturity);
  }

  override describe() {
    return `${super.describe()} ${(this.couponRate * 100).toFixed(2)}%`;
  }

  protected paymentTimes(): number[] {
    const n = Math.round(this.maturity * this.frequency);
    return Array.from({ length: n }, (_, i) => (i + 1) / this.frequency);
  }

  cashflows(): Cashflow[] {
    const coupon = (this.face * this.couponRate) / this.frequency;
    const times = this.paymentTimes();
    return times.map((time, i) => ({ time, amount: coupon + (i === times.length - 1 ? this.face : 0) }));
  }
}

export class AmortizingBond extends FixedRateBond {
  override cashflows(): Cashflow[] {
    const times = this.paymentTimes();
    const principalPerPeriod = this.face / times.length;
    let outstanding = this.face;
    return times.map((time) => {
      const interest = (outstanding * this.couponRate) / this.frequency;
      outstanding -= principalPerPeriod;
      return { time, amount: interest + principalPerPeriod };
    });
  }

  override describe() {
    return `${super.describe()} amortizing`;
  }
}

export interface Quote {
  bond: Bond;
  marketPrice: number;
  weight?: number;
}

export function objective(curve: CurveParams, quotes: Quote[], durationWeighted = true): number {
  const ns = new NelsonSiegelCurve(curve);
  return quotes.reduce((err, { bond, marketPrice, weight = 1 }) => {
    const model = bond.price(ns);
    const scale = durationWeighted ? 1 / Math.max(bond.duration(ns), 0.25) : 1;
    return err + weight * ((model - marketPrice) * scale) ** 2;
  }, 0);
}

export const quotes: Quote[] = [
  { bond: new ZeroCouponBond("Z1", 100, 1), marketPrice: 96.1 },
  { bond: new FixedRateBond("F2", 100, 2, 0.035), marketPrice: 99.2 },
  { bond: new FixedRateBond("F5", 100, 5, 0.04, 1), marketPrice: 98.7 },
  { bond: new AmortizingBond("A7", 100, 7, 0.045), marketPrice: 101.3, weight: 0.5 },
  { bond: new FixedRateBond("F10", 100, 10, 0.0425), marketPrice: 96.4 },
  { bond: new ZeroCouponBond("Z20", 100, 20), marketPrice: 39.5, weight: 2 },
];

export const args: Parameters<typeof objective> = [{ beta0: 0.045, beta1: -0.01, beta2: 0.012, tau: 2.5 }, quotes, true];
