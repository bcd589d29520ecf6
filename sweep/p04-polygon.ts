// Geometry: polygon area/centroid/perimeter with a class hierarchy; gradient wrt vertices.
import { gradient, differential, jacobian } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

type Point = readonly [number, number];

abstract class Shape {
  abstract area(): number;
  abstract perimeter(): number;
  compactness(): number {
    return (4 * Math.PI * this.area()) / this.perimeter() ** 2;
  }
}

class Polygon extends Shape {
  constructor(private readonly vertices: Point[]) {
    super();
  }
  get size(): number {
    return this.vertices.length;
  }
  private edge(i: number): [Point, Point] {
    return [this.vertices[i], this.vertices.at((i + 1) % this.size)!];
  }
  area(): number {
    let twice = 0;
    for (let i = 0; i < this.size; i++) {
      const [[x1, y1], [x2, y2]] = this.edge(i);
      twice += x1 * y2 - x2 * y1;
    }
    return Math.abs(twice) / 2;
  }
  perimeter(): number {
    return this.vertices.reduce((acc, _, i) => {
      const [a, b] = this.edge(i);
      return acc + Math.hypot(b[0] - a[0], b[1] - a[1]);
    }, 0);
  }
  centroid(): Point {
    const n = this.size;
    const sx = this.vertices.reduce((s, [x]) => s + x, 0);
    const sy = this.vertices.reduce((s, [, y]) => s + y, 0);
    return [sx / n, sy / n];
  }
}

function toPoints(flat: number[]): Point[] {
  const pts: Point[] = [];
  for (let i = 0; i < flat.length; i += 2) pts.push([flat[i], flat[i + 1]]);
  return pts;
}

function shapeScore(flat: number[]): number {
  const poly = new Polygon(toPoints(flat));
  const [cx, cy] = poly.centroid();
  return poly.compactness() + 0.1 * (cx * cx + cy * cy);
}

function centroidOf(flat: number[]): number[] {
  return [...new Polygon(toPoints(flat)).centroid()];
}

const v = [0, 0, 2, 0.1, 2.2, 1.5, 0.3, 1.9, -0.4, 1];
const g = gradient(shapeScore)(v);
compare("grad vs fd", g, fdGrad(shapeScore, v));
const dir = v.map((_, i) => Math.cos(i));
compare(
  "fwd vs rev",
  differential(shapeScore)(v)(dir),
  g.reduce((s, x, i) => s + x * dir[i], 0),
);
const Jf = jacobian(centroidOf, { mode: "forward" })(v);
const Jr = jacobian(centroidOf, { mode: "reverse" })(v);
compare("jac fwd vs rev", Jf, Jr);
compare(
  "jac vs fd",
  Jr,
  [0, 1].map((i) => fdGrad((x) => centroidOf(x)[i], v)),
);
compare("wasm", gradient(shapeScore, { backend: "wasm" })(v), g);
summary("p04-polygon");
