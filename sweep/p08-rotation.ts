// Geometry: quaternion rotations of a point cloud, alignment loss; static members, getters.
import { gradient, jacobian, differential, valueWithGradient } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

class Quaternion {
  static identity(): Quaternion {
    return new Quaternion(1, 0, 0, 0);
  }
  static fromAxisAngle(axis: readonly [number, number, number], angle: number): Quaternion {
    const [ax, ay, az] = axis;
    const n = Math.hypot(ax, ay, az);
    const s = Math.sin(angle / 2) / n;
    return new Quaternion(Math.cos(angle / 2), ax * s, ay * s, az * s);
  }
  constructor(
    readonly w: number,
    readonly x: number,
    readonly y: number,
    readonly z: number,
  ) {}
  get norm(): number {
    return Math.sqrt(this.w ** 2 + this.x ** 2 + this.y ** 2 + this.z ** 2);
  }
  normalized(): Quaternion {
    const n = this.norm;
    return new Quaternion(this.w / n, this.x / n, this.y / n, this.z / n);
  }
  mul(o: Quaternion): Quaternion {
    return new Quaternion(
      this.w * o.w - this.x * o.x - this.y * o.y - this.z * o.z,
      this.w * o.x + this.x * o.w + this.y * o.z - this.z * o.y,
      this.w * o.y - this.x * o.z + this.y * o.w + this.z * o.x,
      this.w * o.z + this.x * o.y - this.y * o.x + this.z * o.w,
    );
  }
  conjugate(): Quaternion {
    return new Quaternion(this.w, -this.x, -this.y, -this.z);
  }
  rotate([px, py, pz]: readonly number[]): number[] {
    const r = this.mul(new Quaternion(0, px, py, pz)).mul(this.conjugate());
    return [r.x, r.y, r.z];
  }
}

function alignment(q: number[], cloud: number[][], target: number[][]): number {
  const rot = new Quaternion(q[0], q[1], q[2], q[3]).normalized();
  return cloud
    .map((p) => rot.rotate(p))
    .reduce((sum, p, i) => sum + p.reduce((s, c, k) => s + (c - target[i][k]) ** 2, 0), 0);
}

function composeAngles(angles: number[]): number[] {
  const qa = Quaternion.fromAxisAngle([1, 0, 0], angles[0]);
  const qb = Quaternion.fromAxisAngle([0, 1, 1], angles[1]);
  return qb.mul(qa).rotate([1, 2, 3]);
}

const cloud = [
  [1, 0, 0],
  [0, 1, 0],
  [0.5, 0.5, 1],
];
const target = cloud.map((p) => Quaternion.fromAxisAngle([0, 0, 1], 0.4).rotate(p));
const q0 = [0.9, 0.1, -0.2, 0.3];
const { value, gradient: g } = valueWithGradient(alignment, { wrt: 0 })(q0, cloud, target);
compare("value", value, alignment(q0, cloud, target), 1e-12);
compare(
  "grad vs fd",
  g,
  fdGrad((q) => alignment(q, cloud, target), q0),
);
compare(
  "fwd vs rev",
  differential(alignment, { wrt: 0 })(q0, cloud, target)([1, -1, 2, 0.5]),
  g[0] - g[1] + 2 * g[2] + 0.5 * g[3],
);
const Jf = jacobian(composeAngles, { mode: "forward" })([0.3, -0.7]);
const Jr = jacobian(composeAngles, { mode: "reverse" })([0.3, -0.7]);
compare("jac fwd vs rev", Jf, Jr);
compare(
  "jac vs fd",
  Jr,
  [0, 1, 2].map((i) => fdGrad((a) => composeAngles(a)[i], [0.3, -0.7])),
);
compare("wasm", gradient(alignment, { wrt: 0, backend: "wasm" })(q0, cloud, target), g);
summary("p08-rotation");
