import { test } from "node:test";
import { checkTwoWays } from "./support/two-ways.js";

// `s.reset?.()`, an optional method of an interface, where a class implements it by an arrow
// field (`reset = () => {…}`): it was refused ("optional calls are not supported"), as the
// interface's type then has a field of that name. It is the class's arrow, called where the
// object is of that class, skipped where its class has none.

test("an optional interface method one class implements by an arrow field, another not at all", async () => {
  await checkTwoWays(`interface Stepper {
  step(x: number): number;
  reset?(): void;
}
class Decay implements Stepper {
  count = 0;
  constructor(private readonly rate: number) {}
  step(x: number): number {
    this.count += 1;
    return x * this.rate + this.count;
  }
  reset = () => {
    this.count = 0;
  };
}
class Doubler implements Stepper {
  step(x: number): number {
    return x * 2;
  }
}
function twice(s: Stepper, x: number): number {
  const once = s.step(x);
  s.reset?.();
  return s.step(once);
}
export function f(x: number, y: number): number {
  return twice(new Decay(y), x) + twice(new Doubler(), x * y);
}`);
});
