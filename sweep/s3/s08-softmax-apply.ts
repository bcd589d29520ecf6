// Classification head: softmax / cross-entropy with the log-sum-exp trick using Math.max.apply,
// Math.min.apply for a margin, entries()/keys() iterators, spread into a new array.
import { gradient, jacobian, differential, hessian } from "nabla";
import { compare, fdGrad, fdJac, summary } from "./check.ts";

function logSumExp(z: number[]): number {
  const m = Math.max.apply(null, z);
  let s = 0;
  for (const v of z) s += Math.exp(v - m);
  return m + Math.log(s);
}

function softmax(z: number[]): number[] {
  const lse = logSumExp(z);
  return z.map((v) => Math.exp(v - lse));
}

function crossEntropy(z: number[], label: number, smoothing = 0.1): number {
  const lse = logSumExp(z);
  const k = z.length;
  let loss = 0;
  for (const [i, v] of z.entries()) {
    const target = i === label ? 1 - smoothing + smoothing / k : smoothing / k;
    loss -= target * (v - lse);
  }
  return loss;
}

function marginLoss(z: number[], label: number): number {
  const others = [...z.slice(0, label), ...z.slice(label + 1)];
  const worst = Math.max.apply(Math, others);
  const gap = Math.min.apply(null, [z[label] - worst, 1]);
  return 1 - gap;
}

function batchLoss(logits: number[]): number {
  const rows = [logits.slice(0, 4), logits.slice(4, 8)];
  const labels = [2, 0];
  let total = 0;
  for (const r of rows.keys()) total += crossEntropy(rows[r], labels[r]) + 0.5 * marginLoss(rows[r], labels[r]);
  return total;
}

const z = [0.3, -1.2, 2.0, 0.7, 1.5, 0.2, -0.4, 0.9];
const g = gradient(batchLoss)(z);
compare("grad vs fd", g, fdGrad(batchLoss, z));
compare("fwd vs rev", differential(batchLoss)(z)(z), g.reduce((s, gi, i) => s + gi * z[i], 0));
const z4 = z.slice(0, 4);
const J = jacobian(softmax)(z4);
compare("softmax jacobian vs fd", J, fdJac(softmax, z4));
compare("softmax jacobian fwd vs rev", J, jacobian(softmax, { mode: "reverse" })(z4));
const H = hessian((v: number[]) => crossEntropy(v, 1))(z4);
compare("CE hessian vs fd", H, fdJac((v) => gradient((w: number[]) => crossEntropy(w, 1))(v), z4));
compare("wasm grad", gradient(batchLoss, { backend: "wasm" })(z), g);
summary("s08-softmax-apply");
