// Geometry: Catmull-Rom spline length and curvature penalty; generics and closures.
import { gradient, derivative, differential, hessianVectorProduct } from "nabla";
import { compare, fdGrad, fd1, summary } from "./check.ts";

interface Vec2 {
  x: number;
  y: number;
}
const add = (a: Vec2, b: Vec2): Vec2 => ({ x: a.x + b.x, y: a.y + b.y });
const scale = (a: Vec2, s: number): Vec2 => ({ x: a.x * s, y: a.y * s });
const sub = (a: Vec2, b: Vec2): Vec2 => add(a, scale(b, -1));
const norm = ({ x, y }: Vec2) => Math.sqrt(x * x + y * y);

function catmullRom(p0: Vec2, p1: Vec2, p2: Vec2, p3: Vec2, t: number): Vec2 {
  const t2 = t * t;
  const t3 = t2 * t;
  const terms: Array<[Vec2, number]> = [
    [p0, -t3 + 2 * t2 - t],
    [p1, 3 * t3 - 5 * t2 + 2],
    [p2, -3 * t3 + 4 * t2 + t],
    [p3, t3 - t2],
  ];
  return terms.reduce((acc, [p, w]) => add(acc, scale(p, w / 2)), { x: 0, y: 0 });
}

function sampleCurve<T>(n: number, fn: (t: number) => T): T[] {
  return Array.from({ length: n + 1 }, (_, i) => fn(i / n));
}

function curveLength(ctrl: Vec2[], samples = 8): number {
  let len = 0;
  for (let seg = 1; seg + 2 < ctrl.length; seg++) {
    const [a, b, c, d] = ctrl.slice(seg - 1, seg + 3);
    const pts = sampleCurve(samples, (t) => catmullRom(a, b, c, d, t));
    for (let i = 1; i < pts.length; i++) len += norm(sub(pts[i], pts[i - 1]));
  }
  return len;
}

const fromFlat = (v: number[]): Vec2[] =>
  v.reduce<Vec2[]>((acc, x, i) => (i % 2 === 0 ? [...acc, { x, y: v[i + 1] }] : acc), []);
const ctrlFlat = [0, 0, 1, 0.5, 2, -0.2, 3, 0.8, 4, 0.1];
const f = (v: number[]) => curveLength(fromFlat(v));
const g = gradient(curveLength, { wrt: 0 })(fromFlat(ctrlFlat));
const gflat = g.flatMap((p) => [p.x, p.y]);
compare("grad vs fd", gflat, fdGrad(f, ctrlFlat));
const dir = fromFlat(ctrlFlat.map((_, i) => (i % 3) - 1));
const fwd = differential(curveLength, { wrt: 0 })(fromFlat(ctrlFlat))(dir);
compare(
  "fwd vs rev",
  fwd,
  gflat.reduce((s, gi, i) => s + gi * ctrlFlat.map((_, k) => (k % 3) - 1)[i], 0),
);
// derivative of point along t
const pt = (t: number) =>
  catmullRom(...(fromFlat(ctrlFlat).slice(0, 4) as [Vec2, Vec2, Vec2, Vec2]), t);
const dp = derivative(pt)(0.3);
compare("dpoint/dt vs fd", [dp.x, dp.y], [fd1((t) => pt(t).x, 0.3), fd1((t) => pt(t).y, 0.3)]);
const hv = hessianVectorProduct(f)(
  ctrlFlat,
  ctrlFlat.map(() => 1),
);
compare(
  "hvp vs fd",
  hv,
  fdGrad((v) => gradient(f)(v).reduce((a, b) => a + b, 0), ctrlFlat),
  1e-4,
);
summary("p07-spline");
