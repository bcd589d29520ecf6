// s30 without the static counter (NABLA101: static writes), to check the rest: a static
// registry of defaults, particles updated in place through an index loop and forEach, an
// object swapped between array slots, compound assignments on fields (`p.x += dt * p.vx`).
import { gradient, differential } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

class Spring {
  static readonly defaults = { rest: 1, damping: 0.05 };
  readonly id: number;
  constructor(
    public a: number,
    public b: number,
    public k: number,
    public rest = Spring.defaults.rest,
  ) {
    this.id = a;
  }
  force(xs: readonly number[]): number {
    return this.k * (xs[this.b] - xs[this.a] - this.rest);
  }
}

interface Mass {
  x: number;
  vx: number;
  m: number;
}

function relax(stiffness: number[]): number {
  const masses: Mass[] = [0, 1.1, 2.3, 2.9].map((x, i) => ({ x, vx: 0, m: 1 + 0.1 * i }));
  const springs = stiffness.map((k, i) => new Spring(i, i + 1, k));
  const dt = 0.05;
  for (let step = 0; step < 40; step++) {
    const xs = masses.map((m) => m.x);
    const f = new Array<number>(masses.length).fill(0);
    for (const s of springs) {
      const fs = s.force(xs);
      f[s.a] += fs;
      f[s.b] -= fs;
    }
    masses.forEach((p, i) => {
      if (i === 0) return;
      p.vx += (dt * (f[i] - Spring.defaults.damping * p.vx)) / p.m;
      p.x += dt * p.vx;
    });
    if (step === 20) {
      const tmp = masses[1];
      masses[1] = masses[2];
      masses[2] = tmp;
    }
  }
  return masses.reduce((s, p, i) => s + (p.x - i) ** 2 + 0.5 * p.m * p.vx ** 2, 0);
}

const k0 = [2, 3, 1.5];
const g = gradient(relax)(k0);
compare("grad vs fd", g, fdGrad(relax, k0));
compare("fwd vs rev", differential(relax)(k0)([1, 1, 1]), g[0] + g[1] + g[2]);
compare("wasm", gradient(relax, { backend: "wasm" })(k0), g);
summary("s30b-static-defaults");
