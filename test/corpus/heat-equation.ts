// 2-D heat equation on a plate with explicit finite differences; mismatch between simulated and measured final temperatures.

export type Grid = number[][];

export interface HeatOptions {
  diffusivity?: number;
  dx?: number;
  dt?: number;
  steps?: number;
  boundary?: { top: number; bottom: number; left: number; right: number };
}

const cloneGrid = (g: Grid): Grid => g.map((row) => [...row]);

export function applyBoundary(g: Grid, { top, bottom, left, right }: NonNullable<HeatOptions["boundary"]>) {
  const rows = g.length;
  const cols = g[0].length;
  for (let j = 0; j < cols; j++) {
    g[0][j] = top;
    g[rows - 1][j] = bottom;
  }
  for (let i = 1; i < rows - 1; i++) {
    g[i][0] = left;
    g[i][cols - 1] = right;
  }
  return g;
}

export function laplacian(g: Grid, i: number, j: number, dx: number) {
  return (g[i - 1][j] + g[i + 1][j] + g[i][j - 1] + g[i][j + 1] - 4 * g[i][j]) / (dx * dx);
}

export function simulate(initial: Grid, options: HeatOptions = {}): Grid {
  const {
    diffusivity = 1.0,
    dx = 0.1,
    dt = 0.002,
    steps = 60,
    boundary = { top: 100, bottom: 0, left: 25, right: 25 },
  } = options;
  const r = (diffusivity * dt) / (dx * dx);
  if (r > 0.25) throw new Error(`unstable explicit scheme: r = ${r.toFixed(3)} > 0.25`);

  let u = applyBoundary(cloneGrid(initial), boundary);
  for (let n = 0; n < steps; n++) {
    const next = cloneGrid(u);
    for (let i = 1; i < u.length - 1; i++) {
      for (let j = 1; j < u[i].length - 1; j++) {
        next[i][j] = u[i][j] + diffusivity * dt * laplacian(u, i, j, dx);
      }
    }
    u = next;
  }
  return u;
}

export interface Sensor {
  row: number;
  col: number;
  reading: number;
}

export function objective(initial: Grid, sensors: Sensor[], options: HeatOptions = {}, smoothness = 1e-4): number {
  const final = simulate(initial, options);
  const misfit = sensors.reduce((acc, { row, col, reading }) => acc + (final[row][col] - reading) ** 2, 0);
  // Tikhonov-style roughness penalty on the unknown initial field
  let roughness = 0;
  initial.forEach((row, i) =>
    row.forEach((value, j) => {
      if (i + 1 < initial.length) roughness += (initial[i + 1][j] - value) ** 2;
      if (j + 1 < row.length) roughness += (row[j + 1] - value) ** 2;
    }),
  );
  return misfit / sensors.length + smoothness * roughness;
}

const N = 10;
export const initialGuess: Grid = Array.from({ length: N }, (_, i) =>
  Array.from({ length: N }, (_, j) => 20 + 15 * Math.exp(-((i - 4.5) ** 2 + (j - 3.5) ** 2) / 6)),
);

export const sensors: Sensor[] = [
  { row: 2, col: 2, reading: 61.5 },
  { row: 2, col: 7, reading: 58.0 },
  { row: 5, col: 5, reading: 33.2 },
  { row: 7, col: 2, reading: 19.4 },
  { row: 7, col: 7, reading: 17.9 },
  { row: 4, col: 3, reading: 41.0 },
];

export const args: Parameters<typeof objective> = [initialGuess, sensors, { steps: 50, dt: 0.002 }, 1e-4];
