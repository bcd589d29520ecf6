// Exchange economy with CES consumers: Marshallian demands from an options object, squared excess demand at given prices.

export interface CesConsumer {
  name: string;
  shares: number[]; // preference weights a_i
  rho: number; // substitution parameter, σ = 1 / (1 - ρ)
  endowment: number[];
}

export interface EconomyOptions {
  goods?: string[];
  numeraire?: number; // index of the good whose price is pinned
  normalizationWeight?: number;
}

// u(x) = (Σ a_i x_i^ρ)^(1/ρ)
export function cesUtility(x: number[], { shares, rho }: Pick<CesConsumer, "shares" | "rho">): number {
  const inner = x.reduce((s, xi, i) => s + shares[i] * xi ** rho, 0);
  return inner ** (1 / rho);
}

// x_i = a_i^σ p_i^{-σ} m / Σ_j a_j^σ p_j^{1-σ}
export function marshallianDemand(prices: number[], income: number, { shares, rho }: Pick<CesConsumer, "shares" | "rho">): number[] {
  const sigma = 1 / (1 - rho);
  const denom = prices.reduce((s, p, j) => s + shares[j] ** sigma * p ** (1 - sigma), 0);
  return prices.map((p, i) => (shares[i] ** sigma * p ** -sigma * income) / denom);
}

export function excessDemand(prices: number[], consumers: CesConsumer[]): number[] {
  const total = prices.map(() => 0);
  for (const consumer of consumers) {
    const income = consumer.endowment.reduce((s, e, i) => s + e * prices[i], 0);
    marshallianDemand(prices, income, consumer).forEach((d, i) => (total[i] += d - consumer.endowment[i]));
  }
  return total;
}

export function utilities(prices: number[], consumers: CesConsumer[]): Record<string, number> {
  return Object.fromEntries(
    consumers.map((c) => {
      const income = c.endowment.reduce((m, e, i) => m + e * prices[i], 0);
      return [c.name, cesUtility(marshallianDemand(prices, income, c), c)];
    }),
  );
}

export function objective(prices: number[], consumers: CesConsumer[], options: EconomyOptions = {}): number {
  const { goods = prices.map((_, i) => `good${i}`), numeraire = 0, normalizationWeight = 1 } = options;
  if (goods.length !== prices.length) throw new Error("price vector does not match goods list");
  const z = excessDemand(prices, consumers);
  // Walras' law makes p·z = 0, so one equation is redundant: pin the numeraire instead
  const imbalance = z.reduce((s, zi) => s + zi * zi, 0);
  return imbalance + normalizationWeight * (prices[numeraire] - 1) ** 2;
}

export const consumers: CesConsumer[] = [
  { name: "farmer", shares: [0.2, 0.5, 0.3], rho: 0.5, endowment: [10, 1, 2] },
  { name: "smith", shares: [0.5, 0.2, 0.3], rho: -1, endowment: [1, 8, 3] },
  { name: "weaver", shares: [0.3, 0.3, 0.4], rho: 0.25, endowment: [2, 3, 9] },
];

export const args: Parameters<typeof objective> = [[1.05, 1.3, 0.9], consumers, { goods: ["grain", "tools", "cloth"], numeraire: 0 }];
