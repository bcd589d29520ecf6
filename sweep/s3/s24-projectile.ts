// Ballistics: a projectile with quadratic drag, integrated until it lands (while loop with a
// data-dependent exit and linear interpolation of the landing point); Math.min(...) of the
// distances to targets, a hessian-vector product.
import { gradient, hessianVectorProduct, differential, valueWithGradient } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

interface Body {
  x: number;
  y: number;
  vx: number;
  vy: number;
}

const DRAG = 0.02;
const GRAVITY = 9.81;

function fly(speed: number, angle: number): Body[] {
  const p: Body = { x: 0, y: 0, vx: speed * Math.cos(angle), vy: speed * Math.sin(angle) };
  const path: Body[] = [{ ...p }];
  const dt = 0.01;
  while (p.y >= 0 && path.length < 2000) {
    const v = Math.hypot(p.vx, p.vy);
    p.vx += dt * (-DRAG * v * p.vx);
    p.vy += dt * (-GRAVITY - DRAG * v * p.vy);
    p.x += dt * p.vx;
    p.y += dt * p.vy;
    path.push({ ...p });
  }
  return path;
}

function landing(speed: number, angle: number): number {
  const path = fly(speed, angle);
  const last = path[path.length - 1];
  const prev = path[path.length - 2];
  const t = prev.y / (prev.y - last.y);
  return prev.x + t * (last.x - prev.x);
}

const TARGETS = [18, 25, 31];

function miss(params: number[]): number {
  const [speed, angle] = params;
  const x = landing(speed, angle);
  const dists = TARGETS.map((t) => (x - t) ** 2);
  return Math.min(...dists) + 0.01 * speed * speed;
}

const p = [17, 0.7];
const { value, gradient: g } = valueWithGradient(miss)(p);
compare("value", value, miss(p));
compare("grad vs fd", g, fdGrad(miss, p, 1e-6));
compare("fwd vs rev", differential(miss)(p)([1, 10]), g[0] + 10 * g[1]);
const hv = hessianVectorProduct(miss)(p, [1, 0]);
compare("hvp vs fd", hv, fdGrad((q) => gradient(miss)(q)[0], p, 1e-6), 1e-4);
summary("s24-projectile");
