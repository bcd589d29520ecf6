// Runs one JavaScript kmeans kernel in a loop on k = 100, n = 10^4, d = 8, so that V8 can be
// watched at work on it (docs/native-gap.md, "Where the time goes"):
//
//   node --cpu-prof --cpu-prof-dir=DIR dist/bench/native/profile.js nested 3
//   node dist/bench/native/profile-summary.js DIR/*.cpuprofile
//   node --print-opt-code --print-opt-code-filter=kmeansCost dist/bench/native/profile.js nested 1
//
// Kernels: nested (the eval's kmeansCost, compiled by nabla: the primal is emitted unchanged),
// flat (kmeans-flat.ts's flatCost), dir (the eval's Newton direction, nabla's derivative code).
// Prints the number of calls and the mean time per call. With --detach, an ArrayBuffer is
// detached first (transferred, as WebAssembly's memory.grow does to its old buffer): from then
// on V8 checks for detachment in every typed-array access of optimized code.

import { join } from "node:path";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { importCompiled } from "../load.js";
import { flatCost, flatten } from "./kmeans-flat.js";
import { generateKmeans } from "./workloads.js";

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "../../..");

interface KmeansEval {
  prepareCost(input: unknown): { points: Float64Array[]; centroids: Float64Array[] };
  kmeansCost(points: Float64Array[], centroids: Float64Array[]): number;
  runDir(p: unknown): Float64Array[];
}

const args = process.argv.slice(2).filter((a) => a !== "--detach");
const [kernel = "nested", secondsText = "3"] = args;
if (process.argv.includes("--detach")) {
  const buffer = new ArrayBuffer(8);
  structuredClone(buffer, { transfer: [buffer] });
}
const ev = await importCompiled<KmeansEval>(join(REPO_ROOT, "gradbench/evals/kmeans.ts"));
const p = ev.prepareCost(generateKmeans(100, 10000, 8).load());
const [n, k, d] = [p.points.length, p.centroids.length, 8];
const fp = flatten(p.points, d);
const fc = flatten(p.centroids, d);
const kernels: Record<string, () => unknown> = {
  nested: () => ev.kmeansCost(p.points, p.centroids),
  flat: () => flatCost(fp, fc, n, k, d),
  dir: () => ev.runDir(p),
};
const run = kernels[kernel];
if (run === undefined) throw new Error(`kernel: one of ${Object.keys(kernels).join(", ")}`);
const start = performance.now();
let calls = 0;
let sink: unknown = null;
while (performance.now() - start < Number(secondsText) * 1000) {
  sink = run();
  calls++;
}
const ms = (performance.now() - start) / calls;
process.stderr.write(
  `${kernel}: ${calls} calls, ${ms.toFixed(2)} ms per call (last: ${typeof sink})\n`,
);
