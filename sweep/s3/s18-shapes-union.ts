// Discriminated unions of shapes with an exhaustive switch (`never` check), a readonly tuple
// `as const` table of densities, reduce with an object accumulator for the centroid; gradient
// of the composite's moment of inertia w.r.t. the dimensions.
import { gradient, differential, jacobian } from "nabla";
import { compare, fdGrad, fdJac, summary } from "./check.ts";

type Shape =
  | { kind: "circle"; cx: number; cy: number; r: number }
  | { kind: "rect"; x: number; y: number; w: number; h: number }
  | { kind: "triangle"; pts: readonly [readonly [number, number], readonly [number, number], readonly [number, number]] };

const DENSITY = { circle: 1.0, rect: 0.8, triangle: 1.3 } as const;

function area(s: Shape): number {
  switch (s.kind) {
    case "circle":
      return Math.PI * s.r ** 2;
    case "rect":
      return s.w * s.h;
    case "triangle": {
      const [[x1, y1], [x2, y2], [x3, y3]] = s.pts;
      return Math.abs((x2 - x1) * (y3 - y1) - (x3 - x1) * (y2 - y1)) / 2;
    }
    default: {
      const unreachable: never = s;
      throw new Error(`unknown shape ${JSON.stringify(unreachable)}`);
    }
  }
}

function centroid(s: Shape): [number, number] {
  switch (s.kind) {
    case "circle":
      return [s.cx, s.cy];
    case "rect":
      return [s.x + s.w / 2, s.y + s.h / 2];
    case "triangle":
      return [(s.pts[0][0] + s.pts[1][0] + s.pts[2][0]) / 3, (s.pts[0][1] + s.pts[1][1] + s.pts[2][1]) / 3];
  }
}

function build(d: number[]): Shape[] {
  return [
    { kind: "circle", cx: 0, cy: 0, r: d[0] },
    { kind: "rect", x: d[0], y: -d[2] / 2, w: d[1], h: d[2] },
    { kind: "triangle", pts: [[0, d[0]], [d[1], d[0]], [d[1] / 2, d[0] + d[3]]] },
  ];
}

function massProperties(d: number[]): number[] {
  const shapes = build(d);
  const acc = shapes.reduce(
    (a, s) => {
      const m = area(s) * DENSITY[s.kind];
      const [cx, cy] = centroid(s);
      return { mass: a.mass + m, mx: a.mx + m * cx, my: a.my + m * cy };
    },
    { mass: 0, mx: 0, my: 0 },
  );
  return [acc.mass, acc.mx / acc.mass, acc.my / acc.mass];
}

function inertiaProxy(d: number[]): number {
  const [mass, cx, cy] = massProperties(d);
  return build(d).reduce((s, sh) => {
    const [x, y] = centroid(sh);
    return s + area(sh) * ((x - cx) ** 2 + (y - cy) ** 2);
  }, 0) + 0.1 * mass;
}

const d0 = [1, 2, 0.5, 1.5];
const g = gradient(inertiaProxy)(d0);
compare("grad vs fd", g, fdGrad(inertiaProxy, d0));
compare("fwd vs rev", differential(inertiaProxy)(d0)([1, 1, 1, 1]), g.reduce((a, b) => a + b, 0));
const J = jacobian(massProperties)(d0);
compare("jacobian vs fd", J, fdJac(massProperties, d0));
compare("jacobian fwd vs rev", J, jacobian(massProperties, { mode: "reverse" })(d0));
summary("s18-shapes-union");
