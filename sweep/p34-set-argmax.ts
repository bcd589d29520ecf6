// Dedup with Set, argmax with indexOf(Math.max(...)), includes, Map keyed by rounded value.
import { gradient, differential } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

function uniqueSum(xs: number[]): number {
  const uniq = [...new Set(xs)];
  return uniq.reduce((s, x, i) => s + x * (i + 1), 0);
}
function argmaxPick(xs: number[], ws: number[]): number {
  const i = xs.indexOf(Math.max(...xs));
  const j = ws.findIndex((w) => w > 0.5);
  return xs[i] * ws[i] + (j >= 0 ? ws[j] * xs[0] : 0) + (xs.includes(2) ? 100 : 0);
}
function bucketed(xs: number[]): number {
  const buckets = new Map<number, number>();
  for (const x of xs) {
    const key = Math.round(x);
    buckets.set(key, (buckets.get(key) ?? 0) + x * x);
  }
  let s = 0;
  buckets.forEach((v, k) => (s += v * (k + 2)));
  return s;
}

const xs = [1.5, 0.2, 1.5, 3.1, 0.2];
const g = gradient(uniqueSum)(xs);
// values repeated: FD perturbing a duplicate splits it, so check a direction that keeps duplicates
const dir = [1, 0.5, 1, -1, 0.5];
const fdDir =
  (uniqueSum(xs.map((x, i) => x + 1e-6 * dir[i])) -
    uniqueSum(xs.map((x, i) => x - 1e-6 * dir[i]))) /
  2e-6;
compare(
  "unique rev along tied dir",
  g.reduce((s, gi, i) => s + gi * dir[i], 0),
  fdDir,
);
compare("unique fwd along tied dir", differential(uniqueSum)(xs)(dir), fdDir);
const ys = [0.3, 2.5, 1.1, -0.4];
const ws = [0.2, 0.4, 0.9, 0.1];
const [ga, gw] = gradient(argmaxPick)(ys, ws);
compare(
  "argmax xs",
  ga,
  fdGrad((x) => argmaxPick(x, ws), ys),
);
compare(
  "argmax ws",
  gw,
  fdGrad((w) => argmaxPick(ys, w), ws),
);
const zs = [0.3, 1.4, 1.6, 2.2, -0.7];
const gb = gradient(bucketed)(zs);
compare("bucketed", gb, fdGrad(bucketed, zs));
compare(
  "bucketed fwd",
  differential(bucketed)(zs)([1, 1, 1, 1, 1]),
  gb.reduce((a, b) => a + b),
);
summary("p34-set-argmax");
