// Stats: Gaussian-mixture log-likelihood with log-sum-exp, params in a Record.
import { gradient, valueWithGradient, differential, hessianVectorProduct } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

type Params = Record<"means" | "logSigmas" | "logits", number[]>;

function logSumExp(xs: number[]): number {
  const m = xs.reduce((a, b) => (a > b ? a : b));
  return m + Math.log(xs.reduce((s, x) => s + Math.exp(x - m), 0));
}

function logLikelihood(p: Params, data: readonly number[]): number {
  const { means, logSigmas, logits } = p;
  const logNorm = logSumExp(logits);
  let ll = 0;
  for (const x of data) {
    const comps = means.map((mu, k) => {
      const s = Math.exp(logSigmas[k]);
      const z = (x - mu) / s;
      return logits[k] - logNorm - 0.5 * z * z - logSigmas[k] - 0.5 * Math.log(2 * Math.PI);
    });
    ll += logSumExp(comps);
  }
  return ll;
}

const data = [-1.2, -0.8, 0.1, 0.3, 1.9, 2.4, 2.2, -1.0];
const p0: Params = { means: [-1, 0, 2], logSigmas: [-0.5, 0, -0.3], logits: [0.2, -0.1, 0.4] };
const toP = (v: number[]): Params => ({
  means: v.slice(0, 3),
  logSigmas: v.slice(3, 6),
  logits: v.slice(6, 9),
});
const flatP = (p: Params) => [...p.means, ...p.logSigmas, ...p.logits];
const { value, gradient: g } = valueWithGradient(logLikelihood, { wrt: 0 })(p0, data);
compare("value", value, logLikelihood(p0, data), 1e-12);
compare(
  "grad vs fd",
  flatP(g),
  fdGrad((v) => logLikelihood(toP(v), data), flatP(p0)),
);
const dir = toP([1, 0, -1, 0.5, 0.5, 0, 1, 1, 1]);
compare(
  "fwd vs rev",
  differential(logLikelihood, { wrt: 0 })(p0, data)(dir),
  flatP(g).reduce((s, gi, i) => s + gi * flatP(dir)[i], 0),
);
const hv = hessianVectorProduct(logLikelihood, { wrt: 0 })(p0, data, dir);
compare(
  "hvp vs fd",
  flatP(hv),
  fdGrad((v) => {
    const gg = flatP(gradient(logLikelihood, { wrt: 0 })(toP(v), data));
    return gg.reduce((s, gi, i) => s + gi * flatP(dir)[i], 0);
  }, flatP(p0)),
  1e-4,
);
compare("wasm", flatP(gradient(logLikelihood, { wrt: 0, backend: "wasm" })(p0, data)), flatP(g));
summary("p12-gmm");
