// Command-line options of `npm run bench:gradbench` (bench/gradbench/main.ts).

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
  let evals: string[] | null = null;
  let limit: number | null = null;
  let quick = false;
  let seconds: number | null = null;
  let tfjs = true;
  let hand = true;
  let write: boolean | null = null;
  let dataDir: string | null = env["GRADBENCH_DATA"] ?? "/work/shared/gradbench";
  const value = (i: number, name: string): string => {
    const v = argv[i];
    if (v === undefined || v.startsWith("--")) throw new Error(`${name} needs a value\n${USAGE}`);
    return v;
  };
  const positive = (text: string, name: string): number => {
    const v = Number(text);
    if (!(v > 0)) throw new Error(`${name} needs a positive number, got '${text}'`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--evals") {
      evals = value(++i, a)
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      evals.forEach(evalSpec); // throws on an unknown name
    } else if (a === "--limit") limit = Math.floor(positive(value(++i, a), a));
    else if (a === "--quick") quick = true;
    else if (a === "--seconds") seconds = positive(value(++i, a), a);
    else if (a === "--no-tfjs") tfjs = false;
    else if (a === "--no-hand") hand = false;
    else if (a === "--data") dataDir = value(++i, a);
    else if (a === "--generated") dataDir = null;
    else if (a === "--write") write = true;
    else if (a === "--no-write") write = false;
    else if (a === "--help" || a === "-h") throw new Error(USAGE);
    else throw new Error(`unknown option '${a}'\n${USAGE}`);
  }
  const partial = evals !== null || limit !== null || quick;
  return {
    // In the order of EVALS, whatever the order given.
    evals: EVALS.map((e) => e.name).filter((name) => evals === null || evals.includes(name)),
    limit: limit ?? (quick ? 2 : Infinity),
    quick,
    partial,
    budget: budgetFor(seconds ?? (quick ? 0.1 : 0.5)),
    tfjs,
    hand,
    write: write ?? !partial,
    dataDir,
  };
}
