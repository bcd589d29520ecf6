// Validates the GradBench evals of this folder against the reference data in
// /work/shared/gradbench (or $GRADBENCH_DATA):
//
//   node bin/nabla.js run gradbench/validate.ts [options] [eval…]
//
// For every workload JSON of each eval it runs every function of the eval — the nabla version
// (evals/<eval>.ts) and the hand-written one (hand/<eval>.ts) where there is one — and compares
// the output with `expected` using GradBench's rule. One line per eval/workload/function/version;
// exit code 1 on any failure. Each eval module is loaded with a dynamic import, so an eval that
// nabla cannot compile is reported as COMPILE FAIL without stopping the others.
//
// Options:
//   --limit N     at most N workloads per eval, the smallest files first
//   --max-kb N    skip workload files larger than N KiB
//   --time        also time each function: repeat it for about --seconds (default 0.3 s) and
//                 print the mean time per call (prepare excluded)
//   --seconds S   time budget per function and workload for --time
//   --no-hand     skip the hand-written versions
//   --verbose     print up to 10 mismatches per failure (default 3)
//   --dir DIR     load the nabla versions from DIR/<eval>.ts instead of evals/ (to try a
//                 modified copy of an eval, e.g. one working around a compiler bug)

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { toJson, type Json } from "./json.js";

const DATA = process.env.GRADBENCH_DATA ?? "/work/shared/gradbench";
const EVALS = [
  "hello",
  "llsq",
  "lse",
  "det",
  "ode",
  "kmeans",
  "gmm",
  "ba",
  "ht",
  "lstm",
  "particle",
  "saddle",
];
const HAND = new Set(["llsq", "lse", "gmm", "ba", "lstm"]);

interface Options {
  evals: string[];
  limit: number;
  maxKb: number;
  time: boolean;
  seconds: number;
  hand: boolean;
  verbose: boolean;
  dir: string | null;
}

function parseOptions(argv: string[]): Options {
  const o: Options = {
    evals: [],
    limit: Infinity,
    maxKb: Infinity,
    time: false,
    seconds: 0.3,
    hand: true,
    verbose: false,
    dir: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--limit") o.limit = Number(argv[++i]);
    else if (a === "--max-kb") o.maxKb = Number(argv[++i]);
    else if (a === "--time") o.time = true;
    else if (a === "--seconds") o.seconds = Number(argv[++i]);
    else if (a === "--no-hand") o.hand = false;
    else if (a === "--verbose") o.verbose = true;
    else if (a === "--dir") o.dir = argv[++i];
    else if (a.startsWith("--")) throw new Error(`unknown option ${a}`);
    else if (!EVALS.includes(a)) throw new Error(`unknown eval ${a} (known: ${EVALS.join(", ")})`);
    else o.evals.push(a);
  }
  if (o.evals.length === 0) o.evals = EVALS;
  return o;
}

// --- GradBench's comparison rule ----------------------------------------------------------

interface Mismatch {
  path: string;
  message: string;
}

/** GradBench's default rule: |x − y| / max(1, |x| + |y|) ≤ 1e-4. */
function closeDefault(x: number, y: number): boolean {
  return Math.abs(x - y) / Math.max(1, Math.abs(x) + Math.abs(y)) <= 1e-4;
}

/** numpy.isclose, which the hello eval uses: |y − x| ≤ 1e-8 + 1e-5·|x| (x expected). */
function closeHello(x: number, y: number): boolean {
  return Math.abs(y - x) <= 1e-8 + 1e-5 * Math.abs(x);
}

function kind(v: Json): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

function compare(
  expected: Json,
  actual: Json,
  close: (x: number, y: number) => boolean,
  path: string,
  out: Mismatch[],
): void {
  const ke = kind(expected);
  const ka = kind(actual);
  if (ke !== ka) {
    out.push({ path, message: `expected ${ke}, got ${ka}` });
    return;
  }
  if (ke === "number") {
    const x = expected as number;
    const y = actual as number;
    // Integers are compared exactly by GradBench only when both are ints; JSON numbers do not
    // keep that distinction, so every number goes through the float rule (equal ints pass).
    if (!close(x, y)) out.push({ path, message: `expected ${x}, got ${y}` });
    return;
  }
  if (ke === "array") {
    const xs = expected as Json[];
    const ys = actual as Json[];
    if (xs.length !== ys.length) {
      out.push({ path, message: `expected length ${xs.length}, got ${ys.length}` });
      return;
    }
    for (let i = 0; i < xs.length; i++) compare(xs[i], ys[i], close, `${path}[${i}]`, out);
    return;
  }
  if (ke === "object") {
    const xo = expected as { [key: string]: Json };
    const yo = actual as { [key: string]: Json };
    const xk = Object.keys(xo).sort();
    const yk = Object.keys(yo).sort();
    if (xk.join(",") !== yk.join(",")) {
      out.push({ path, message: `expected keys {${xk.join(",")}}, got {${yk.join(",")}}` });
      return;
    }
    for (const k of xk) compare(xo[k], yo[k], close, `${path}.${k}`, out);
    return;
  }
  if (expected !== actual)
    out.push({ path, message: `expected ${String(expected)}, got ${String(actual)}` });
}

