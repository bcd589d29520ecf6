// Array plumbing: flat()/flatMap on nested arrays, spread concatenation, Math.max(...xs) and
// Math.min(...xs) normalization, `Array.from({ length }, …)` with nested maps, `.at(-1)`.
import { gradient, jacobian, differential } from "nabla";
import { compare, fdGrad, fdJac, summary } from "./check.ts";

function outer(a: number[], b: number[]): number[][] {
  return a.map((x) => b.map((y) => x * y));
}

function minMaxScale(xs: number[]): number[] {
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return xs.map((x) => (x - lo) / (hi - lo));
}

function features(v: number[]): number[] {
  const pairs = outer(v.slice(0, 2), v.slice(2)).flat();
  const squares = v.flatMap((x, i) => (i % 2 === 0 ? [x * x] : []));
  const all = [...pairs, ...squares, v.at(-1) ?? 0];
  return minMaxScale(all);
}

function energy(v: number[]): number {
  const grid = Array.from({ length: 3 }, (_, i) => Array.from({ length: 3 }, (_, j) => v[i] * v[j] + (i === j ? 1 : 0)));
  const rows = grid.map((r) => r.reduce((s, x) => s + x, 0));
  const flatGrid = grid.flat();
  return Math.max(...rows) + flatGrid.reduce((s, x) => s + Math.sin(x), 0) / flatGrid.length;
}

const v = [0.4, 1.3, -0.7, 0.9];
const J = jacobian(features)(v);
compare("features jacobian vs fd", J, fdJac(features, v));
compare("features jacobian fwd vs rev", J, jacobian(features, { mode: "reverse" })(v));
const w = [0.3, 0.8, -0.2];
const g = gradient(energy)(w);
compare("energy grad vs fd", g, fdGrad(energy, w));
compare("fwd vs rev", differential(energy)(w)([1, -1, 2]), g[0] - g[1] + 2 * g[2]);
compare("wasm grad", gradient(energy, { backend: "wasm" })(w), g);
summary("s22-flat-spread");
