// `npm run bench:wasm`: nabla's two backends side by side in one run, on kmeans' cost and lse
// (bench/native/backend-kernels.ts): the primal (plain, and tagged `@backend wasm`), the
// gradient (reverse mode) and a forward derivative (`differential`, one direction), each as
// JavaScript and as WebAssembly, the latter twice: with the data copied into wasm memory at
// each call (the arguments in, the gradient out), and with the data (kmeans' points, lse's x)
// made with `wasmArrays`, read in place. Every wasm result is checked against the JavaScript
// backend's to 1e-12 first. Prints the figures; `--write` puts them into docs/native-gap.md.
//
// Options: --seconds S (per function and workload, default 0.5), --write.

import { readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { importCompiled } from "../load.js";
import { budgetFor } from "../gradbench/options.js";
import { random } from "../gradbench/generate.js";
import { timeSideBySide, type Candidate } from "../gradbench/timing.js";
import { table } from "../markdown.js";
import { concat, relativeDifference, TOLERANCE } from "./agree.js";
import { formatMs } from "./report.js";

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const DOC = join(REPO_ROOT, "docs/native-gap.md");
const START = "<!-- bench:wasm results start -->";
const END = "<!-- bench:wasm results end -->";

type Rows = Float64Array[];
interface Kernels {
  kmeansCost(p: Rows, c: Rows): number;
  kmeansCostWasm(p: Rows, c: Rows): number;
  kmeansGradientJs(p: Rows, c: Rows): Rows;
  kmeansGradientWasm(p: Rows, c: Rows): Rows;
  kmeansForwardJs(p: Rows, c: Rows): (dc: Rows) => number;
  kmeansForwardWasm(p: Rows, c: Rows): (dc: Rows) => number;
  lse(x: Float64Array): number;
  lseWasm(x: Float64Array): number;
  lseGradientJs(x: Float64Array): Float64Array;
  lseGradientWasm(x: Float64Array): Float64Array;
  lseForwardJs(x: Float64Array): (dx: Float64Array) => number;
  lseForwardWasm(x: Float64Array): (dx: Float64Array) => number;
  kmeansPullbackJs: (p: Rows, c: Rows) => { value: number; pullback: (s: number) => Rows };
  kmeansPullbackWasm: Kernels["kmeansPullbackJs"];
  lsePullbackJs: (x: Float64Array) => { value: number; pullback: (s: number) => Float64Array };
  lsePullbackWasm: Kernels["lsePullbackJs"];
  wasmStats: { wasm: number; javascript: number; instances: number; inPlace: number };
  wasmArrays(options?: { megabytes?: number }): {
    from(values: ArrayLike<number>): Float64Array;
    rows(rows: ArrayLike<ArrayLike<number>>): Float64Array[];
  };
}

/** One thing timed with both backends. */
interface Pair {
  what: string;
  copies: string;
  js: () => number | Rows | Float64Array;
  wasm: () => number | Rows | Float64Array;
  /**
   * wasm with the data read in place (from `wasmArrays`), and what it still copies; none for
   * a differential or a pullback, which copy their arguments in JavaScript when taken (they
   * may change before they run).
   */
  inPlace?: () => number | Rows | Float64Array;
  inPlaceCopies: string;
}

interface Workload {
  name: string;
  pairs: Pair[];
}

const { values } = parseArgs({
  options: { seconds: { type: "string" }, write: { type: "boolean" } },
});
const budget = budgetFor(Number(values.seconds ?? "0.5"));
const k = await importCompiled<Kernels>(join(REPO_ROOT, "bench/native/backend-kernels.ts"));

function kmeans(kk: number, n: number, d: number): Workload {
  const rng = random(31337);
  const rows = (count: number) =>
    Array.from({ length: count }, () => Float64Array.from({ length: d }, rng));
  const points = rows(n);
  const centroids = points.slice(n - kk).map((c) => c.slice());
  const direction = centroids.map((c) => c.map(() => rng() - 0.5));
  const forwardJs = k.kmeansForwardJs(points, centroids);
  const forwardWasm = k.kmeansForwardWasm(points, centroids);
  const resident = k.wasmArrays({ megabytes: 256 }).rows(points);
  const copied = `in (n + k)·d = ${(n + kk) * d} doubles`;
  const centroidsCopied = `in k·d = ${kk * d}`;
  return {
    name: `kmeans k=${kk},n=${n},d=${d}`,
    pairs: [
      {
        what: "cost (primal)",
        copies: copied,
        js: () => k.kmeansCost(points, centroids),
        wasm: () => k.kmeansCostWasm(points, centroids),
        inPlace: () => k.kmeansCostWasm(resident, centroids),
        inPlaceCopies: centroidsCopied,
      },
      {
        what: "gradient wrt centroids",
        copies: `${copied} (+ k·d zeros), out k·d = ${kk * d}`,
        js: () => k.kmeansGradientJs(points, centroids),
        wasm: () => k.kmeansGradientWasm(points, centroids),
        inPlace: () => k.kmeansGradientWasm(resident, centroids),
        inPlaceCopies: `${centroidsCopied} (+ k·d zeros), out k·d`,
      },
      {
        what: "valueWithPullback, then its pullback at 1",
        copies: `${copied} (twice: taken, then at the seed) (+ k·d zeros), out k·d; copied in JavaScript first`,
        js: () => {
          const at = k.kmeansPullbackJs(points, centroids);
          return at.pullback(1);
        },
        wasm: () => {
          const at = k.kmeansPullbackWasm(points, centroids);
          return at.pullback(1);
        },
        inPlaceCopies: "—",
      },
      {
        what: "differential along one direction",
        copies: `${copied} + k·d`,
        js: () => forwardJs(direction),
        wasm: () => forwardWasm(direction),
        // Taken, a differential copies its arguments (the caller may change them): the copies
        // are not wasmArrays', so nothing is read in place.
        inPlaceCopies: "—",
      },
    ],
  };
}

function lse(n: number): Workload {
  const rng = random(4242);
  const x = Float64Array.from({ length: n }, () => rng() * 10 - 5);
  const dx = Float64Array.from({ length: n }, () => rng() - 0.5);
  const forwardJs = k.lseForwardJs(x);
  const forwardWasm = k.lseForwardWasm(x);
  const resident = k.wasmArrays({ megabytes: 64 }).from(x);
  return {
    name: `lse n=${n}`,
    pairs: [
      {
        what: "primal",
        copies: `in n = ${n} doubles`,
        js: () => k.lse(x),
        wasm: () => k.lseWasm(x),
        inPlace: () => k.lseWasm(resident),
        inPlaceCopies: "nothing",
      },
      {
        what: "gradient",
        copies: `in 2n (x and its zero shadow), out n`,
        js: () => k.lseGradientJs(x),
        wasm: () => k.lseGradientWasm(x),
        inPlace: () => k.lseGradientWasm(resident),
        inPlaceCopies: "in n (the zero shadow), out n",
      },
      {
        what: "valueWithPullback, then its pullback at 1",
        copies: "in 2n (taken), then 2n, out n; copied in JavaScript first",
        js: () => {
          const at = k.lsePullbackJs(x);
          return at.pullback(1);
        },
        wasm: () => {
          const at = k.lsePullbackWasm(x);
          return at.pullback(1);
        },
        inPlaceCopies: "—",
      },
      {
        what: "differential along one direction",
        copies: `in 2n`,
        js: () => forwardJs(dx),
        wasm: () => forwardWasm(dx),
        inPlaceCopies: "—",
      },
    ],
  };
}

const flat = (v: number | Rows | Float64Array) =>
  typeof v === "number" ? v : v instanceof Float64Array ? v : concat(v);

const workloads = [
  kmeans(10, 1000, 8),
  kmeans(10, 10000, 8),
  kmeans(100, 10000, 8),
  lse(10000),
  lse(100000),
];
const started = Date.now();
const loadStart = loadavg();
const sections: string[] = [];
for (const w of workloads) {
  const rows: string[][] = [];
  for (const pair of w.pairs) {
    const before = { ...k.wasmStats };
    const expected = flat(pair.js());
    const difference = relativeDifference(expected, flat(pair.wasm()));
    if (k.wasmStats.wasm === before.wasm)
      throw new Error(`${w.name} ${pair.what}: not run in wasm`);
    if (!(difference <= TOLERANCE))
      throw new Error(`${w.name} ${pair.what}: wasm differs from JavaScript by ${difference}`);
    let inPlaceDifference = 0;
    if (pair.inPlace) {
      const inPlaceBefore = k.wasmStats.inPlace;
      inPlaceDifference = relativeDifference(expected, flat(pair.inPlace()));
      if (k.wasmStats.inPlace === inPlaceBefore)
        throw new Error(`${w.name} ${pair.what}: the data in wasmArrays were not read in place`);
      if (!(inPlaceDifference <= TOLERANCE))
        throw new Error(`${w.name} ${pair.what}: in place, wasm differs by ${inPlaceDifference}`);
    }
    const candidates: Candidate[] = [
      { name: "js", run: pair.js },
      { name: "wasm", run: pair.wasm },
      ...(pair.inPlace ? [{ name: "in place", run: pair.inPlace }] : []),
    ];
    const [js, wasm, inPlace] = timeSideBySide(candidates, budget);
    const largest = Math.max(difference, inPlaceDifference);
    rows.push([
      pair.what,
      formatMs(js!.ms),
      formatMs(wasm!.ms),
      `${(js!.ms / wasm!.ms).toFixed(2)}×`,
      inPlace ? formatMs(inPlace.ms) : "—",
      inPlace ? `${(js!.ms / inPlace.ms).toFixed(2)}×` : "—",
      `${formatMs(js!.minMs)} / ${formatMs(wasm!.minMs)}${inPlace ? ` / ${formatMs(inPlace.minMs)}` : ""}`,
      largest === 0 ? "0 (identical)" : largest.toExponential(1),
      pair.copies,
      pair.inPlaceCopies,
    ]);
    console.error(
      `${w.name} ${pair.what}: js ${js!.ms.toFixed(3)} ms, wasm ${wasm!.ms.toFixed(3)} ms` +
        (inPlace ? `, in place ${inPlace.ms.toFixed(3)} ms` : ""),
    );
  }
  sections.push(
    `#### ${w.name}: JavaScript and wasm backends\n\n` +
      table(
        [
          "derivative",
          "JS backend",
          "wasm, copies",
          "JS ÷ wasm",
          "wasm, in place",
          "JS ÷ in place",
          "fastest samples",
          "rel. diff.",
          "wasm copies per call",
          "in place, copies per call",
        ],
        rows,
        [false, true, true, true, true, true, true, true, false, false],
      ),
  );
}
const loadEnd = loadavg();
const report = [
  `Written by \`npm run bench:wasm -- --seconds ${budget.seconds} --write\` (bench/native/backends.ts) on ${new Date().toISOString().slice(0, 10)}, ${Math.round((Date.now() - started) / 1000)} s.`,
  "",
  `- ${cpus()[0]?.model.trim().split(" ").slice(0, 2).join(" ")}, ${cpus().length} logical CPUs; Node ${process.versions.node}; load average (1 min) ${loadStart[0]!.toFixed(2)} at the start, ${loadEnd[0]!.toFixed(2)} at the end`,
  "- medians of the time per call, JavaScript and wasm interleaved round by round in one process; wasm times include the copies; **wasm, in place**: the data (kmeans' points, lse's x) made with `wasmArrays`, read in place, the rest copied; every wasm result checked against the JavaScript backend's first (largest relative difference per element shown)",
  "",
  ...sections.flatMap((s) => [s, ""]),
].join("\n");
console.log(report);
if (values.write) {
  const doc = readFileSync(DOC, "utf8");
  const block = `${START}\n\n${report}\n${END}`;
  const a = doc.indexOf(START);
  const b = doc.indexOf(END);
  writeFileSync(
    DOC,
    a < 0 || b < a
      ? `${doc.trimEnd()}\n\n${block}\n`
      : doc.slice(0, a) + block + doc.slice(b + END.length),
  );
  console.error("bench:wasm: written into docs/native-gap.md");
}
