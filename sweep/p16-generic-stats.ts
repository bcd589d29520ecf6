// Generic helpers: a generic class accumulator, generic map/zip helpers, rest parameters.
import { gradient, differential, valueWithGradient } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

class RunningStats {
  private count = 0;
  private mean = 0;
  private m2 = 0;
  push(...values: number[]): this {
    for (const x of values) {
      this.count++;
      const delta = x - this.mean;
      this.mean += delta / this.count;
      this.m2 += delta * (x - this.mean);
    }
    return this;
  }
  get variance(): number {
    return this.count > 1 ? this.m2 / (this.count - 1) : 0;
  }
  get average(): number {
    return this.mean;
  }
}

function zipWith<A, B, C>(a: readonly A[], b: readonly B[], fn: (x: A, y: B) => C): C[] {
  const n = Math.min(a.length, b.length);
  const out: C[] = [];
  for (let i = 0; i < n; i++) out.push(fn(a[i], b[i]));
  return out;
}

function sum(...xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

function zscoreLoss(xs: number[], weights: number[]): number {
  const stats = new RunningStats().push(...xs);
  const sd = Math.sqrt(stats.variance);
  const z = xs.map((x) => (x - stats.average) / sd);
  const weighted = zipWith(z, weights, (a, w) => w * a * a * a);
  return sum(...weighted) + sum(stats.average, sd);
}

const xs = [1.2, 0.4, 3.3, 2.1, -0.5];
const w = [1, 0.5, 2, -1, 0.3];
const { value, gradient: g } = valueWithGradient(zscoreLoss)(xs, w);
compare("value", value, zscoreLoss(xs, w), 1e-12);
compare(
  "gx vs fd",
  g[0],
  fdGrad((x) => zscoreLoss(x, w), xs),
);
compare(
  "gw vs fd",
  g[1],
  fdGrad((ww) => zscoreLoss(xs, ww), w),
);
const fwd = differential(zscoreLoss)(xs, w)([1, 0, 0, 0, 1], [0, 1, 0, 0, 0]);
compare("fwd vs rev", fwd, g[0][0] + g[0][4] + g[1][1]);
compare("wasm", gradient(zscoreLoss, { backend: "wasm" })(xs, w), g);
summary("p16-generic-stats");
