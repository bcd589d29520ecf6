// Physics: Verlet cloth strip with distance constraints solved iteratively, pinned ends,
// labelled continue, and a wind force from a closure; gradient w.r.t. rest lengths & wind.
import { gradient, differential } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

interface Node2 {
  x: number;
  y: number;
  px: number;
  py: number;
  pinned: boolean;
}

function simulateCloth(restLengths: number[], wind: number): number {
  const nodes: Node2[] = [];
  for (let i = 0; i <= restLengths.length; i++)
    nodes.push({ x: i, y: 0, px: i, py: 0, pinned: i === 0 || i === restLengths.length });
  const force = (n: Node2, t: number) => ({ fx: wind * Math.sin(t + n.x), fy: -0.5 });
  const dt = 0.05;
  for (let step = 0; step < 30; step++) {
    nodes.forEach((n) => {
      if (n.pinned) return;
      const { fx, fy } = force(n, step * dt);
      const vx = n.x - n.px;
      const vy = n.y - n.py;
      n.px = n.x;
      n.py = n.y;
      n.x += vx * 0.99 + fx * dt * dt;
      n.y += vy * 0.99 + fy * dt * dt;
    });
    relax: for (let iter = 0; iter < 4; iter++) {
      for (let i = 0; i < restLengths.length; i++) {
        const a = nodes[i];
        const b = nodes[i + 1];
        const dx = b.x - a.x;
        const dy = b.y - a.y;
        const d = Math.hypot(dx, dy);
        if (d < 1e-9) continue relax;
        const diff = (d - restLengths[i]) / d;
        const wa = a.pinned ? 0 : b.pinned ? 1 : 0.5;
        const wb = b.pinned ? 0 : a.pinned ? 1 : 0.5;
        a.x += wa * diff * dx;
        a.y += wa * diff * dy;
        b.x -= wb * diff * dx;
        b.y -= wb * diff * dy;
      }
    }
  }
  return nodes.reduce((s, n) => s + n.y * n.y + 0.1 * n.x, 0);
}

const rest = [1.05, 0.95, 1.1, 1.0];
const [gr, gw] = gradient(simulateCloth)(rest, 0.8);
compare(
  "grad rest vs fd",
  gr,
  fdGrad((r) => simulateCloth(r, 0.8), rest),
  1e-4,
);
compare(
  "grad wind vs fd",
  gw,
  (simulateCloth(rest, 0.8 + 1e-6) - simulateCloth(rest, 0.8 - 1e-6)) / 2e-6,
  1e-4,
);
compare("fwd vs rev", differential(simulateCloth)(rest, 0.8)([1, 0, 0, 1], 1), gr[0] + gr[3] + gw);
compare("wasm", gradient(simulateCloth, { backend: "wasm" })(rest, 0.8), [gr, gw]);
summary("p40-cloth");
