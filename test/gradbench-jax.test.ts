import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { evalSpec } from "../bench/gradbench/evals.js";
import { parseJaxOutput, setupJax, timeJax } from "../bench/gradbench/jax.js";
import { parseOptions } from "../bench/gradbench/options.js";
import { formatRatio } from "../bench/gradbench/report-format.js";
import { summarizeJax } from "../bench/gradbench/report-jax.js";
import { gradbenchReport } from "../bench/gradbench/report.js";
import type { EvalResult, Outcome, RunInfo, WorkloadResult } from "../bench/gradbench/results.js";
import { TEST_RUN_INFO } from "./support/gradbench-run-info.js";

// The comparison with GradBench's JAX tool (bench/gradbench/jax.ts, jax_timer.py,
// report-jax.ts), without JAX: the timer runs on stand-ins for `jax` and for the tool's module,
// and the report on made-up results.

const timed = (ms: number, extra: Partial<Record<"flag", string>> = {}): Outcome => ({
  kind: "timed",
  timing: { ms, minMs: ms, maxMs: ms, samples: 3, batch: 1 },
  ...extra,
});

/** A checkout with a tool module `lse` (and its evals.txt), and a stand-in `jax` package. */
function fakeCheckout(): string {
  const repo = mkdtempSync(join(tmpdir(), "nabla-fake-gradbench-"));
  const pkg = join(repo, "python/gradbench/gradbench");
  mkdirSync(join(pkg, "tools/jax"), { recursive: true });
  mkdirSync(join(repo, "tools/jax"), { recursive: true });
  writeFileSync(join(repo, "tools/jax/evals.txt"), "lse\nkmeans\n");
  for (const f of ["__init__.py", "tools/__init__.py", "tools/jax/__init__.py"])
    writeFileSync(join(pkg, f), "");
  writeFileSync(join(pkg, "tools/jax/run.py"), "");
  // GradBench's module shape: functions wrapped by a decorator given their input preparation
  // (`pre`) and output conversion (`post`), as gradbench.wrap does.
  writeFileSync(
    join(pkg, "tools/jax/lse.py"),
    `import math
calls = {"primal": 0}
class Wrapped:
    def __init__(self, function, wrapped):
        self.function = function
        self.wrapped = wrapped
def runs(pre, post):
    def decorator(function):
        def wrapped(raw):
            return {"success": True, "output": post(function(pre(raw))), "timings": []}
        return Wrapped(function, wrapped)
    return decorator
def prepare_input(raw):
    return [float(v) for v in raw["x"]]
@runs(prepare_input, float)
def primal(x):
    calls["primal"] += 1
    return math.log(sum(math.exp(v) for v in x))
@runs(prepare_input, list)
def gradient(x):
    s = sum(math.exp(v) for v in x)
    return [math.exp(v) / s for v in x]
@runs(prepare_input, float)
def broken(x):
    raise ValueError("no such thing")
`,
  );
  // A stand-in for jax: what the timer uses of it.
  const jax = join(repo, "fake-jax/jax");
  mkdirSync(jax, { recursive: true });
  writeFileSync(
    join(jax, "__init__.py"),
    `import os
__version__ = "0.0-test"
class _Config:
    def update(self, name, value):
        assert name == "jax_enable_x64" and value is True
config = _Config()
def block_until_ready(x):
    with open(os.environ["FAKE_JAX_LOG"], "a") as log:
        log.write("waited\\n")
    return x
`,
  );
  return repo;
}

/** A "python" that sees the stand-in jax first. */
function fakePython(repo: string): string {
  const python = join(repo, "python-with-jax");
  writeFileSync(
    python,
    `#!/bin/sh\nPYTHONPATH="${join(repo, "fake-jax")}:$PYTHONPATH" exec python3 "$@"\n`,
  );
  chmodSync(python, 0o755);
  return python;
}

const budget = { seconds: 0.02, warmupSeconds: 0.001, minSamples: 3, capSeconds: 0.04 };

