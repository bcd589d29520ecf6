// GradBench's own hand-written C++ tool ("manual", tools/manual of a GradBench checkout), built
// on this machine and run on the same workloads as nabla: the absolute baseline of issue 22
// ("derivative time within 2× of GradBench's manual C++"). Opt-in (--gradbench-repo DIR or
// $GRADBENCH_REPO): the sources are copied and built in a folder under the system's temporary
// folder (never in the checkout), with cpp/common.mk's flags (-std=c++17 -O3 -march=native,
// single-threaded). Whatever is missing (the checkout, g++, make, nlohmann's json.hpp) is a
// reason in the report, never a failure of the bench.

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median } from "../timing.js";
import type { Json } from "./compare.js";
import type { Budget, Timing } from "./timing.js";

/** Where Debian's nlohmann-json3-dev puts the header GradBench's cpp/Makefile downloads. */
export const SYSTEM_JSON_HPP = "/usr/include/nlohmann/json.hpp";

/** A built tool: one binary per eval, `bin/<eval> input.json <function>`. */
export interface ManualTool {
  /** The folder of the binaries. */
  binDir: string;
  /** Evals built, and why the others (of those asked for) are not. */
  built: Set<string>;
  notBuilt: Map<string, string>;
  /** For the report: what was built, from where, with which compiler. */
  description: string;
}

export type ManualSetup = { ok: true; tool: ManualTool } | { ok: false; reason: string };

/** What one run of a binary printed: its output, and the time of each evaluation. */
export interface ManualRun {
  output: Json;
  evaluateNs: number[];
}

/**
 * Parses what a GradBench C++ tool prints (cpp/gradbench/main.hpp): one line of output JSON,
 * then one `{"name": "prepare"|"evaluate", "nanoseconds": N}` line per timed step.
 */
export function parseManualOutput(stdout: string): ManualRun {
  const lines = stdout.split("\n").filter((l) => l.trim() !== "");
  if (lines.length === 0) throw new Error("the tool printed nothing");
  let output: Json;
  try {
    output = JSON.parse(lines[0]!) as Json;
  } catch {
    throw new Error(`its first line is not JSON: ${lines[0]!.slice(0, 80)}`);
  }
  const evaluateNs: number[] = [];
  for (const line of lines.slice(1)) {
    let timing: { name?: unknown; nanoseconds?: unknown };
    try {
      timing = JSON.parse(line) as typeof timing;
    } catch {
      throw new Error(`not a timing line: ${line.slice(0, 80)}`);
    }
    if (typeof timing.nanoseconds !== "number") {
      throw new Error(`a timing line without nanoseconds: ${line.slice(0, 80)}`);
    }
    if (timing.name === "evaluate") evaluateNs.push(timing.nanoseconds);
  }
  if (evaluateNs.length === 0) throw new Error("no evaluate timings");
  return { output, evaluateNs };
}

/** The evaluations' times (nanoseconds) as a {@link Timing}: each run is one sample of one call. */
export function manualTiming(evaluateNs: readonly number[]): Timing {
  const ms = evaluateNs.map((ns) => ns / 1e6);
  return {
    ms: median(ms),
    // Not Math.min(...ms): a fast function gives hundreds of thousands of runs, past the
    // number of arguments a call may take.
    minMs: ms.reduce((a, b) => Math.min(a, b), Infinity),
    maxMs: ms.reduce((a, b) => Math.max(a, b), -Infinity),
    samples: ms.length,
    batch: 1,
  };
}

/**
 * Below this a C++ call's time is not used: main.hpp times each call alone with steady_clock,
 * whose own cost (some 20–50 ns) is then a large part of what it measures.
 */
export const MANUAL_TOO_SHORT_MS = 1e-3;

const run = (cmd: string, args: string[], cwd?: string) =>
  spawnSync(cmd, args, { encoding: "utf8", ...(cwd === undefined ? {} : { cwd }) });

const firstLine = (text: string | null | undefined) =>
  (text ?? "").split("\n").find((l) => l.trim() !== "") ?? "";

/** The version line of a program, or null when it cannot be run. */
function version(cmd: string): string | null {
  const r = run(cmd, ["--version"]);
  return r.status === 0 ? firstLine(r.stdout) : null;
}

