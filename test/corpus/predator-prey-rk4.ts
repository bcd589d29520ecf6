// Lotka-Volterra predator-prey model integrated with classic RK4; log-space misfit against observed population counts.

export type State = [prey: number, predator: number];
type Deriv<S extends number[]> = (t: number, y: S) => S;

export interface LvParams {
  alpha: number; // prey growth
  beta: number; // predation rate
  gamma: number; // predator death
  delta: number; // predator efficiency
}

export interface Observation {
  t: number;
  prey: number;
  predator: number;
}

const axpy = <S extends number[]>(y: S, k: S, h: number) => y.map((v, i) => v + h * k[i]) as S;

export function rk4Step<S extends number[]>(f: Deriv<S>, t: number, y: S, h: number): S {
  const k1 = f(t, y);
  const k2 = f(t + h / 2, axpy(y, k1, h / 2));
  const k3 = f(t + h / 2, axpy(y, k2, h / 2));
  const k4 = f(t + h, axpy(y, k3, h));
  return y.map((v, i) => v + (h / 6) * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i])) as S;
}

export function integrate<S extends number[]>(f: Deriv<S>, y0: S, times: number[], h = 0.05): S[] {
  const out: S[] = [];
  let t = 0;
  let y = y0;
  for (const target of times) {
    const n = Math.max(1, Math.round((target - t) / h));
    const step = (target - t) / n;
    for (let i = 0; i < n; i++) {
      y = rk4Step(f, t, y, step);
      t += step;
    }
    out.push(y);
  }
  return out;
}

const lotkaVolterra =
  ({ alpha, beta, gamma, delta }: LvParams): Deriv<State> =>
  (_t, [x, y]) => [alpha * x - beta * x * y, delta * x * y - gamma * y];

export function objective(params: LvParams, observations: Observation[], initial: State = [10, 5], sigma = 0.2): number {
  const traj = integrate(lotkaVolterra(params), initial, observations.map((o) => o.t));
  const misfit = observations.reduce((acc, obs, i) => {
    const [prey, predator] = traj[i];
    return acc + (Math.log(prey / obs.prey) ** 2 + Math.log(predator / obs.predator) ** 2) / (2 * sigma * sigma);
  }, 0);
  // weak log-normal prior keeping rates near 1
  const prior = Object.values(params).reduce((acc, v) => acc + 0.5 * Math.log(v) ** 2, 0);
  return misfit + prior;
}

export const observations: Observation[] = [
  { t: 1, prey: 13.8, predator: 6.0 },
  { t: 2, prey: 15.0, predator: 8.6 },
  { t: 3, prey: 12.4, predator: 12.2 },
  { t: 4, prey: 7.6, predator: 10.7 },
  { t: 5, prey: 6.5, predator: 8.8 },
  { t: 6, prey: 6.4, predator: 6.0 },
  { t: 7, prey: 8.8, predator: 5.3 },
  { t: 8, prey: 10.8, predator: 4.9 },
];

export const args: Parameters<typeof objective> = [
  { alpha: 0.75, beta: 0.11, gamma: 0.95, delta: 0.085 },
  observations,
  [10, 5],
  0.25,
];
