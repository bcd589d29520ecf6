// ML: single-head scaled dot-product attention; gradient wrt queries/keys/values.
import { gradient, pullback, differential } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

type Matrix = number[][];

const matmul = (a: Matrix, b: Matrix): Matrix =>
  a.map((row) => b[0].map((_, j) => row.reduce((s, v, k) => s + v * b[k][j], 0)));
const transpose = (m: Matrix): Matrix => m[0].map((_, j) => m.map((row) => row[j]));

function softmaxRows(m: Matrix): Matrix {
  return m.map((row) => {
    const max = row.reduce((a, b) => Math.max(a, b), -Infinity);
    const e = row.map((v) => Math.exp(v - max));
    const z = e.reduce((a, b) => a + b);
    return e.map((v) => v / z);
  });
}

function attention(q: Matrix, k: Matrix, v: Matrix, causal = false): Matrix {
  const d = q[0].length;
  const scores = matmul(q, transpose(k)).map((row, i) =>
    row.map((s, j) => (causal && j > i ? -Infinity : s / Math.sqrt(d))),
  );
  return matmul(softmaxRows(scores), v);
}

function loss(q: Matrix, k: Matrix, v: Matrix): number {
  const out = attention(q, k, v, true);
  return out.flat().reduce((s, x, i) => s + x * x * (1 + (i % 3)), 0);
}

const Q = [
  [0.1, 0.4],
  [-0.3, 0.2],
  [0.5, -0.6],
];
const K = [
  [0.2, -0.1],
  [0.7, 0.3],
  [-0.4, 0.5],
];
const V = [
  [1, 2],
  [0.5, -1],
  [-0.3, 0.8],
];
const unflat = (x: number[]): Matrix => [x.slice(0, 2), x.slice(2, 4), x.slice(4, 6)];
const [gq, gk, gv] = gradient(loss)(Q, K, V);
compare(
  "gq vs fd",
  gq,
  fdGrad((x) => loss(unflat(x), K, V), Q.flat()),
);
compare(
  "gk vs fd",
  gk,
  fdGrad((x) => loss(Q, unflat(x), V), K.flat()),
);
compare(
  "gv vs fd",
  gv,
  fdGrad((x) => loss(Q, K, unflat(x)), V.flat()),
);
const dirQ = [
  [1, 0],
  [0, 1],
  [1, 1],
];
const fwd = differential(loss, { wrt: 0 })(Q, K, V)(dirQ);
compare(
  "fwd vs rev",
  fwd,
  gq.flat().reduce((s, g, i) => s + g * dirQ.flat()[i], 0),
);
const pb = pullback((q: Matrix) => attention(q, K, V, true))(Q);
const ct = [
  [1, 0],
  [0, 2],
  [3, -1],
];
const outFlat = (x: number[]) =>
  attention(unflat(x), K, V, true)
    .flat()
    .reduce((s, o, i) => s + o * ct.flat()[i], 0);
compare("pullback vs fd", pb(ct), fdGrad(outFlat, Q.flat()));
compare("wasm", gradient(loss, { backend: "wasm" })(Q, K, V), [gq, gk, gv]);
summary("p06-attention");
