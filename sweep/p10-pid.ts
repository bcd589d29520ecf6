// Control: PID controller on a first-order plant; gradient of tracking cost wrt gains.
import { gradient, valueWithGradient, differential, hessian } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

interface Gains {
  kp: number;
  ki: number;
  kd: number;
}
interface PlantOptions {
  tau?: number;
  gain?: number;
  saturation?: number;
}

class PidController {
  private integral = 0;
  private lastError: number | undefined;
  constructor(private readonly gains: Gains) {}
  update(error: number, dt: number): number {
    this.integral += error * dt;
    const derivative = this.lastError === undefined ? 0 : (error - this.lastError) / dt;
    this.lastError = error;
    const { kp, ki, kd } = this.gains;
    return kp * error + ki * this.integral + kd * derivative;
  }
}

function trackingCost(gains: Gains, setpoints: number[], opts: PlantOptions = {}): number {
  const tau = opts.tau ?? 0.5;
  const k = opts.gain ?? 2;
  const limit = opts.saturation ?? Infinity;
  const pid = new PidController(gains);
  const dt = 0.02;
  let y = 0;
  let cost = 0;
  for (const target of setpoints) {
    for (let sub = 0; sub < 5; sub++) {
      const u = Math.min(limit, Math.max(-limit, pid.update(target - y, dt)));
      y += (dt / tau) * (k * u - y);
      cost += (target - y) ** 2 * dt;
    }
  }
  return cost;
}

const setpoints = Array.from({ length: 30 }, (_, i) => (i < 10 ? 0 : i < 20 ? 1 : 0.5));
const g0: Gains = { kp: 1.2, ki: 0.4, kd: 0.05 };
const toG = (v: number[]): Gains => ({ kp: v[0], ki: v[1], kd: v[2] });
for (const opts of [{}, { tau: 0.3, saturation: 0.8 }] as PlantOptions[]) {
  const { value, gradient: g } = valueWithGradient(trackingCost, { wrt: 0 })(g0, setpoints, opts);
  compare("value", value, trackingCost(g0, setpoints, opts), 1e-12);
  compare(
    "grad vs fd",
    [g.kp, g.ki, g.kd],
    fdGrad((v) => trackingCost(toG(v), setpoints, opts), [1.2, 0.4, 0.05]),
  );
  const fwd = differential(trackingCost, { wrt: 0 })(g0, setpoints, opts)({ kp: 1, ki: 2, kd: 3 });
  compare("fwd vs rev", fwd, g.kp + 2 * g.ki + 3 * g.kd);
  const gw = gradient(trackingCost, { wrt: 0, backend: "wasm" })(g0, setpoints, opts);
  compare("wasm", gw, g);
}
const kpCost = (kp: number) => trackingCost({ kp, ki: 0.4, kd: 0.05 }, setpoints);
compare("hessian kp", hessian(kpCost)(1.2), fd1b(kpCost, 1.2), 1e-4);
function fd1b(f: (x: number) => number, x: number, h = 1e-4) {
  return (f(x + h) - 2 * f(x) + f(x - h)) / (h * h);
}
summary("p10-pid");
