// Runs one eval: loads its modules (nabla's, compiled on import; nabla's compiled with the
// WebAssembly backend; the hand-written one), then for each workload checks every output and
// times the primal, nabla's derivatives (JS and wasm backends) and the hand-written derivative
// side by side, then GradBench's C++ tool, then the TensorFlow.js version.

import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { importCompiled } from "../load.js";
import {
  asJson,
  compareFloat32,
  compareWith,
  gradbenchClose,
  helloClose,
  largestRelativeDifference,
  tightClose,
  type Json,
} from "./compare.js";
import { capitalize, type EvalSpec } from "./evals.js";
import { timeJax, type JaxTool } from "./jax.js";
import {
  MANUAL_TOO_SHORT_MS,
  manualTiming,
  timeManual,
  type ManualRun,
  type ManualTool,
} from "./manual-cpp.js";
import type { EvalResult, Outcome, TfjsOutcome, ToolOutcome, WorkloadResult } from "./results.js";
import type { TfjsEval, TfjsPrepared } from "./tfjs-eval.js";
import { timeSideBySide, type Budget, type Candidate, type Timing } from "./timing.js";
import {
  countWasmCalls,
  inWasmMemory,
  loadWasmEval,
  wasmClose,
  type WasmEval,
} from "./wasm-backend.js";
import type { Workload } from "./workloads.js";

type Module = { [name: string]: unknown };
type Fn = (arg: unknown) => unknown;

