// ML: a GRU-ish recurrent cell over a sequence with class parameters; BPTT gradient.
import { gradient, valueWithGradient, differential, hessianVectorProduct } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

interface CellParams {
  wz: number[];
  uz: number[];
  wh: number[];
  uh: number[];
  readonly hiddenSize: number;
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

class Gru {
  constructor(private readonly p: CellParams) {}
  step(h: number[], x: number): number[] {
    const { wz, uz, wh, uh } = this.p;
    return h.map((hi, i) => {
      const z = sigmoid(wz[i] * x + uz[i] * hi);
      const cand = Math.tanh(wh[i] * x + uh[i] * hi * (1 - z));
      return (1 - z) * hi + z * cand;
    });
  }
  run(seq: readonly number[]): number[][] {
    const states: number[][] = [];
    let h = new Array<number>(this.p.hiddenSize).fill(0);
    for (const x of seq) {
      h = this.step(h, x);
      states.push(h);
    }
    return states;
  }
}

function seqLoss(p: CellParams, seq: number[], targets: number[]): number {
  const states = new Gru(p).run(seq);
  return states.reduce((loss, h, t) => {
    const pred = h.reduce((a, b) => a + b, 0) / h.length;
    return loss + (pred - targets[t]) ** 2;
  }, 0);
}

const p0: CellParams = {
  wz: [0.5, -0.3],
  uz: [0.2, 0.4],
  wh: [1.1, -0.8],
  uh: [0.3, 0.6],
  hiddenSize: 2,
};
const seq = [0.5, -1, 0.3, 0.9, -0.2];
const targets = [0.1, -0.2, 0.05, 0.3, 0];
const flat = (p: Pick<CellParams, "wz" | "uz" | "wh" | "uh">) => [
  ...p.wz,
  ...p.uz,
  ...p.wh,
  ...p.uh,
];
const unflat = (v: number[]): CellParams => ({
  wz: v.slice(0, 2),
  uz: v.slice(2, 4),
  wh: v.slice(4, 6),
  uh: v.slice(6, 8),
  hiddenSize: 2,
});
const { value, gradient: g } = valueWithGradient(seqLoss, { wrt: 0 })(p0, seq, targets);
compare("value", value, seqLoss(p0, seq, targets), 1e-12);
compare(
  "grad vs fd",
  flat(g),
  fdGrad((v) => seqLoss(unflat(v), seq, targets), flat(p0)),
);
const dir = unflat([1, 0, 0, 1, 0, 1, 1, 0]);
compare(
  "fwd vs rev",
  differential(seqLoss, { wrt: 0 })(p0, seq, targets)(dir),
  g.wz[0] + g.uz[1] + g.wh[1] + g.uh[0],
);
const gs = gradient(seqLoss, { wrt: 1 })(p0, seq, targets);
compare(
  "grad seq vs fd",
  gs,
  fdGrad((s) => seqLoss(p0, s, targets), seq),
);
const hv = hessianVectorProduct(seqLoss, { wrt: 1 })(p0, seq, targets, [1, 0, 0, 0, 1]);
compare(
  "hvp seq vs fd",
  hv,
  fdGrad((s) => {
    const gg = gradient(seqLoss, { wrt: 1 })(p0, s, targets);
    return gg[0] + gg[4];
  }, seq),
  1e-4,
);
compare("wasm", flat(gradient(seqLoss, { wrt: 0, backend: "wasm" })(p0, seq, targets)), flat(g));
summary("p30-rnn");
