// GradBench's own JAX tool (python/gradbench/gradbench/tools/jax of a GradBench checkout), run
// on the same workloads as nabla: issue 22's "faster than JAX-on-CPU on lse, ode and kmeans when
// JAX's timings wait for its results". Opt-in (--jax-python PY or $NABLA_JAX_PYTHON: a Python
// that can `import jax`; the checkout comes from --gradbench-repo or $GRADBENCH_REPO). The
// tool's modules are imported as they are by ./jax_timer.py, which times their jitted functions
// with jax.block_until_ready — GradBench's own wrapper does not wait, and JAX returns before
// it has computed — pinned to one CPU as GradBench runs the tool. Whatever is missing is a
// reason in the report, never a failure of the bench.

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "../timing.js";
import type { Json } from "./compare.js";
import type { Budget, Timing } from "./timing.js";

/** Where the tool's modules are read from, in a checkout and in the copy made of a git dir. */
const PACKAGE = "python/gradbench";
const TOOL = `${PACKAGE}/gradbench/tools/jax`;
/** The files of the package the tool needs (not its evals, whose data are large). */
const NEEDED = [
  `${PACKAGE}/gradbench/__init__.py`,
  `${PACKAGE}/gradbench/wrap.py`,
  TOOL,
  "tools/jax/evals.txt",
];

/** The timer, next to this file's source (dist/bench/gradbench/ → bench/gradbench/). */
const TIMER = join(
  dirname(fileURLToPath(import.meta.url)),
  "../../../bench/gradbench/jax_timer.py",
);

export interface JaxTool {
  python: string;
  /** PYTHONPATH for `import gradbench.tools.jax.<eval>`. */
  pythonPath: string;
  /** The evals tools/jax/evals.txt lists. */
  evals: Set<string>;
  /** For the report: the JAX version, the Python, the checkout. */
  description: string;
  /** Removes the copy of the modules (a git directory's), if one was made. */
  dispose(): void;
}

export type JaxSetup = { ok: true; tool: JaxTool } | { ok: false; reason: string };

const firstLine = (text: string | null | undefined) =>
  (text ?? "").split("\n").find((l) => l.trim() !== "") ?? "";

/**
 * The tool's modules: the checkout's own, or for a git directory (a bare clone or mirror)
 * the files it needs extracted with `git archive` into a temporary folder.
 */
function modules(repo: string): { dir: string; copy: boolean } | { reason: string } {
  if (!existsSync(repo)) return { reason: `no GradBench checkout at ${repo}` };
  if (existsSync(join(repo, TOOL, "run.py"))) return { dir: repo, copy: false };
  if (!(existsSync(join(repo, "HEAD")) && existsSync(join(repo, "objects")))) {
    return { reason: `${repo} has no ${TOOL} (not a GradBench checkout)` };
  }
  const dir = mkdtempSync(join(tmpdir(), "nabla-gradbench-jax-"));
  const tar = join(dir, "jax.tar");
  const archive = spawnSync("git", [`--git-dir=${repo}`, "archive", "-o", tar, "HEAD", ...NEEDED], {
    encoding: "utf8",
  });
  const untar =
    archive.status === 0 ? spawnSync("tar", ["-xf", tar, "-C", dir], { encoding: "utf8" }) : null;
  if (untar?.status !== 0 || !existsSync(join(dir, TOOL, "run.py"))) {
    rmSync(dir, { recursive: true, force: true });
    return {
      reason: `could not extract ${TOOL} of ${repo}: ${firstLine(archive.stderr) || firstLine(untar?.stderr)}`,
    };
  }
  return { dir, copy: true };
}

