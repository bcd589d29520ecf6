// `npm run bench:native`: where the time goes between nabla's JavaScript and native code
// (issue 22, "Measure first"). On GradBench's kmeans workloads (and k = 100, n = 10^4, d = 8),
// side by side in one run: nabla's primal and derivative (gradbench/evals/kmeans.ts), the same
// maths hand-written in flat JavaScript (kmeans-flat.ts), hand-written WebAssembly, scalar and
// f64x2 SIMD (kmeans.wat, kmeans-simd.wat), the copies into and out of wasm memory, and C -O3
// (kmeans.c, timed in C). Then lse: nabla, hand-written JavaScript and C. Every result is
// checked against nabla's to 1e-12 first. Prints the figures, and after a full run puts them
// into docs/native-gap.md between its markers.
//
// Options: --seconds S (per function and workload, default 0.5), --limit N (workloads per eval),
// --evals kmeans,lse, --data DIR, --no-c, --write / --no-write.

import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { importCompiled } from "../load.js";
import { budgetFor } from "../gradbench/options.js";
import { timeSideBySide, type Candidate } from "../gradbench/timing.js";
import { concat, relativeDifference, TOLERANCE } from "./agree.js";
import { buildHarness, SCALAR_FLAGS, type CHarness } from "./c.js";
import { flatCost, flatDir, flatten } from "./kmeans-flat.js";
import { nativeReport, spliceReport, type Row, type WorkloadReport } from "./report.js";
import { WasmKmeans } from "./wasm.js";
import {
  kmeansWorkloads,
  lseWorkloads,
  type KmeansWorkload,
  type LseWorkload,
} from "./workloads.js";

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const NATIVE = join(REPO_ROOT, "bench/native");
const DOC = join(REPO_ROOT, "docs/native-gap.md");

interface KmeansEval {
  prepareCost(input: unknown): { points: Float64Array[]; centroids: Float64Array[] };
  runCost(p: unknown): number;
  runDir(p: unknown): Float64Array[];
}

interface LseEval {
  preparePrimal(input: unknown): Float64Array;
  runPrimal(x: Float64Array): number;
  runGradient(x: Float64Array): Float64Array;
}

const { values } = parseArgs({
  options: {
    seconds: { type: "string" },
    limit: { type: "string" },
    evals: { type: "string" },
    data: { type: "string" },
    "no-c": { type: "boolean" },
    write: { type: "boolean" },
    "no-write": { type: "boolean" },
  },
});
const seconds = Number(values.seconds ?? 0.5);
const limit = values.limit === undefined ? Infinity : Number(values.limit);
const evals = (values.evals ?? "kmeans,lse").split(",");
const dataDir = values.data ?? process.env["GRADBENCH_DATA"] ?? "/work/shared/gradbench";
const partial = values.limit !== undefined || values.evals !== undefined;
const write = values.write === true || (!partial && values["no-write"] !== true);
const budget = budgetFor(seconds);
const log = (m: string) => process.stderr.write(`${m}\n`);

function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** A row per candidate pair, timed side by side; a row whose outputs disagree is not timed. */
interface Entry {
  name: string;
  note: string;
  primal?: () => unknown;
  derivative?: () => unknown;
  difference: number | null;
  /** The largest difference allowed before the row is not timed (default TOLERANCE). */
  tolerance?: number;
}

/** A build of the C harness: -O3 -march=native, and the same not vectorized. */
interface CBuild {
  name: string;
  note: string;
  harness: CHarness;
}

function timeEntries(entries: Entry[]): Row[] {
  const ok = (e: Entry) => e.difference === null || e.difference <= (e.tolerance ?? TOLERANCE);
  const candidates: Candidate[] = [];
  const slots: [number, "primal" | "derivative"][] = [];
  entries.forEach((e, i) => {
    if (!ok(e)) return;
    for (const which of ["primal", "derivative"] as const) {
      const run = e[which];
      if (run === undefined) continue;
      candidates.push({ name: `${e.name} ${which}`, run });
      slots.push([i, which]);
    }
  });
  collectGarbage();
  const timings = timeSideBySide(candidates, budget);
  const rows: Row[] = entries.map((e) => ({
    name: e.name,
    note: e.note,
    primal: ok(e) ? "–" : "disagrees",
    derivative: ok(e) ? "–" : "disagrees",
    difference: e.difference,
  }));
  slots.forEach(([i, which], s) => {
    const row = rows[i]!;
    row[which] = timings[s]!.ms;
    row.fastest ??= [null, null];
    row.fastest[which === "primal" ? 0 : 1] = timings[s]!.minMs;
    log(`    ${candidates[s]!.name.padEnd(34)} ${timings[s]!.ms.toFixed(4)} ms`);
  });
  return rows;
}

