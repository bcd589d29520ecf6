// Soft k-means clustering of 2-D points: annealed free energy of the centroids, with mixing weights profiled out by a few EM updates.

export interface Point {
  x: number;
  y: number;
}

export interface SoftKMeansOptions {
  beta?: number; // inverse temperature
  iterations?: number;
  mixingFloor?: number;
}

const sqDist = (a: Point, b: Point) => (a.x - b.x) ** 2 + (a.y - b.y) ** 2;

function logSumExp(values: number[]) {
  const m = Math.max(...values);
  return m + Math.log(values.reduce((s, v) => s + Math.exp(v - m), 0));
}

export function responsibilities(points: Point[], centroids: Point[], weights: number[], beta: number): number[][] {
  return points.map((p) => {
    const logits = centroids.map((c, k) => Math.log(weights[k]) - beta * sqDist(p, c));
    const norm = logSumExp(logits);
    return logits.map((l) => Math.exp(l - norm));
  });
}

export function freeEnergy(points: Point[], centroids: Point[], weights: number[], beta: number) {
  // -1/β Σ_i log Σ_k π_k exp(-β |x_i - μ_k|²)
  return -points.reduce((acc, p) => acc + logSumExp(centroids.map((c, k) => Math.log(weights[k]) - beta * sqDist(p, c))), 0) / beta;
}

// Centroids are the optimization variables (moved by gradient descent elsewhere);
// mixing proportions are profiled out with a few fixed-centroid EM updates.
export function objective(centroids: Point[], points: Point[], options: SoftKMeansOptions = {}): number {
  const { beta = 1.5, iterations = 3, mixingFloor = 1e-3 } = options;
  let weights = centroids.map(() => 1 / centroids.length);
  for (let it = 0; it < iterations; it++) {
    const r = responsibilities(points, centroids, weights, beta);
    const mass = centroids.map((_, k) => r.reduce((s, ri) => s + ri[k], 0));
    const total = mass.reduce((a, b) => a + b, 0);
    weights = mass.map((m) => (m + mixingFloor) / (total + mixingFloor * mass.length));
  }
  return freeEnergy(points, centroids, weights, beta) / points.length;
}

export function centroidStep(centroids: Point[], points: Point[], beta = 1.5): Point[] {
  const r = responsibilities(points, centroids, centroids.map(() => 1 / centroids.length), beta);
  return centroids.map((c, k) => {
    const mass = r.reduce((s, ri) => s + ri[k], 0);
    return mass < 1e-12 ? { ...c } : {
      x: points.reduce((s, p, i) => s + r[i][k] * p.x, 0) / mass,
      y: points.reduce((s, p, i) => s + r[i][k] * p.y, 0) / mass,
    };
  });
}

function blob(center: Point, count: number, spread: number, phase: number): Point[] {
  return Array.from({ length: count }, (_, i) => {
    const angle = 2.399963 * i + phase; // golden-angle spiral
    const r = spread * Math.sqrt((i + 0.5) / count);
    return { x: center.x + r * Math.cos(angle), y: center.y + r * Math.sin(angle) };
  });
}

export const points: Point[] = [
  ...blob({ x: 0, y: 0 }, 20, 1.2, 0),
  ...blob({ x: 4, y: 1 }, 15, 1.0, 0.7),
  ...blob({ x: 1.5, y: 4 }, 18, 1.4, 1.9),
];

export const args: Parameters<typeof objective> = [
  [
    { x: 0.5, y: 0.8 },
    { x: 3.2, y: 0.4 },
    { x: 2.0, y: 3.1 },
  ],
  points,
  { beta: 1.2, iterations: 3 },
];