export interface EvalContext {
  budget: Budget;
  /** The TensorFlow.js version of this eval, if there is one and tfjs is on. */
  tfjs: TfjsEval | null;
  /** GradBench's C++ tool, when it is asked for and built for this eval. */
  manual: ManualTool | null;
  /** GradBench's JAX tool, when it is asked for and implements this eval. */
  jax: JaxTool | null;
  /** Called at the start of each workload, and with detail lines. */
  step(name: string): void;
  log(message: string): void;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The module, or the error message when nabla cannot compile it (or it throws on load). */
export async function loadModule(file: string): Promise<Module | string> {
  try {
    return await importCompiled<Module>(file);
  } catch (error) {
    return messageOf(error);
  }
}

/** A prepared call of `run<Fn>`, with its first output; or why there is none. */
type Prepared = { run: () => unknown; output: Json } | { error: string };

/** `place`, if given, moves the prepared input (for the wasm backend: into wasm memory). */
export function prepare(
  mod: Module,
  fn: string,
  input: unknown,
  place: (prepared: unknown) => unknown = (p) => p,
): Prepared {
  const prep = mod[`prepare${capitalize(fn)}`] as Fn | undefined;
  const run = mod[`run${capitalize(fn)}`] as Fn | undefined;
  if (typeof prep !== "function" || typeof run !== "function") {
    return { error: `no export prepare${capitalize(fn)}/run${capitalize(fn)}` };
  }
  try {
    const prepared = place(prep(input));
    const output = asJson(run(prepared));
    return { run: () => run(prepared), output };
  } catch (error) {
    return { error: `threw: ${messageOf(error).split("\n")[0]}` };
  }
}

/** Something to time, and where its timing goes. */
interface Slot {
  candidate: Candidate;
  flag?: string;
  store(o: Outcome): void;
}

function runWorkload(
  spec: EvalSpec,
  workload: Workload,
  index: number,
  nablaModule: Module,
  handModule: Module | null,
  wasmModule: Module | null,
  ctx: EvalContext,
): WorkloadResult {
  const { input, expected } = workload.load();
  const result: WorkloadResult = {
    name: workload.name,
    source: workload.source,
    primal: null,
    nabla: {},
    hand: null,
    tfjs: null,
    wasm: null,
    cpp: null,
    checks: { reference: [], referenced: [] },
    problems: [],
    values: [],
  };
  const close = spec.name === "hello" ? helloClose : gradbenchClose;
  const slots: Slot[] = [];
  const tfjsSlots: Slot[] = [];
  const outputs = new Map<string, Json>();

  // nabla: the primal and every derivative, each checked against GradBench's reference.
  const fns = [...(spec.primal === null ? [] : [spec.primal]), ...spec.derivatives];
  for (const fn of fns) {
    const store = (o: Outcome) => {
      if (fn === spec.primal) result.primal = o;
      else result.nabla[fn] = o;
    };
    const p = prepare(nablaModule, fn, input);
    if ("error" in p) {
      store({ kind: "failed", reason: p.error });
      result.problems.push(`nabla's ${fn} ${p.error}`);
      continue;
    }
    outputs.set(fn, p.output);
    let flag: string | undefined;
    const reference = expected?.[fn];
    if (reference !== undefined) {
      result.checks.referenced.push(fn);
      const check = compareWith(reference as Json, p.output, close);
      if (check.ok) result.checks.reference.push(fn);
      else {
        flag = `nabla's ${fn} differs from GradBench's reference: ${check.detail}`;
        result.problems.push(flag);
      }
    }
    if (spec.primal === null) result.values.push(`${fn} gives ${JSON.stringify(p.output)}`);
    const slot: Slot = { candidate: { name: `nabla ${fn}`, run: p.run }, store };
    if (flag !== undefined) slot.flag = flag;
    slots.push(slot);
  }

  // nabla's derivatives compiled with the wasm backend: checked against the reference, and
  // against the JS backend's outputs to 1e-12 relative; timed with the others.
  if (wasmModule !== null) {
    const wasm: { [fn: string]: Outcome } = {};
    result.wasm = wasm;
    result.checks.wasmReference = [];
    result.wasmCalls = {};
    let difference = 0;
    let compared = 0;
    for (const fn of spec.derivatives) {
      const counted = countWasmCalls(() => prepare(wasmModule, fn, input, inWasmMemory));
      const p = counted.value;
      if ("error" in p) {
        wasm[fn] = { kind: "failed", reason: p.error };
        result.problems.push(`nabla's ${fn} with the wasm backend ${p.error}`);
        continue;
      }
      // prepare<Fn> ran the function once: its wasm calls are those of one call.
      result.wasmCalls[fn] = counted.calls;
      let flag: string | undefined;
      const reference = expected?.[fn];
      if (reference !== undefined) {
        const check = compareWith(reference as Json, p.output, close);
        if (check.ok) result.checks.wasmReference.push(fn);
        else {
          flag = `nabla's ${fn} with the wasm backend differs from GradBench's reference: ${check.detail}`;
          result.problems.push(flag);
        }
      }
      const js = outputs.get(fn);
      if (js !== undefined) {
        const check = compareWith(js, p.output, wasmClose);
        compared++;
        difference = Math.max(difference, largestRelativeDifference(js, p.output));
        if (!check.ok) {
          const problem = `nabla's ${fn} with the wasm backend differs from the JS backend's beyond 1e-12 relative: ${check.detail}`;
          flag ??= problem;
          result.problems.push(problem);
        }
      }
      const slot: Slot = {
        candidate: { name: `nabla-wasm ${fn}`, run: p.run },
        store: (o) => (wasm[fn] = o),
      };
      if (flag !== undefined) slot.flag = flag;
      slots.push(slot);
    }
    if (compared > 0) {
      result.checks.wasmDifference = difference;
      result.checks.wasmIdentical = difference <= 1e-12;
    }
  }

  // The hand-written derivative (of the eval's one derivative): judged by the reference if
  // there is one, else by agreement with nabla.
  const derivative = spec.derivatives[0]!;
  if (handModule !== null) {
    const p = prepare(handModule, derivative, input);
    const nablaOutput = outputs.get(derivative);
    const reference = expected?.[derivative];
    if ("error" in p) {
      result.hand = { kind: "failed", reason: p.error };
      result.problems.push(`the hand-written ${derivative} ${p.error}`);
    } else {
      const vsReference =
        reference === undefined ? null : compareWith(reference as Json, p.output, close);
      const vsNabla =
        nablaOutput === undefined ? null : compareWith(p.output, nablaOutput, tightClose);
      if (vsNabla !== null) result.checks.handAgrees = vsNabla.ok;
      if (vsReference !== null && !vsReference.ok) {
        result.hand = { kind: "failed", reason: "wrong output" };
        result.problems.push(
          `the hand-written ${derivative} differs from GradBench's reference, not timed: ${vsReference.detail}`,
        );
      } else if (vsReference === null && vsNabla !== null && !vsNabla.ok) {
        // Nothing says which of the two is right: time neither against the other.
        result.hand = { kind: "failed", reason: "disagrees with nabla" };
        result.problems.push(
          `the hand-written ${derivative} and nabla's disagree, not timed: ${vsNabla.detail}`,
        );
      } else {
        if (vsNabla !== null && !vsNabla.ok) {
          result.problems.push(
            `the hand-written ${derivative} and nabla's differ beyond 1e-9: ${vsNabla.detail}`,
          );
        }
        slots.push({
          candidate: { name: `hand ${derivative}`, run: p.run },
          store: (o) => (result.hand = o),
        });
      }
    }
  }

  // TensorFlow.js: checked against nabla's outputs (or the reference) at float32 accuracy.
  let tfjsPrepared: TfjsPrepared | null = null;
  if (ctx.tfjs !== null && index >= (ctx.tfjs.maxWorkloads ?? Infinity)) {
    result.checks.tfjsSkipped = true;
  } else if (ctx.tfjs !== null && spec.primal !== null) {
    const tfjs = tfjsWorkload(spec, ctx.tfjs, input, outputs, expected, nablaModule);
    const outcome = tfjs.outcome;
    result.tfjs = outcome;
    if (tfjs.problem !== undefined) result.problems.push(`TensorFlow.js: ${tfjs.problem}`);
    if (tfjs.difference !== undefined) result.checks.tfjsDifference = tfjs.difference;
    if (tfjs.extra !== undefined) result.checks.tfjsExtra = tfjs.extra;
    const t = tfjs.prepared;
    if (t !== null) {
      tfjsPrepared = t;
      tfjsSlots.push(
        {
          candidate: { name: `tfjs ${spec.primal}`, run: () => t.primal() },
          store: (o) => (outcome.primal = o),
        },
        {
          candidate: { name: `tfjs ${derivative}`, run: () => t.derivative() },
          store: (o) => (outcome.derivative = o),
        },
      );
    }
  }

  // Two groups, each timed side by side: tfjs makes far more garbage than the plain
  // JavaScript, and its collections would land in the other functions' samples.
  for (const group of [slots, tfjsSlots]) {
    if (group.length === 0) continue;
    collectGarbage();
    const timings = timeSideBySide(
      group.map((s) => s.candidate),
      ctx.budget,
    );
    group.forEach((s, i) => {
      const timing = timings[i]!;
      s.store({ kind: "timed", timing, ...(s.flag === undefined ? {} : { flag: s.flag }) });
      ctx.log(`    ${s.candidate.name.padEnd(20)} ${describe(timing)}`);
    });
  }
  tfjsPrepared?.dispose();
  if (ctx.manual !== null && spec.primal !== null) {
    const manual = ctx.manual;
    result.cpp = toolWorkload(
      "GradBench's C++",
      spec,
      expected,
      outputs,
      result.problems,
      ctx,
      (fns) => manualRuns(timeManual(manual, spec.name, fns, input, ctx.budget)),
    );
    result.checks.cppValid = validOf(result.cpp, spec, derivative);
    if (result.checks.cppValid !== undefined)
      result.checks.cppCheckedAgainst = expected === null ? "nabla" : "reference";
  }
  if (ctx.jax !== null && spec.primal !== null) {
    const jax = ctx.jax;
    result.jax = toolWorkload(
      "GradBench's JAX",
      spec,
      expected,
      outputs,
      result.problems,
      ctx,
      (fns) => timeJax(jax, spec.name, fns, input, ctx.budget),
    );
    result.checks.jaxValid = validOf(result.jax, spec, derivative);
  }
  return result;
}

/** The functions of a tool whose output passed its check; undefined when none was timed. */
function validOf(o: ToolOutcome, spec: EvalSpec, derivative: string): string[] | undefined {
  if (o.primal?.kind !== "timed" && o.derivative?.kind !== "timed") return undefined;
  return [spec.primal!, derivative].filter((_, i) => {
    const r = i === 0 ? o.primal : o.derivative;
    return r?.kind === "timed" && r.flag === undefined;
  });
}

/** The C++ tool's runs as outputs and timings (each evaluation one sample of one call). */
function manualRuns(runs: Map<string, ManualRun | { error: string }>): Map<string, ToolRun> {
  return new Map(
    [...runs].map(([fn, r]): [string, ToolRun] => [
      fn,
      "error" in r ? r : { output: r.output, timing: manualTiming(r.evaluateNs) },
    ]),
  );
}

/** A tool's output and time for one function, or why there are none. */
type ToolRun = { output: Json; timing: Timing } | { error: string };

/**
 * Times another tool's primal and derivative on the workload (after nabla's functions, in the
 * same state of the machine) with `timeTool`, and checks their outputs as nabla's are: against
 * the reference, or nabla's output when there is none. A wrong output is timed but flagged; a
 * call too short for the C++ tool's per-call clock is marked unusable; neither enters a ratio.
 */
function toolWorkload(
  label: string,
  spec: EvalSpec,
  expected: { [fn: string]: unknown } | null,
  nablaOutputs: Map<string, Json>,
  problems: string[],
  ctx: EvalContext,
  timeTool: (fns: string[]) => Map<string, ToolRun>,
): ToolOutcome {
  const close = spec.name === "hello" ? helloClose : gradbenchClose;
  const fns = [spec.primal!, spec.derivatives[0]!];
  const runs = timeTool(fns);
  const outcomes = fns.map((fn): Outcome | null => {
    const r = runs.get(fn);
    if (r === undefined) return null;
    if ("error" in r) {
      problems.push(`${label} ${fn} failed: ${r.error}`);
      return { kind: "failed", reason: "threw" };
    }
    const { timing } = r;
    const outcome: Outcome = { kind: "timed", timing };
    const reference = expected?.[fn] ?? nablaOutputs.get(fn);
    const against = expected?.[fn] !== undefined ? "GradBench's reference" : "nabla's output";
    if (reference === undefined) {
      outcome.flag = `${label} ${fn}: nothing to check its output against`;
      problems.push(outcome.flag);
    } else {
      const check = compareWith(reference as Json, asJson(r.output), close);
      if (!check.ok) {
        outcome.flag = `${label} ${fn} differs from ${against}, not used: ${check.detail}`;
        problems.push(outcome.flag);
      }
    }
    if (label.endsWith("C++") && timing.ms < MANUAL_TOO_SHORT_MS) {
      outcome.unusable = `${label} ${fn} takes ${(timing.ms * 1e6).toFixed(0)} ns per call, too short for its per-call clock: not used`;
      problems.push(outcome.unusable);
    }
    ctx.log(`    ${`${label.replace("GradBench's ", "")} ${fn}`.padEnd(20)} ${describe(timing)}`);
    return outcome;
  });
  return { primal: outcomes[0]!, derivative: outcomes[1]! };
}

/** A full garbage collection, when node runs with --expose-gc (npm run bench:gradbench does). */
function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc === "function") gc();
}

