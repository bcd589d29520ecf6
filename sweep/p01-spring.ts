// Physics: a damped mass-spring chain stepped with semi-implicit Euler; gradient of final energy.
import { gradient, derivative, differential } from "nabla";
import { compare, fdGrad, fd1, summary } from "./check.ts";

interface Particle {
  x: number;
  v: number;
  readonly mass: number;
  pinned?: boolean;
}

class Chain {
  static readonly GRAVITY = 9.81;
  particles: Particle[];
  constructor(
    positions: number[],
    public stiffness: number,
    public damping = 0.1,
  ) {
    this.particles = positions.map((x, i) => ({ x, v: 0, mass: 1 + i * 0.5, pinned: i === 0 }));
  }
  get energy(): number {
    let e = 0;
    for (const p of this.particles) e += 0.5 * p.mass * p.v * p.v;
    for (let i = 1; i < this.particles.length; i++) {
      const d = this.particles[i].x - this.particles[i - 1].x - 1;
      e += 0.5 * this.stiffness * d * d;
    }
    return e;
  }
  step(dt: number): void {
    const n = this.particles.length;
    const forces = new Array<number>(n).fill(0);
    for (let i = 1; i < n; i++) {
      const stretch = this.particles[i].x - this.particles[i - 1].x - 1;
      const f = this.stiffness * stretch;
      forces[i] -= f;
      forces[i - 1] += f;
    }
    this.particles.forEach((p, i) => {
      if (p.pinned) return;
      const a = (forces[i] - this.damping * p.v) / p.mass - Chain.GRAVITY * 0.01;
      p.v += a * dt;
      p.x += p.v * dt;
    });
  }
}

function simulate(positions: number[], k: number): number {
  const chain = new Chain(positions, k);
  for (let s = 0; s < 20; s++) chain.step(0.05);
  return chain.energy;
}

const x0 = [0, 1.2, 2.1, 3.4];
const k = 3;
const g = gradient(simulate)(x0, k);
compare(
  "grad x vs fd",
  g[0],
  fdGrad((x) => simulate(x, k), x0),
);
compare(
  "grad k vs fd",
  g[1],
  fd1((kk) => simulate(x0, kk), k),
);
const df = differential(simulate)(x0, k);
compare("fwd vs rev (x dir)", df([1, 0, 0, 0], 0), g[0][0]);
compare("fwd vs rev (k dir)", df([0, 0, 0, 0], 1), g[1]);
compare("derivative wrt k", derivative((kk: number) => simulate(x0, kk))(k), g[1]);
const gw = gradient(simulate, { backend: "wasm" })(x0, k);
compare("wasm vs js", gw, g);
summary("p01-spring");
