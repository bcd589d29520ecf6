// Accessors and records in place: compound assignments through a getter/setter pair
// (`p.speed *= 0.5`, `acc.total += x`), a setter that normalizes, a record of numbers scaled
// in place inside `for…of Object.entries`, `Object.keys(...).forEach` writes; hessian and
// jacobian of object-valued results.
import { gradient, differential, jacobian, hessian } from "nabla";
import { compare, fdGrad, fdJac, summary } from "./check.ts";

class Mover {
  constructor(
    public vx: number,
    public vy: number,
  ) {}
  get speed(): number {
    return Math.hypot(this.vx, this.vy);
  }
  set speed(s: number) {
    const k = s / this.speed;
    this.vx *= k;
    this.vy *= k;
  }
  get heading(): number {
    return Math.atan2(this.vy, this.vx);
  }
  set heading(a: number) {
    const s = this.speed;
    this.vx = s * Math.cos(a);
    this.vy = s * Math.sin(a);
  }
}

function steer(p: number[]): number[] {
  const m = new Mover(p[0], p[1]);
  m.speed *= 0.5;
  m.heading += p[2];
  m.speed += 1;
  m.speed **= 2;
  return [m.vx, m.vy];
}

function rebalance(p: number[]): number {
  const w: Record<string, number> = { a: p[0], b: p[1], c: p[2] };
  for (const [k, v] of Object.entries(w)) w[k] = v * v;
  let total = 0;
  for (const v of Object.values(w)) total += v;
  Object.keys(w).forEach((k) => {
    w[k] /= total;
  });
  return w.a * 3 + w.b * 2 + w.c + Math.log(total);
}

const p = [0.6, 0.8, 0.3];
const J = jacobian(steer)(p);
compare("steer jacobian vs fd", J, fdJac(steer, p));
compare("steer jacobian fwd vs rev", J, jacobian(steer, { mode: "reverse" })(p));
const g = gradient(rebalance)(p);
compare("rebalance grad vs fd", g, fdGrad(rebalance, p));
compare("rebalance fwd vs rev", differential(rebalance)(p)([1, 1, 1]), g[0] + g[1] + g[2]);
const H = hessian(rebalance)(p);
compare("rebalance hessian vs fd", H, fdJac((q) => gradient(rebalance)(q), p));
summary("s33-accessors-records");
