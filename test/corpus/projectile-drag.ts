// Projectile with quadratic air drag and optional wind, integrated with semi-implicit Euler; squared miss distance at landing.

export interface Launch {
  speed: number;
  angle: number; // radians above horizontal
  height?: number;
}

export interface ProjectileOptions {
  drag?: number; // 0.5·ρ·Cd·A
  mass?: number;
  gravity?: number;
  wind?: number;
  dt?: number;
  maxTime?: number;
}

interface Body {
  x: number;
  y: number;
  vx: number;
  vy: number;
}

export interface Landing {
  range: number;
  flightTime: number;
  impactSpeed: number;
}

export function simulate(launch: Launch, options: ProjectileOptions = {}): Landing {
  const drag = options.drag ?? 0.0012;
  const mass = options.mass ?? 0.145;
  const g = options.gravity ?? 9.81;
  const wind = options.wind ?? 0;
  const dt = options.dt ?? 1e-3;
  const maxTime = options.maxTime ?? 60;

  let body: Body = {
    x: 0,
    y: launch.height ?? 0,
    vx: launch.speed * Math.cos(launch.angle),
    vy: launch.speed * Math.sin(launch.angle),
  };
  let t = 0;
  while (t < maxTime) {
    const rx = body.vx - wind;
    const speed = Math.hypot(rx, body.vy);
    const ax = (-drag * speed * rx) / mass;
    const ay = -g - (drag * speed * body.vy) / mass;
    const vx = body.vx + ax * dt;
    const vy = body.vy + ay * dt;
    const next: Body = { x: body.x + vx * dt, y: body.y + vy * dt, vx, vy };
    if (next.y < 0) {
      // linear interpolation of the ground crossing
      const frac = body.y / (body.y - next.y);
      return {
        range: body.x + frac * (next.x - body.x),
        flightTime: t + frac * dt,
        impactSpeed: Math.hypot(vx, vy),
      };
    }
    body = next;
    t += dt;
  }
  throw new Error("projectile never landed");
}

export function objective(launch: Launch, target: { distance: number; maxImpactSpeed?: number }, options?: ProjectileOptions): number {
  const { range, impactSpeed } = simulate(launch, options);
  const limit = target.maxImpactSpeed ?? Infinity;
  const excess = impactSpeed > limit ? impactSpeed - limit : 0;
  return (range - target.distance) ** 2 + 10 * excess ** 2;
}

export const args: Parameters<typeof objective> = [
  { speed: 38, angle: 0.62, height: 1.8 },
  { distance: 95, maxImpactSpeed: 25 },
  { drag: 0.0013, wind: -2.5, dt: 5e-4 },
];
