// Forward derivatives of the benchmark programs, written by hand the way a careful person
// would write dual-number code: every value is a pair of plain scalars (value, tangent), no
// objects, each primal subexpression computed once and reused in the tangent. They follow the
// same algorithm as bench/programs/*.ts and, like nabla's code, return the tangent and leave
// the primal value in a register (`out.v`), which avoids allocating a pair per call.

export const out = { v: 0 };

/** JVP of `straight` (bench/programs/straight.ts) along (dx, dy, dz). */
export function straightJvp(
  x: number,
  y: number,
  z: number,
  dx: number,
  dy: number,
  dz: number,
): number {
  const a = x * y + z;
  const da = dx * y + x * dy + dz;
  const sa = Math.sin(a);
  const cxz = Math.cos(x - z);
  const b = sa * cxz;
  const db = Math.cos(a) * da * cxz - sa * Math.sin(x - z) * (dx - dz);
  const ex = Math.exp(-0.5 * b * b);
  const dex = -b * db * ex;
  const q = 1 + y * y;
  const dq = 2 * y * dy;
  const c = ex / q;
  const dc = (dex - c * dq) / q;
  const d = Math.sqrt(1 + a * a + c * c);
  const dd = (a * da + c * dc) / d;
  const l = d + z * z;
  const dl = dd + 2 * z * dz;
  const th = Math.tanh(x * c);
  const dth = (1 - th * th) * (dx * c + x * dc);
  const e = Math.log(l) - th;
  const de = dl / l - dth;
  const num = (a - b) * (c + d);
  const dnum = (da - db) * (c + d) + (a - b) * (dc + dd);
  const den = e * e + 1;
  const f = num / den;
  const df = (dnum - f * 2 * e * de) / den;
  const pw = Math.pow(d, 1.5);
  // d^0.5 as a square root: d ≥ 1 here, so this is exact and much cheaper than pow.
  const dpw = 1.5 * Math.sqrt(d) * dd;
  const g = Math.atan(f) + pw * 0.25;
  const dg = df / (1 + f * f) + dpw * 0.25;
  const ae = 1 + Math.abs(e);
  const dae = Math.sign(e) * de;
  const r = (y * z) / ae;
  const dr = (dy * z + y * dz - r * dae) / ae;
  const h = x * x * x - 3 * x * y + r;
  const dh = 3 * x * x * dx - 3 * (dx * y + x * dy) + dr;
  const hy = Math.hypot(g, h);
  const dhy = hy === 0 ? 0 : (g * dg + h * dh) / hy;
  const k = hy + Math.cosh(0.1 * f);
  const dk = dhy + Math.sinh(0.1 * f) * 0.1 * df;
  const s = Math.sin(g - h);
  const ds = Math.cos(g - h) * (dg - dh);
  const ed = e / d;
  const ded = (de - ed * dd) / d;
  out.v = k * s + ed;
  return dk * s + k * ds + ded;
}

/** d pendulum / d theta0 (bench/programs/loop.ts), times dtheta0. */
export function pendulumJvp(theta0: number, dtheta0: number): number {
  const h = 1e-5;
  let theta = theta0;
  let dtheta = dtheta0;
  let omega = 0;
  let domega = 0;
  let energy = 0;
  let denergy = 0;
  for (let i = 0; i < 1000000; i++) {
    const s = Math.sin(theta);
    const c = Math.cos(theta);
    // The tangent update reads the old omega's tangent, so it comes first.
    domega = domega - (9.81 * c * dtheta + 0.1 * domega) * h;
    omega = omega - (9.81 * s + 0.1 * omega) * h;
    theta = theta + omega * h;
    dtheta = dtheta + domega * h;
    const s2 = Math.sin(theta);
    const c2 = Math.cos(theta);
    energy = energy + (0.5 * omega * omega - 9.81 * c2) * h;
    denergy = denergy + (omega * domega + 9.81 * s2 * dtheta) * h;
  }
  out.v = theta + energy;
  return dtheta + denergy;
}

/** Tangent of `horner(x, n)` (bench/programs/recursive.ts) along dx; its value in `out.v`. */
export function hornerJvp(x: number, n: number, dx: number): number {
  if (n === 0) {
    out.v = 1;
    return 0;
  }
  const dp = hornerJvp(x, n - 1, dx);
  const p = out.v;
  out.v = 1 / (n + 1) + x * p;
  return dx * p + x * dp;
}

/** d poly / dx, poly(x) = horner(x, 24). */
export function polyJvp(x: number, dx: number): number {
  return hornerJvp(x, 24, dx);
}
