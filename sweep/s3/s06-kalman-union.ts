// Tracking: a constant-velocity Kalman filter fed a stream of measurements typed as a
// discriminated union (position / velocity / dropout), switch on `kind`, readonly tuples for
// 2x2 matrices; gradient of the negative log-likelihood w.r.t. the noise parameters.
import { gradient, valueWithGradient, differential, hessian } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

type Mat2 = readonly [readonly [number, number], readonly [number, number]];
type Vec2 = readonly [number, number];

type Measurement =
  | { kind: "position"; value: number }
  | { kind: "velocity"; value: number }
  | { kind: "dropout" };

interface Filter {
  x: Vec2;
  P: Mat2;
}

const mul = (A: Mat2, B: Mat2): Mat2 => [
  [A[0][0] * B[0][0] + A[0][1] * B[1][0], A[0][0] * B[0][1] + A[0][1] * B[1][1]],
  [A[1][0] * B[0][0] + A[1][1] * B[1][0], A[1][0] * B[0][1] + A[1][1] * B[1][1]],
];
const transpose = (A: Mat2): Mat2 => [
  [A[0][0], A[1][0]],
  [A[0][1], A[1][1]],
];

function predict(f: Filter, dt: number, q: number): Filter {
  const F: Mat2 = [
    [1, dt],
    [0, 1],
  ];
  const x: Vec2 = [f.x[0] + dt * f.x[1], f.x[1]];
  const FP = mul(mul(F, f.P), transpose(F));
  const P: Mat2 = [
    [FP[0][0] + (q * dt ** 3) / 3, FP[0][1] + (q * dt ** 2) / 2],
    [FP[1][0] + (q * dt ** 2) / 2, FP[1][1] + q * dt],
  ];
  return { x, P };
}

function update(f: Filter, m: Measurement, r: number): { filter: Filter; nll: number } {
  let row: 0 | 1;
  switch (m.kind) {
    case "dropout":
      return { filter: f, nll: 0 };
    case "position":
      row = 0;
      break;
    case "velocity":
      row = 1;
      break;
  }
  const innovation = m.value - f.x[row];
  const S = f.P[row][row] + r;
  const K: Vec2 = [f.P[0][row] / S, f.P[1][row] / S];
  const x: Vec2 = [f.x[0] + K[0] * innovation, f.x[1] + K[1] * innovation];
  const P: Mat2 = [
    [f.P[0][0] - K[0] * f.P[row][0], f.P[0][1] - K[0] * f.P[row][1]],
    [f.P[1][0] - K[1] * f.P[row][0], f.P[1][1] - K[1] * f.P[row][1]],
  ];
  const nll = 0.5 * (Math.log(2 * Math.PI * S) + (innovation * innovation) / S);
  return { filter: { x, P }, nll };
}

const stream: Measurement[] = [
  { kind: "position", value: 0.1 },
  { kind: "position", value: 0.9 },
  { kind: "dropout" },
  { kind: "velocity", value: 1.1 },
  { kind: "position", value: 3.2 },
  { kind: "dropout" },
  { kind: "position", value: 5.1 },
  { kind: "velocity", value: 0.8 },
];

function negLogLik(logNoise: number[]): number {
  const [logQ, logR] = logNoise;
  const q = Math.exp(logQ);
  const r = Math.exp(logR);
  let f: Filter = {
    x: [0, 1],
    P: [
      [1, 0],
      [0, 1],
    ],
  };
  let total = 0;
  for (const m of stream) {
    f = predict(f, 1, q);
    const res = update(f, m, r);
    f = res.filter;
    total += res.nll;
  }
  return total;
}

const p0 = [-1, -2];
const { value, gradient: g } = valueWithGradient(negLogLik)(p0);
compare("value", value, negLogLik(p0));
compare("grad vs fd", g, fdGrad(negLogLik, p0));
compare("fwd vs rev", differential(negLogLik)(p0)([0.4, -1.3]), 0.4 * g[0] - 1.3 * g[1]);
const H = hessian(negLogLik)(p0);
compare("hessian vs fd", H, [0, 1].map((i) => fdGrad((p) => gradient(negLogLik)(p)[i], p0)));
summary("s06-kalman-union");