function describe(t: Timing): string {
  const f = (v: number) => (v < 1 ? `${(v * 1000).toFixed(2)} µs` : `${v.toFixed(3)} ms`);
  const calls = `${t.batch} call${t.batch === 1 ? "" : "s"}`;
  const samples = `${t.samples} sample${t.samples === 1 ? "" : "s"}`;
  return `${f(t.ms).padStart(12)}  (range ${f(t.minMs)}–${f(t.maxMs)}, ${samples} of ${calls})`;
}

interface TfjsResult {
  outcome: TfjsOutcome;
  /** The prepared tensors, when the outputs passed the checks (to be timed, then disposed). */
  prepared: TfjsPrepared | null;
  /** Why it is not timed. */
  problem?: string;
  /** The largest difference from nabla, relative to the largest magnitude. */
  difference?: number;
  extra?: string;
}

/** Prepares the tfjs version and checks its outputs against nabla's. */
function tfjsWorkload(
  spec: EvalSpec,
  tfjs: TfjsEval,
  input: unknown,
  nablaOutputs: Map<string, Json>,
  expected: { [fn: string]: unknown } | null,
  nablaModule: Module,
): TfjsResult {
  const derivative = spec.derivatives[0]!;
  const notTimed = (reason: string, problem: string): TfjsResult => ({
    outcome: { primal: { kind: "failed", reason }, derivative: { kind: "failed", reason } },
    prepared: null,
    problem,
  });
  let prepared: TfjsPrepared;
  let primal: Json;
  let deriv: Json;
  try {
    prepared = tfjs.prepare(input);
    primal = asJson(prepared.primal());
    deriv = asJson(prepared.derivative());
  } catch (error) {
    return notTimed("threw", `threw, not timed: ${messageOf(error).split("\n")[0]}`);
  }
  // nabla's outputs are the reference; GradBench's when nabla has none.
  const against = (fn: string): [Json, string] | null => {
    const nabla = nablaOutputs.get(fn);
    if (nabla !== undefined) return [nabla, "nabla's"];
    const reference = expected?.[fn];
    return reference === undefined ? null : [reference as Json, "GradBench's reference"];
  };
  let difference = 0;
  for (const [fn, output] of [
    [spec.primal!, primal],
    [derivative, deriv],
  ] as const) {
    const ref = against(fn);
    if (ref === null) {
      prepared.dispose();
      return notTimed("unchecked", `nothing to check its ${fn} against, not timed`);
    }
    const check = compareFloat32(ref[0], output);
    if (!check.ok) {
      prepared.dispose();
      return notTimed(
        "wrong output",
        `its ${fn} disagrees with ${ref[1]}, not timed: ${check.detail}`,
      );
    }
    difference = Math.max(difference, check.worst);
  }
  // Extra inputs where the workloads make a weak check (ode: gradients that underflow to 0).
  const extras: string[] = [];
  for (const extra of tfjs.extraChecks ?? []) {
    const nabla = prepare(nablaModule, derivative, extra);
    if ("error" in nabla) continue;
    const small = tfjs.prepare(extra);
    try {
      const check = compareFloat32(nabla.output, asJson(small.derivative()));
      if (!check.ok) {
        prepared.dispose();
        return notTimed(
          "wrong output",
          `its ${derivative} on ${JSON.stringify(extra)} disagrees with nabla's, not timed: ${check.detail}`,
        );
      }
      extras.push(`${JSON.stringify(extra)} (largest difference ${check.worst.toExponential(1)})`);
    } finally {
      small.dispose();
    }
  }
  const notYet: Outcome = { kind: "failed", reason: "not timed" };
  return {
    outcome: { primal: notYet, derivative: notYet },
    prepared,
    difference,
    ...(extras.length > 0 ? { extra: extras.join(", ") } : {}),
  };
}

