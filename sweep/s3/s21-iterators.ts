// Iterators: entries()/keys()/values() of arrays and Maps, Array.from(m.values()), for…of over
// Object.values of a record of numbers, destructuring in for…of; a weighted score.
import { gradient, differential, jacobian } from "nabla";
import { compare, fdGrad, fdJac, summary } from "./check.ts";

const weights: Record<string, number> = { speed: 0.5, comfort: 0.3, price: -0.8, range: 0.2 };

function score(features: Record<string, number>): number {
  let s = 0;
  for (const [name, value] of Object.entries(features)) s += (weights[name] ?? 0) * Math.log1p(value * value);
  let norm = 0;
  for (const value of Object.values(features)) norm += value * value;
  return s / Math.sqrt(norm + 1);
}

function pairwise(xs: number[]): number {
  let total = 0;
  for (const [i, a] of xs.entries()) {
    for (const j of xs.keys()) {
      if (j <= i) continue;
      total += Math.exp(-((a - xs[j]) ** 2));
    }
  }
  const byBucket = new Map<string, number>();
  for (const x of xs.values()) {
    const key = x > 0 ? "pos" : "neg";
    byBucket.set(key, (byBucket.get(key) ?? 0) + x * x);
  }
  const buckets = Array.from(byBucket.values());
  return total + buckets.reduce((s, b) => s + Math.sqrt(b), 0);
}

function cumulative(xs: number[]): number[] {
  const out: number[] = [];
  for (const [i, x] of xs.entries()) out.push((out[i - 1] ?? 0) + x * (i + 1));
  return [...out.values()];
}

const feats = { speed: 1.2, comfort: 0.7, price: 2.0, range: 0.4 };
const gf = gradient(score)(feats);
const names = Object.keys(feats) as (keyof typeof feats)[];
compare("record grad vs fd", names.map((k) => gf[k]), fdGrad((v) => score(Object.fromEntries(names.map((k, i) => [k, v[i]]))), names.map((k) => feats[k])));
const xs = [0.3, -0.5, 1.1, -0.2, 0.8];
const g = gradient(pairwise)(xs);
compare("iterators grad vs fd", g, fdGrad(pairwise, xs));
compare("fwd vs rev", differential(pairwise)(xs)(xs), g.reduce((s, gi, i) => s + gi * xs[i], 0));
const J = jacobian(cumulative)(xs);
compare("cumulative jacobian vs fd", J, fdJac(cumulative, xs));
compare("cumulative jacobian fwd vs rev", J, jacobian(cumulative, { mode: "reverse" })(xs));
summary("s21-iterators");
