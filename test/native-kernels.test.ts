import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { concat, relativeDifference, TOLERANCE } from "../bench/native/agree.js";
import { buildHarness } from "../bench/native/c.js";
import { flatCost, flatDir, flatten } from "../bench/native/kmeans-flat.js";
import { WasmKmeans } from "../bench/native/wasm.js";
import { generateKmeans } from "../bench/native/workloads.js";
import { REPO_ROOT, importCompiled } from "./support/harness.js";

// The hand-written kernels of `npm run bench:native` (bench/native/) against the JavaScript
// eval they stand in for (gradbench/evals/kmeans.ts, compiled by nabla): the same cost and
// J ⊘ H to a relative 1e-12, on small inputs, so that the kernels cannot silently rot.

const NATIVE = join(REPO_ROOT, "bench/native");

interface KmeansEval {
  prepareCost(input: unknown): { points: Float64Array[]; centroids: Float64Array[] };
  runCost(p: unknown): number;
  runDir(p: unknown): Float64Array[];
}

const evalModule = () => importCompiled<KmeansEval>(join(REPO_ROOT, "gradbench/evals/kmeans.ts"));

// Odd k, n and d (the SIMD kernel pads the last centroid pair), and a case full of exact ties:
// integer coordinates, a centroid repeated (its copy at the higher index is never nearest, so
// its J ⊘ H is 0/0, NaN, in the eval too) and points halfway between two centroids (the lower
// index wins).
const INPUTS: { name: string; input: { points: number[][]; centroids: number[][] } }[] = [
  { name: "k=7,n=301,d=5", input: generateKmeans(7, 301, 5, 7).load() },
  { name: "k=10,n=1000,d=8", input: generateKmeans(10, 1000, 8, 11).load() },
  { name: "k=1,n=3,d=1", input: { points: [[0.5], [2], [-1]], centroids: [[0.25]] } },
  {
    name: "ties",
    input: {
      points: [
        [1, 0],
        [0, 0],
        [2, 0],
        [1, 1],
        [3, 3],
        [0, 2],
        [1, 0],
      ],
      centroids: [
        [0, 0],
        [2, 0],
        [0, 0],
        [3, 3],
        [0, 2],
      ],
    },
  },
];

for (const kind of ["scalar", "simd"] as const) {
  test(`bench:native: the ${kind} WebAssembly kmeans agrees with the eval to 1e-12`, async () => {
    const ev = await evalModule();
    const wasm = await WasmKmeans.create(kind, NATIVE);
    for (const { name, input } of INPUTS) {
      const p = ev.prepareCost(input);
      const [n, k, d] = [p.points.length, p.centroids.length, p.points[0]!.length];
      wasm.size(n, k, d);
      wasm.copyIn(p.points, p.centroids);
      const cost = relativeDifference(ev.runCost(p), wasm.cost());
      assert.ok(cost <= TOLERANCE, `${name}: cost differs by ${cost}`);
      wasm.dir();
      const dir = relativeDifference(concat(ev.runDir(p)), concat(wasm.dirRows()));
      assert.ok(dir <= TOLERANCE, `${name}: dir differs by ${dir}`);
    }
  });
}

test("bench:native: the SIMD kernel is bit-identical to the scalar one, flat JavaScript too", async () => {
  const ev = await evalModule();
  const scalar = await WasmKmeans.create("scalar", NATIVE);
  const simd = await WasmKmeans.create("simd", NATIVE);
  for (const { name, input } of INPUTS) {
    const p = ev.prepareCost(input);
    const [n, k, d] = [p.points.length, p.centroids.length, p.points[0]!.length];
    const outputs = [scalar, simd].map((m) => {
      m.size(n, k, d);
      m.copyIn(p.points, p.centroids);
      const cost = m.cost();
      m.dir();
      return { cost, dir: concat(m.dirRows()) };
    });
    const [fp, fc] = [flatten(p.points, d), flatten(p.centroids, d)];
    const dir = new Float64Array(k * d);
    flatDir(fp, fc, n, k, d, dir, new Float64Array(k));
    outputs.push({ cost: flatCost(fp, fc, n, k, d), dir });
    for (const o of outputs.slice(1)) assert.deepEqual(o, outputs[0], name);
  }
});

test("bench:native: the C kernels agree with the eval to 1e-12 (when there is a C compiler)", async (t) => {
  const c = buildHarness(NATIVE);
  if (typeof c === "string") {
    t.skip(c);
    return;
  }
  try {
    const ev = await evalModule();
    for (const { name, input } of INPUTS) {
      const p = ev.prepareCost(input);
      const [n, k, d] = [p.points.length, p.centroids.length, p.points[0]!.length];
      const r = c.kmeans(concat([flatten(p.points, d), flatten(p.centroids, d)]), n, k, d, 0.001);
      assert.ok(relativeDifference(ev.runCost(p), r.cost) <= TOLERANCE, `${name}: cost`);
      assert.ok(relativeDifference(concat(ev.runDir(p)), r.dir) <= TOLERANCE, `${name}: dir`);
    }
  } finally {
    c.dispose();
  }
});
