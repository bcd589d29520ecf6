// Force-directed graph layout energy (springs + repulsion + gravity) for a small dependency graph, split across three modules.

import { defaultForces, gravityEnergy, repulsionEnergy, springEnergy } from "./graph-layout-forces";
import type { Edge, ForceParams, LayoutNode } from "./graph-layout-forces";
import { sumBy } from "./graph-layout-geometry";

export type { Edge, LayoutNode } from "./graph-layout-forces";

export function degreeMap(edges: readonly Edge[]): Map<string, number> {
  const degrees = new Map<string, number>();
  for (const { source, target } of edges) {
    degrees.set(source, (degrees.get(source) ?? 0) + 1);
    degrees.set(target, (degrees.get(target) ?? 0) + 1);
  }
  return degrees;
}

export function objective(nodes: LayoutNode[], edges: Edge[], overrides: Partial<ForceParams> = {}): number {
  const params = { ...defaultForces, ...overrides };
  const index = new Map(nodes.map((n) => [n.id, n]));
  const degrees = degreeMap(edges);
  // hubs repel more strongly so their neighbourhoods spread out
  const charged = nodes.map((n) => ({ ...n, charge: n.charge ?? 1 + 0.25 * (degrees.get(n.id) ?? 0) }));
  const total = springEnergy(index, edges, params) + repulsionEnergy(charged, params) + gravityEnergy(nodes, params);
  return total / Math.max(1, sumBy(edges, (e) => e.weight ?? 1));
}

const ids = ["core", "utils", "parser", "lexer", "ast", "codegen", "cli", "tests"];
export const sampleEdges: Edge[] = [
  { source: "parser", target: "lexer" },
  { source: "parser", target: "ast", weight: 2 },
  { source: "codegen", target: "ast", weight: 2 },
  { source: "core", target: "parser" },
  { source: "core", target: "codegen" },
  { source: "core", target: "utils", length: 1 },
  { source: "lexer", target: "utils" },
  { source: "cli", target: "core" },
  { source: "tests", target: "core", weight: 0.5 },
  { source: "tests", target: "parser", weight: 0.5 },
];

export const sampleNodes: LayoutNode[] = ids.map((id, i) => ({
  id,
  x: 2 * Math.cos((2 * Math.PI * i) / ids.length) + 0.1 * i,
  y: 2 * Math.sin((2 * Math.PI * i) / ids.length) - 0.05 * i,
}));

export const args: Parameters<typeof objective> = [sampleNodes, sampleEdges, { repulsion: 1.0 }];