/** Agreement of two outputs of ours (nabla and hand-written): relative 1e-9. */
function closeTight(x: number, y: number): boolean {
  return Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x) + Math.abs(y));
}

// --- our own checks where the references are weak ---------------------------------------

interface SelfCheckResult {
  name: string;
  ok: boolean;
  detail: string;
}

/** ode's reference gradients are all zero (they underflow), so any small gradient passes them:
 *  check the gradient against central differences of the primal on a small input instead. */
function odeSelfCheck(mod: EvalModule): SelfCheckResult {
  const name = "selfcheck n=8,s=10  gradient vs central differences (rel 1e-6)";
  const x = [0.3, 0.9, 0.5, 0.7, 0.2, 0.8, 0.6, 0.4].map((v) => 1 + v);
  const input = { x, s: 10 };
  const runPrimal = mod.runPrimal as Fn;
  const preparePrimal = mod.preparePrimal as Fn;
  const runGradient = mod.runGradient as Fn;
  const prepareGradient = mod.prepareGradient as Fn;
  const last = (xs: number[]): number => {
    const y = runPrimal(preparePrimal({ x: xs, s: 10 })) as number[];
    return y[y.length - 1];
  };
  let grad: number[];
  try {
    grad = runGradient(prepareGradient(input)) as number[];
  } catch (error) {
    return {
      name,
      ok: false,
      detail: `threw ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  let worst = 0;
  for (let i = 0; i < x.length; i++) {
    const h = 1e-5;
    const plus = x.slice();
    const minus = x.slice();
    plus[i] += h;
    minus[i] -= h;
    const fd = (last(plus) - last(minus)) / (2 * h);
    worst = Math.max(worst, Math.abs(fd - grad[i]) / Math.max(1e-3, Math.abs(fd)));
  }
  return { name, ok: worst <= 1e-6, detail: `worst relative difference ${worst.toExponential(2)}` };
}

const SELF_CHECKS: { [evalName: string]: (mod: EvalModule) => SelfCheckResult } = {
  ode: odeSelfCheck,
};

// --- running -------------------------------------------------------------------------------

interface EvalModule {
  [name: string]: unknown;
}

type Fn = (arg: unknown) => unknown;

function capitalize(s: string): string {
  return s[0].toUpperCase() + s.slice(1);
}

async function load(path: string): Promise<EvalModule | string> {
  try {
    return (await import(path)) as EvalModule;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return message;
  }
}

function firstLines(text: string, n: number): string {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .slice(0, n)
    .map((l) => "    " + l)
    .join("\n");
}

function ms(ns: bigint): string {
  const v = Number(ns) / 1e6;
  return v < 10 ? v.toFixed(3) : v.toFixed(1);
}

function timeRun(run: Fn, prepared: unknown, seconds: number): { mean: number; runs: number } {
  const budget = BigInt(Math.round(seconds * 1e9));
  const start = process.hrtime.bigint();
  let runs = 0;
  let elapsed = 0n;
  while (runs < 1 || elapsed < budget) {
    run(prepared);
    runs++;
    elapsed = process.hrtime.bigint() - start;
  }
  return { mean: Number(elapsed) / runs / 1e6, runs };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (!existsSync(DATA)) {
    console.log(`gradbench data folder ${DATA} not found: nothing to validate (skipped)`);
    return;
  }
  let failures = 0;
  let passes = 0;
  const here = new URL(".", import.meta.url);

  for (const evalName of options.evals) {
    const dir = join(DATA, evalName);
    if (!existsSync(dir)) {
      console.log(`SKIP   ${evalName}: no folder ${dir}`);
      continue;
    }
    const versions: { label: string; mod: EvalModule }[] = [];
    const nablaUrl =
      options.dir === null
        ? new URL(`evals/${evalName}.ts`, here).href
        : pathToFileURL(resolve(options.dir, `${evalName}.ts`)).href;
    const nablaMod = await load(nablaUrl);
    if (typeof nablaMod === "string") {
      console.log(
        `FAIL   ${evalName}  (all workloads)  nabla  COMPILE/LOAD FAIL\n${firstLines(nablaMod, 12)}`,
      );
      failures++;
    } else {
      versions.push({ label: "nabla", mod: nablaMod });
    }
    if (options.hand && HAND.has(evalName)) {
      const handMod = await load(new URL(`hand/${evalName}.ts`, here).href);
      if (typeof handMod === "string") {
        console.log(
          `FAIL   ${evalName}  (all workloads)  hand  LOAD FAIL\n${firstLines(handMod, 12)}`,
        );
        failures++;
      } else {
        versions.push({ label: "hand", mod: handMod });
      }
    }

    const files = readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .map((f) => ({ f, size: statSync(join(dir, f)).size }))
      .filter((x) => x.size <= options.maxKb * 1024)
      .sort((a, b) => a.size - b.size || a.f.localeCompare(b.f))
      .slice(0, options.limit);

    for (const { f } of files) {
      const workload = f.replace(/\.json$/, "");
      const text = readFileSync(join(dir, f), "utf8");
      const record = JSON.parse(text) as { input: Json; expected: { [fn: string]: Json } };
      const close = evalName === "hello" ? closeHello : closeDefault;
      for (const fn of Object.keys(record.expected)) {
        const outputs = new Map<string, Json>();
        for (const { label, mod } of versions) {
          const prepare = mod[`prepare${capitalize(fn)}`] as Fn | undefined;
          const run = mod[`run${capitalize(fn)}`] as Fn | undefined;
          const head = `${evalName}  ${workload}  ${fn}  ${label}`;
          if (typeof prepare !== "function" || typeof run !== "function") {
            console.log(
              `FAIL   ${head}  missing export prepare${capitalize(fn)}/run${capitalize(fn)}`,
            );
            failures++;
            continue;
          }
          const input = JSON.parse(JSON.stringify(record.input)) as Json;
          let output: Json;
          let timing: string;
          try {
            const t0 = process.hrtime.bigint();
            const prepared = prepare(input);
            const t1 = process.hrtime.bigint();
            const raw = run(prepared);
            const t2 = process.hrtime.bigint();
            // What the protocol would send: JSON turns NaN into null, typed arrays into objects.
            output = JSON.parse(JSON.stringify(toJson(raw ?? null))) as Json;
            timing = `prepare ${ms(t1 - t0)} ms, first run ${ms(t2 - t1)} ms`;
            if (options.time) {
              const { mean, runs } = timeRun(run, prepared, options.seconds);
              timing += `, mean ${mean < 10 ? mean.toFixed(3) : mean.toFixed(1)} ms over ${runs} runs`;
            }
          } catch (error) {
            const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
            console.log(`FAIL   ${head}  threw\n${firstLines(message, 6)}`);
            failures++;
            continue;
          }
          outputs.set(label, output);
          const mismatches: Mismatch[] = [];
          compare(record.expected[fn], output, close, fn, mismatches);
          // particle and saddle: show the value, since the references are loose for saddle
          const shown =
            evalName === "particle" || evalName === "saddle"
              ? `  value ${JSON.stringify(output)}`
              : "";
          if (mismatches.length === 0) {
            console.log(`pass   ${head}  (${timing})${shown}`);
            passes++;
          } else {
            const shownMismatches = mismatches
              .slice(0, options.verbose ? 10 : 3)
              .map((m) => `    ${m.path}: ${m.message}`)
              .join("\n");
            console.log(
              `FAIL   ${head}  ${mismatches.length} mismatch(es)  (${timing})\n${shownMismatches}`,
            );
            failures++;
          }
        }
        // Our own tighter check: the nabla and hand-written versions must agree to 1e-9.
        const a = outputs.get("nabla");
        const b = outputs.get("hand");
        if (a !== undefined && b !== undefined) {
          const mismatches: Mismatch[] = [];
          compare(b, a, closeTight, fn, mismatches);
          const head = `${evalName}  ${workload}  ${fn}  nabla≈hand(1e-9)`;
          if (mismatches.length === 0) {
            console.log(`pass   ${head}`);
            passes++;
          } else {
            console.log(
              `FAIL   ${head}  ${mismatches.length} disagreement(s)\n` +
                mismatches
                  .slice(0, 3)
                  .map(
                    (m) =>
                      `    ${m.path}: ${m.message.replace("expected", "hand").replace("got", "nabla")}`,
                  )
                  .join("\n"),
            );
            failures++;
          }
        }
      }
    }
  }
  for (const evalName of options.evals) {
    const check = SELF_CHECKS[evalName];
    if (check === undefined) continue;
    const mod = await load(new URL(`evals/${evalName}.ts`, here).href);
    if (typeof mod === "string") continue; // reported above
    const result = check(mod);
    const head = `${evalName}  ${result.name}`;
    if (result.ok) {
      console.log(`pass   ${head}  (${result.detail})`);
      passes++;
    } else {
      console.log(`FAIL   ${head}  ${result.detail}`);
      failures++;
    }
  }
  console.log(`\n${passes} passed, ${failures} failed`);
  if (failures > 0) process.exitCode = 1;
}

await main();
