// Physics: a particle system with classes, static fields, in-place updates of instances in an
// array (`p.x += dt * p.vx`), Math.hypot, a labelled continue; gradient of a target loss.
import { gradient, valueWithGradient, differential } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

class Particle {
  static count = 0;
  static readonly RADIUS = 0.05;
  readonly id: number;
  constructor(
    public x: number,
    public y: number,
    public vx = 0,
    public vy = 0,
    public mass = 1,
  ) {
    this.id = Particle.count;
  }
  kinetic(): number {
    return 0.5 * this.mass * (this.vx ** 2 + this.vy ** 2);
  }
}

class World {
  static readonly G = 0.5;
  particles: Particle[] = [];
  add(p: Particle): this {
    this.particles.push(p);
    return this;
  }
  step(dt: number): void {
    outer: for (const p of this.particles) {
      let ax = 0;
      let ay = -World.G;
      for (const q of this.particles) {
        if (q === p) continue;
        const dx = q.x - p.x;
        const dy = q.y - p.y;
        const r = Math.hypot(dx, dy);
        if (r < Particle.RADIUS) continue outer;
        ax += (q.mass * dx) / (r * r * r);
        ay += (q.mass * dy) / (r * r * r);
      }
      p.vx += dt * ax;
      p.vy += dt * ay;
    }
    for (const p of this.particles) {
      p.x += dt * p.vx;
      p.y += dt * p.vy;
      if (p.y < 0) {
        p.y = -p.y;
        p.vy *= -0.9;
      }
    }
  }
}

function launch(v0: number[]): number {
  const world = new World()
    .add(new Particle(0, 1, v0[0], v0[1]))
    .add(new Particle(1, 1.5, v0[2], v0[3], 2))
    .add(new Particle(-1, 2, 0, 0, 0.5));
  for (let i = 0; i < 30; i++) world.step(0.02);
  const [a, b] = world.particles;
  const miss = Math.hypot(a.x - 0.5, a.y - 1.2) + Math.hypot(b.x - 1.2, b.y - 1.0);
  const energy = world.particles.reduce((s, p) => s + p.kinetic(), 0);
  return miss + 0.01 * energy;
}

const v0 = [0.5, 0.2, -0.3, 0.1];
const { value, gradient: g } = valueWithGradient(launch)(v0);
compare("value", value, launch(v0));
// Close encounters make the loss very curved: h = 1e-5 is off by 6e-5, h = 1e-7 agrees.
compare("grad vs fd", g, fdGrad(launch, v0, 1e-7));
compare("grad() = valueWithGradient", gradient(launch)(v0), g);
const dv = [1, -1, 0.5, 2];
compare("fwd vs rev", differential(launch)(v0)(dv), g.reduce((s, gi, i) => s + gi * dv[i], 0));
compare("wasm vs js", gradient(launch, { backend: "wasm" })(v0), g);
summary("s02-particles");
