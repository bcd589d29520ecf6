// The workloads of `npm run bench:native`: GradBench's kmeans and lse reference files (the data
// folder of bench/gradbench, /work/shared/gradbench or $GRADBENCH_DATA), plus one generated
// kmeans input of k = 100, n = 10^4, d = 8, the size issue 22 quotes, which is not among the
// files. It is made as GradBench makes its inputs: uniform points on [0, 1), the centroids the
// last k points (seeded, bench/gradbench/generate.ts's generator).

import { random } from "../gradbench/generate.js";
import { listWorkloads } from "../gradbench/workloads.js";

export interface KmeansWorkload {
  name: string;
  source: "data" | "generated";
  load(): { points: number[][]; centroids: number[][] };
}

export interface LseWorkload {
  name: string;
  load(): { x: number[] };
}

export function generateKmeans(k: number, n: number, d: number, seed = 31337): KmeansWorkload {
  return {
    name: `k=${k},n=${n},d=${d}`,
    source: "generated",
    load: () => {
      const rng = random(seed);
      const points = Array.from({ length: n }, () => Array.from({ length: d }, rng));
      return { points, centroids: points.slice(n - k).map((p) => p.slice()) };
    },
  };
}

export function kmeansWorkloads(dataDir: string | null, limit: number): KmeansWorkload[] {
  const listed = listWorkloads("kmeans", dataDir, limit).workloads.map((w) => ({
    name: w.name,
    source: w.source,
    load: () => w.load().input as { points: number[][]; centroids: number[][] },
  }));
  const big = generateKmeans(100, 10000, 8);
  return listed.length < limit && !listed.some((w) => w.name === big.name)
    ? [...listed, big]
    : listed;
}

export function lseWorkloads(dataDir: string | null, limit: number): LseWorkload[] {
  return listWorkloads("lse", dataDir, limit).workloads.map((w) => ({
    name: w.name,
    load: () => w.load().input as { x: number[] },
  }));
}
