import { gradient } from "nabla";
class Box<T> {
  constructor(readonly items: T[]) {}
  map<U>(f: (item: T) => U): Box<U> {
    return new Box(this.items.map(f));
  }
  first(): T { return this.items[0]; }
}
function f(xs: number[]): number {
  const b = new Box(xs).map((x) => x * x);
  return b.first() + b.items[1];
}
console.log(gradient(f)([3, 4]));
