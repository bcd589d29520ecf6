// Constant-velocity Kalman filter for 1-D tracking; negative log-likelihood of the innovations as a function of noise parameters.

type Vec2 = [number, number];
type Mat2 = [[number, number], [number, number]];

const matMul = (A: Mat2, B: Mat2): Mat2 => [
  [A[0][0] * B[0][0] + A[0][1] * B[1][0], A[0][0] * B[0][1] + A[0][1] * B[1][1]],
  [A[1][0] * B[0][0] + A[1][1] * B[1][0], A[1][0] * B[0][1] + A[1][1] * B[1][1]],
];
const transpose = ([[a, b], [c, d]]: Mat2): Mat2 => [
  [a, c],
  [b, d],
];
const matAdd = (A: Mat2, B: Mat2): Mat2 => [
  [A[0][0] + B[0][0], A[0][1] + B[0][1]],
  [A[1][0] + B[1][0], A[1][1] + B[1][1]],
];
const matVec = (A: Mat2, v: Vec2): Vec2 => [A[0][0] * v[0] + A[0][1] * v[1], A[1][0] * v[0] + A[1][1] * v[1]];

export interface NoiseModel {
  logProcessStd: number; // acceleration noise (white-noise jerk model)
  logMeasurementStd: number;
}

export interface FilterState {
  mean: Vec2; // [position, velocity]
  cov: Mat2;
}

export class KalmanFilter {
  private readonly F: Mat2;
  private readonly Q: Mat2;

  constructor(
    readonly dt: number,
    processVar: number,
    readonly measurementVar: number,
  ) {
    this.F = [
      [1, dt],
      [0, 1],
    ];
    const q = processVar;
    this.Q = [
      [(q * dt ** 4) / 4, (q * dt ** 3) / 2],
      [(q * dt ** 3) / 2, q * dt ** 2],
    ];
  }

  predict({ mean, cov }: FilterState): FilterState {
    return { mean: matVec(this.F, mean), cov: matAdd(matMul(matMul(this.F, cov), transpose(this.F)), this.Q) };
  }

  // H = [1, 0]; returns the posterior and the innovation statistics
  update({ mean, cov }: FilterState, z: number) {
    const innovation = z - mean[0];
    const S = cov[0][0] + this.measurementVar;
    const K: Vec2 = [cov[0][0] / S, cov[1][0] / S];
    const posterior: FilterState = {
      mean: [mean[0] + K[0] * innovation, mean[1] + K[1] * innovation],
      cov: [
        [(1 - K[0]) * cov[0][0], (1 - K[0]) * cov[0][1]],
        [cov[1][0] - K[1] * cov[0][0], cov[1][1] - K[1] * cov[0][1]],
      ],
    };
    return { posterior, innovation, S };
  }
}

export function objective(noise: NoiseModel, measurements: number[], dt = 0.1, prior?: FilterState): number {
  const kf = new KalmanFilter(dt, Math.exp(2 * noise.logProcessStd), Math.exp(2 * noise.logMeasurementStd));
  let state: FilterState = prior ?? {
    mean: [measurements[0], 0],
    cov: [
      [1, 0],
      [0, 4],
    ],
  };
  let nll = 0;
  measurements.slice(1).forEach((z) => {
    const { posterior, innovation, S } = kf.update(kf.predict(state), z);
    nll += 0.5 * (Math.log(2 * Math.PI * S) + (innovation * innovation) / S);
    state = posterior;
  });
  return nll;
}

// A target that speeds up then brakes, observed with deterministic pseudo-noise
export const measurements = Array.from({ length: 40 }, (_, k) => {
  const t = k * 0.1;
  const truePosition = 2 * t + 0.6 * t * t - 0.12 * t ** 3;
  return truePosition + 0.15 * Math.sin(12.9898 * k) * Math.cos(78.233 * k);
});

export const args: Parameters<typeof objective> = [{ logProcessStd: Math.log(0.8), logMeasurementStd: Math.log(0.12) }, measurements, 0.1];
