import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  generateProgram,
  measureCompileTime,
  measureCompileTimeOffThread,
  withInferredResults,
} from "./compile-time.js";
import {
  measureScalingOffThread,
  scalingTable,
  SCALING_SHAPES,
  type ScalingPoint,
} from "./compile-scaling.js";

// `npm run bench:compile [-- sizes…]`: only the compile-time part of the benchmarks, quickly —
// the 100-function program, and the two scaling shapes at the given sizes in lines (default
// 1000 2000 5000 10000). A shape stops growing once one size takes over a minute. Prints
// Markdown on stdout; writes nothing.

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const sizes = process.argv.slice(2).map(Number);
const lines = sizes.length > 0 ? sizes : [1000, 2000, 5000, 10000];

const program = measureCompileTime(join(REPO_ROOT, "bench/generated.ts"), generateProgram(100), 3);
process.stdout.write(
  `100-function program (${program.lines} lines): cold ${program.coldMs.toFixed(0)} ms, warm ${program.warmMs.toFixed(0)} ms\n\n`,
);
const inferred = await measureCompileTimeOffThread(
  join(REPO_ROOT, "bench/generated-inferred.ts"),
  withInferredResults(generateProgram(100)),
  3,
);
process.stdout.write(
  `the same, result types inferred by TypeScript's checker (started by the first compile): cold ${inferred.coldMs.toFixed(0)} ms, warm ${inferred.warmMs.toFixed(0)} ms\n\n`,
);
const points: ScalingPoint[] = [];
for (const shape of SCALING_SHAPES) {
  for (const n of lines) {
    const point = await measureScalingOffThread(
      join(REPO_ROOT, `bench/scaling-${shape}.ts`),
      shape,
      n,
      1,
    );
    process.stderr.write(
      `${shape} ${point.lines} lines: cold ${point.coldMs.toFixed(0)} ms, warm ${point.ms.toFixed(0)} ms\n`,
    );
    points.push(point);
    if (point.coldMs > 60_000) break;
  }
}
process.stdout.write(scalingTable(points) + "\n");