async function kmeansWorkload(
  w: KmeansWorkload,
  ev: KmeansEval,
  wasm: WasmKmeans[],
  cs: CBuild[],
): Promise<WorkloadReport> {
  const prepared = ev.prepareCost(w.load());
  const { points, centroids } = prepared;
  const [n, k, d] = [points.length, centroids.length, points[0]!.length];
  const cost = ev.runCost(prepared);
  const dir = concat(ev.runDir(prepared));
  const diff = (c: number, g: ArrayLike<number>) =>
    Math.max(relativeDifference(cost, c), relativeDifference(dir, g));

  const fp = flatten(points, d);
  const fc = flatten(centroids, d);
  const out = new Float64Array(k * d);
  const count = new Float64Array(k);
  flatDir(fp, fc, n, k, d, out, count);
  const entries: Entry[] = [
    {
      name: "nabla (eval)",
      note: "rows as Float64Arrays",
      primal: () => ev.runCost(prepared),
      derivative: () => ev.runDir(prepared),
      difference: null,
    },
    {
      name: "hand-written JS",
      note: "flat Float64Arrays",
      primal: () => flatCost(fp, fc, n, k, d),
      derivative: () => flatDir(fp, fc, n, k, d, out, count),
      difference: diff(flatCost(fp, fc, n, k, d), out),
    },
  ];
  for (const m of wasm) {
    m.size(n, k, d);
    m.copyIn(points, centroids);
    const mc = m.cost();
    m.dir();
    entries.push({
      name: `wasm ${m.kind}`,
      note: "kernel only (data in wasm memory)",
      primal: () => m.cost(),
      derivative: () => m.dir(),
      difference: diff(mc, concat(m.dirRows())),
    });
  }
  // The copies a call from the eval's arrays needs, timed apart: in for both functions, out
  // for dir only. The scalar module's memory; the SIMD module's layout is the same.
  const m = wasm[0]!;
  entries.push({
    name: "wasm copies",
    note: `cost: copy in (n + k)·d = ${(n + k) * d} doubles; dir: also copy out k·d = ${k * d}`,
    primal: () => m.copyIn(points, centroids),
    derivative: () => m.dirRows(),
    difference: null,
  });
  log(`  kmeans ${w.name}: timing JavaScript and WebAssembly`);
  const rows = timeEntries(entries);
  const copies = rows.at(-1)!;
  const [copyIn, copyOut] = [copies.primal, copies.derivative];
  if (typeof copyIn === "number" && typeof copyOut === "number") {
    const [minIn, minOut] = copies.fastest!;
    Object.assign(copies, {
      derivative: copyIn + copyOut,
      fastest: [minIn, minIn! + minOut!],
      noRatios: true,
    });
    // Whole calls from JavaScript's arrays: copies + kernel.
    for (const r of rows.filter((r) => r.name.startsWith("wasm ") && r !== copies)) {
      if (typeof r.primal !== "number" || typeof r.derivative !== "number") continue;
      rows.push({
        name: `${r.name} + copies`,
        note: "copies + kernel, sum of the medians",
        primal: r.primal + copyIn,
        derivative: r.derivative + copyIn + copyOut,
        fastest: [r.fastest![0]! + minIn!, r.fastest![1]! + minIn! + minOut!],
        difference: r.difference,
      });
    }
  }
  for (const c of cs) {
    log(`  kmeans ${w.name}: timing ${c.name}`);
    const r = c.harness.kmeans(concat([fp, fc]), n, k, d, seconds);
    const difference = diff(r.cost, r.dir);
    const agrees = difference <= TOLERANCE;
    rows.push({
      name: c.name,
      note: c.note,
      primal: agrees ? r.timings.cost.ms : "disagrees",
      derivative: agrees ? r.timings.dir.ms : "disagrees",
      ...(agrees
        ? { fastest: [r.timings.cost.minMs, r.timings.dir.minMs] as [number, number] }
        : {}),
      difference,
    });
  }
  return {
    eval: "kmeans",
    workload: w.name,
    source: w.source,
    primalName: "cost",
    derivativeName: "dir",
    rows,
    baseline: cs.length > 0 ? cs[0]!.name : null,
    reference: "nabla",
  };
}

