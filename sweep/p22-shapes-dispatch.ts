// Polymorphism: array of Shape subclasses with overridden methods, setters, static counters.
import { differential, valueWithGradient } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

abstract class Shape {
  static created = 0;
  abstract area(): number;
  describe(): string {
    return "shape";
  }
  scaled(factor: number): number {
    return this.area() * factor * factor;
  }
}

class Circle extends Shape {
  constructor(public radius: number) {
    super();
  }
  area(): number {
    return Math.PI * this.radius ** 2;
  }
}

class Rect extends Shape {
  private _w = 0;
  constructor(
    w: number,
    public h: number,
  ) {
    super();
    this.width = w;
  }
  set width(v: number) {
    this._w = Math.abs(v);
  }
  get width(): number {
    return this._w;
  }
  area(): number {
    return this.width * this.h;
  }
}

class Square extends Rect {
  constructor(side: number) {
    super(side, side);
  }
  override area(): number {
    return super.area() * 1.0;
  }
  override describe(): string {
    return "square";
  }
}

function totalArea(dims: number[]): number {
  const shapes: Shape[] = [new Circle(dims[0]), new Rect(dims[1], dims[2]), new Square(dims[3])];
  let total = 0;
  for (const s of shapes) {
    const weight = s.describe() === "square" ? 2 : 1;
    total += weight * s.scaled(dims[4]);
  }
  return total;
}

const d = [0.5, -1.5, 2, 0.8, 1.1];
const { value, gradient: g } = valueWithGradient(totalArea)(d);
compare("value", value, totalArea(d), 1e-12);
compare("grad vs fd", g, fdGrad(totalArea, d));
compare(
  "fwd vs rev",
  differential(totalArea)(d)([1, 1, 1, 1, 1]),
  g.reduce((a, b) => a + b),
);
summary("p22-shapes-dispatch");
