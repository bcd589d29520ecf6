// Energy terms (springs, electrostatic repulsion, centering) for the force-directed graph layout.

import { Vec2, centroid, pairs, sumBy } from "./graph-layout-geometry";

export interface LayoutNode {
  id: string;
  x: number;
  y: number;
  charge?: number;
}

export interface Edge {
  source: string;
  target: string;
  weight?: number;
  length?: number;
}

export interface ForceParams {
  springConstant: number;
  restLength: number;
  repulsion: number;
  softening: number;
  gravity: number;
}

export const defaultForces: ForceParams = { springConstant: 1, restLength: 1.5, repulsion: 0.8, softening: 0.05, gravity: 0.02 };

export function springEnergy(index: Map<string, LayoutNode>, edges: readonly Edge[], p: ForceParams) {
  return sumBy(edges, ({ source, target, weight = 1, length }) => {
    const a = index.get(source);
    const b = index.get(target);
    if (!a || !b) throw new Error(`dangling edge ${source} -> ${target}`);
    const stretch = Vec2.of(a).minus(Vec2.of(b)).length - (length ?? p.restLength);
    return 0.5 * p.springConstant * weight * stretch * stretch;
  });
}

export function repulsionEnergy(nodes: readonly LayoutNode[], p: ForceParams) {
  let energy = 0;
  for (const [a, b] of pairs(nodes)) {
    const r = Math.sqrt(Vec2.of(a).minus(Vec2.of(b)).lengthSq + p.softening * p.softening);
    energy += (p.repulsion * (a.charge ?? 1) * (b.charge ?? 1)) / r;
  }
  return energy;
}

export function gravityEnergy(nodes: readonly LayoutNode[], p: ForceParams) {
  const c = centroid(nodes);
  // pull nodes toward their centroid and the centroid toward the origin
  const spread = sumBy(nodes, (n) => Vec2.of(n).minus(c).lengthSq);
  return 0.5 * p.gravity * spread + 0.5 * nodes.length * c.lengthSq;
}
