// Mean-variance portfolio objective: weights keyed by ticker, asset data in a Map, correlations by sector, plus budget and concentration penalties.

export interface Asset {
  expectedReturn: number;
  volatility: number;
  sector: "tech" | "energy" | "health" | "bonds";
}

export interface RiskModel {
  assets: Map<string, Asset>;
  sectorCorrelation: Record<Asset["sector"], number>;
  crossCorrelation: number;
}

export interface PortfolioOptions {
  riskAversion?: number;
  concentrationPenalty?: number;
  budgetPenalty?: number;
}

function correlation(model: RiskModel, a: string, b: string): number {
  if (a === b) return 1;
  const sa = model.assets.get(a)?.sector;
  const sb = model.assets.get(b)?.sector;
  if (sa === undefined || sb === undefined) throw new Error(`unknown asset ${a} or ${b}`);
  return sa === sb ? model.sectorCorrelation[sa] : model.crossCorrelation;
}

export function portfolioVariance(weights: Record<string, number>, model: RiskModel): number {
  const tickers = Object.keys(weights);
  let variance = 0;
  for (const a of tickers) {
    for (const b of tickers) {
      const va = model.assets.get(a)!.volatility;
      const vb = model.assets.get(b)!.volatility;
      variance += weights[a] * weights[b] * va * vb * correlation(model, a, b);
    }
  }
  return variance;
}

export function expectedReturn(weights: Record<string, number>, model: RiskModel) {
  return Object.entries(weights).reduce((sum, [ticker, w]) => sum + w * (model.assets.get(ticker)?.expectedReturn ?? 0), 0);
}

export function objective(weights: Record<string, number>, model: RiskModel, options: PortfolioOptions = {}): number {
  const { riskAversion = 3, concentrationPenalty = 0.02, budgetPenalty = 10 } = options;
  const total = Object.values(weights).reduce((a, b) => a + b, 0);
  const herfindahl = Object.values(weights).reduce((a, w) => a + w * w, 0);
  const utility = expectedReturn(weights, model) - 0.5 * riskAversion * portfolioVariance(weights, model);
  return -utility + concentrationPenalty * herfindahl + budgetPenalty * (total - 1) ** 2;
}

const universe: [string, Asset][] = [
  ["AAPL", { expectedReturn: 0.09, volatility: 0.28, sector: "tech" }],
  ["MSFT", { expectedReturn: 0.085, volatility: 0.25, sector: "tech" }],
  ["XOM", { expectedReturn: 0.07, volatility: 0.3, sector: "energy" }],
  ["JNJ", { expectedReturn: 0.05, volatility: 0.16, sector: "health" }],
  ["PFE", { expectedReturn: 0.055, volatility: 0.2, sector: "health" }],
  ["TLT", { expectedReturn: 0.03, volatility: 0.12, sector: "bonds" }],
];

export const riskModel: RiskModel = {
  assets: new Map(universe),
  sectorCorrelation: { tech: 0.75, energy: 0.8, health: 0.55, bonds: 0.9 },
  crossCorrelation: 0.2,
};

export const args: Parameters<typeof objective> = [
  { AAPL: 0.2, MSFT: 0.18, XOM: 0.12, JNJ: 0.15, PFE: 0.1, TLT: 0.25 },
  riskModel,
  { riskAversion: 4 },
];
