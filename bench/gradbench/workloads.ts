// The workloads of an eval: the GradBench reference files (<data>/<eval>/*.json, input and
// expected outputs; /work/shared/gradbench/README.md) in the natural order of their names
// (n=16 before n=128; which is smallest first), or generated inputs of the same sizes
// (./generate.ts) when there are none.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { generatedWorkloads } from "./generate.js";

export interface LoadedWorkload {
  input: unknown;
  /** The reference output of each function; null for a generated input. */
  expected: { [fn: string]: unknown } | null;
}

export interface Workload {
  name: string;
  source: "data" | "generated";
  /** Reads (or generates) the input when it is needed, so only one is in memory at a time. */
  load(): LoadedWorkload;
}

export interface WorkloadList {
  workloads: Workload[];
  /** Why the workloads are generated, when they are. */
  note?: string;
}

export function listWorkloads(
  evalName: string,
  dataDir: string | null,
  limit: number,
): WorkloadList {
  const generated = (note: string): WorkloadList => ({
    workloads: generatedWorkloads(evalName)
      .slice(0, limit)
      .map((w) => ({
        name: w.name,
        source: "generated",
        load: () => ({ input: w.input(), expected: null }),
      })),
    note,
  });
  if (dataDir === null) return generated("generated inputs (--generated)");
  const dir = join(dataDir, evalName);
  if (!existsSync(dir)) {
    return generated(
      existsSync(dataDir)
        ? `no folder ${dir}: generated inputs of the same sizes`
        : `no data folder ${dataDir} (set $GRADBENCH_DATA or --data): generated inputs of the same sizes`,
    );
  }
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }))
    .slice(0, limit);
  return {
    workloads: files.map((f) => ({
      name: f.replace(/\.json$/, ""),
      source: "data",
      load: () => {
        const record = JSON.parse(readFileSync(join(dir, f), "utf8")) as LoadedWorkload;
        return { input: record.input, expected: record.expected ?? null };
      },
    })),
  };
}
