// What a run of the GradBench benchmark produces (bench/gradbench/run-eval.ts), and what the
// report (./report.ts) and the chart (./chart.ts) are made from.

import type { EvalSpec } from "./evals.js";
import type { Timing } from "./timing.js";
import type { BackendSite, WasmCalls } from "./wasm-backend.js";

/** One function of one implementation on one workload. */
export type Outcome =
  /** Timed. `flag`: its output differs from GradBench's reference (timed anyway, marked). */
  | {
      kind: "timed";
      timing: Timing;
      flag?: string;
      /** Timed, but too short to compare (GradBench's C++ tool): shown marked, not in ratios. */
      unusable?: string;
    }
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
  /** nabla's derivatives compiled with backend "wasm", by function name; null: --no-wasm. */
  wasm: { [fn: string]: Outcome } | null;
  /** What one call of each wasm-compiled derivative ran: calls in wasm, fallbacks to JS. */
  wasmCalls?: { [fn: string]: WasmCalls };
  /** GradBench's manual C++ tool, built here; null: not run (no --gradbench-repo, or no tool). */
  cpp: ToolOutcome | null;
  /** GradBench's JAX tool, waiting for its results; absent: not run (no --jax-python). */
  jax?: ToolOutcome;
  /** The checks that passed (the failures are in `problems`). */
  checks: WorkloadChecks;
  /** What went wrong (a function that threw, an output that differs), one line each. */
  problems: string[];
  /** Outputs worth showing (particle's and saddle's results), one line each. */
  values: string[];
}

/** Another tool's primal and derivative on the workload (GradBench's C++ or JAX tool). */
export interface ToolOutcome {
  primal: Outcome | null;
  derivative: Outcome | null;
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
  /** The wasm-backend functions whose output agrees with GradBench's reference. */
  wasmReference?: string[];
  /** The wasm backend's largest difference from the JS backend's outputs, relative. */
  wasmDifference?: number;
  /** The wasm backend's outputs equal the JS backend's within 1e-12 relative. */
  wasmIdentical?: boolean;
  /** The C++ tool's functions whose output passed the check (reference, else nabla's). */
  cppValid?: string[];
  /** What the C++ outputs were checked against. */
  cppCheckedAgainst?: "reference" | "nabla";
  /** The JAX tool's functions whose output passed the check (reference, else nabla's). */
  jaxValid?: string[];
}

export interface EvalResult {
  spec: EvalSpec;
  /** The diagnostics when nabla could not compile (or load) gradbench/evals/<eval>.ts. */
  compileError?: string;
  /** Why the workloads are generated ones, when they are. */
  workloadNote?: string;
  workloads: WorkloadResult[];
  /** The eval compiled with backend "wasm": which calls became wasm, or why it did not load. */
  wasm?: { sites: BackendSite[]; error?: string; driver?: string };
  /** Why GradBench's C++ tool does not run on this eval, when it was asked for. */
  cppSkipped?: string;
  /** Why GradBench's JAX tool does not run on this eval, when it was asked for. */
  jaxSkipped?: string;
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
  /** GradBench's C++ tool: what was built, or why it does not run; null: not asked for. */
  cpp: { ok: boolean; text: string } | null;
  /** GradBench's JAX tool: what runs, or why it does not; null or absent: not asked for. */
  jax?: { ok: boolean; text: string } | null;
  /** The wasm backend was run (no --no-wasm). */
  wasm: boolean;
}

/**
 * Results as JSON, for an eval run in a process of its own (bench/gradbench/main.ts): NaN and
 * ±Infinity, which JSON would make null, as {"number": "NaN"}.
 */
export function resultsToJson(results: EvalResult[]): string {
  return JSON.stringify(results, (_key, value: unknown) =>
    typeof value === "number" && !Number.isFinite(value) ? { number: String(value) } : value,
  );
}

/** The results `resultsToJson` wrote. */
export function resultsFromJson(text: string): EvalResult[] {
  return JSON.parse(text, (_key, value: unknown) => {
    if (typeof value === "object" && value !== null && Object.keys(value).length === 1) {
      const number = (value as { number?: unknown }).number;
      if (typeof number === "string") return Number(number);
    }
    return value;
  }) as EvalResult[];
}
