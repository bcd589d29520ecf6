// Class semantics: fields set from parameter properties, virtual calls from a base
// constructor, instanceof narrowing, discriminated unions, arrow functions capturing this.
import { gradient, derivative, differential } from "nabla";
import { compare, fd1, summary } from "./check.ts";

class Box {
  readonly area: number;
  perimeter: number;
  constructor(
    public w: number,
    public h: number,
  ) {
    this.area = this.w * this.h;
    this.perimeter = 2 * (w + h);
  }
}

class Base {
  scale: number;
  constructor(x: number) {
    this.scale = this.transform(x);
  }
  transform(x: number): number {
    return x;
  }
}
class Squared extends Base {
  override transform(x: number): number {
    return x * x;
  }
}
class Cubed extends Squared {
  override transform(x: number): number {
    return super.transform(x) * x;
  }
}

type Shape =
  | { kind: "circle"; r: number }
  | { kind: "rect"; w: number; h: number }
  | { kind: "tri"; a: number; b: number; c: number };
function area(s: Shape): number {
  switch (s.kind) {
    case "circle":
      return Math.PI * s.r * s.r;
    case "rect":
      return s.w * s.h;
    case "tri": {
      const p = (s.a + s.b + s.c) / 2;
      return Math.sqrt(p * (p - s.a) * (p - s.b) * (p - s.c));
    }
  }
}

class Accum {
  total = 0;
  addAll(xs: number[], k: number): number {
    xs.forEach((x) => {
      this.total += k * x * x;
    });
    return this.total;
  }
}

function f1(x: number, y: number): number {
  const b = new Box(x, y);
  return b.area * b.perimeter;
}
function f2(x: number): number {
  const objs: Base[] = [new Base(x), new Squared(x), new Cubed(x)];
  return objs.reduce((s, o) => s + o.scale, 0);
}
function f3(x: number, y: number): number {
  const shapes: Shape[] = [
    { kind: "circle", r: x },
    { kind: "rect", w: x, h: y },
    { kind: "tri", a: 3, b: 4 + x, c: 5 + y },
  ];
  return shapes.map(area).reduce((a, b) => a + b, 0);
}
function f4(x: number, y: number): number {
  const objs: Base[] = [new Squared(x), new Base(y)];
  let s = 0;
  for (const o of objs) {
    if (o instanceof Squared) s += 10 * o.scale;
    else s += o.scale;
  }
  return s;
}
function f5(x: number, y: number): number {
  return new Accum().addAll([x, y, x * y], 2);
}

compare("box", gradient(f1)(1.5, 2), [fd1((x) => f1(x, 2), 1.5), fd1((y) => f1(1.5, y), 2)]);
compare(
  "box fwd",
  differential(f1)(1.5, 2)(1, 0),
  fd1((x) => f1(x, 2), 1.5),
);
compare("virtual ctor", gradient(f2)(1.3), fd1(f2, 1.3));
compare("virtual ctor fwd", derivative(f2)(1.3), fd1(f2, 1.3));
compare("union", gradient(f3)(1.1, 0.4), [
  fd1((x) => f3(x, 0.4), 1.1),
  fd1((y) => f3(1.1, y), 0.4),
]);
compare(
  "union fwd",
  differential(f3)(1.1, 0.4)(0, 1),
  fd1((y) => f3(1.1, y), 0.4),
);
compare("instanceof", gradient(f4)(1.1, 0.4), [
  fd1((x) => f4(x, 0.4), 1.1),
  fd1((y) => f4(1.1, y), 0.4),
]);
compare("this arrow", gradient(f5)(1.1, 0.4), [
  fd1((x) => f5(x, 0.4), 1.1),
  fd1((y) => f5(1.1, y), 0.4),
]);
console.log("values", f1(1.5, 2), f2(1.3));
summary("p33-class-semantics");
