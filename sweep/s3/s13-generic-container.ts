// A generic container class Series<T> with map/zip/reduce/window methods, used with T = number
// and T = a point type; a moving-average smoother and a least-squares trend.
import { gradient, differential, jacobian } from "nabla";
import { compare, fdGrad, fdJac, summary } from "./check.ts";

class Series<T> {
  constructor(readonly items: readonly T[]) {}
  static of<U>(...items: U[]): Series<U> {
    return new Series(items);
  }
  get length(): number {
    return this.items.length;
  }
  map<U>(f: (item: T, index: number) => U): Series<U> {
    return new Series(this.items.map(f));
  }
  zip<U, V>(other: Series<U>, f: (a: T, b: U) => V): Series<V> {
    const n = Math.min(this.length, other.length);
    return new Series(Array.from({ length: n }, (_, i) => f(this.items[i], other.items[i])));
  }
  reduce<A>(f: (acc: A, item: T) => A, init: A): A {
    let acc = init;
    for (const item of this.items) acc = f(acc, item);
    return acc;
  }
  window(size: number): Series<T[]> {
    const out: T[][] = [];
    for (let i = 0; i + size <= this.length; i++) out.push(this.items.slice(i, i + size));
    return new Series(out);
  }
}

interface Sample {
  t: number;
  v: number;
}

const sum = (s: Series<number>): number => s.reduce((a, b) => a + b, 0);

function smooth(values: number[]): number[] {
  return [...new Series(values).window(3).map((w) => (w[0] + 2 * w[1] + w[2]) / 4).items];
}

function trendLoss(params: number[], values: number[]): number {
  const samples = new Series(values).map((v, i): Sample => ({ t: i * 0.5, v }));
  const fitted = samples.map((s) => params[0] + params[1] * s.t);
  const resid = fitted.zip(samples, (f, s) => f - s.v);
  return sum(resid.map((r) => r * r)) + 0.01 * sum(Series.of(...params).map((p) => p * p));
}

const values = [0.3, 0.9, 1.4, 2.2, 2.4, 3.1, 3.3];
const p = [0.2, 0.8];
const g = gradient(trendLoss)(p, values);
compare("grad params vs fd", g[0], fdGrad((q) => trendLoss(q, values), p));
compare("grad values vs fd", g[1], fdGrad((v) => trendLoss(p, v), values));
compare(
  "fwd vs rev",
  differential(trendLoss)(p, values)([1, -1], values),
  g[0][0] - g[0][1] + g[1].reduce((s, gi, i) => s + gi * values[i], 0),
);
const J = jacobian(smooth)(values);
compare("smooth jacobian vs fd", J, fdJac(smooth, values));
compare("smooth jacobian fwd vs rev", J, jacobian(smooth, { mode: "reverse" })(values));
summary("s13-generic-container");
