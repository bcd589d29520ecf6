import { test } from "node:test";
import assert from "node:assert/strict";
import { gradbenchSvg } from "../bench/gradbench/chart.js";
import { compareFloat32, compareWith, gradbenchClose } from "../bench/gradbench/compare.js";
import { evalSpec } from "../bench/gradbench/evals.js";
import { generatedWorkloads } from "../bench/gradbench/generate.js";
import { parseOptions } from "../bench/gradbench/options.js";
import { formatTime, gradbenchReport, summarize } from "../bench/gradbench/report.js";
import type { EvalResult, Outcome, RunInfo, WorkloadResult } from "../bench/gradbench/results.js";
import { timeSideBySide } from "../bench/gradbench/timing.js";

// `npm run bench:gradbench` (bench/gradbench/): the parts that do not need a timed run — the
// time budget (with a fake clock), the summary against the targets, the report, the checks,
// the options and the generated inputs.

const timed = (ms: number): Outcome => ({
  kind: "timed",
  timing: { ms, minMs: ms, maxMs: ms, samples: 3, batch: 1 },
});

function workload(
  name: string,
  primal: number,
  nabla: number,
  hand?: number,
  fn = "gradient",
): WorkloadResult {
  return {
    name,
    source: "data",
    primal: timed(primal),
    nabla: { [fn]: timed(nabla) },
    hand: hand === undefined ? null : timed(hand),
    tfjs: null,
    wasm: null,
    cpp: null,
    checks: { reference: ["primal", "gradient"], referenced: ["primal", "gradient"] },
    problems: [],
    values: [],
  };
}

const INFO: RunInfo = {
  date: "2026-01-01",
  command: "npm run bench:gradbench",
  node: "v20.0.0",
  cpu: "Test CPU",
  logicalCpus: 2,
  platform: "linux x64",
  loadStart: [0.5, 0.5, 0.5],
  loadEnd: [0.7, 0.6, 0.5],
  tfjsVersion: null,
  seconds: 0.5,
  capSeconds: 1,
  warmupSeconds: 0.25,
  durationMs: 1000,
  full: true,
  cpp: null,
  wasm: false,
};

test("each candidate is timed for its budget; the median time per call is reported", () => {
  let now = 0;
  const clock = () => now;
  const budget = { seconds: 0.1, warmupSeconds: 0.02, minSamples: 3, capSeconds: 0.2 };
  const fast = { name: "fast", run: () => (now += 0.01) }; // 10 µs
  const slow = { name: "slow", run: () => (now += 500) }; // slower than the cap
  let calls = 0;
  const noisy = {
    name: "noisy",
    run: () => (now += ++calls % 7 === 0 ? 20 : 2), // 2 ms, sometimes 20
  };
  const [f, s, n] = timeSideBySide([fast, slow, noisy], budget, clock);
  assert.ok(Math.abs(f!.ms - 0.01) < 1e-9, `fast: ${f!.ms}`);
  assert.ok(f!.batch >= 900, "many calls per sample for a fast function");
  assert.ok(f!.samples >= 3);
  assert.ok(Math.abs(s!.ms - 500) < 1e-9);
  assert.equal(s!.batch, 1);
  assert.equal(s!.samples, 1, "a call slower than the cap gets one sample");
  assert.ok(n!.ms >= 2 && n!.ms < 6, `the median resists outliers: ${n!.ms}`);
});

test("the summary is the median over workloads, against the eval's target", () => {
  const llsq: EvalResult = {
    spec: evalSpec("llsq"), // target 1.5
    workloads: [workload("a", 1, 1.2, 1), workload("b", 1, 1.4, 1), workload("c", 1, 9, 4)],
  };
  const s = summarize(llsq);
  assert.equal(s.workloads, 3);
  assert.ok(Math.abs(s.nablaVsPrimal! - 1.4) < 1e-12);
  assert.equal(s.verdict, "met");
  assert.ok(Math.abs(s.nablaVsHand! - 1.4) < 1e-12);
  assert.equal(s.handVerdict, "met");

  const gmm: EvalResult = {
    spec: evalSpec("gmm"),
    workloads: [workload("a", 1, 4.8, 2, "jacobian")],
  };
  assert.equal(summarize(gmm).verdict, "missed (1.50× the target)");
  assert.equal(summarize(gmm).handVerdict, "missed (1.60× the target)");

  const ht: EvalResult = { spec: evalSpec("ht"), compileError: "error NABLA101", workloads: [] };
  assert.equal(summarize(ht).verdict, "does not compile");
  assert.equal(summarize(ht).nablaVsPrimal, undefined);
});

