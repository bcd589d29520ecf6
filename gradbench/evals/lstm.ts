// GradBench "lstm": the ADBench LSTM language model over a bit-encoded character sequence.
// mainParams[2i] holds layer i's (diagonal) weights and mainParams[2i+1] its biases, each laid
// out [forget | ingate | outgate | change] with b entries per gate; extraParams are the input
// weight, output weight and output bias; state[2i] / state[2i+1] are layer i's hidden and
// cell state.
import { gradient } from "nabla";

export function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/** log(2 + Σ exp(v)) — ADBench's logsumexp, "+2" included. */
function logSumExpPlus2(v: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += Math.exp(v[i]);
  sum += 2;
  return Math.log(sum);
}

/** One LSTM cell layer, updating hidden and cell in place. */
function lstmLayer(
  weight: Float64Array,
  bias: Float64Array,
  hidden: Float64Array,
  cell: Float64Array,
  input: Float64Array,
): void {
  const b = hidden.length;
  for (let i = 0; i < b; i++) {
    const forget = sigmoid(input[i] * weight[i] + bias[i]);
    const ingate = sigmoid(hidden[i] * weight[b + i] + bias[b + i]);
    const outgate = sigmoid(input[i] * weight[2 * b + i] + bias[2 * b + i]);
    const change = Math.tanh(hidden[i] * weight[3 * b + i] + bias[3 * b + i]);
    cell[i] = cell[i] * forget + ingate * change;
    hidden[i] = outgate * Math.tanh(cell[i]);
  }
}

/** Runs the layers on one input character and writes the prediction to output. */
function lstmPredict(
  mainParams: Float64Array[],
  extraParams: Float64Array[],
  state: Float64Array[],
  input: Float64Array,
  output: Float64Array,
): void {
  const b = input.length;
  const layers = mainParams.length / 2;
  const scaled = new Float64Array(b);
  for (let i = 0; i < b; i++) scaled[i] = input[i] * extraParams[0][i];
  let layerOutput: Float64Array = scaled;
  for (let layer = 0; layer < layers; layer++) {
    const hidden = state[2 * layer];
    lstmLayer(
      mainParams[2 * layer],
      mainParams[2 * layer + 1],
      hidden,
      state[2 * layer + 1],
      layerOutput,
    );
    layerOutput = hidden;
  }
  for (let i = 0; i < b; i++) output[i] = layerOutput[i] * extraParams[1][i] + extraParams[2][i];
}

export function lstmObjective(
  mainParams: Float64Array[],
  extraParams: Float64Array[],
  initialState: Float64Array[],
  sequence: Float64Array[],
): number {
  const state = initialState.map((s) => s.slice());
  const b = sequence[0].length;
  const prediction = new Float64Array(b);
  let total = 0;
  let count = 0;
  for (let t = 0; t < sequence.length - 1; t++) {
    lstmPredict(mainParams, extraParams, state, sequence[t], prediction);
    const lse = logSumExpPlus2(prediction);
    const next = sequence[t + 1];
    for (let i = 0; i < b; i++) total += next[i] * (prediction[i] - lse);
    count += b;
  }
  return -total / count;
}

// --- GradBench wrappers (see ../README.md for the prepare/run convention) ---

export interface LstmInput {
  main_params: number[][];
  extra_params: number[][];
  state: number[][];
  sequence: number[][];
}

export interface LstmPrepared {
  mainParams: Float64Array[];
  extraParams: Float64Array[];
  state: Float64Array[];
  sequence: Float64Array[];
}

const rows = (m: number[][]): Float64Array[] => m.map((r) => Float64Array.from(r));

export function prepareObjective(input: LstmInput): LstmPrepared {
  return {
    mainParams: rows(input.main_params),
    extraParams: rows(input.extra_params),
    state: rows(input.state),
    sequence: rows(input.sequence),
  };
}

export function runObjective(p: LstmPrepared): number {
  return lstmObjective(p.mainParams, p.extraParams, p.state, p.sequence);
}

export const prepareJacobian = prepareObjective;

export function runJacobian(p: LstmPrepared): number[] {
  const [dmain, dextra] = gradient(lstmObjective, { wrt: [0, 1] })(
    p.mainParams,
    p.extraParams,
    p.state,
    p.sequence,
  );
  const flat: number[] = [];
  for (const row of dmain) flat.push(...row);
  for (const row of dextra) flat.push(...row);
  return flat;
}
