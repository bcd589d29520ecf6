// Mutation and aliasing: in-place swaps, reverse, subarray views, fill, shared rows.
import { gradient, differential } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

function bubbleSortInPlace(xs: number[]): void {
  for (let i = 0; i < xs.length; i++)
    for (let j = 0; j + 1 < xs.length - i; j++)
      if (xs[j] > xs[j + 1]) [xs[j], xs[j + 1]] = [xs[j + 1], xs[j]];
}

function viewScore(buf: Float64Array): number {
  const copy = buf.slice();
  const head = copy.subarray(0, 3);
  const tail = copy.subarray(3);
  for (let i = 0; i < head.length; i++) head[i] *= 2; // writes through to copy
  tail.reverse();
  let s = 0;
  copy.forEach((v, i) => (s += v * (i + 1)));
  return s + head[0] * tail[0];
}

function trimmedWeighted(xs: number[]): number {
  const ys = xs.slice();
  bubbleSortInPlace(ys);
  ys.reverse();
  const weights = new Array(ys.length).fill(1);
  weights[0] = 0;
  weights[weights.length - 1] = 0;
  const alias = ys;
  alias[1] *= 3;
  return ys.reduce((acc, y, i) => acc + weights[i] * y * y, 0);
}

const x = [0.3, -1.2, 2.5, 0.7, 1.1, -0.4];
const g1 = gradient(trimmedWeighted)(x);
compare("trimmed grad vs fd", g1, fdGrad(trimmedWeighted, x));
compare(
  "trimmed fwd vs rev",
  differential(trimmedWeighted)(x)([1, 1, 1, 1, 1, 1]),
  g1.reduce((a, b) => a + b),
);
const buf = Float64Array.from(x);
const g2 = gradient(viewScore)(buf);
compare(
  "view grad vs fd",
  g2,
  fdGrad((v) => viewScore(Float64Array.from(v)), x),
);
compare(
  "view fwd vs rev",
  differential(viewScore)(buf)(Float64Array.from([1, 2, 3, 4, 5, 6])),
  g2.reduce((s, gi, i) => s + gi * (i + 1), 0),
);
compare("wasm view", gradient(viewScore, { backend: "wasm" })(buf), g2);
summary("p19-aliasing");
