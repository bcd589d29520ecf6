// The C kernels (kmeans.c, lse.c), compiled at bench time with -O3 -march=native by the first
// C compiler found ($CC, gcc, clang, cc; g++ with -x c), and timed in C by harness.c. Node only
// writes the input file and reads back the outputs and the timings, so nothing of JavaScript is
// in the C figures. Without a compiler the C column is skipped with the reason.

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface CTiming {
  ms: number;
  minMs: number;
  maxMs: number;
  samples: number;
  batch: number;
}

export interface CKmeans {
  cost: number;
  dir: number[];
  timings: { cost: CTiming; dir: CTiming };
}

export interface CLse {
  primal: number;
  gradient: number[];
  timings: { primal: CTiming; gradient: CTiming };
}

export interface CHarness {
  /** The compiler and flags, e.g. "gcc (Debian 12.2.0-14) 12.2.0 -O3 -march=native". */
  compiler: string;
  kmeans(flat: Float64Array, n: number, k: number, d: number, seconds: number): CKmeans;
  lse(x: Float64Array, seconds: number): CLse;
  dispose(): void;
}

const FLAGS = ["-O3", "-march=native"];

/**
 * The same kernels with the auto-vectorizer off: scalar code like kmeans.wat's, to tell how much
 * of C's lead comes from SIMD (gcc -O3 -march=native vectorizes the subtraction and the product
 * of a distance, keeping the sum in order).
 */
export const SCALAR_FLAGS = ["-fno-tree-vectorize", "-fno-tree-slp-vectorize"];

/** The first compiler that answers `--version`, with the flags that make it compile C. */
function findCompiler(): { command: string; extra: string[]; version: string } | null {
  const names = [...(process.env.CC ? [process.env.CC] : []), "gcc", "clang", "cc", "g++"];
  for (const command of names) {
    const probe = spawnSync(command, ["--version"], { encoding: "utf8" });
    if (probe.status === 0) {
      return {
        command,
        extra: command.endsWith("++") ? ["-x", "c"] : [],
        version: probe.stdout.split("\n")[0]!.trim(),
      };
    }
  }
  return null;
}

/** Compiles harness.c with the kernels in `dir` (bench/native); the reason when it cannot. */
export function buildHarness(dir: string, extraFlags: string[] = []): CHarness | string {
  const compiler = findCompiler();
  if (compiler === null) return "no C compiler on this machine ($CC, gcc, clang, cc, g++)";
  const work = mkdtempSync(join(tmpdir(), "nabla-native-"));
  const binary = join(work, "harness");
  const sources = ["harness.c", "kmeans.c", "lse.c"].map((f) => join(dir, f));
  const flags = [...FLAGS, ...extraFlags];
  const args = [...compiler.extra, ...flags, "-o", binary, ...sources, "-lm"];
  const build = spawnSync(compiler.command, args, { encoding: "utf8" });
  if (build.status !== 0) {
    rmSync(work, { recursive: true, force: true });
    return `${compiler.command} failed: ${build.stderr.trim().split("\n")[0]}`;
  }
  const run = <T>(args: string[], data: Float64Array): T => {
    const file = join(work, "input.f64");
    writeFileSync(file, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    const out = spawnSync(binary, [args[0]!, file, ...args.slice(1)], {
      encoding: "utf8",
      maxBuffer: 1 << 28,
    });
    if (out.status !== 0) throw new Error(`C harness failed: ${out.stderr.trim()}`);
    // The harness writes NaN as null.
    return JSON.parse(out.stdout, (_, v: unknown) => (v === null ? NaN : v)) as T;
  };
  return {
    compiler: `${compiler.version} ${flags.join(" ")}`,
    kmeans: (flat, n, k, d, seconds) =>
      run<CKmeans>(["kmeans", String(n), String(k), String(d), String(seconds)], flat),
    lse: (x, seconds) => run<CLse>(["lse", String(x.length), String(seconds)], x),
    dispose: () => rmSync(work, { recursive: true, force: true }),
  };
}
