// Command-line options of `npm run bench:gradbench` (bench/gradbench/main.ts).

import { parseArgs } from "node:util";
import { EVALS, evalSpec } from "./evals.js";
import type { Budget } from "./timing.js";

export interface Options {
  evals: string[];
  /** At most this many workloads per eval, the smallest files first. */
  limit: number;
  quick: boolean;
  /** Some evals or workloads only, or --quick: not the whole benchmark. */
  partial: boolean;
  budget: Budget;
  tfjs: boolean;
  hand: boolean;
  /** Write docs/gradbench.md and docs/gradbench.svg (by default only after a full run). */
  write: boolean;
  /** Folder of the workload files; null: use generated inputs. */
  dataDir: string | null;
  /** A GradBench checkout whose manual C++ tool is built and timed; null: not asked for. */
  gradbenchRepo: string | null;
  /** GradBench's JAX tool: a Python with JAX and the checkout to read the tool from; null: not asked for. */
  jax: { python: string; repo: string | null } | null;
  /** Also time nabla's derivatives compiled with the WebAssembly backend. */
  wasm: boolean;
  /**
   * Run each eval in a process of its own (the default), as GradBench's harness starts a tool
   * per eval: one eval's heap and compiled code do not slow the next one's collections.
   */
  isolate: boolean;
  /** Internal: this process is one eval's child; its results go to this file as JSON. */
  resultFile: string | null;
}

export const USAGE = `usage: npm run bench:gradbench -- [options]

  --evals a,b,…   only these evals (${EVALS.map((e) => e.name).join(", ")})
  --limit N       at most N workloads per eval, the smallest first
  --quick         a short run: 0.1 s per function, 2 workloads per eval (unless --limit)
  --seconds S     time budget per function and workload (default 0.5; capped at 2 S per function)
  --no-tfjs       skip the TensorFlow.js versions
  --no-hand       skip the hand-written derivatives
  --data DIR      workload files (default $GRADBENCH_DATA, else /work/shared/gradbench)
  --generated     ignore the workload files, generate inputs of the same sizes
  --gradbench-repo DIR
                  also build and time GradBench's hand-written C++ tool (tools/manual) of this
                  GradBench checkout (or git directory), default $GRADBENCH_REPO; needs g++,
                  make and nlohmann's json.hpp, else the report says what is missing
  --no-cpp        do not run the C++ tool even if $GRADBENCH_REPO is set
  --jax-python PY also time GradBench's JAX tool (python/gradbench/gradbench/tools/jax of the
                  GradBench checkout above) with this Python, which must have jax; default
                  $NABLA_JAX_PYTHON (python3 -m venv DIR && DIR/bin/pip install jax)
  --no-jax        do not run the JAX tool even if $NABLA_JAX_PYTHON is set
  --no-wasm       skip nabla's WebAssembly backend
  --one-process   run every eval in this process (by default each runs in a process of its
                  own, as under GradBench's harness)
  --write         write docs/gradbench.md and .svg even after a partial run
  --no-write      do not write them even after a full run`;

export function budgetFor(seconds: number): Budget {
  return {
    seconds,
    warmupSeconds: Math.min(0.25, seconds / 3),
    minSamples: 3,
    capSeconds: 2 * seconds,
  };
}

/** Parses argv (without node and the script); throws on an unknown option. */
export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv = {}): Options {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        evals: { type: "string" },
        limit: { type: "string" },
        quick: { type: "boolean" },
        seconds: { type: "string" },
        "no-tfjs": { type: "boolean" },
        "no-hand": { type: "boolean" },
        data: { type: "string" },
        generated: { type: "boolean" },
        "gradbench-repo": { type: "string" },
        "no-cpp": { type: "boolean" },
        "no-wasm": { type: "boolean" },
        "jax-python": { type: "string" },
        "no-jax": { type: "boolean" },
        "one-process": { type: "boolean" },
        "result-file": { type: "string" },
        write: { type: "boolean" },
        "no-write": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`, {
      cause: error,
    });
  }
  if (values.help) throw new Error(USAGE);
  if (values.write && values["no-write"]) throw new Error(`--write or --no-write, not both`);
  if (values["gradbench-repo"] !== undefined && values["no-cpp"]) {
    throw new Error(`--gradbench-repo or --no-cpp, not both`);
  }
  if (values["jax-python"] !== undefined && values["no-jax"]) {
    throw new Error(`--jax-python or --no-jax, not both`);
  }
  const jaxPython = values["no-jax"]
    ? null
    : (values["jax-python"] ?? (env["NABLA_JAX_PYTHON"] || null));
  const positive = (name: string, text: string | undefined): number | null => {
    if (text === undefined) return null;
    const v = Number(text);
    if (!(v > 0)) throw new Error(`--${name} needs a positive number, got '${text}'`);
    return v;
  };
  const evals = values.evals
    ?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  evals?.forEach(evalSpec); // throws on an unknown name
  const limit = positive("limit", values.limit);
  const seconds = positive("seconds", values.seconds);
  const quick = values.quick === true;
  const partial = evals !== undefined || limit !== null || quick;
  return {
    // In the order of EVALS, whatever the order given.
    evals: EVALS.map((e) => e.name).filter((name) => evals === undefined || evals.includes(name)),
    limit: limit === null ? (quick ? 2 : Infinity) : Math.floor(limit),
    quick,
    partial,
    budget: budgetFor(seconds ?? (quick ? 0.1 : 0.5)),
    tfjs: !values["no-tfjs"],
    hand: !values["no-hand"],
    write: values.write ? true : values["no-write"] ? false : !partial,
    dataDir: values.generated
      ? null
      : (values.data ?? env["GRADBENCH_DATA"] ?? "/work/shared/gradbench"),
    gradbenchRepo: values["no-cpp"]
      ? null
      : (values["gradbench-repo"] ?? (env["GRADBENCH_REPO"] || null)),
    jax:
      jaxPython === null
        ? null
        : { python: jaxPython, repo: values["gradbench-repo"] ?? (env["GRADBENCH_REPO"] || null) },
    wasm: !values["no-wasm"],
    isolate: !values["one-process"],
    resultFile: values["result-file"] ?? null,
  };
}