function lseWorkload(
  w: LseWorkload,
  ev: LseEval,
  hand: { runGradient(x: Float64Array): Float64Array },
  cs: CBuild[],
): WorkloadReport {
  // The reference is nabla's primal and the hand-written softmax: nabla's gradient also has
  // the derivative through the max, 0 in exact arithmetic but about n·ε at the largest
  // element, so it is checked against softmax at 1e-9 (docs/native-gap.md).
  const x = ev.preparePrimal(w.load());
  const primal = ev.runPrimal(x);
  const gradient = hand.runGradient(x);
  const diff = (p: number, g: ArrayLike<number>) =>
    Math.max(relativeDifference(primal, p), relativeDifference(gradient, g));
  log(`  lse ${w.name}: timing JavaScript`);
  const rows = timeEntries([
    {
      name: "nabla (eval)",
      note: "Float64Array",
      primal: () => ev.runPrimal(x),
      derivative: () => ev.runGradient(x),
      difference: diff(primal, ev.runGradient(x)),
      tolerance: 1e-9,
    },
    {
      name: "hand-written JS",
      note: "gradbench/hand/lse.ts (primal: the eval's)",
      derivative: () => hand.runGradient(x),
      difference: null,
    },
  ]);
  for (const c of cs) {
    log(`  lse ${w.name}: timing ${c.name}`);
    const r = c.harness.lse(x, seconds);
    const difference = diff(r.primal, r.gradient);
    const agrees = difference <= TOLERANCE;
    rows.push({
      name: c.name,
      note: c.note,
      primal: agrees ? r.timings.primal.ms : "disagrees",
      derivative: agrees ? r.timings.gradient.ms : "disagrees",
      ...(agrees
        ? { fastest: [r.timings.primal.minMs, r.timings.gradient.minMs] as [number, number] }
        : {}),
      difference,
    });
  }
  return {
    eval: "lse",
    workload: w.name,
    source: "data",
    primalName: "primal",
    derivativeName: "gradient",
    rows,
    baseline: cs.length > 0 ? cs[0]!.name : null,
    reference: "nabla's primal, hand-written gradient",
  };
}

async function main(): Promise<void> {
  const started = Date.now();
  const loadStart = loadavg();
  const c = values["no-c"] ? "--no-c" : buildHarness(NATIVE);
  const scalar = typeof c === "string" ? c : buildHarness(NATIVE, SCALAR_FLAGS);
  if (typeof c === "string") log(`bench:native: C skipped: ${c}`);
  const cs: CBuild[] = [];
  if (typeof c !== "string") cs.push({ name: "C -O3", note: "kernel only", harness: c });
  if (typeof scalar !== "string") {
    cs.push({ name: "C -O3 scalar", note: "kernel only, not vectorized", harness: scalar });
  }
  const reports: WorkloadReport[] = [];
  try {
    if (evals.includes("kmeans")) {
      const ev = await importCompiled<KmeansEval>(join(REPO_ROOT, "gradbench/evals/kmeans.ts"));
      const wasm = [
        await WasmKmeans.create("scalar", NATIVE),
        await WasmKmeans.create("simd", NATIVE),
      ];
      for (const w of kmeansWorkloads(dataDir, limit)) {
        reports.push(await kmeansWorkload(w, ev, wasm, cs));
      }
    }
    if (evals.includes("lse")) {
      const ev = await importCompiled<LseEval>(join(REPO_ROOT, "gradbench/evals/lse.ts"));
      const hand = await importCompiled<LseEval>(join(REPO_ROOT, "gradbench/hand/lse.ts"));
      for (const w of lseWorkloads(dataDir, limit)) reports.push(lseWorkload(w, ev, hand, cs));
    }
  } finally {
    for (const { harness } of cs) harness.dispose();
  }
  const cpu = cpus();
  const require = createRequire(import.meta.url);
  const argv = process.argv.slice(2);
  const report = nativeReport(reports, {
    date: new Date().toISOString().slice(0, 10),
    command: ["npm run bench:native", ...(argv.length > 0 ? ["--", ...argv] : [])].join(" "),
    node: process.version,
    cpu: cpu[0]?.model.trim() ?? "unknown CPU",
    cpus: cpu.length,
    loadStart,
    loadEnd: loadavg(),
    seconds,
    compiler:
      typeof c === "string"
        ? `skipped (${c})`
        : `${c.compiler}; "C -O3 scalar" adds ${SCALAR_FLAGS.join(" ")}`,
    wabt: (require("wabt/package.json") as { version: string }).version,
    durationS: (Date.now() - started) / 1000,
  });
  process.stdout.write(report);
  if (write) {
    let doc: string;
    try {
      doc = readFileSync(DOC, "utf8");
    } catch {
      doc = "# The native gap\n";
    }
    writeFileSync(DOC, spliceReport(doc, report));
    log("bench:native: figures written to docs/native-gap.md");
  } else {
    log("bench:native: docs/native-gap.md not written (a partial run, or --no-write)");
  }
}

await main();
