// Rigid-body rotation: a Quaternion class with static constructors and a static IDENTITY,
// immutable operations, integration of angular velocity in the body frame with Euler's
// equations; jacobian of the final orientation w.r.t. the initial angular velocity.
import { jacobian, gradient, differential } from "nabla";
import { compare, fdGrad, fdJac, summary } from "./check.ts";

class Quaternion {
  static readonly IDENTITY = new Quaternion(1, 0, 0, 0);
  constructor(
    readonly w: number,
    readonly x: number,
    readonly y: number,
    readonly z: number,
  ) {}
  static fromAxisAngle(axis: readonly [number, number, number], angle: number): Quaternion {
    const norm = Math.hypot(...axis);
    const s = Math.sin(angle / 2) / norm;
    return new Quaternion(Math.cos(angle / 2), axis[0] * s, axis[1] * s, axis[2] * s);
  }
  multiply(q: Quaternion): Quaternion {
    return new Quaternion(
      this.w * q.w - this.x * q.x - this.y * q.y - this.z * q.z,
      this.w * q.x + this.x * q.w + this.y * q.z - this.z * q.y,
      this.w * q.y - this.x * q.z + this.y * q.w + this.z * q.x,
      this.w * q.z + this.x * q.y - this.y * q.x + this.z * q.w,
    );
  }
  normalized(): Quaternion {
    const n = Math.hypot(this.w, this.x, this.y, this.z);
    return new Quaternion(this.w / n, this.x / n, this.y / n, this.z / n);
  }
  rotate(v: readonly [number, number, number]): [number, number, number] {
    const p = new Quaternion(0, ...v);
    const r = this.multiply(p).multiply(new Quaternion(this.w, -this.x, -this.y, -this.z));
    return [r.x, r.y, r.z];
  }
}

const INERTIA = [1.0, 2.0, 3.5] as const;

function spin(omega0: number[], steps = 40, dt = 0.05): Quaternion {
  let q = Quaternion.IDENTITY;
  let [wx, wy, wz] = omega0;
  const [I1, I2, I3] = INERTIA;
  for (let k = 0; k < steps; k++) {
    // Euler's equations for a torque-free body
    const ax = ((I2 - I3) * wy * wz) / I1;
    const ay = ((I3 - I1) * wz * wx) / I2;
    const az = ((I1 - I2) * wx * wy) / I3;
    wx += dt * ax;
    wy += dt * ay;
    wz += dt * az;
    const rate = Math.hypot(wx, wy, wz);
    q = q.multiply(Quaternion.fromAxisAngle([wx, wy, wz], rate * dt)).normalized();
  }
  return q;
}

function finalOrientation(omega0: number[]): number[] {
  const q = spin(omega0);
  return [q.w, q.x, q.y, q.z];
}

function pointing(omega0: number[]): number {
  const tip = spin(omega0).rotate([1, 0, 0]);
  return (tip[0] - 0.2) ** 2 + (tip[1] - 0.7) ** 2 + tip[2] ** 2;
}

const w0 = [0.3, 1.2, 0.2];
const J = jacobian(finalOrientation)(w0);
compare("jacobian vs fd", J, fdJac(finalOrientation, w0));
compare("jacobian fwd vs rev", J, jacobian(finalOrientation, { mode: "reverse" })(w0));
const g = gradient(pointing)(w0);
compare("grad vs fd", g, fdGrad(pointing, w0));
compare("fwd vs rev", differential(pointing)(w0)([1, 2, 3]), g[0] + 2 * g[1] + 3 * g[2]);
summary("s11-rigid-body");