test("the report has the summary, a table per eval, and says which evals do not compile", async () => {
  const evals: EvalResult[] = [
    { spec: evalSpec("lse"), workloads: [workload("n=2500", 0.02, 0.05, 0.04)] },
    {
      spec: evalSpec("ht"),
      compileError: "ht.ts:205:11: error NABLA101: array destructuring is not supported",
      workloads: [],
    },
  ];
  const md = gradbenchReport(evals, INFO, "gradbench.svg");
  assert.match(md, /^# GradBench benchmark/);
  assert.match(md, /!\[[^\]]+\]\(gradbench\.svg\)/);
  assert.match(md, /\| lse +\| +1 \| +2\.50× \| ≤ 2\.1 +\| missed \(1\.19× the target\)/);
  assert.match(md, /\| ht +\| +0 \| +– \| ≤ 10 +\| does not compile/);
  assert.match(
    md,
    /\| n=2500 +\| +20\.0 µs \| +50\.0 µs \| +2\.50× \| 40\.0 µs \| +2\.00× \| +1\.25× \|/,
  );
  assert.match(md, /\*\*Does not compile\*\*[^]*NABLA101/);
  assert.match(md, /agrees? with GradBench's reference on the workload/);
  assert.match(md, /Test CPU, 2 logical CPUs/);

  const svg = await gradbenchSvg(evals, INFO.date);
  assert.match(svg, /^<svg /);
  const bars = svg.match(/aria-roledescription="bar"/g) ?? [];
  assert.equal(bars.length, 3, "nabla and hand for lse; nabla ÷ hand");
  assert.match(svg, /no numbers for ht/);
});

test("times are printed with three significant digits in a fitting unit", () => {
  assert.equal(formatTime(0.0000123), "12.3 ns");
  assert.equal(formatTime(0.5), "500 µs");
  assert.equal(formatTime(2.345), "2.35 ms");
  assert.equal(formatTime(1500), "1.50 s");
});

test("outputs are compared by GradBench's rule, and float32 ones to float32 accuracy", () => {
  assert.ok(compareWith({ a: [1, 2] }, { a: [1, 2.00001] }, gradbenchClose).ok);
  assert.match(compareWith({ a: [1, 2] }, { a: [1] }, gradbenchClose).detail, /length/);
  assert.match(compareWith({ a: 1 }, { b: 1 }, gradbenchClose).detail, /keys/);
  assert.equal(compareWith([1, 2, 3], [1, 2.5, 3.5], gradbenchClose).mismatches, 2);
  const reference = [1, 1e-3, 1e-9];
  assert.ok(compareFloat32(reference, [1 + 1e-5, 1e-3 * (1 + 1e-5), 2e-9]).ok);
  assert.ok(!compareFloat32(reference, [1.01, 1e-3, 1e-9]).ok);
  assert.ok(!compareFloat32(reference, [1, 1.1e-3, 1e-9]).ok);
});

test("options: a partial run does not overwrite the report unless asked", () => {
  const full = parseOptions([], {});
  assert.equal(full.write, true);
  assert.equal(full.evals.length, 12);
  assert.equal(full.dataDir, "/work/shared/gradbench");
  const quick = parseOptions(["--quick", "--evals", "lse,gmm"], { GRADBENCH_DATA: "/data" });
  assert.deepEqual(quick.evals, ["lse", "gmm"]);
  assert.equal(quick.limit, 2);
  assert.equal(quick.write, false);
  assert.equal(quick.dataDir, "/data");
  assert.ok(quick.budget.seconds < full.budget.seconds);
  assert.equal(parseOptions(["--limit", "1", "--write"], {}).write, true);
  assert.throws(() => parseOptions(["--evals", "nope"], {}), /unknown eval/);
  assert.throws(() => parseOptions(["--frobnicate"], {}), /Unknown option .--frobnicate/);
  assert.throws(() => parseOptions(["--evals", "--quick"], {}), /--evals/);
  assert.throws(() => parseOptions(["--limit", "x"], {}), /--limit needs a positive number/);
});

test("generated inputs have the sizes of the reference workloads and do not depend on order", () => {
  const gmm = generatedWorkloads("gmm");
  assert.equal(gmm.length, 10);
  const last = gmm[9]!.input() as { d: number; k: number; x: number[][]; l: number[][] };
  assert.equal(gmm[9]!.name, "64_10_1000");
  assert.equal(last.x.length, 1000);
  assert.equal(last.l[0]!.length, (64 * 63) / 2);
  const again = generatedWorkloads("gmm")[9]!.input() as { x: number[][] };
  assert.deepEqual(again.x[0], last.x[0]);
  const ht = generatedWorkloads("ht")[0]!.input() as { data: { model: { parents: number[] } } };
  const parents = ht.data.model.parents;
  assert.equal(parents.length, 22);
  assert.ok(
    parents.every((p, i) => p < i),
    "a parent comes before its children",
  );
});
