// Hand-written baseline for GradBench "lstm" (no AD): the gradient of the loss with respect to
// the main and extra parameters by hand-written backpropagation through time. The forward sweep
// keeps each step's gate values on a tape of Float64Arrays. The primal, the data layout, the
// input types and the prepare functions are those of ../evals/lstm.ts.
import { sigmoid, type LstmPrepared } from "../evals/lstm.js";

export type { LstmInput, LstmPrepared } from "../evals/lstm.js";
export { lstmObjective, prepareObjective, runObjective, prepareJacobian } from "../evals/lstm.js";

export function lstmGradient(
  mainParams: Float64Array[],
  extraParams: Float64Array[],
  initialState: Float64Array[],
  sequence: Float64Array[],
): { main: Float64Array[]; extra: Float64Array[] } {
  const layers = mainParams.length / 2;
  const b = sequence[0].length;
  const steps = sequence.length - 1;
  const count = steps * b;

  // Tape, indexed [(t·layers + l)·b + i]: the layer's input, the hidden and cell state it read,
  // its four gates, and tanh of its new cell state. Plus the last layer's output per step.
  const size = steps * layers * b;
  const tIn = new Float64Array(size);
  const tH = new Float64Array(size);
  const tC = new Float64Array(size);
  const tF = new Float64Array(size);
  const tI = new Float64Array(size);
  const tO = new Float64Array(size);
  const tG = new Float64Array(size);
  const tTc = new Float64Array(size);
  const tOut = new Float64Array(steps * b); // softmax-like weights exp(ŷ)/S per step
  const tHl = new Float64Array(steps * b); // last hidden per step

  const state = initialState.map((s) => s.slice());
  const input = new Float64Array(b);
  for (let t = 0; t < steps; t++) {
    const x = sequence[t];
    for (let i = 0; i < b; i++) input[i] = x[i] * extraParams[0][i];
    let layerInput = input;
    for (let l = 0; l < layers; l++) {
      const w = mainParams[2 * l];
      const bias = mainParams[2 * l + 1];
      const h = state[2 * l];
      const c = state[2 * l + 1];
      const base = (t * layers + l) * b;
      for (let i = 0; i < b; i++) {
        const xin = layerInput[i];
        const f = sigmoid(xin * w[i] + bias[i]);
        const ig = sigmoid(h[i] * w[b + i] + bias[b + i]);
        const o = sigmoid(xin * w[2 * b + i] + bias[2 * b + i]);
        const ch = Math.tanh(h[i] * w[3 * b + i] + bias[3 * b + i]);
        tIn[base + i] = xin;
        tH[base + i] = h[i];
        tC[base + i] = c[i];
        tF[base + i] = f;
        tI[base + i] = ig;
        tO[base + i] = o;
        tG[base + i] = ch;
        c[i] = c[i] * f + ig * ch;
        const tc = Math.tanh(c[i]);
        tTc[base + i] = tc;
        h[i] = o * tc;
      }
      layerInput = h;
    }
    let sum = 2;
    for (let i = 0; i < b; i++) {
      const y = layerInput[i] * extraParams[1][i] + extraParams[2][i];
      const e = Math.exp(y);
      tOut[t * b + i] = e;
      tHl[t * b + i] = layerInput[i];
      sum += e;
    }
    for (let i = 0; i < b; i++) tOut[t * b + i] /= sum;
  }

  const gMain = mainParams.map((r) => new Float64Array(r.length));
  const gExtra = extraParams.map((r) => new Float64Array(r.length));
  const dh: Float64Array[] = [];
  const dc: Float64Array[] = [];
  for (let l = 0; l < layers; l++) {
    dh.push(new Float64Array(b));
    dc.push(new Float64Array(b));
  }
  const dxin = new Float64Array(b);
  const seed = -1 / count;
  for (let t = steps - 1; t >= 0; t--) {
    const next = sequence[t + 1];
    let gsum = 0;
    for (let i = 0; i < b; i++) gsum += next[i];
    const dhl = dh[layers - 1];
    for (let i = 0; i < b; i++) {
      const dy = seed * (next[i] - gsum * tOut[t * b + i]);
      gExtra[1][i] += dy * tHl[t * b + i];
      gExtra[2][i] += dy;
      dhl[i] += dy * extraParams[1][i];
    }
    for (let l = layers - 1; l >= 0; l--) {
      const w = mainParams[2 * l];
      const gw = gMain[2 * l];
      const gb = gMain[2 * l + 1];
      const dhL = dh[l];
      const dcL = dc[l];
      const base = (t * layers + l) * b;
      for (let i = 0; i < b; i++) {
        const o = tO[base + i];
        const f = tF[base + i];
        const ig = tI[base + i];
        const ch = tG[base + i];
        const tc = tTc[base + i];
        const xin = tIn[base + i];
        const hOld = tH[base + i];
        const dhNew = dhL[i];
        const dcNew = dcL[i] + dhNew * o * (1 - tc * tc);
        const dzo = dhNew * tc * o * (1 - o);
        const dzf = dcNew * tC[base + i] * f * (1 - f);
        const dzi = dcNew * ch * ig * (1 - ig);
        const dzc = dcNew * ig * (1 - ch * ch);
        gw[i] += dzf * xin;
        gb[i] += dzf;
        gw[b + i] += dzi * hOld;
        gb[b + i] += dzi;
        gw[2 * b + i] += dzo * xin;
        gb[2 * b + i] += dzo;
        gw[3 * b + i] += dzc * hOld;
        gb[3 * b + i] += dzc;
        dxin[i] = dzf * w[i] + dzo * w[2 * b + i];
        dhL[i] = dzi * w[b + i] + dzc * w[3 * b + i];
        dcL[i] = dcNew * f;
      }
      if (l > 0) {
        const below = dh[l - 1];
        for (let i = 0; i < b; i++) below[i] += dxin[i];
      } else {
        const x = sequence[t];
        for (let i = 0; i < b; i++) gExtra[0][i] += dxin[i] * x[i];
      }
    }
  }
  return { main: gMain, extra: gExtra };
}

// --- GradBench wrappers (see ../README.md for the prepare/run convention) ---

export function runJacobian(p: LstmPrepared): number[] {
  const g = lstmGradient(p.mainParams, p.extraParams, p.state, p.sequence);
  const flat: number[] = [];
  for (const row of g.main) flat.push(...row);
  for (const row of g.extra) flat.push(...row);
  return flat;
}
