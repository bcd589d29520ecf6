// Fixed income: bond cash flows built with Array.from, price from a yield, the yield solved
// from a price by Newton's method in a do…while (tolerance exit), a string enum for the day
// count and a numeric enum for the frequency; sensitivities of the solved yield.
import { derivative, gradient, differential, valueWithDerivative } from "nabla";
import { compare, fd1, fdGrad, summary } from "./check.ts";

enum Frequency {
  Annual = 1,
  SemiAnnual = 2,
  Quarterly = 4,
}

enum DayCount {
  Act365 = "ACT/365",
  Thirty360 = "30/360",
}

interface Bond {
  readonly face: number;
  readonly coupon: number;
  readonly years: number;
  readonly frequency: Frequency;
  readonly dayCount?: DayCount;
}

function cashFlows(b: Bond): { t: number; amount: number }[] {
  const n = b.years * b.frequency;
  const yearFraction = b.dayCount === DayCount.Thirty360 ? 1 : 365 / 365.25;
  return Array.from({ length: n }, (_, i) => ({
    t: ((i + 1) / b.frequency) * yearFraction,
    amount: (b.face * b.coupon) / b.frequency + (i === n - 1 ? b.face : 0),
  }));
}

function price(b: Bond, y: number): number {
  return cashFlows(b).reduce((s, cf) => s + cf.amount * Math.exp(-y * cf.t), 0);
}

function yieldFromPrice(b: Bond, target: number): number {
  let y = b.coupon;
  let step: number;
  let iterations = 0;
  do {
    const p = price(b, y);
    const dp = cashFlows(b).reduce((s, cf) => s - cf.t * cf.amount * Math.exp(-y * cf.t), 0);
    step = (p - target) / dp;
    y -= step;
  } while (Math.abs(step) > 1e-12 && ++iterations < 50);
  return y;
}

const bond: Bond = { face: 100, coupon: 0.05, years: 5, frequency: Frequency.SemiAnnual };
const { value, derivative: dPrice } = valueWithDerivative((y: number) => price(bond, y))(0.04);
compare("price value", value, price(bond, 0.04));
compare("duration vs fd", dPrice, fd1((y) => price(bond, y), 0.04));
const dy = derivative((p: number) => yieldFromPrice(bond, p))(102);
compare("d yield / d price vs fd", dy, fd1((p) => yieldFromPrice(bond, p), 102, 1e-4));
compare("implicit: dy/dp = 1 / dp/dy", dy, 1 / derivative((y: number) => price(bond, y))(yieldFromPrice(bond, 102)));
function ytmOf(terms: number[]): number {
  return yieldFromPrice({ face: terms[0], coupon: terms[1], years: 3, frequency: Frequency.Quarterly, dayCount: DayCount.Thirty360 }, terms[2]);
}
const t0 = [100, 0.06, 98];
const g = gradient(ytmOf)(t0);
compare("grad terms vs fd", g, fdGrad(ytmOf, t0, 1e-5));
compare("fwd vs rev", differential(ytmOf)(t0)([1, 0.01, -1]), g[0] + 0.01 * g[1] - g[2]);
summary("s29-bond-yield");