test("the JAX timer runs the tool's own functions side by side, each call waiting for its result", () => {
  const repo = fakeCheckout();
  try {
    const setup = setupJax(repo, fakePython(repo));
    assert.ok(setup.ok, setup.ok ? "" : setup.reason);
    assert.deepEqual([...setup.tool.evals], ["lse", "kmeans"], "tools/jax/evals.txt");
    assert.match(setup.tool.description, /JAX 0\.0-test/);
    assert.match(setup.tool.description, /block_until_ready/);
    const log = join(repo, "waited.log");
    process.env["FAKE_JAX_LOG"] = log;
    const runs = timeJax(
      setup.tool,
      "lse",
      ["primal", "gradient", "broken"],
      { x: [0, 0] },
      budget,
    );
    delete process.env["FAKE_JAX_LOG"];
    const primal = runs.get("primal")!;
    assert.ok("output" in primal, JSON.stringify(primal));
    assert.equal(primal.output, Math.log(2), "GradBench's own output, through its post step");
    assert.ok(primal.timing.samples >= 3 && primal.timing.ms > 0);
    const waits = readFileSync(log, "utf8").split("\n").filter(Boolean).length;
    const calls = (["primal", "gradient"] as const).reduce((n, fn) => {
      const r = runs.get(fn)!;
      return "timing" in r ? n + r.timing.samples * r.timing.batch : n;
    }, 0);
    assert.ok(waits > calls, `every timed call (${calls}) and the warm-up waited: ${waits}`);
    const gradient = runs.get("gradient")!;
    assert.ok("output" in gradient);
    assert.deepEqual(gradient.output, [0.5, 0.5]);
    const broken = runs.get("broken")!;
    assert.ok("error" in broken);
    assert.match(broken.error, /ValueError: no such thing/);
    setup.tool.dispose();
    const gone = timeJax(setup.tool, "nope", ["primal"], {}, budget).get("primal")!;
    assert.ok("error" in gone && /exit code 1: .*No module named/.test(gone.error), String(gone));
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test("the JAX tool is skipped with a reason: no jax in that Python, no checkout", () => {
  const noJax = setupJax("/nonexistent/gradbench", "python3");
  assert.equal(noJax.ok, false);
  assert.match((noJax as { reason: string }).reason, /python3 cannot import jax/);
  const noPython = setupJax("/nonexistent/gradbench", "/nonexistent/python");
  assert.match((noPython as { reason: string }).reason, /cannot import jax: .*ENOENT/);
  const repo = fakeCheckout();
  try {
    const python = fakePython(repo);
    const noCheckout = setupJax("/nonexistent/gradbench", python);
    assert.deepEqual(noCheckout, {
      ok: false,
      reason: "no GradBench checkout at /nonexistent/gradbench",
    });
    const notGradbench = setupJax(tmpdir(), python);
    assert.match((notGradbench as { reason: string }).reason, /not a GradBench checkout/);
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test("the timer's output is read per function: samples as a timing, errors kept", () => {
  const runs = parseJaxOutput(
    JSON.stringify({
      primal: { output: 1.5, samples_ms: [3, 1, 2], batch: 10 },
      gradient: { error: "TypeError: x" },
    }),
    ["primal", "gradient", "missing"],
  );
  assert.deepEqual(runs.get("primal"), {
    output: 1.5,
    timing: { ms: 2, minMs: 1, maxMs: 3, samples: 3, batch: 10 },
  });
  assert.deepEqual(runs.get("gradient"), { error: "TypeError: x" });
  assert.deepEqual(runs.get("missing"), { error: "the timer printed nothing for it" });
});

test("options: JAX from --jax-python or $NABLA_JAX_PYTHON, read from the GradBench checkout; --no-jax", () => {
  assert.equal(parseOptions([], {}).jax, null);
  assert.deepEqual(parseOptions(["--jax-python", "/p", "--gradbench-repo", "/g"], {}).jax, {
    python: "/p",
    repo: "/g",
  });
  assert.deepEqual(
    parseOptions(["--no-cpp"], { NABLA_JAX_PYTHON: "/e", GRADBENCH_REPO: "/r" }).jax,
    {
      python: "/e",
      repo: "/r",
    },
  );
  assert.deepEqual(parseOptions(["--jax-python", "/p"], {}).jax, { python: "/p", repo: null });
  assert.equal(parseOptions(["--no-jax"], { NABLA_JAX_PYTHON: "/e" }).jax, null);
  assert.throws(() => parseOptions(["--jax-python", "/p", "--no-jax"], {}), /not both/);
});

function jaxWorkload(name: string, nabla: number, wasm: number, jax: number, fn = "gradient") {
  const w: WorkloadResult = {
    name,
    source: "data",
    primal: timed(1),
    nabla: { [fn]: timed(nabla) },
    hand: null,
    tfjs: null,
    wasm: { [fn]: timed(wasm) },
    cpp: null,
    jax: { primal: timed(jax / 2), derivative: timed(jax) },
    checks: { reference: [], referenced: [], jaxValid: ["primal", fn] },
    problems: [],
    values: [],
  };
  return w;
}

test("against JAX: medians of nabla ÷ JAX for both backends, the faster one judged where issue 22 asks", () => {
  const lse: EvalResult = {
    spec: evalSpec("lse"),
    workloads: [jaxWorkload("a", 4, 1, 2), jaxWorkload("b", 6, 3, 2)], // wasm 0.5×, 1.5×
  };
  lse.workloads[1]!.jax!.derivative = timed(2, { flag: "differs" });
  lse.workloads[1]!.checks.jaxValid = ["primal"];
  const s = summarizeJax(lse);
  assert.equal(s.nablaVsJax, 2, "b's flagged JAX time is left out");
  assert.equal(s.wasmVsJax, 0.5);
  assert.equal(s.jaxVsJaxPrimal, 2);
  assert.equal(s.verdict, "met");

  const kmeans: EvalResult = {
    spec: evalSpec("kmeans"),
    workloads: [jaxWorkload("k", 9, 3, 2, "dir")],
  };
  assert.equal(summarizeJax(kmeans).verdict, "missed (JAX is 1.50× faster)");
  const gmm: EvalResult = {
    spec: evalSpec("gmm"),
    workloads: [jaxWorkload("g", 9, 3, 2, "jacobian")],
  };
  assert.equal(summarizeJax(gmm).verdict, "no target");
  const detWorkload = jaxWorkload("d", 1, 1, 1);
  delete detWorkload.jax;
  delete detWorkload.checks.jaxValid;
  const det: EvalResult = {
    spec: evalSpec("det"),
    workloads: [detWorkload],
    jaxSkipped: "not in tools/jax/evals.txt",
  };

  const info: RunInfo = {
    ...TEST_RUN_INFO,
    jax: { ok: true, text: "GradBench's JAX tool (test)" },
    wasm: true,
  };
  const md = gradbenchReport([lse, det, kmeans, gmm], info, "x.svg");
  assert.match(md, /### Against JAX/);
  assert.match(md, /\| lse +\| +2\.00× \| +2\.00× \| +0\.50× \| met +\|/);
  assert.match(md, /\| kmeans +\|[^\n]*\| missed \(JAX is 1\.50× faster\) \|/);
  assert.match(
    md,
    /\| b +\| +1\.00 ms \| +2\.00 ms ✗ \| +– \| +– \|/,
    "a wrong JAX output: not used",
  );
  assert.match(
    md,
    /GradBench's JAX primal and gradient pass GradBench's check on 1 of 2 workloads/,
  );
  assert.match(md, /GradBench's JAX tool: not in tools\/jax\/evals\.txt/);
  assert.match(md, /block_until_ready/);
  const asked = gradbenchReport([lse], { ...info, jax: { ok: false, text: "no jax" } }, "x.svg");
  assert.match(asked, /JAX tool was asked for but does not run: no jax/);
  const not = gradbenchReport([lse], { ...info, jax: null }, "x.svg");
  assert.match(not, /JAX tool was not run \(`--jax-python PY`/);
});

test("ratios far below 1 keep two significant digits (hello's nanoseconds against JAX's microseconds)", () => {
  assert.equal(formatRatio(0.0012345), "0.0012×");
  assert.equal(formatRatio(0.38), "0.38×");
  assert.equal(formatRatio(2.114), "2.11×");
  assert.equal(formatRatio(113.4), "113×");
  assert.equal(formatRatio(0), "0.00×");
});
