// Robotics: planar arm forward kinematics with inheritance & super calls; IK loss & jacobian.
import { gradient, jacobian, differential, hessian } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

class Joint {
  constructor(
    public length: number,
    public angle = 0,
  ) {}
  transform(x: number, y: number, heading: number): [number, number, number] {
    const h = heading + this.angle;
    return [x + this.length * Math.cos(h), y + this.length * Math.sin(h), h];
  }
}

class LimitedJoint extends Joint {
  constructor(
    length: number,
    angle: number,
    private readonly limit: number,
  ) {
    super(length, angle);
  }
  override transform(x: number, y: number, heading: number): [number, number, number] {
    const clamped = Math.max(-this.limit, Math.min(this.limit, this.angle));
    const saved = this.angle;
    this.angle = clamped;
    const result = super.transform(x, y, heading);
    this.angle = saved;
    return result;
  }
}

function endEffector(angles: number[]): number[] {
  const joints: Joint[] = [
    new Joint(1, angles[0]),
    new LimitedJoint(0.8, angles[1], 1.2),
    new Joint(0.5, angles[2]),
  ];
  let state: [number, number, number] = [0, 0, 0];
  for (const j of joints) state = j.transform(...state);
  const [x, y] = state;
  return [x, y];
}

function ikLoss(angles: number[], target: readonly [number, number]): number {
  const [x, y] = endEffector(angles);
  return (x - target[0]) ** 2 + (y - target[1]) ** 2;
}

const a0 = [0.3, 0.9, -0.4];
const t: [number, number] = [1.2, 1.1];
const Jf = jacobian(endEffector, { mode: "forward" })(a0);
const Jr = jacobian(endEffector, { mode: "reverse" })(a0);
compare("jac f vs r", Jf, Jr);
compare(
  "jac vs fd",
  Jr,
  [0, 1].map((i) => fdGrad((a) => endEffector(a)[i], a0)),
);
const g = gradient(ikLoss, { wrt: 0 })(a0, t);
compare(
  "grad vs fd",
  g,
  fdGrad((a) => ikLoss(a, t), a0),
);
compare("fwd vs rev", differential(ikLoss, { wrt: 0 })(a0, t)([1, 1, 1]), g[0] + g[1] + g[2]);
const H = hessian(ikLoss, { wrt: 0 })(a0, t);
compare(
  "hess vs fd",
  H,
  [0, 1, 2].map((i) => fdGrad((a) => gradient(ikLoss, { wrt: 0 })(a, t)[i], a0)),
  1e-4,
);
// saturated limit
const a1 = [0.3, 1.5, -0.4];
compare(
  "grad sat vs fd",
  gradient(ikLoss, { wrt: 0 })(a1, t),
  fdGrad((a) => ikLoss(a, t), a1),
);
summary("p17-kinematics");
