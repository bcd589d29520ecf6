// Optimization: L-BFGS two-loop recursion with history arrays grown from [] and shift();
// differentiate the final loss w.r.t. problem data (unrolled optimizer).
import { differential, valueWithGradient } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

const dot = (a: readonly number[], b: readonly number[]) => a.reduce((s, x, i) => s + x * b[i], 0);

function quadGrad(x: number[], A: number[][], b: number[]): number[] {
  return A.map((row, i) => dot(row, x) - b[i]);
}
function quadLoss(x: number[], A: number[][], b: number[]): number {
  return (
    0.5 *
      dot(
        x,
        A.map((row) => dot(row, x)),
      ) -
    dot(b, x)
  );
}

function lbfgs(A: number[][], b: number[], iters = 6, memory = 3): number {
  let x = new Array(b.length).fill(0);
  let g = quadGrad(x, A, b);
  const sHist: number[][] = [];
  const yHist: number[][] = [];
  for (let k = 0; k < iters; k++) {
    const q = [...g];
    const alphas: number[] = [];
    for (let i = sHist.length - 1; i >= 0; i--) {
      const rho = 1 / dot(yHist[i], sHist[i]);
      const a = rho * dot(sHist[i], q);
      alphas.unshift(a);
      for (let j = 0; j < q.length; j++) q[j] -= a * yHist[i][j];
    }
    const gamma = sHist.length
      ? dot(sHist.at(-1)!, yHist.at(-1)!) / dot(yHist.at(-1)!, yHist.at(-1)!)
      : 0.1;
    let r = q.map((v) => gamma * v);
    sHist.forEach((s, i) => {
      const rho = 1 / dot(yHist[i], s);
      const beta = rho * dot(yHist[i], r);
      r = r.map((v, j) => v + s[j] * (alphas[i] - beta));
    });
    const xNew = x.map((v, i) => v - r[i]);
    const gNew = quadGrad(xNew, A, b);
    sHist.push(xNew.map((v, i) => v - x[i]));
    yHist.push(gNew.map((v, i) => v - g[i]));
    if (sHist.length > memory) {
      sHist.shift();
      yHist.shift();
    }
    x = xNew;
    g = gNew;
  }
  return quadLoss(x, A, b) + 0.1 * dot(x, x);
}

const A = [
  [4, 1, 0.5],
  [1, 3, 0.2],
  [0.5, 0.2, 2],
];
const b = [1, -2, 0.5];
const { value, gradient: gr } = valueWithGradient(lbfgs, { wrt: [0, 1] })(A, b);
compare("value", value, lbfgs(A, b), 1e-12);
compare(
  "grad b vs fd",
  gr[1],
  fdGrad((bb) => lbfgs(A, bb), b),
  1e-4,
);
compare(
  "grad A vs fd",
  gr[0].flat(),
  fdGrad((v) => lbfgs([v.slice(0, 3), v.slice(3, 6), v.slice(6, 9)], b), A.flat()),
  1e-4,
);
compare(
  "fwd vs rev",
  differential(lbfgs, { wrt: 1 })(A, b)([1, 1, 1]),
  gr[1].reduce((s, v) => s + v, 0),
);
summary("p37-lbfgs");