export interface EvalModules {
  /** nabla's module, or the diagnostics when it does not compile. */
  nabla: Module | string;
  hand: Module | null;
  /** nabla's module compiled with the wasm backend; null: --no-wasm. */
  wasm: WasmEval | null;
}

/** Loads gradbench/evals/<eval>.ts (compiled by nabla) and gradbench/hand/<eval>.ts. */
export async function loadEval(
  spec: EvalSpec,
  root: string,
  hand: boolean,
  wasm: boolean,
  log: (message: string) => void,
): Promise<EvalModules> {
  const file = join(root, "gradbench/evals", `${spec.name}.ts`);
  const loaded = await loadModule(file);
  // Paths relative to the repository, as in nabla's own diagnostics.
  const nabla = typeof loaded === "string" ? loaded.split(`${root}/`).join("") : loaded;
  if (typeof nabla === "string") {
    const first = nabla.split("\n").find((l) => l.includes("error")) ?? nabla.split("\n")[0];
    log(`    ${spec.name} does not compile: ${first}`);
    return { nabla, hand: null, wasm: null };
  }
  // After the JS module: importCompiled installs the hooks the wasm module's imports need.
  // An eval whose driver is written for the wasm backend (gradbench/wasm/) runs that one there.
  const driver = join(root, "gradbench/wasm", `${spec.name}.ts`);
  const wasmEval = !wasm
    ? null
    : existsSync(driver)
      ? { ...(await loadWasmEval(driver, root)), driver: relative(root, driver) }
      : await loadWasmEval(file, root);
  if (typeof wasmEval?.module === "string") {
    log(`    ${spec.name} with the wasm backend does not load: ${wasmEval.module.split("\n")[0]}`);
  }
  if (!hand || !spec.hand) return { nabla, hand: null, wasm: wasmEval };
  const handModule = await loadModule(join(root, "gradbench/hand", `${spec.name}.ts`));
  if (typeof handModule === "string") {
    log(`    hand-written ${spec.name} does not load: ${handModule.split("\n")[0]}`);
    return { nabla, hand: null, wasm: wasmEval };
  }
  return { nabla, hand: handModule, wasm: wasmEval };
}

export function runEval(
  spec: EvalSpec,
  modules: EvalModules,
  workloads: Workload[],
  workloadNote: string | undefined,
  ctx: EvalContext,
): EvalResult {
  const result: EvalResult = {
    spec,
    workloads: [],
    ...(workloadNote === undefined ? {} : { workloadNote }),
  };
  if (typeof modules.nabla === "string") {
    result.compileError = modules.nabla;
    return result;
  }
  const wasm = modules.wasm;
  if (wasm !== null) {
    result.wasm = {
      sites: wasm.sites,
      ...(wasm.driver ? { driver: wasm.driver } : {}),
      ...(typeof wasm.module === "string" ? { error: wasm.module } : {}),
    };
  }
  const wasmModule = wasm === null || typeof wasm.module === "string" ? null : wasm.module;
  workloads.forEach((w, i) => {
    ctx.step(`${spec.name} ${w.name}`);
    result.workloads.push(
      runWorkload(spec, w, i, modules.nabla as Module, modules.hand, wasmModule, ctx),
    );
  });
  return result;
}
