// Higher order: physics-informed loss using an inner derivative; hessian of class-based energy;
// jacobian with several wrt; pullback of an object-valued function.
import {
  gradient,
  derivative,
  hessian,
  hessianVectorProduct,
  pullback,
  valueWithPullback,
  differential,
} from "nabla";
import { compare, fdGrad, fd1, summary } from "./check.ts";

interface Net {
  w1: number[];
  b1: number[];
  w2: number[];
}
const u = (net: Net, t: number): number =>
  net.w1.reduce((s, w, i) => s + net.w2[i] * Math.tanh(w * t + net.b1[i]), 0);

// residual of u' + u = 0 at collocation points (u' via inner derivative)
function pinnLoss(net: Net, ts: number[]): number {
  let loss = 0;
  for (const t of ts) {
    const du = derivative((s: number) => u(net, s))(t);
    loss += (du + u(net, t)) ** 2;
  }
  return loss + (u(net, 0) - 1) ** 2;
}

class Spring {
  constructor(
    readonly k: number,
    readonly rest: number,
  ) {}
  energy(a: readonly number[], b: readonly number[]): number {
    const d = Math.hypot(a[0] - b[0], a[1] - b[1]) - this.rest;
    return 0.5 * this.k * d * d;
  }
}
const springs: Array<{ i: number; j: number; s: Spring }> = [
  { i: 0, j: 1, s: new Spring(2, 1) },
  { i: 1, j: 2, s: new Spring(1, 1.5) },
  { i: 0, j: 2, s: new Spring(0.5, 2) },
];
function meshEnergy(pos: number[]): number {
  const pt = (k: number) => [pos[2 * k], pos[2 * k + 1]] as const;
  return springs.reduce((e, { i, j, s }) => e + s.energy(pt(i), pt(j)), 0);
}

function stats(xs: number[], w: number): { mean: number; spread: number } {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return { mean: mean * w, spread: xs.reduce((s, x) => s + (x - mean) ** 2, 0) * w * w };
}

const net: Net = { w1: [0.5, -1.2, 0.8], b1: [0.1, 0.3, -0.2], w2: [0.7, 0.4, -0.6] };
const ts = [0.1, 0.5, 0.9];
const flatN = (n: Net) => [...n.w1, ...n.b1, ...n.w2];
const unflatN = (v: number[]): Net => ({ w1: v.slice(0, 3), b1: v.slice(3, 6), w2: v.slice(6, 9) });
const gp = gradient(pinnLoss, { wrt: 0 })(net, ts);
compare(
  "pinn grad vs fd",
  flatN(gp),
  fdGrad((v) => pinnLoss(unflatN(v), ts), flatN(net)),
);
const dirN = unflatN([1, 0, 0, 0, 1, 0, 0, 0, 1]);
compare(
  "pinn fwd vs rev",
  differential(pinnLoss, { wrt: 0 })(net, ts)(dirN),
  gp.w1[0] + gp.b1[1] + gp.w2[2],
);

const pos = [0, 0, 1.2, 0.1, 0.4, 1.3];
const H = hessian(meshEnergy)(pos);
compare(
  "mesh hess vs fd",
  H,
  pos.map((_, i) => fdGrad((p) => gradient(meshEnergy)(p)[i], pos)),
  1e-4,
);
const v = [1, 0, -1, 0.5, 0, 2];
compare(
  "mesh hvp vs H v",
  hessianVectorProduct(meshEnergy)(pos, v),
  H.map((row) => row.reduce((s, h, j) => s + h * v[j], 0)),
);
compare("mesh hess wasm", hessian(meshEnergy, { backend: "wasm" })(pos), H);

const xs = [1, 2.5, -0.5];
const pbk = pullback(stats)(xs, 1.3)({ mean: 1, spread: 0.5 });
const fdx = fdGrad((q) => stats(q, 1.3).mean + 0.5 * stats(q, 1.3).spread, xs);
const fdw = fd1((w) => stats(xs, w).mean + 0.5 * stats(xs, w).spread, 1.3);
compare("pullback obj vs fd", pbk, [fdx, fdw]);
const { value, pullback: pb2 } = valueWithPullback(stats, { wrt: 0 })(xs, 1.3);
compare("valueWithPullback value", value, stats(xs, 1.3), 1e-12);
compare(
  "valueWithPullback",
  pb2({ mean: 0, spread: 1 }),
  fdGrad((q) => stats(q, 1.3).spread, xs),
);
const dfs = differential(stats)(xs, 1.3)([1, 0, 0], 0);
compare(
  "fwd obj vs rev",
  [dfs.mean, dfs.spread],
  [
    pullback(stats)(xs, 1.3)({ mean: 1, spread: 0 })[0][0],
    pullback(stats)(xs, 1.3)({ mean: 0, spread: 1 })[0][0],
  ],
);
summary("p32-higher-order");
