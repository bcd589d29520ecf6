import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { importCompiled } from "../bench/load.js";
import { gradbenchSvg } from "../bench/gradbench/chart.js";
import {
  compareFloat32,
  compareWith,
  gradbenchClose,
  largestRelativeDifference,
} from "../bench/gradbench/compare.js";
import { evalSpec } from "../bench/gradbench/evals.js";
import { generatedWorkloads } from "../bench/gradbench/generate.js";
import {
  manualInputText,
  manualTiming,
  parseManualOutput,
  setupManual,
  timeManual,
} from "../bench/gradbench/manual-cpp.js";
import { parseOptions } from "../bench/gradbench/options.js";
import { backendUsed, summarizeNative } from "../bench/gradbench/report-native.js";
import { formatTime, gradbenchReport, summarize } from "../bench/gradbench/report.js";
import {
  resultsFromJson,
  resultsToJson,
  type EvalResult,
  type Outcome,
  type RunInfo,
  type WorkloadResult,
} from "../bench/gradbench/results.js";
import { timeSideBySide } from "../bench/gradbench/timing.js";
import { TEST_RUN_INFO as INFO } from "./support/gradbench-run-info.js";
import {
  backendSites,
  countWasmCalls,
  inWasmMemory,
  jsImports,
  loadWasmEval,
  wasmClose,
} from "../bench/gradbench/wasm-backend.js";

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
  // Each eval in a process of its own unless --one-process.
  assert.equal(full.isolate, true);
  assert.equal(parseOptions(["--one-process"], {}).isolate, false);
});