/** Finds the tool's modules and checks that `python` has JAX. */
export function setupJax(repo: string, python: string): JaxSetup {
  const probe = spawnSync(python, ["-c", "import jax, numpy; print(jax.__version__)"], {
    encoding: "utf8",
  });
  if (probe.error !== undefined || probe.status !== 0) {
    return {
      ok: false,
      reason: `${python} cannot import jax: ${probe.error?.message ?? firstLine(probe.stderr.split("\n").slice(-2).join("\n"))}`,
    };
  }
  const found = modules(repo);
  if ("reason" in found) return { ok: false, reason: found.reason };
  const listed = join(found.dir, "tools/jax/evals.txt");
  const evals = new Set(
    existsSync(listed)
      ? readFileSync(listed, "utf8")
          .split("\n")
          .map((l) => l.trim())
          .filter(Boolean)
      : ["hello", "llsq", "lse", "ode", "kmeans", "gmm"].filter((e) =>
          existsSync(join(found.dir, TOOL, `${e}.py`)),
        ),
  );
  return {
    ok: true,
    tool: {
      python,
      pythonPath: join(found.dir, PACKAGE),
      evals,
      description: `${TOOL} of ${repo}, JAX ${firstLine(probe.stdout).trim()} with ${python}, float64, pinned to one CPU, each call waiting for its result (\`jax.block_until_ready\`)`,
      dispose: () => {
        if (found.copy) rmSync(found.dir, { recursive: true, force: true });
      },
    },
  };
}

/** One function's result from the timer: GradBench's output and the time per call. */
export type JaxRun = { output: Json; timing: Timing } | { error: string };

/** The timer's per-function samples (time per call, ms) as a {@link Timing}. */
export function jaxTiming(samplesMs: readonly number[], batch: number): Timing {
  return {
    ms: median(samplesMs),
    minMs: Math.min(...samplesMs),
    maxMs: Math.max(...samplesMs),
    samples: samplesMs.length,
    batch,
  };
}

/** Reads what ./jax_timer.py printed. */
export function parseJaxOutput(stdout: string, fns: readonly string[]): Map<string, JaxRun> {
  const printed = JSON.parse(stdout) as {
    [fn: string]: { output?: Json; samples_ms?: number[]; batch?: number; error?: string };
  };
  return new Map(
    fns.map((fn): [string, JaxRun] => {
      const r = printed[fn];
      if (r === undefined) return [fn, { error: "the timer printed nothing for it" }];
      if (r.error !== undefined) return [fn, { error: r.error }];
      if (!Array.isArray(r.samples_ms) || r.samples_ms.length === 0 || r.output === undefined)
        return [fn, { error: "no output or no timings" }];
      return [fn, { output: r.output, timing: jaxTiming(r.samples_ms, r.batch ?? 1) }];
    }),
  );
}

/**
 * Times the tool's `fns` on one workload side by side, in one Python process (the first calls
 * compile). Returns per function GradBench's output and its timing, or why there is none.
 */
export function timeJax(
  tool: JaxTool,
  evalName: string,
  fns: readonly string[],
  input: unknown,
  budget: Budget,
): Map<string, JaxRun> {
  const dir = mkdtempSync(join(tmpdir(), "nabla-gradbench-jax-input-"));
  try {
    const request = join(dir, "request.json");
    writeFileSync(
      request,
      JSON.stringify({
        eval: evalName,
        functions: fns,
        input,
        seconds: budget.seconds,
        warmup_seconds: budget.warmupSeconds,
        min_samples: budget.minSamples,
        cap_seconds: budget.capSeconds,
      }),
    );
    const r = spawnSync(tool.python, [TIMER, request], {
      encoding: "utf8",
      maxBuffer: 1 << 30,
      env: { ...process.env, PYTHONPATH: tool.pythonPath },
    });
    const failed = (why: string) =>
      new Map(fns.map((fn): [string, JaxRun] => [fn, { error: why }]));
    if (r.error !== undefined) return failed(r.error.message);
    if (r.status !== 0) {
      const lines = (r.stderr ?? "").trim().split("\n");
      return failed(`exit code ${r.status}: ${lines[lines.length - 1] ?? ""}`);
    }
    try {
      return parseJaxOutput(r.stdout, fns);
    } catch (error) {
      return failed(`unreadable output: ${error instanceof Error ? error.message : String(error)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
