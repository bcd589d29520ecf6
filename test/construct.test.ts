import { test } from "node:test";
import { checkTwoWays } from "./support/two-ways.js";

// `new C(…)` of a class of the program inside differentiated code (lower/construct.ts): the
// constructor runs as JavaScript runs it (field initializers, parameter properties, body), and
// methods of the instance it returns are called as nabla calls methods. Checked against central
// differences and forward mode against reverse mode.

test("value classes built with new: fields, parameter properties with defaults, constructor logic", async () => {
  await checkTwoWays(
    `export class Vec3 {
  constructor(public x = 0, public y = 0, public z = 0) {}
  add(o: Vec3) {
    return new Vec3(this.x + o.x, this.y + o.y, this.z + o.z);
  }
  scale(s: number) {
    return new Vec3(this.x * s, this.y * s, this.z * s);
  }
  dot(o: Vec3) {
    return this.x * o.x + this.y * o.y + this.z * o.z;
  }
}
class Spring {
  rest = 1;
  stiffness: number;
  energy = 0;
  constructor(k: number, public damping: number) {
    this.stiffness = k * 2;
    if (k > 1) this.energy = this.rest * k;
  }
  potential(length: number) {
    return 0.5 * this.stiffness * (length - this.rest) ** 2 + this.energy * this.damping;
  }
}
class Empty {
  scale = 3;
}
export function f(x: number, y: number) {
  const v = new Vec3(x, y, 1);
  const w = v.add(new Vec3(y)).scale(x);
  const springs = [new Spring(y, 0.1), new Spring(2, x)];
  let total = w.dot(v) + new Empty().scale * x;
  for (const s of springs) total += s.potential(x);
  return total;
}`,
    [
      [0.7, 1.3],
      [-1.1, 0.4],
    ],
  );
});

test("a callback that throws before its last statement sees its own locals in the return", async () => {
  await checkTwoWays(
    `export function f(x: number, y: number) {
  return [1, 2, 3].reduce((total, v) => {
    if (v < 0) throw new Error(\`bad \${v}\`);
    const r2 = v * x * y;
    return total + r2 * r2;
  }, 0);
}`,
    [[0.5, 2]],
  );
});

test("getters, static factories, and methods run on instances built in differentiated code", async () => {
  await checkTwoWays(
    `class Quat {
  constructor(public w = 1, public x = 0, public y = 0, public z = 0) {}
  static identity() {
    return new Quat();
  }
  static fromAxis(angle: number) {
    return new Quat(Math.cos(angle / 2), Math.sin(angle / 2), 0, 0);
  }
  get normSq() {
    return this.w * this.w + this.x * this.x + this.y * this.y + this.z * this.z;
  }
  get norm() {
    return Math.sqrt(this.normSq);
  }
  mul(q: Quat) {
    return new Quat(this.w * q.w - this.x * q.x, this.w * q.x + this.x * q.w, 0, 0);
  }
  describe() {
    return "q(" + this.w + ")";
  }
}
export function f(x: number, y: number) {
  const q = Quat.fromAxis(x).mul(new Quat(y, x));
  // A method whose result has no derivative runs on the instance as JavaScript.
  const label = Quat.identity().describe();
  return q.norm + Quat.identity().normSq * y + (label === "q(1)" ? 1 : 0);
}`,
    [
      [0.3, 1.2],
      [-0.8, 0.5],
    ],
  );
});
