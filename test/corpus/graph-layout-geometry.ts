// 2-D vector helpers and generic reductions shared by the graph-layout program.

export class Vec2 {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}

  static of({ x, y }: { x: number; y: number }) {
    return new Vec2(x, y);
  }

  plus(o: Vec2) {
    return new Vec2(this.x + o.x, this.y + o.y);
  }
  minus(o: Vec2) {
    return new Vec2(this.x - o.x, this.y - o.y);
  }
  times(s: number) {
    return new Vec2(this.x * s, this.y * s);
  }
  get lengthSq() {
    return this.x * this.x + this.y * this.y;
  }
  get length() {
    return Math.sqrt(this.lengthSq);
  }
}

export function sumBy<T>(xs: readonly T[], f: (x: T, index: number) => number): number {
  return xs.reduce((acc, x, i) => acc + f(x, i), 0);
}

export function centroid<T extends { x: number; y: number }>(items: readonly T[]): Vec2 {
  return new Vec2(sumBy(items, (p) => p.x) / items.length, sumBy(items, (p) => p.y) / items.length);
}

export function* pairs<T>(xs: readonly T[]): Generator<[T, T]> {
  for (let i = 0; i < xs.length; i++) for (let j = i + 1; j < xs.length; j++) yield [xs[i], xs[j]];
}
