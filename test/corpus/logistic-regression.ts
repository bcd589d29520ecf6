// Customer-churn logistic regression: standardized features from records, L2-regularized mean cross-entropy on the training split.

export interface CustomerRecord {
  id: string;
  tenureMonths: number;
  monthlySpend: number;
  supportTickets: number;
  plan: "basic" | "pro" | "enterprise";
  churned: boolean;
  split: "train" | "test";
}

const featureNames = ["tenure", "spend", "tickets", "isPro", "isEnterprise"] as const;
type Feature = (typeof featureNames)[number];
export type Weights = Record<Feature, number> & { bias: number };

function rawFeatures(r: CustomerRecord): Record<Feature, number> {
  return {
    tenure: Math.log1p(r.tenureMonths),
    spend: r.monthlySpend,
    tickets: r.supportTickets,
    isPro: r.plan === "pro" ? 1 : 0,
    isEnterprise: r.plan === "enterprise" ? 1 : 0,
  };
}

function standardizer(rows: Record<Feature, number>[]) {
  const stats = featureNames.map((f) => {
    const mean = rows.reduce((s, r) => s + r[f], 0) / rows.length;
    const variance = rows.reduce((s, r) => s + (r[f] - mean) ** 2, 0) / rows.length;
    return { f, mean, std: Math.sqrt(variance) || 1 };
  });
  return (row: Record<Feature, number>) =>
    Object.fromEntries(stats.map(({ f, mean, std }) => [f, (row[f] - mean) / std])) as Record<Feature, number>;
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
// numerically stable log(1 + e^z)
const softplus = (z: number) => (z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z)));

export function predict(weights: Weights, x: Record<Feature, number>) {
  return sigmoid(featureNames.reduce((z, f) => z + weights[f] * x[f], weights.bias));
}

export function objective(weights: Weights, records: CustomerRecord[], l2 = 0.05): number {
  const train = records.filter((r) => r.split === "train");
  const scale = standardizer(train.map(rawFeatures));
  const examples = train.map((r) => ({ x: scale(rawFeatures(r)), y: r.churned ? 1 : 0 }));
  const nll =
    examples
      .map(({ x, y }) => {
        const z = featureNames.reduce((acc, f) => acc + weights[f] * x[f], weights.bias);
        // -[y log σ(z) + (1-y) log(1-σ(z))]
        return softplus(z) - y * z;
      })
      .reduce((a, b) => a + b, 0) / examples.length;
  const penalty = featureNames.map((f) => weights[f] ** 2).reduce((a, b) => a + b, 0);
  return nll + 0.5 * l2 * penalty;
}

function makeRecords(n: number): CustomerRecord[] {
  const plans = ["basic", "pro", "enterprise"] as const;
  return Array.from({ length: n }, (_, i) => {
    const tenureMonths = (i * 7) % 48 + 1;
    const supportTickets = (i * 3) % 5;
    const plan = plans[i % 3];
    const monthlySpend = 20 + 15 * (i % 3) + ((i * 13) % 11);
    const risk = 0.9 * supportTickets - 0.08 * tenureMonths + (plan === "basic" ? 0.7 : 0) + Math.sin(i);
    return { id: `c${i}`, tenureMonths, monthlySpend, supportTickets, plan, churned: risk > 0, split: i % 5 === 0 ? "test" : "train" };
  });
}

export const records = makeRecords(60);

export const args: Parameters<typeof objective> = [
  { bias: -0.3, tenure: -1.1, spend: 0.2, tickets: 0.9, isPro: -0.25, isEnterprise: -0.4 },
  records,
  0.05,
];
