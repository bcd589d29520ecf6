// `npm run bench:gradbench`: the time of nabla's derivatives on the GradBench evals
// (gradbench/evals), against their primal functions, hand-written derivatives (gradbench/hand)
// and TensorFlow.js versions (bench/gradbench/tfjs-*.ts), on the GradBench workloads. Prints
// the report on stdout and, after a full run, writes it to docs/gradbench.md with a chart in
// docs/gradbench.svg; progress goes to stderr. Options: bench/gradbench/options.ts (--help).

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { arch, cpus, loadavg, platform, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { progress } from "../progress.js";
import { initTfjs } from "../tfjs.js";
import { gradbenchSvg } from "./chart.js";
import { evalSpec } from "./evals.js";
import { parseOptions, type Options } from "./options.js";
import { gradbenchReport } from "./report.js";
import { resultsFromJson, resultsToJson, type EvalResult, type RunInfo } from "./results.js";
import { setupJax, type JaxSetup } from "./jax.js";
import { setupManual, type ManualSetup } from "./manual-cpp.js";
import { loadEval, runEval, type EvalModules } from "./run-eval.js";
import { TFJS_EVALS } from "./tfjs-evals.js";
import { listWorkloads, type WorkloadList } from "./workloads.js";

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const REPORT = join(REPO_ROOT, "docs/gradbench.md");
const CHART = join(REPO_ROOT, "docs/gradbench.svg");

/**
 * Each eval's results from a process of its own, run with these options but that eval alone,
 * as GradBench's harness runs a tool per eval; its progress goes to this process's stderr.
 */
function isolatedResults(options: Options, argv: string[]): EvalResult[] {
  const dir = mkdtempSync(join(tmpdir(), "nabla-gradbench-"));
  const script = fileURLToPath(import.meta.url);
  // The options given, without --evals (each child gets one eval) and without --write.
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--evals") i++;
    else if (argv[i]!.startsWith("--evals=") || argv[i] === "--write") continue;
    else kept.push(argv[i]!);
  }
  try {
    return options.evals.map((name) => {
      const file = join(dir, `${name}.json`);
      const run = spawnSync(
        process.execPath,
        [...process.execArgv, script, ...kept, "--evals", name, "--result-file", file],
        { stdio: ["ignore", "ignore", "inherit"] },
      );
      if (run.status !== 0)
        throw new Error(`gradbench: the run of ${name} exited with ${run.status ?? run.signal}`);
      const [result] = resultsFromJson(readFileSync(file, "utf8"));
      return { ...result!, spec: evalSpec(name) };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** GradBench's C++ tool, when asked for: built (or found built) before anything is timed. */
function manualTool(options: Options): ManualSetup | null {
  if (options.gradbenchRepo === null) return null;
  const withPrimal = options.evals.filter((name) => evalSpec(name).primal !== null);
  const manual = setupManual(options.gradbenchRepo, withPrimal, (m) =>
    process.stderr.write(`${m}\n`),
  );
  if (!manual.ok) process.stderr.write(`gradbench: no C++ baseline: ${manual.reason}\n`);
  return manual;
}

/** GradBench's JAX tool, when asked for: its modules found and JAX imported before timing. */
function jaxTool(options: Options): JaxSetup | null {
  if (options.jax === null) return null;
  const jax =
    options.jax.repo === null
      ? ({
          ok: false,
          reason: "no GradBench checkout (--gradbench-repo DIR or $GRADBENCH_REPO)",
        } as const)
      : setupJax(options.jax.repo, options.jax.python);
  if (!jax.ok) process.stderr.write(`gradbench: no JAX baseline: ${jax.reason}\n`);
  return jax;
}

/** The results of the evals, in this process. */
async function resultsHere(
  options: Options,
  manual: ManualSetup | null,
  jax: JaxSetup | null,
): Promise<EvalResult[]> {
  const lists = new Map<string, WorkloadList>(
    options.evals.map((name) => [name, listWorkloads(name, options.dataDir, options.limit)]),
  );

  // Compile every eval first, so the progress count covers only what can run.
  const p0 = progress(options.evals.length, "gradbench: compile");
  const modules = new Map<string, EvalModules>();
  for (const name of options.evals) {
    p0.step(`gradbench/evals/${name}.ts`);
    modules.set(
      name,
      await loadEval(evalSpec(name), REPO_ROOT, options.hand, options.wasm, (m) => p0.log(m)),
    );
  }
  p0.done();

  const runnable = options.evals.filter((name) => typeof modules.get(name)!.nabla !== "string");
  const total = runnable.reduce((n, name) => n + lists.get(name)!.workloads.length, 0);
  const p = progress(total, "gradbench");
  const results: EvalResult[] = [];
  try {
    for (const name of options.evals) {
      const spec = evalSpec(name);
      const list = lists.get(name)!;
      const tool = manual?.ok === true && manual.tool.built.has(name) ? manual.tool : null;
      const result = runEval(spec, modules.get(name)!, list.workloads, list.note, {
        budget: options.budget,
        tfjs: options.tfjs ? (TFJS_EVALS[name] ?? null) : null,
        manual: tool,
        jax: jax?.ok === true && jax.tool.evals.has(name) ? jax.tool : null,
        step: (s) => p.step(s),
        log: (m) => p.log(m),
      });
      if (manual?.ok === true && tool === null && spec.primal !== null) {
        result.cppSkipped = manual.tool.notBuilt.get(name) ?? "not built";
      }
      if (jax?.ok === true && !jax.tool.evals.has(name) && spec.primal !== null) {
        result.jaxSkipped = "not in tools/jax/evals.txt";
      }
      results.push(result);
    }
  } catch (error) {
    p.fail();
    throw error;
  }
  p.done();
  return results;
}

/** For the report: what JAX ran with, or why it did not (checked again here: a parent
 *  process of isolated evals does not set it up itself). */
function jaxInfo(options: Options): RunInfo["jax"] {
  if (options.jax === null) return null;
  const jax = jaxTool(options);
  if (jax?.ok === true) jax.tool.dispose();
  return jax === null
    ? null
    : jax.ok
      ? { ok: true, text: jax.tool.description }
      : { ok: false, text: jax.reason };
}

async function main(options: Options, argv: string[]): Promise<void> {
  const started = Date.now();
  const loadStart = loadavg();
  const tfjsVersion = options.tfjs ? await initTfjs() : null;
  const manual = manualTool(options);
  const jax = options.isolate && options.evals.length > 1 ? null : jaxTool(options);
  let results: EvalResult[];
  try {
    results =
      options.isolate && options.evals.length > 1
        ? isolatedResults(options, argv)
        : await resultsHere(options, manual, jax);
  } finally {
    if (jax?.ok === true) jax.tool.dispose();
  }
  if (options.resultFile !== null) {
    writeFileSync(options.resultFile, resultsToJson(results));
    return;
  }
  const cpu = cpus();
  const info: RunInfo = {
    date: new Date().toISOString().slice(0, 10),
    command: ["npm run bench:gradbench", ...(argv.length > 0 ? ["--", ...argv] : [])].join(" "),
    node: process.version,
    cpu: cpu[0]?.model.trim() ?? "unknown CPU",
    logicalCpus: cpu.length,
    platform: `${platform()} ${arch()}`,
    loadStart,
    loadEnd: loadavg(),
    tfjsVersion,
    seconds: options.budget.seconds,
    capSeconds: options.budget.capSeconds,
    warmupSeconds: options.budget.warmupSeconds,
    durationMs: Date.now() - started,
    full: !options.partial,
    cpp:
      manual === null
        ? null
        : manual.ok
          ? { ok: true, text: manual.tool.description }
          : { ok: false, text: manual.reason },
    jax: jaxInfo(options),
    wasm: options.wasm,
  };
  const report = gradbenchReport(results, info, "gradbench.svg");
  process.stdout.write(report);
  if (options.write) {
    writeFileSync(REPORT, report);
    writeFileSync(CHART, await gradbenchSvg(results, info.date));
    process.stderr.write(
      "gradbench: report written to docs/gradbench.md, chart to docs/gradbench.svg\n",
    );
  } else {
    process.stderr.write(
      options.partial
        ? "gradbench: a partial run: docs/gradbench.md not written (--write to write it anyway)\n"
        : "gradbench: --no-write: docs/gradbench.md not written\n",
    );
  }
}

const argv = process.argv.slice(2);
let options: Options;
try {
  options = parseOptions(argv, process.env);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
}
await main(options, argv);
