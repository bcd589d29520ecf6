// Records/Maps built dynamically: histogram-like soft binning, Map<string, number[]> pushes.
import { gradient, differential } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

type Sample = { group: "a" | "b" | "c"; x: number };

function groupedVariance(xs: number[], groups: Sample["group"][]): number {
  const byGroup = new Map<string, number[]>();
  xs.forEach((x, i) => {
    const key = groups[i];
    if (!byGroup.has(key)) byGroup.set(key, []);
    byGroup.get(key)!.push(x);
  });
  const means: Record<string, number> = {};
  for (const [key, vals] of byGroup) means[key] = vals.reduce((a, b) => a + b, 0) / vals.length;
  let total = 0;
  for (const [key, vals] of byGroup.entries()) {
    for (const v of vals) total += (v - means[key]) ** 2;
  }
  const keys = Object.keys(means).sort();
  return total + keys.reduce((s, k, i) => s + (i + 1) * means[k], 0);
}

function softHistogram(xs: number[], edges: number[]): number {
  const counts: Record<string, number> = {};
  for (const x of xs) {
    for (let b = 0; b + 1 < edges.length; b++) {
      const center = (edges[b] + edges[b + 1]) / 2;
      const key = `bin${b}`;
      counts[key] = (counts[key] ?? 0) + Math.exp(-((x - center) ** 2));
    }
  }
  return Object.values(counts).reduce((s, c, i) => s + c * c * (i + 1), 0);
}

const xs = [0.1, 1.2, -0.3, 0.8, 2.2, 1.9];
const groups: Sample["group"][] = ["a", "b", "a", "c", "b", "c"];
const g = gradient(groupedVariance, { wrt: 0 })(xs, groups);
compare(
  "grouped vs fd",
  g,
  fdGrad((x) => groupedVariance(x, groups), xs),
);
compare(
  "grouped fwd",
  differential(groupedVariance, { wrt: 0 })(xs, groups)([1, 0, 0, 0, 0, 1]),
  g[0] + g[5],
);
const edges = [-1, 0, 1, 2, 3];
const [gx, ge] = gradient(softHistogram)(xs, edges);
compare(
  "hist x vs fd",
  gx,
  fdGrad((x) => softHistogram(x, edges), xs),
);
compare(
  "hist edges vs fd",
  ge,
  fdGrad((e) => softHistogram(xs, e), edges),
);
compare(
  "hist fwd",
  differential(softHistogram)(xs, edges)(
    xs.map(() => 1),
    edges.map(() => 0),
  ),
  gx.reduce((a, b) => a + b),
);
summary("p26-records");
