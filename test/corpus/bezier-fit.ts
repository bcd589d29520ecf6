// Cubic Bézier curve fitting: squared distance from sampled points to the curve, with one Newton reparametrization pass.

export type Vec2 = readonly [number, number];

const add = (a: Vec2, b: Vec2): Vec2 => [a[0] + b[0], a[1] + b[1]];
const sub = (a: Vec2, b: Vec2): Vec2 => [a[0] - b[0], a[1] - b[1]];
const scale = (a: Vec2, s: number): Vec2 => [a[0] * s, a[1] * s];
const dot = (a: Vec2, b: Vec2) => a[0] * b[0] + a[1] * b[1];
const lerp = (a: Vec2, b: Vec2, t: number) => add(a, scale(sub(b, a), t));

// de Casteljau evaluation for any degree
export function bezierPoint(ctrl: readonly Vec2[], t: number): Vec2 {
  let pts = [...ctrl];
  while (pts.length > 1) pts = pts.slice(1).map((p, i) => lerp(pts[i], p, t));
  return pts[0];
}

function derivativeControls(ctrl: readonly Vec2[]): Vec2[] {
  const n = ctrl.length - 1;
  return ctrl.slice(1).map((p, i) => scale(sub(p, ctrl[i]), n));
}

function chordLengthParams(points: readonly Vec2[]): number[] {
  const cumulative = points.reduce<number[]>((acc, p, i) => {
    if (i === 0) return [0];
    const d = sub(p, points[i - 1]);
    return [...acc, acc[i - 1] + Math.sqrt(dot(d, d))];
  }, []);
  const total = cumulative[cumulative.length - 1];
  return cumulative.map((c) => c / total);
}

// one Newton step on f(t) = (B(t) - p)·B'(t) = 0
function refine(ctrl: readonly Vec2[], p: Vec2, t: number): number {
  const d1 = derivativeControls(ctrl);
  const d2 = derivativeControls(d1);
  const diff = sub(bezierPoint(ctrl, t), p);
  const b1 = bezierPoint(d1, t);
  const b2 = bezierPoint(d2, t);
  const numerator = dot(diff, b1);
  const denominator = dot(b1, b1) + dot(diff, b2);
  return Math.abs(denominator) < 1e-12 ? t : t - numerator / denominator;
}

export interface FitOptions {
  reparametrize?: boolean;
  endpointWeight?: number;
}

export function objective(
  ctrl: [Vec2, Vec2, Vec2, Vec2],
  samples: readonly Vec2[],
  { reparametrize = true, endpointWeight = 10 }: FitOptions = {},
): number {
  const params = chordLengthParams(samples);
  const residual = samples.reduce((sum, p, i) => {
    const t = reparametrize ? refine(ctrl, p, params[i]) : params[i];
    const d = sub(bezierPoint(ctrl, t), p);
    return sum + dot(d, d);
  }, 0);
  const first = sub(ctrl[0], samples[0]);
  const last = sub(ctrl[3], samples[samples.length - 1]);
  return residual / samples.length + endpointWeight * (dot(first, first) + dot(last, last));
}

export const samples: Vec2[] = Array.from({ length: 15 }, (_, i): Vec2 => {
  const s = i / 14;
  return [s * 3, Math.sin(s * Math.PI) * 1.2 + 0.1 * s * s];
});

export const args: Parameters<typeof objective> = [
  [
    [0.05, -0.02],
    [0.9, 1.4],
    [2.1, 1.6],
    [2.95, 0.12],
  ],
  samples,
  { reparametrize: true },
];
