// Multinomial softmax classifier on iris-like flower measurements with one-hot labels; regularized cross-entropy.

export type Species = "setosa" | "versicolor" | "virginica";

export interface Flower {
  sepalLength: number;
  sepalWidth: number;
  petalLength: number;
  petalWidth: number;
  species: Species;
}

const classes: readonly Species[] = ["setosa", "versicolor", "virginica"];
const classIndex = new Map(classes.map((c, i) => [c, i] as const));

export function oneHot(label: Species): number[] {
  const encoded = new Array<number>(classes.length).fill(0);
  const idx = classIndex.get(label);
  if (idx === undefined) throw new Error(`unknown label ${label}`);
  encoded[idx] = 1;
  return encoded;
}

const features = (f: Flower) => [1, f.sepalLength - 5.8, f.sepalWidth - 3.0, f.petalLength - 3.7, f.petalWidth - 1.2];

export function softmax(logits: number[]): number[] {
  const max = Math.max(...logits);
  const exps = logits.map((z) => Math.exp(z - max));
  const total = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / total);
}

export function logSoftmax(logits: number[]): number[] {
  const max = Math.max(...logits);
  const lse = max + Math.log(logits.reduce((s, z) => s + Math.exp(z - max), 0));
  return logits.map((z) => z - lse);
}

export function predict(W: number[][], flower: Flower): Species {
  const probs = softmax(W.map((row) => row.reduce((s, w, j) => s + w * features(flower)[j], 0)));
  return classes[probs.indexOf(Math.max(...probs))];
}

export function accuracy(W: number[][], data: Flower[]) {
  return data.filter((f) => predict(W, f) === f.species).length / data.length;
}

export function objective(W: number[][], data: Flower[], { l2 = 0.01, labelSmoothing = 0.05 } = {}): number {
  const K = classes.length;
  let loss = 0;
  for (const flower of data) {
    const x = features(flower);
    const logits = W.map((row) => row.reduce((s, w, j) => s + w * x[j], 0));
    const logp = logSoftmax(logits);
    const target = oneHot(flower.species).map((y) => y * (1 - labelSmoothing) + labelSmoothing / K);
    loss -= target.reduce((s, t, k) => s + t * logp[k], 0);
  }
  // don't regularize the bias column
  const reg = W.reduce((s, row) => s + row.slice(1).reduce((r, w) => r + w * w, 0), 0);
  return loss / data.length + 0.5 * l2 * reg;
}

const raw: [number, number, number, number, Species][] = [
  [5.1, 3.5, 1.4, 0.2, "setosa"],
  [4.9, 3.0, 1.4, 0.2, "setosa"],
  [5.4, 3.9, 1.7, 0.4, "setosa"],
  [5.0, 3.4, 1.5, 0.2, "setosa"],
  [7.0, 3.2, 4.7, 1.4, "versicolor"],
  [6.4, 3.2, 4.5, 1.5, "versicolor"],
  [5.5, 2.3, 4.0, 1.3, "versicolor"],
  [5.7, 2.8, 4.5, 1.3, "versicolor"],
  [6.3, 3.3, 6.0, 2.5, "virginica"],
  [5.8, 2.7, 5.1, 1.9, "virginica"],
  [7.1, 3.0, 5.9, 2.1, "virginica"],
  [6.5, 3.0, 5.2, 2.0, "virginica"],
];

export const flowers: Flower[] = raw.map(([sepalLength, sepalWidth, petalLength, petalWidth, species]) => ({
  sepalLength,
  sepalWidth,
  petalLength,
  petalWidth,
  species,
}));

export const args: Parameters<typeof objective> = [
  [
    [0.2, 0.3, 1.1, -1.4, -0.9],
    [0.4, 0.1, -0.6, 0.2, -0.3],
    [-0.6, -0.4, -0.5, 1.2, 1.3],
  ],
  flowers,
  { l2: 0.02 },
];
