// Verlet-integrated spring-mass cloth patch with pinned corners; returns total mechanical energy after a short simulation.

export interface Point2 {
  x: number;
  y: number;
}

class Particle {
  prevX: number;
  prevY: number;

  constructor(public x: number, public y: number, readonly mass = 1, readonly pinned = false) {
    this.prevX = x;
    this.prevY = y;
  }

  velocity(dt: number): Point2 {
    return { x: (this.x - this.prevX) / dt, y: (this.y - this.prevY) / dt };
  }

  integrate(ax: number, ay: number, dt: number, damping: number) {
    if (this.pinned) return;
    const nx = this.x + (this.x - this.prevX) * damping + ax * dt * dt;
    const ny = this.y + (this.y - this.prevY) * damping + ay * dt * dt;
    [this.prevX, this.prevY] = [this.x, this.y];
    [this.x, this.y] = [nx, ny];
  }
}

interface Spring {
  a: number;
  b: number;
  rest: number;
}

export interface ClothOptions {
  cols: number;
  rows: number;
  spacing?: number;
  gravity?: number;
  stiffness?: number;
  damping?: number;
  dt?: number;
  steps?: number;
  iterations?: number;
}

function buildSprings(cols: number, rows: number, spacing: number): Spring[] {
  const springs: Spring[] = [];
  const idx = (c: number, r: number) => r * cols + c;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      if (c + 1 < cols) springs.push({ a: idx(c, r), b: idx(c + 1, r), rest: spacing });
      if (r + 1 < rows) springs.push({ a: idx(c, r), b: idx(c, r + 1), rest: spacing });
      if (c + 1 < cols && r + 1 < rows) springs.push({ a: idx(c, r), b: idx(c + 1, r + 1), rest: spacing * Math.SQRT2 });
    }
  }
  return springs;
}

function satisfy(particles: Particle[], { a, b, rest }: Spring, stiffness: number) {
  const p = particles[a];
  const q = particles[b];
  const dx = q.x - p.x;
  const dy = q.y - p.y;
  const dist = Math.hypot(dx, dy);
  const diff = (stiffness * (dist - rest)) / dist;
  const wp = p.pinned ? 0 : 1 / p.mass;
  const wq = q.pinned ? 0 : 1 / q.mass;
  const total = wp + wq;
  if (total === 0) return;
  p.x += (dx * diff * wp) / total;
  p.y += (dy * diff * wp) / total;
  q.x -= (dx * diff * wq) / total;
  q.y -= (dy * diff * wq) / total;
}

export function objective(initial: Point2[], options: ClothOptions): number {
  const { cols, rows, spacing = 0.1, gravity = -9.81, stiffness = 0.6, damping = 0.99, dt = 1 / 60, steps = 40, iterations = 4 } = options;
  const pinned = new Set([0, cols - 1]);
  const particles = initial.map(({ x, y }, i) => new Particle(x, y, 1, pinned.has(i)));
  const springs = buildSprings(cols, rows, spacing);

  for (let s = 0; s < steps; s++) {
    particles.forEach((p) => p.integrate(0, gravity, dt, damping));
    for (let it = 0; it < iterations; it++) springs.forEach((sp) => satisfy(particles, sp, stiffness));
  }

  const kinetic = particles.reduce((e, p) => {
    const v = p.velocity(dt);
    return e + 0.5 * p.mass * (v.x * v.x + v.y * v.y);
  }, 0);
  const potential = particles.reduce((e, p) => e - p.mass * gravity * p.y, 0);
  const elastic = springs.reduce((e, { a, b, rest }) => {
    const stretch = Math.hypot(particles[b].x - particles[a].x, particles[b].y - particles[a].y) - rest;
    return e + 0.5 * 500 * stretch * stretch;
  }, 0);
  return kinetic + potential + elastic;
}

const grid = (cols: number, rows: number, spacing: number): Point2[] =>
  Array.from({ length: cols * rows }, (_, i) => ({
    x: (i % cols) * spacing + 0.01 * Math.sin(i),
    y: -Math.floor(i / cols) * spacing + 0.005 * Math.cos(3 * i),
  }));

export const args: Parameters<typeof objective> = [grid(5, 4, 0.1), { cols: 5, rows: 4, steps: 30 }];
