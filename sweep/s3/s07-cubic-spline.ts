// Interpolation: a natural cubic spline (Thomas algorithm for the tridiagonal system) evaluated
// with a binary search over the knots in a do…while; derivative w.r.t. the query point and
// gradient w.r.t. the knot values.
import { derivative, gradient, differential, valueWithDerivative } from "nabla";
import { compare, fd1, fdGrad, summary } from "./check.ts";

class CubicSpline {
  private readonly m: number[];
  constructor(
    private readonly xs: readonly number[],
    private readonly ys: readonly number[],
  ) {
    this.m = CubicSpline.secondDerivatives(xs, ys);
  }

  static secondDerivatives(xs: readonly number[], ys: readonly number[]): number[] {
    const n = xs.length;
    const a = new Array<number>(n).fill(0);
    const b = new Array<number>(n).fill(1);
    const c = new Array<number>(n).fill(0);
    const d = new Array<number>(n).fill(0);
    for (let i = 1; i < n - 1; i++) {
      const h0 = xs[i] - xs[i - 1];
      const h1 = xs[i + 1] - xs[i];
      a[i] = h0 / 6;
      b[i] = (h0 + h1) / 3;
      c[i] = h1 / 6;
      d[i] = (ys[i + 1] - ys[i]) / h1 - (ys[i] - ys[i - 1]) / h0;
    }
    // forward sweep
    for (let i = 1; i < n; i++) {
      const w = a[i] / b[i - 1];
      b[i] -= w * c[i - 1];
      d[i] -= w * d[i - 1];
    }
    const m = new Array<number>(n).fill(0);
    m[n - 1] = d[n - 1] / b[n - 1];
    for (let i = n - 2; i >= 0; i--) m[i] = (d[i] - c[i] * m[i + 1]) / b[i];
    return m;
  }

  private findInterval(x: number): number {
    let lo = 0;
    let hi = this.xs.length - 1;
    do {
      const mid = (lo + hi) >> 1;
      if (this.xs[mid] > x) hi = mid;
      else lo = mid;
    } while (hi - lo > 1);
    return lo;
  }

  at(x: number): number {
    const i = this.findInterval(x);
    const { xs, ys, m } = this;
    const h = xs[i + 1] - xs[i];
    const t = (x - xs[i]) / h;
    const u = 1 - t;
    return u * ys[i] + t * ys[i + 1] + ((u ** 3 - u) * m[i] + (t ** 3 - t) * m[i + 1]) * (h * h) / 6;
  }
}

const knotsX = [0, 0.5, 1.3, 2, 3.1, 4];
const knotsY = [0, 0.4, 1.1, 0.7, -0.2, 0.3];

const curve = (x: number): number => new CubicSpline(knotsX, knotsY).at(x);
for (const x of [0.2, 1.0, 2.5, 3.9]) {
  const { value, derivative: d } = valueWithDerivative(curve)(x);
  compare(`value at ${x}`, value, curve(x));
  compare(`d/dx at ${x} vs fd`, d, fd1(curve, x));
}

function misfit(ys: number[]): number {
  const s = new CubicSpline(knotsX, ys);
  const samples = Array.from({ length: 9 }, (_, i) => i * 0.45);
  return samples.reduce((acc, x) => acc + (s.at(x) - Math.sin(x)) ** 2, 0);
}
const g = gradient(misfit)(knotsY);
compare("grad knots vs fd", g, fdGrad(misfit, knotsY));
const dy = knotsY.map((_, i) => i - 2);
compare("fwd vs rev", differential(misfit)(knotsY)(dy), g.reduce((s, gi, i) => s + gi * dy[i], 0));
const slopeAt = (x: number) => derivative(curve)(x);
compare("second derivative", derivative(slopeAt)(1.0), fd1(slopeAt, 1.0));
summary("s07-cubic-spline");