test("an eval's results cross from its own process as JSON, NaN and infinities included", () => {
  const timing = { ms: 2, minMs: 1.5, maxMs: Infinity, samples: 3, batch: 1 };
  const result = {
    spec: evalSpec("lse"),
    workloads: [
      {
        name: "lse_1",
        checks: { reference: [], referenced: [], wasmDifference: NaN },
        nabla: { gradient: { kind: "timed", timing } },
        values: ["-Infinity"],
      },
    ],
  } as unknown as EvalResult;
  assert.deepEqual(resultsFromJson(resultsToJson([result])), [result]);
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

// ---- native code: GradBench's C++ tool and nabla's wasm backend (issue 22) ----

test("a GradBench C++ tool's output is parsed: its output line, then its evaluate times", () => {
  const run = parseManualOutput(
    '[0.5,0.25]\n{"name": "prepare", "nanoseconds": 120}\n' +
      '{"name": "evaluate", "nanoseconds": 3000}\n{"name": "evaluate", "nanoseconds": 1000}\n' +
      '{"name": "evaluate", "nanoseconds": 2000}\n',
  );
  assert.deepEqual(run.output, [0.5, 0.25]);
  assert.deepEqual(run.evaluateNs, [3000, 1000, 2000]);
  const timing = manualTiming(run.evaluateNs);
  assert.equal(timing.ms, 0.002);
  assert.equal(timing.minMs, 0.001);
  assert.equal(timing.samples, 3);
  assert.deepEqual(JSON.parse(manualInputText({ x: [1], min_runs: 1, min_seconds: 1 }, 0.2)), {
    x: [1],
    min_runs: 1,
    min_seconds: 0.2,
  });
  assert.equal(manualInputText(2, 0.2), "2", "hello's input is a number: left as it is");
  assert.throws(() => parseManualOutput(""), /printed nothing/);
  assert.throws(() => parseManualOutput("Unknown function: x\n"), /not JSON/);
  assert.throws(() => parseManualOutput("1\n"), /no evaluate timings/);
  assert.throws(() => parseManualOutput('1\n{"name": "evaluate"}\n'), /without nanoseconds/);
});

test("the C++ tool is skipped with a reason when there is no checkout", () => {
  const missing = setupManual("/nonexistent/gradbench", ["lse"], () => {});
  assert.deepEqual(missing, {
    ok: false,
    reason: "no GradBench checkout at /nonexistent/gradbench",
  });
  const notGradbench = setupManual(tmpdir(), ["lse"], () => {});
  assert.equal(notGradbench.ok, false);
  assert.match((notGradbench as { reason: string }).reason, /no cpp\/ and tools\/manual\//);
});

test("the C++ tool's functions are run alternately until each has spent the budget", () => {
  // A stand-in for bin/<eval>: prints its function's name as output and two 1 ms evaluations.
  const dir = mkdtempSync(join(tmpdir(), "nabla-fake-manual-"));
  try {
    const script = join(dir, "lse");
    writeFileSync(
      script,
      '#!/bin/sh\ngrep -q min_seconds "$1" || exit 3\necho "\\"$2\\""\n' +
        'echo \'{"name": "evaluate", "nanoseconds": 1000000}\'\n'.repeat(2),
    );
    chmodSync(script, 0o755);
    const tool = { binDir: dir, built: new Set(["lse"]), notBuilt: new Map(), description: "" };
    const budget = { seconds: 0.004, warmupSeconds: 0, minSamples: 3, capSeconds: 0.008 };
    const runs = timeManual(tool, "lse", ["primal", "gradient"], { x: [1, 2] }, budget);
    for (const fn of ["primal", "gradient"]) {
      const r = runs.get(fn) as { output: unknown; evaluateNs: number[] };
      assert.equal(r.output, fn);
      assert.equal(r.evaluateNs.length, 4, "two runs of two evaluations: 4 ms ≥ the budget");
    }
    const failing = timeManual(tool, "nope", ["primal"], {}, budget).get("primal");
    assert.ok(failing !== undefined && "error" in failing);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the wasm backend's comments say which operator calls became WebAssembly, and why not", () => {
  const code = [
    "export function f(x) { return x; }",
    "// gradient(logSumExp) at lse.ts:33:10: WebAssembly (1347 bytes); per call it copies in parameters 0, 1, copies back parameters 1",
    "function logSumExp$wasm(...args) {}",
    "// gradient(gmmObjective) at gmm.ts:167:10: JavaScript, not WebAssembly: parameter params in 'gmmObjective' is of type GmmParams",
    "// a comment of the user's: JavaScript, not WebAssembly: no",
    "// jacobian(handObjective) at ht.ts:241:27 (its forward passes): WebAssembly (18810 bytes); per call it copies in parameters 0, 1, 2, copies out its array results",
    "// jacobian(handObjective) at ht.ts:241:27 (its pullback): WebAssembly (20110 bytes); per call it copies in parameters 0, 1, 2, 3, copies back parameters 3, copies out its array results (taken: the forward sweep, whose memory it keeps; at each seed: the backward sweep on it, the arguments copied in again)",
  ].join("\n");
  assert.deepEqual(backendSites(code), [
    {
      call: "gradient(logSumExp)",
      place: "lse.ts:33:10",
      backend: "wasm",
      detail: "copies in parameters 0, 1, copies back parameters 1",
    },
    {
      call: "gradient(gmmObjective)",
      place: "gmm.ts:167:10",
      backend: "js",
      detail: "parameter params in 'gmmObjective' is of type GmmParams",
    },
    {
      call: "jacobian(handObjective) (its forward passes)",
      place: "ht.ts:241:27",
      backend: "wasm",
      detail: "copies in parameters 0, 1, 2, copies out its array results",
    },
    {
      call: "jacobian(handObjective) (its pullback)",
      place: "ht.ts:241:27",
      backend: "wasm",
      detail:
        "copies in parameters 0, 1, 2, 3, copies back parameters 3, copies out its array results (taken: the forward sweep, whose memory it keeps; at each seed: the backward sweep on it, the arguments copied in again)",
    },
  ]);
  assert.equal(
    jsImports(
      'import { a } from "./gd.ts";\nimport { b } from "../x/particle.mts";\nimport "nabla";',
    ),
    'import { a } from "./gd.js";\nimport { b } from "../x/particle.js";\nimport "nabla";',
  );
  assert.ok(wasmClose(1, 1 + 1e-13));
  assert.ok(!wasmClose(1e-20, 1.1e-20), "relative, not absolute");
  assert.equal(largestRelativeDifference([1, [2, 0]], [1, [2.5, 0]]), 0.2);
});

test("lse compiled with the wasm backend runs its gradient in wasm, equal to the JS backend's", async () => {
  const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
  const file = join(root, "gradbench/evals/lse.ts");
  const js = (await importCompiled(file)) as { [name: string]: (a: unknown) => unknown };
  const wasm = await loadWasmEval(file, root);
  assert.notEqual(typeof wasm.module, "string", typeof wasm.module === "string" ? wasm.module : "");
  const site = wasm.sites.find((s) => s.call === "gradient(logSumExp)");
  assert.equal(site?.backend, "wasm", JSON.stringify(wasm.sites));
  const module = wasm.module as { [name: string]: (a: unknown) => unknown };
  const input = { x: [0.5, -1, 2, 3.25] };
  const counted = countWasmCalls(() => module["runGradient"]!(module["prepareGradient"]!(input)));
  assert.deepEqual(counted.calls, { wasm: 1, javascript: 0, inPlace: 0 });
  const expected = js["runGradient"]!(js["prepareGradient"]!(input));
  assert.deepEqual(Array.from(counted.value as Float64Array), Array.from(expected as Float64Array));
  // As the bench runs it: the prepared input moved into a wasmArrays memory, read in place.
  const resident = inWasmMemory(module["prepareGradient"]!(input));
  const inPlace = countWasmCalls(() => module["runGradient"]!(resident));
  assert.deepEqual(inPlace.calls, { wasm: 1, javascript: 0, inPlace: 1 });
  assert.deepEqual(Array.from(inPlace.value as Float64Array), Array.from(expected as Float64Array));
  const none = countWasmCalls(() => js["runGradient"]!(js["prepareGradient"]!(input)));
  assert.deepEqual(
    none.calls,
    { wasm: 0, javascript: 0, inPlace: 0 },
    "the JS module calls no wasm",
  );
});

function nativeWorkload(
  name: string,
  times: { primal: number; nabla: number; cppPrimal: number; cpp: number; wasm: number },
  cpp: Partial<Record<"flag" | "unusable", string>> = {},
): WorkloadResult {
  const w = workload(name, times.primal, times.nabla);
  w.cpp = {
    primal: timed(times.cppPrimal),
    derivative: { ...timed(times.cpp), ...cpp } as Outcome,
  };
  w.wasm = { gradient: timed(times.wasm) };
  w.wasmCalls = { gradient: { wasm: 1, javascript: 0, inPlace: 0 } };
  w.checks.wasmReference = ["gradient"];
  w.checks.wasmDifference = 0;
  w.checks.wasmIdentical = true;
  w.checks.cppValid = cpp.flag === undefined ? ["primal", "gradient"] : ["primal"];
  w.checks.cppCheckedAgainst = "reference";
  return w;
}

test("against C++: medians of nabla ÷ C++ and nabla-wasm ÷ C++, wrong or too short C++ times left out", () => {
  const lse: EvalResult = {
    spec: evalSpec("lse"),
    wasm: {
      sites: [
        {
          call: "gradient(logSumExp)",
          place: "lse.ts:33:10",
          backend: "wasm",
          detail: "copies in parameters 0",
        },
      ],
    },
    workloads: [
      nativeWorkload("a", { primal: 2, nabla: 3, cppPrimal: 1, cpp: 2, wasm: 2 }), // 1.5×, wasm 1×
      nativeWorkload("b", { primal: 2, nabla: 5, cppPrimal: 1, cpp: 2, wasm: 4 }), // 2.5×, wasm 2×
      nativeWorkload(
        "c",
        { primal: 2, nabla: 9, cppPrimal: 1, cpp: 1e-4, wasm: 1 },
        { unusable: "too short" },
      ),
      nativeWorkload(
        "d",
        { primal: 2, nabla: 9, cppPrimal: 1, cpp: 1, wasm: 1 },
        { flag: "wrong" },
      ),
    ],
  };
  const s = summarizeNative(lse);
  assert.equal(s.nablaVsCpp, 2, "the median of 1.5 and 2.5; c and d left out");
  assert.equal(s.cppVerdict, "met");
  assert.equal(s.wasmVsCpp, 1.5);
  assert.equal(s.backend, "wasm");
  assert.equal(s.identical, "yes (bit for bit)");
  assert.equal(s.primalVsCppPrimal, 2);

  const ode: EvalResult = {
    spec: evalSpec("ode"),
    workloads: [nativeWorkload("n", { primal: 1, nabla: 3, cppPrimal: 1, cpp: 0.05, wasm: 2 })],
  };
  assert.equal(
    summarizeNative(ode).cppVerdict,
    "aside",
    "ode's manual derivative uses its structure",
  );

  const kmeans: EvalResult = {
    spec: evalSpec("kmeans"),
    wasm: { sites: [] },
    workloads: [workload("k", 1, 2, undefined, "dir")],
  };
  kmeans.workloads[0]!.wasm = { dir: timed(2) };
  kmeans.workloads[0]!.wasmCalls = { dir: { wasm: 0, javascript: 0, inPlace: 0 } };
  assert.equal(backendUsed(kmeans, "dir"), "JS");
  kmeans.workloads[0]!.wasmCalls = { dir: { wasm: 31, javascript: 0, inPlace: 0 } };
  assert.equal(backendUsed(kmeans, "dir"), "wasm (31 calls per call)");
  kmeans.workloads[0]!.wasmCalls = { dir: { wasm: 31, javascript: 0, inPlace: 31 } };
  assert.equal(backendUsed(kmeans, "dir"), "wasm (31 calls per call, inputs in place)");
  kmeans.workloads[0]!.wasmCalls = { dir: { wasm: 1, javascript: 0, inPlace: 1 } };
  assert.equal(backendUsed(kmeans, "dir"), "wasm, inputs in place");

  const info: RunInfo = { ...INFO, cpp: { ok: true, text: "tools/manual of /g" }, wasm: true };
  const md = gradbenchReport([lse, ode, kmeans], info, "gradbench.svg");
  assert.match(md, /## Against native code/);
  assert.match(md, /\| lse +\| wasm +\| +[^|]+\| +2\.00× \| +2\.00× \| met +\|/);
  assert.match(md, /\| ode +\|[^\n]*\| aside +\|/);
  assert.match(md, /\| c +\|[^\n]*100 ns ⚠ \| +– \|/, "a too short C++ time is marked, not used");
  assert.match(md, /\| d +\|[^\n]*1\.00 ms ✗ \| +– \|/, "a wrong C++ output is marked, not used");
  assert.match(
    md,
    /`gradient\(logSumExp\)` at lse\.ts:33:10: WebAssembly \(copies in parameters 0\)/,
  );
  assert.match(md, /no operator call of this module takes the backend option/);
  assert.match(
    md,
    /GradBench's C\+\+ primal and gradient pass GradBench's check against its reference on 3 of 4 workloads/,
  );

  const without = gradbenchReport(
    [lse],
    { ...INFO, cpp: { ok: false, text: "no make" }, wasm: false },
    "x.svg",
  );
  assert.match(without, /asked for but does not run: no make/);
  assert.match(without, /not run \(`--no-wasm`\)/);
});

test("options: the C++ tool from --gradbench-repo or $GRADBENCH_REPO, and --no-cpp, --no-wasm", () => {
  assert.equal(parseOptions([], {}).gradbenchRepo, null);
  assert.equal(parseOptions([], {}).wasm, true);
  assert.equal(parseOptions(["--gradbench-repo", "/g"], {}).gradbenchRepo, "/g");
  assert.equal(parseOptions([], { GRADBENCH_REPO: "/e" }).gradbenchRepo, "/e");
  assert.equal(parseOptions(["--no-cpp"], { GRADBENCH_REPO: "/e" }).gradbenchRepo, null);
  assert.equal(parseOptions(["--no-wasm"], {}).wasm, false);
  assert.throws(() => parseOptions(["--gradbench-repo", "/g", "--no-cpp"], {}), /not both/);
});
