// Inverse kinematics objective for a 4-joint robot arm built from Vec3/Mat3 classes: reach error plus joint-limit penalty.

export class Vec3 {
  constructor(public x = 0, public y = 0, public z = 0) {}

  static readonly zero = new Vec3();

  add(o: Vec3) {
    return new Vec3(this.x + o.x, this.y + o.y, this.z + o.z);
  }
  sub(o: Vec3) {
    return new Vec3(this.x - o.x, this.y - o.y, this.z - o.z);
  }
  scale(s: number) {
    return new Vec3(this.x * s, this.y * s, this.z * s);
  }
  dot(o: Vec3) {
    return this.x * o.x + this.y * o.y + this.z * o.z;
  }
  cross(o: Vec3) {
    return new Vec3(this.y * o.z - this.z * o.y, this.z * o.x - this.x * o.z, this.x * o.y - this.y * o.x);
  }
  get lengthSq() {
    return this.dot(this);
  }
  get length() {
    return Math.sqrt(this.lengthSq);
  }
}

export class Mat3 {
  // row-major 3x3
  constructor(readonly m: readonly number[]) {}

  static identity() {
    return new Mat3([1, 0, 0, 0, 1, 0, 0, 0, 1]);
  }
  static rotation(axis: Axis, theta: number): Mat3 {
    const c = Math.cos(theta);
    const s = Math.sin(theta);
    switch (axis) {
      case "x":
        return new Mat3([1, 0, 0, 0, c, -s, 0, s, c]);
      case "y":
        return new Mat3([c, 0, s, 0, 1, 0, -s, 0, c]);
      case "z":
        return new Mat3([c, -s, 0, s, c, 0, 0, 0, 1]);
    }
  }

  mul(other: Mat3) {
    const out = new Array<number>(9).fill(0);
    for (let i = 0; i < 3; i++)
      for (let j = 0; j < 3; j++)
        for (let k = 0; k < 3; k++) out[i * 3 + j] += this.m[i * 3 + k] * other.m[k * 3 + j];
    return new Mat3(out);
  }

  apply(v: Vec3) {
    const [a, b, c, d, e, f, g, h, i] = this.m;
    return new Vec3(a * v.x + b * v.y + c * v.z, d * v.x + e * v.y + f * v.z, g * v.x + h * v.y + i * v.z);
  }
}

type Axis = "x" | "y" | "z";

export interface Joint {
  name: string;
  axis: Axis;
  offset: Vec3; // link vector expressed in the joint's frame
  minAngle?: number;
  maxAngle?: number;
}

export const defaultArm: Joint[] = [
  { name: "base", axis: "z", offset: new Vec3(0, 0, 0.4) },
  { name: "shoulder", axis: "y", offset: new Vec3(0.5, 0, 0), minAngle: -1.6, maxAngle: 1.6 },
  { name: "elbow", axis: "y", offset: new Vec3(0.45, 0, 0), minAngle: -2.5, maxAngle: 2.5 },
  { name: "wrist", axis: "x", offset: new Vec3(0.15, 0, 0.05), minAngle: -2, maxAngle: 2 },
];

export function forwardKinematics(joints: Joint[], angles: number[]): Vec3[] {
  let frame = Mat3.identity();
  let position = Vec3.zero;
  const positions = [position];
  joints.forEach((joint, i) => {
    frame = frame.mul(Mat3.rotation(joint.axis, angles[i] ?? 0));
    position = position.add(frame.apply(joint.offset));
    positions.push(position);
  });
  return positions;
}

function limitPenalty(joints: Joint[], angles: number[]) {
  return joints.reduce((acc, { minAngle = -Math.PI, maxAngle = Math.PI }, i) => {
    const mid = 0.5 * (minAngle + maxAngle);
    const half = 0.5 * (maxAngle - minAngle);
    const u = (angles[i] - mid) / half;
    return acc + u ** 4;
  }, 0);
}

export interface IkOptions {
  limitWeight?: number;
  approachAxis?: Vec3;
  approachWeight?: number;
}

export function objective(angles: number[], target: Vec3, joints: Joint[] = defaultArm, options: IkOptions = {}): number {
  const { limitWeight = 0.01, approachAxis = new Vec3(0, 0, -1), approachWeight = 0.05 } = options;
  const chain = forwardKinematics(joints, angles);
  const tip = chain[chain.length - 1];
  const wrist = chain[chain.length - 2];
  const reach = tip.sub(target).lengthSq;
  const toolDir = tip.sub(wrist);
  const misalignment = toolDir.scale(1 / toolDir.length).cross(approachAxis).lengthSq;
  return reach + approachWeight * misalignment + limitWeight * limitPenalty(joints, angles);
}

export const args: Parameters<typeof objective> = [[0.3, 0.4, 0.9, -0.2], new Vec3(0.55, 0.25, 0.3), defaultArm, { limitWeight: 0.02 }];
