// Control/statistics: a Kalman filter with a small Matrix class (static factories, chaining);
// gradient of the negative log-likelihood w.r.t. noise parameters.
import { gradient, valueWithGradient, differential } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

class Matrix {
  constructor(
    readonly rows: number,
    readonly cols: number,
    readonly data: number[] = new Array(rows * cols).fill(0),
  ) {}
  static identity(n: number): Matrix {
    const m = new Matrix(n, n);
    for (let i = 0; i < n; i++) m.set(i, i, 1);
    return m;
  }
  static from(rows: number[][]): Matrix {
    return new Matrix(rows.length, rows[0].length, rows.flat());
  }
  get(i: number, j: number): number {
    return this.data[i * this.cols + j];
  }
  set(i: number, j: number, v: number): this {
    this.data[i * this.cols + j] = v;
    return this;
  }
  get T(): Matrix {
    const t = new Matrix(this.cols, this.rows);
    for (let i = 0; i < this.rows; i++)
      for (let j = 0; j < this.cols; j++) t.set(j, i, this.get(i, j));
    return t;
  }
  mul(o: Matrix): Matrix {
    const r = new Matrix(this.rows, o.cols);
    for (let i = 0; i < this.rows; i++)
      for (let j = 0; j < o.cols; j++) {
        let s = 0;
        for (let k = 0; k < this.cols; k++) s += this.get(i, k) * o.get(k, j);
        r.set(i, j, s);
      }
    return r;
  }
  add(o: Matrix, sign = 1): Matrix {
    return new Matrix(
      this.rows,
      this.cols,
      this.data.map((v, i) => v + sign * o.data[i]),
    );
  }
  scale(s: number): Matrix {
    return new Matrix(
      this.rows,
      this.cols,
      this.data.map((v) => v * s),
    );
  }
}

function kalmanNll(logQ: number, logR: number, observations: number[]): number {
  const dt = 0.1;
  const F = Matrix.from([
    [1, dt],
    [0, 1],
  ]);
  const H = Matrix.from([[1, 0]]);
  const Q = Matrix.identity(2).scale(Math.exp(logQ));
  const R = Math.exp(logR);
  let x = new Matrix(2, 1);
  let P = Matrix.identity(2);
  let nll = 0;
  for (const z of observations) {
    x = F.mul(x);
    P = F.mul(P).mul(F.T).add(Q);
    const S = H.mul(P).mul(H.T).get(0, 0) + R;
    const innovation = z - H.mul(x).get(0, 0);
    nll += 0.5 * (Math.log(2 * Math.PI * S) + (innovation * innovation) / S);
    const K = P.mul(H.T).scale(1 / S);
    x = x.add(K.scale(innovation));
    P = Matrix.identity(2).add(K.mul(H), -1).mul(P);
  }
  return nll;
}

const obs = [0.1, 0.25, 0.33, 0.52, 0.61, 0.8, 0.95, 1.1];
const { value, gradient: g } = valueWithGradient(kalmanNll, { wrt: [0, 1] })(-2, -1.5, obs);
compare("value", value, kalmanNll(-2, -1.5, obs), 1e-12);
compare(
  "grad vs fd",
  g,
  fdGrad((v) => kalmanNll(v[0], v[1], obs), [-2, -1.5]),
);
compare("fwd vs rev", differential(kalmanNll, { wrt: [0, 1] })(-2, -1.5, obs)(1, -1), g[0] - g[1]);
compare(
  "grad obs vs fd",
  gradient(kalmanNll, { wrt: 2 })(-2, -1.5, obs),
  fdGrad((o) => kalmanNll(-2, -1.5, o), obs),
);
compare("wasm", gradient(kalmanNll, { wrt: [0, 1], backend: "wasm" })(-2, -1.5, obs), g);
summary("p39-kalman");
