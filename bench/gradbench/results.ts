// What a run of the GradBench benchmark produces (bench/gradbench/run-eval.ts), and what the
// report (./report.ts) and the chart (./chart.ts) are made from.

import type { EvalSpec } from "./evals.js";
import type { Timing } from "./timing.js";

/** One function of one implementation on one workload. */
export type Outcome =
  /** Timed. `flag`: its output differs from GradBench's reference (timed anyway, marked). */
  | { kind: "timed"; timing: Timing; flag?: string }
  /** Not timed: it threw, its eval did not compile, or a baseline gave a wrong output. */
  | { kind: "failed"; reason: string };

export interface TfjsOutcome {
  primal: Outcome;
  derivative: Outcome;
}

export interface WorkloadResult {
  name: string;
  source: "data" | "generated";
  /** The primal (nabla's module, so the plain function as nabla compiles it); null: none. */
  primal: Outcome | null;
  /** nabla's derivatives by function name (one, or particle's and saddle's four). */
  nabla: { [fn: string]: Outcome };
  /** The hand-written derivative; null: the eval has none (or --no-hand). */
  hand: Outcome | null;
  /** The TensorFlow.js version; null: none (or --no-tfjs). */
  tfjs: TfjsOutcome | null;
  /** The checks that passed (the failures are in `problems`). */
  checks: WorkloadChecks;
  /** What went wrong (a function that threw, an output that differs), one line each. */
  problems: string[];
  /** Outputs worth showing (particle's and saddle's results), one line each. */
  values: string[];
}

export interface WorkloadChecks {
  /** nabla's functions whose output agrees with GradBench's reference. */
  reference: string[];
  /** Functions that have a reference (none for a generated input). */
  referenced: string[];
  /** The hand-written derivative agrees with nabla's to 1e-9. */
  handAgrees?: boolean;
  /** TensorFlow.js's largest difference from nabla, relative to the largest magnitude. */
  tfjsDifference?: number;
  /** What TensorFlow.js was checked on besides the workload. */
  tfjsExtra?: string;
  /** TensorFlow.js is not run on this workload: its calls take seconds (TfjsEval.maxWorkloads). */
  tfjsSkipped?: boolean;
}

export interface EvalResult {
  spec: EvalSpec;
  /** The diagnostics when nabla could not compile (or load) gradbench/evals/<eval>.ts. */
  compileError?: string;
  /** Why the workloads are generated ones, when they are. */
  workloadNote?: string;
  workloads: WorkloadResult[];
}

export interface RunInfo {
  date: string;
  command: string;
  node: string;
  cpu: string;
  logicalCpus: number;
  platform: string;
  /** Load averages (1, 5, 15 minutes) at the start and at the end. */
  loadStart: number[];
  loadEnd: number[];
  tfjsVersion: string | null;
  /** Seconds of timed samples per function and workload, and the cap for slow ones. */
  seconds: number;
  capSeconds: number;
  warmupSeconds: number;
  durationMs: number;
  /** The run covers every eval and workload (no --evals, --limit or --quick). */
  full: boolean;
}
