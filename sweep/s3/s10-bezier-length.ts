// Geometry: the arc length of a cubic Bezier curve by Gauss–Legendre quadrature (readonly
// tuple tables), de Casteljau with spread copies, Math.hypot; gradient w.r.t. control points.
import { gradient, differential, valueWithGradient } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

type Point = [number, number];

const GAUSS_5: readonly (readonly [node: number, weight: number])[] = [
  [0, 0.5688888888888889],
  [-0.5384693101056831, 0.4786286704993665],
  [0.5384693101056831, 0.4786286704993665],
  [-0.906179845938664, 0.2369268850561891],
  [0.906179845938664, 0.2369268850561891],
] as const;

function lerp(a: Point, b: Point, t: number): Point {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
}

function deCasteljau(ctrl: readonly Point[], t: number): Point {
  let pts = [...ctrl];
  while (pts.length > 1) {
    const next: Point[] = [];
    for (let i = 0; i + 1 < pts.length; i++) next.push(lerp(pts[i], pts[i + 1], t));
    pts = next;
  }
  return pts[0];
}

function tangent(ctrl: readonly Point[], t: number): Point {
  const n = ctrl.length - 1;
  const diffs = ctrl.slice(1).map((p, i): Point => [n * (p[0] - ctrl[i][0]), n * (p[1] - ctrl[i][1])]);
  return deCasteljau(diffs, t);
}

function arcLength(ctrl: readonly Point[], segments = 4): number {
  let total = 0;
  for (let s = 0; s < segments; s++) {
    const a = s / segments;
    const b = (s + 1) / segments;
    const half = (b - a) / 2;
    const mid = (a + b) / 2;
    for (const [node, weight] of GAUSS_5) {
      const [dx, dy] = tangent(ctrl, mid + half * node);
      total += weight * half * Math.hypot(dx, dy);
    }
  }
  return total;
}

function pathCost(flatCtrl: number[]): number {
  const ctrl: Point[] = [];
  for (let i = 0; i < flatCtrl.length; i += 2) ctrl.push([flatCtrl[i], flatCtrl[i + 1]]);
  const end = deCasteljau(ctrl, 1);
  return arcLength(ctrl) + 10 * ((end[0] - 3) ** 2 + (end[1] - 1) ** 2);
}

const c0 = [0, 0, 1, 2, 2, -1, 3, 1.2];
const { value, gradient: g } = valueWithGradient(pathCost)(c0);
compare("value", value, pathCost(c0));
compare("grad vs fd", g, fdGrad(pathCost, c0));
const d = c0.map((_, i) => Math.sin(i + 1));
compare("fwd vs rev", differential(pathCost)(c0)(d), g.reduce((s, gi, i) => s + gi * d[i], 0));
const ctrlPts: Point[] = [
  [0, 0],
  [1, 2],
  [2, -1],
  [3, 1.2],
];
const gp = gradient((c: Point[]) => arcLength(c))(ctrlPts);
compare("grad of tuple array vs flat", gp, fdGrad((f) => arcLength([[f[0], f[1]], [f[2], f[3]], [f[4], f[5]], [f[6], f[7]]]), c0));
summary("s10-bezier-length");
