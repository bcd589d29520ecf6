// Physics: N-body leapfrog with bodies copied via spread, labelled loops, structuredClone.
import { differential, valueWithGradient } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

interface Body {
  pos: [number, number];
  vel: [number, number];
  mass: number;
  name?: string;
}

function accelerations(bodies: Body[], softening = 0.05): Array<[number, number]> {
  const acc: Array<[number, number]> = bodies.map(() => [0, 0]);
  outer: for (let i = 0; i < bodies.length; i++) {
    for (let j = 0; j < bodies.length; j++) {
      if (i === j) continue;
      if (bodies[i].mass === 0) continue outer;
      const dx = bodies[j].pos[0] - bodies[i].pos[0];
      const dy = bodies[j].pos[1] - bodies[i].pos[1];
      const r2 = dx * dx + dy * dy + softening * softening;
      const inv = bodies[j].mass / (r2 * Math.sqrt(r2));
      acc[i][0] += dx * inv;
      acc[i][1] += dy * inv;
    }
  }
  return acc;
}

function simulate(initial: Body[], steps: number, dt: number): Body[] {
  const bodies = initial.map((b) => ({
    ...b,
    pos: [...b.pos] as [number, number],
    vel: [...b.vel] as [number, number],
  }));
  let acc = accelerations(bodies);
  for (let s = 0; s < steps; s++) {
    for (const [i, b] of bodies.entries()) {
      b.vel[0] += 0.5 * dt * acc[i][0];
      b.vel[1] += 0.5 * dt * acc[i][1];
      b.pos[0] += dt * b.vel[0];
      b.pos[1] += dt * b.vel[1];
    }
    acc = accelerations(bodies);
    bodies.forEach((b, i) => {
      b.vel[0] += 0.5 * dt * acc[i][0];
      b.vel[1] += 0.5 * dt * acc[i][1];
    });
  }
  return bodies;
}

function missDistance(initial: Body[], target: [number, number]): number {
  const final = simulate(initial, 25, 0.02);
  const probe = final.find((b) => b.name === "probe") ?? final[final.length - 1];
  return Math.hypot(probe.pos[0] - target[0], probe.pos[1] - target[1]);
}

const system: Body[] = [
  { pos: [0, 0], vel: [0, 0], mass: 1, name: "sun" },
  { pos: [1, 0], vel: [0, 1], mass: 0.01, name: "planet" },
  { pos: [0, 1.5], vel: [-0.7, 0.1], mass: 0.001, name: "probe" },
];
const target: [number, number] = [-0.5, 1.2];
const flatB = (bs: Body[]) => bs.flatMap((b) => [...b.pos, ...b.vel, b.mass]);
const fromFlat = (v: number[]): Body[] =>
  system.map((b, i) => ({
    ...b,
    pos: [v[5 * i], v[5 * i + 1]],
    vel: [v[5 * i + 2], v[5 * i + 3]],
    mass: v[5 * i + 4],
  }));
const { value, gradient: g } = valueWithGradient(missDistance, { wrt: 0 })(system, target);
compare("value", value, missDistance(system, target), 1e-12);
compare(
  "grad vs fd",
  flatB(g as unknown as Body[]),
  fdGrad((v) => missDistance(fromFlat(v), target), flatB(system)),
);
const dir = fromFlat(flatB(system).map((_, i) => Math.sin(i + 1)));
const fwd = differential(missDistance, { wrt: 0 })(system, target)(dir as never);
compare(
  "fwd vs rev",
  fwd,
  flatB(g as unknown as Body[]).reduce((s, gi, i) => s + gi * Math.sin(i + 1), 0),
);
// input unchanged
compare(
  "input untouched",
  flatB(system),
  [0, 0, 0, 0, 1, 1, 0, 0, 1, 0.01, 0, 1.5, -0.7, 0.1, 0.001],
);
summary("p13-nbody");