/** Every file under `dir`, sorted, for the hash of the sources. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile())
    .sort();
}

/**
 * The sources: a checkout's own folder when it has cpp/ and tools/manual/, or, for a git
 * directory (a bare clone or mirror), those two folders extracted with `git archive` into
 * `scratch`. Returns the folder holding them, or why there is none.
 */
function sources(repo: string, scratch: string): { dir: string } | { reason: string } {
  if (!existsSync(repo)) return { reason: `no GradBench checkout at ${repo}` };
  const has = (dir: string) =>
    existsSync(join(dir, "cpp/gradbench/main.hpp")) &&
    existsSync(join(dir, "tools/manual/Makefile"));
  if (has(repo)) return { dir: repo };
  if (existsSync(join(repo, "HEAD")) && existsSync(join(repo, "objects"))) {
    mkdirSync(scratch, { recursive: true });
    const tar = join(scratch, "manual.tar");
    const archive = run("git", [
      `--git-dir=${repo}`,
      "archive",
      "-o",
      tar,
      "HEAD",
      "cpp",
      "tools/manual",
    ]);
    if (archive.status !== 0) {
      return { reason: `git archive of ${repo} failed: ${firstLine(archive.stderr)}` };
    }
    const untar = run("tar", ["-xf", tar, "-C", scratch]);
    if (untar.status !== 0 || !has(scratch)) {
      return { reason: `could not extract cpp/ and tools/manual/ of ${repo}` };
    }
    return { dir: scratch };
  }
  return { reason: `${repo} has no cpp/ and tools/manual/ (not a GradBench checkout)` };
}

/** The commit a checkout or git directory is at (abbreviated), or null if git cannot say. */
function gitCommit(repo: string): string | null {
  const where = existsSync(join(repo, ".git")) ? ["-C", repo] : [`--git-dir=${repo}`];
  const r = run("git", [...where, "rev-parse", "--short=8", "HEAD"]);
  return r.status === 0 ? firstLine(r.stdout).trim() || null : null;
}

/** The evals tools/manual says it implements (its evals.txt). */
function manualEvals(dir: string): Set<string> {
  const file = join(dir, "tools/manual/evals.txt");
  if (!existsSync(file)) return new Set();
  return new Set(
    readFileSync(file, "utf8")
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean),
  );
}

/**
 * Builds tools/manual's binaries for `evals` (those it implements) in a copy of the sources
 * under the system's temporary folder, named by a hash of the sources, the header and the
 * compiler, so that a later run reuses binaries already built. `log` gets progress lines.
 */
