// Quaternion class for 3-D rotations; Wahba-style attitude error of weighted vector correspondences plus an orientation prior.

export interface Vec3 {
  x: number;
  y: number;
  z: number;
}

export class Quaternion {
  constructor(
    public w = 1,
    public x = 0,
    public y = 0,
    public z = 0,
  ) {}

  static identity() {
    return new Quaternion();
  }

  static fromAxisAngle(axis: Vec3, angle: number) {
    const len = Math.hypot(axis.x, axis.y, axis.z);
    const s = Math.sin(angle / 2) / len;
    return new Quaternion(Math.cos(angle / 2), axis.x * s, axis.y * s, axis.z * s);
  }

  get norm() {
    return Math.hypot(this.w, this.x, this.y, this.z);
  }

  get conjugate() {
    return new Quaternion(this.w, -this.x, -this.y, -this.z);
  }

  normalized() {
    const n = this.norm;
    return new Quaternion(this.w / n, this.x / n, this.y / n, this.z / n);
  }

  multiply(q: Quaternion) {
    const { w, x, y, z } = this;
    return new Quaternion(
      w * q.w - x * q.x - y * q.y - z * q.z,
      w * q.x + x * q.w + y * q.z - z * q.y,
      w * q.y - x * q.z + y * q.w + z * q.x,
      w * q.z + x * q.y - y * q.x + z * q.w,
    );
  }

  dot(q: Quaternion) {
    return this.w * q.w + this.x * q.x + this.y * q.y + this.z * q.z;
  }

  // v' = q v q*
  rotate(v: Vec3): Vec3 {
    const p = this.multiply(new Quaternion(0, v.x, v.y, v.z)).multiply(this.conjugate);
    return { x: p.x, y: p.y, z: p.z };
  }

  angleTo(q: Quaternion) {
    return 2 * Math.acos(Math.min(1, Math.abs(this.normalized().dot(q.normalized()))));
  }

  toString() {
    return `Quaternion(${[this.w, this.x, this.y, this.z].map((c) => c.toFixed(4)).join(", ")})`;
  }
}

export interface Correspondence {
  body: Vec3; // measured in the body frame
  reference: Vec3; // known in the world frame
  weight?: number;
}

export function objective(q: Quaternion, correspondences: Correspondence[], prior = Quaternion.identity(), priorWeight = 0.1): number {
  const unit = q.normalized();
  const attitudeError = correspondences.reduce((acc, { body, reference, weight = 1 }) => {
    const r = unit.rotate(body);
    return acc + weight * ((r.x - reference.x) ** 2 + (r.y - reference.y) ** 2 + (r.z - reference.z) ** 2);
  }, 0);
  // 1 - <q, p>² is a smooth, sign-invariant distance between orientations
  const priorTerm = 1 - unit.dot(prior.normalized()) ** 2;
  const normDrift = (q.norm - 1) ** 2;
  return 0.5 * attitudeError + priorWeight * priorTerm + normDrift;
}

const truth = Quaternion.fromAxisAngle({ x: 0.3, y: -0.5, z: 0.8 }, 0.9);
const bodyVectors: Vec3[] = [
  { x: 1, y: 0, z: 0 },
  { x: 0, y: 1, z: 0 },
  { x: 0.577, y: 0.577, z: 0.577 },
  { x: -0.2, y: 0.9, z: 0.4 },
];

export const correspondences: Correspondence[] = bodyVectors.map((body, i) => {
  const r = truth.rotate(body);
  return { body, reference: { x: r.x + 0.01 * i, y: r.y - 0.005 * i, z: r.z }, weight: i === 3 ? 0.5 : undefined };
});

export const args: Parameters<typeof objective> = [
  new Quaternion(0.85, 0.15, -0.2, 0.4),
  correspondences,
  Quaternion.fromAxisAngle({ x: 0, y: 0, z: 1 }, 0.5),
  0.1,
];