export function setupManual(
  repo: string,
  evals: readonly string[],
  log: (message: string) => void,
): ManualSetup {
  const scratch = join(tmpdir(), `nabla-gradbench-sources-${process.pid}`);
  try {
    const src = sources(repo, scratch);
    if ("reason" in src) return { ok: false, reason: src.reason };
    const cxx = process.env["CXX"] ?? "g++";
    const compiler = version(cxx);
    if (compiler === null) return { ok: false, reason: `no C++ compiler (${cxx} --version fails)` };
    if (version("make") === null) return { ok: false, reason: "no make" };
    const ownHeader = join(src.dir, "cpp/json.hpp");
    const header = existsSync(ownHeader) ? ownHeader : SYSTEM_JSON_HPP;
    if (!existsSync(header)) {
      return {
        ok: false,
        reason: `no json.hpp (neither ${ownHeader} nor ${SYSTEM_JSON_HPP}: install nlohmann-json3-dev)`,
      };
    }
    const hash = createHash("sha256");
    for (const dir of ["cpp", "tools/manual"]) {
      for (const file of filesUnder(join(src.dir, dir))) {
        if (file.includes("/bin/")) continue;
        hash.update(file.slice(src.dir.length)).update(readFileSync(file));
      }
    }
    hash.update(readFileSync(header)).update(compiler);
    const build = join(tmpdir(), `nabla-gradbench-manual-${hash.digest("hex").slice(0, 16)}`);
    if (!existsSync(join(build, "tools/manual/Makefile"))) {
      for (const dir of ["cpp", "tools/manual"]) {
        cpSync(join(src.dir, dir), join(build, dir), {
          recursive: true,
          filter: (from) => !from.includes("/tools/manual/bin"),
        });
      }
      cpSync(header, join(build, "cpp/json.hpp"));
    }
    const implemented = manualEvals(build);
    const built = new Set<string>();
    const notBuilt = new Map<string, string>();
    for (const name of evals) {
      if (!implemented.has(name)) {
        notBuilt.set(name, "not in tools/manual/evals.txt");
        continue;
      }
      if (!existsSync(join(build, "tools/manual/bin", name))) {
        log(`    building GradBench's manual C++ ${name} (${cxx} -O3 -march=native)`);
        const make = run("make", ["-C", join(build, "tools/manual"), `CXX=${cxx}`, `bin/${name}`]);
        if (make.status !== 0) {
          const error = (make.stderr ?? "").split("\n").find((l) => l.includes("error")) ?? "";
          notBuilt.set(name, `make bin/${name} failed: ${error || firstLine(make.stderr)}`);
          continue;
        }
      }
      built.add(name);
    }
    const commit = gitCommit(repo);
    return {
      ok: true,
      tool: {
        binDir: join(build, "tools/manual/bin"),
        built,
        notBuilt,
        description: `tools/manual of ${repo}${commit === null ? "" : ` (commit ${commit})`}, built with ${compiler} (-std=c++17 -O3 -march=native, single-threaded) in a temporary folder`,
      },
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** A workload's input for the tool, written once per workload. */
export interface ManualInput {
  file: string;
  remove(): void;
}

/**
 * The input the tool reads: an object input with `min_runs`/`min_seconds` for one invocation;
 * any other (hello's is a number) as it is, which the tool runs once.
 */
export function manualInputText(input: unknown, minSeconds: number): string {
  const isObject = typeof input === "object" && input !== null && !Array.isArray(input);
  return JSON.stringify(isObject ? { ...input, min_runs: 1, min_seconds: minSeconds } : input);
}

/** Writes the input of a workload to a temporary file (see {@link manualInputText}). */
export function writeManualInput(input: unknown, minSeconds: number): ManualInput {
  const dir = join(tmpdir(), `nabla-gradbench-input-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "input.json");
  writeFileSync(file, manualInputText(input, minSeconds));
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** One invocation: `bin/<eval> input.json <fn>`; throws with the tool's message on failure. */
export function runManual(
  tool: ManualTool,
  evalName: string,
  fn: string,
  input: string,
): ManualRun {
  const r = spawnSync(join(tool.binDir, evalName), [input, fn], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  if (r.error !== undefined) throw r.error;
  if (r.status !== 0) {
    throw new Error(`exit code ${r.status}: ${firstLine(r.stderr) || firstLine(r.stdout)}`);
  }
  return parseManualOutput(r.stdout);
}

/**
 * Times the tool's functions on one workload, alternating between them, one invocation each
 * per round (each running its function for a third of the budget), until each has spent the
 * budget with at least `minSamples` evaluations, or has spent `capSeconds`. Returns per
 * function its first output and all its evaluation times, or the error of its first failure.
 */
export function timeManual(
  tool: ManualTool,
  evalName: string,
  fns: readonly string[],
  input: unknown,
  budget: Budget,
): Map<string, ManualRun | { error: string }> {
  const written = writeManualInput(input, budget.seconds / 3);
  const results = new Map<string, ManualRun | { error: string }>();
  const spent = new Map<string, number>(fns.map((fn) => [fn, 0]));
  const done = (fn: string) => {
    const r = results.get(fn);
    if (r === undefined) return false;
    if ("error" in r) return true;
    const s = spent.get(fn)!;
    return (
      (r.evaluateNs.length >= budget.minSamples && s >= budget.seconds) || s >= budget.capSeconds
    );
  };
  try {
    for (let round = 0; round < 12 && !fns.every(done); round++) {
      for (const fn of fns) {
        if (done(fn)) continue;
        let runOnce: ManualRun;
        try {
          runOnce = runManual(tool, evalName, fn, written.file);
        } catch (error) {
          results.set(fn, { error: error instanceof Error ? error.message : String(error) });
          continue;
        }
        const previous = results.get(fn) as ManualRun | undefined;
        results.set(fn, {
          output: previous?.output ?? runOnce.output,
          evaluateNs: [...(previous?.evaluateNs ?? []), ...runOnce.evaluateNs],
        });
        spent.set(fn, spent.get(fn)! + runOnce.evaluateNs.reduce((a, b) => a + b, 0) / 1e9);
      }
    }
  } finally {
    written.remove();
  }
  return results;
}
