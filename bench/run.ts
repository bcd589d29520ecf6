import { writeFileSync } from "node:fs";
import { arch, cpus, loadavg, platform } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { out as nablaOut } from "../src/runtime/index.js";
import {
  checkGeneratedProgram,
  generateProgram,
  measureCompileTime,
  measureCompileTimeOffThread,
  withInferredResults,
  type CompileTiming,
} from "./compile-time.js";
import {
  measureScalingOffThread,
  scalingTable,
  SCALING_SHAPES,
  type ScalingPoint,
} from "./compile-scaling.js";
import {
  FUNCTION_VALUES_BENCHMARKS,
  functionValuesReport,
  loadFunctionValuesProgram,
  runFunctionValues,
  verifyFunctionValues,
  type FunctionValuesResults,
} from "./function-values.js";
import { hornerJvp, out as handOut, pendulumJvp, straightJvp } from "./hand-written.js";
import {
  HIGHER_ORDER_BENCHMARKS,
  higherOrderReport,
  loadHigherOrderProgram,
  runHigherOrder,
  verifyHigherOrder,
  type HigherOrderResults,
} from "./higher-order.js";
import { importCompiled } from "./load.js";
import { fastestTable, formatNs, ratio, table, type TimedRow } from "./markdown.js";
import { progress, type Progress } from "./progress.js";
import { benchmarksSvg } from "./report-chart.js";
import {
  loadReversePrograms,
  REVERSE_BENCHMARKS,
  reverseReport,
  runReverse,
  verifyReverse,
  type ReverseResults,
} from "./reverse.js";
import {
  loadStructuredProgram,
  runStructured,
  STRUCTURED_BENCHMARKS,
  structuredReport,
  verifyStructured,
  type StructuredResults,
} from "./structured.js";
import { measure, sinkValue, type Measurement, type TimingOptions } from "./timing.js";

// `npm run bench`: run-time cost of nabla's forward derivatives and of its gradients (reverse
// mode, bench/reverse.ts) against the primal functions and hand-written derivatives, the tape
// memory of reverse mode, gradients with TensorFlow.js for comparison, gradients of structured
// data (arrays, objects, classes; bench/structured.ts), Hessians, Hessian-vector products and
// checkpointing (bench/higher-order.ts), function values specialized per call site against the
// same code inlined by hand (bench/function-values.ts), and the compile time of a large
// generated program. Prints a Markdown report on stdout and writes it to docs/benchmarks.md,
// with the main ratios charted in docs/benchmarks.svg; progress goes to stderr
// (bench/progress.ts: one line redrawn in place on a terminal, one line per step otherwise).

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const PROGRAMS = join(REPO_ROOT, "bench/programs");
const REPORT = join(REPO_ROOT, "docs/benchmarks.md");
const CHART = join(REPO_ROOT, "docs/benchmarks.svg");

const TARGET_VS_PRIMAL = 2.5;
const TARGET_VS_HAND = 1.3;
const TARGET_COMPILE_MS = 1000;
const AGREEMENT = 1e-9;
const TIMING: TimingOptions = { minSampleMs: 60, repetitions: 15 };
const COMPILE_RUNS = 7;
const GENERATED_FUNCTIONS = 100;
const SCALING_LINES = [1000, 2000, 5000, 10000];
const SCALING_RUNS = 3;
/** The same shapes before compile time was made linear (issue 17), for comparison. */
const SCALING_BEFORE = `Before compile time was made linear (same machine, cold compiles in one process, under a load
average of about 10): one function of 1,016 / 2,016 / 5,016 lines took 5.5 / 12.3 / 96.3 s (×7.8
for 2.5× the lines), 10,000 lines did not finish in 300 s; a chain of 1,007 / 2,007 / 5,007 lines
took 5.2 / 20.4 / 84.7 s (×3.9 for twice the lines). The hot spots were \`declaredLocally\`
re-walking the enclosing function for every call, dead-code elimination iterating over the
whole function to a fixed point, the verifier copying the scope per region, adjoints copied per
branch, names searched from 1 per local, and inlining and the effects and variedness of
callees revisiting the whole call chain once per link.`;

// What the benchmark programs export, once compiled by nabla.
interface StraightProgram {
  straight(x: number, y: number, z: number): number;
  dStraight(x: number, y: number, z: number): (dx: number, dy: number, dz: number) => number;
}
interface LoopProgram {
  pendulum(theta0: number): number;
  dPendulum(theta0: number): number;
}
interface RecursiveProgram {
  DEGREE: number;
  poly(x: number): number;
  dPoly(x: number): number;
}

// ---- agreement checks: run before timing, fail loudly ----

function agree(a: number, b: number): boolean {
  return a === b || Math.abs(a - b) <= AGREEMENT * Math.max(Math.abs(a), Math.abs(b));
}

/** Checks nabla's tangent against the hand-written one, and both primal values against the primal. */
function check(what: string, primal: number, nabla: () => number, hand: () => number): void {
  const nablaTangent = nabla();
  const nablaValue = nablaOut.v1;
  const handTangent = hand();
  const handValue = handOut.v;
  const problems = [
    agree(nablaTangent, handTangent)
      ? ""
      : `tangent: nabla ${nablaTangent}, hand-written ${handTangent}`,
    agree(nablaValue, primal) ? "" : `value: nabla ${nablaValue}, primal ${primal}`,
    agree(handValue, primal) ? "" : `value: hand-written ${handValue}, primal ${primal}`,
  ].filter(Boolean);
  if (problems.length > 0 || !Number.isFinite(nablaTangent)) {
    throw new Error(
      `${what}: nabla and the hand-written derivative disagree (tolerance ${AGREEMENT}):\n  ${problems.join("\n  ")}`,
    );
  }
}

function verify(a: StraightProgram, b: LoopProgram, c: RecursiveProgram): void {
  if (c.DEGREE !== 24) throw new Error("bench/hand-written.ts assumes recursive.ts has DEGREE 24");
  const points: [number, number, number][] = [
    [0.3, 0.7, -0.4],
    [1.1, -0.5, 0.8],
    [-0.9, 0.2, 1.5],
  ];
  const directions: [number, number, number][] = [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
    [1, 0.5, -0.25],
  ];
  for (const [x, y, z] of points) {
    for (const [dx, dy, dz] of directions) {
      check(
        `straight(${x}, ${y}, ${z}) along (${dx}, ${dy}, ${dz})`,
        a.straight(x, y, z),
        () => a.dStraight(x, y, z)(dx, dy, dz),
        () => straightJvp(x, y, z, dx, dy, dz),
      );
    }
  }
  for (const t of [0.5, 1.2]) {
    check(
      `pendulum(${t})`,
      b.pendulum(t),
      () => b.dPendulum(t),
      () => pendulumJvp(t, 1),
    );
  }
  for (const x of [0.5, -0.8, 0.95]) {
    check(
      `poly(${x})`,
      c.poly(x),
      () => c.dPoly(x),
      () => hornerJvp(x, 24, 1),
    );
  }
}

// ---- the benchmarks: one loop per variant, so each call site stays monomorphic ----

function benchStraight({ straight, dStraight }: StraightProgram): Measurement[] {
  // The input moves a little on every call, so nothing can be hoisted out of the loop.
  return measure(
    [
      {
        name: "primal",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) s += straight(0.3 + i * 1e-9, 0.7, -0.4);
          return s;
        },
      },
      {
        name: "nabla",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) s += dStraight(0.3 + i * 1e-9, 0.7, -0.4)(1, 0.5, -0.25);
          return s;
        },
      },
      {
        name: "hand-written",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) s += straightJvp(0.3 + i * 1e-9, 0.7, -0.4, 1, 0.5, -0.25);
          return s;
        },
      },
    ],
    TIMING,
  );
}

function benchLoop({ pendulum, dPendulum }: LoopProgram): Measurement[] {
  return measure(
    [
      {
        name: "primal",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) s += pendulum(0.5 + i * 1e-3);
          return s;
        },
      },
      {
        name: "nabla",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) s += dPendulum(0.5 + i * 1e-3);
          return s;
        },
      },
      {
        name: "hand-written",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) s += pendulumJvp(0.5 + i * 1e-3, 1);
          return s;
        },
      },
    ],
    TIMING,
  );
}

function benchRecursive({ poly, dPoly }: RecursiveProgram): Measurement[] {
  return measure(
    [
      {
        name: "primal",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) s += poly(0.5 + i * 1e-9);
          return s;
        },
      },
      {
        name: "nabla",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) s += dPoly(0.5 + i * 1e-9);
          return s;
        },
      },
      {
        name: "hand-written",
        run: (n) => {
          let s = 0;
          for (let i = 0; i < n; i++) s += hornerJvp(0.5 + i * 1e-9, 24, 1);
          return s;
        },
      },
    ],
    TIMING,
  );
}

// ---- report ----

type Row = TimedRow;

function verdict(row: Row): string {
  const misses = [
    row.nabla / row.primal <= TARGET_VS_PRIMAL ? "" : `nabla/primal > ${TARGET_VS_PRIMAL}`,
    row.nabla / row.hand <= TARGET_VS_HAND ? "" : `nabla/hand > ${TARGET_VS_HAND}`,
  ].filter(Boolean);
  return misses.length === 0 ? "yes" : `no (${misses.join(", ")})`;
}

function runTimeTable(rows: Row[]): string {
  return table(
    [
      "benchmark",
      "primal ns/call",
      "nabla ns/call",
      "hand-written ns/call",
      "nabla/primal",
      "nabla/hand-written",
      "target met?",
    ],
    rows.map((r) => [
      r.benchmark,
      formatNs(r.primal),
      formatNs(r.nabla),
      formatNs(r.hand),
      ratio(r.nabla, r.primal),
      ratio(r.nabla, r.hand),
      verdict(r),
    ]),
    [false, true, true, true, true, true, false],
  );
}

function compileTable(t: CompileTiming, inferred: CompileTiming): string {
  const program = `${t.lines} lines, ${t.functions} functions, ${t.derivatives} derivatives`;
  const met = (ms: number) => (ms <= TARGET_COMPILE_MS ? "yes" : "no");
  return table(
    ["compile", "program", "wall time ms", "target met?"],
    [
      ["cold (first compile in the process)", program, t.coldMs.toFixed(0), met(t.coldMs)],
      [`warm (median of ${t.warmRuns})`, program, t.warmMs.toFixed(0), met(t.warmMs)],
      [
        "cold, result types inferred (checker started by this compile)",
        program,
        inferred.coldMs.toFixed(0),
        met(inferred.coldMs),
      ],
      [
        `warm, result types inferred (median of ${inferred.warmRuns})`,
        program,
        inferred.warmMs.toFixed(0),
        met(inferred.warmMs),
      ],
    ],
    [false, false, true, false],
  );
}

function report(
  rows: Row[],
  reverse: ReverseResults,
  structured: StructuredResults,
  higherOrder: HigherOrderResults,
  functionValues: FunctionValuesResults,
  compile: CompileTiming,
  inferred: CompileTiming,
  scaling: ScalingPoint[],
): string {
  const cpu = cpus();
  const machine = `${cpu[0]?.model.trim() ?? "unknown CPU"} (${cpu.length} logical CPUs), ${platform()} ${arch()}, Node ${process.version}`;
  // Other processes on the machine show up as noise: the load average tells how busy it was.
  const load = loadavg()[0]!.toFixed(2);
  return `# Benchmarks

Written by \`npm run bench\` (bench/run.ts) on ${new Date().toISOString().slice(0, 10)}.

Machine: ${machine}; 1-minute load average ${load} at the end of the run (which counts for about 1).

![Bar charts of the main ratios below: the time of nabla's derivatives divided by the primal function's and by hand-written derivative code's, against the targets; and TensorFlow.js's time divided by nabla's](benchmarks.svg)

## Run time of forward derivatives

${runTimeTable(rows)}

Targets: nabla/primal ≤ ${TARGET_VS_PRIMAL}× and nabla/hand-written ≤ ${TARGET_VS_HAND}×.

- **primal**: the function itself, as nabla compiles it (types stripped).
- **nabla**: the derivative nabla generates, called through the operator the program uses:
  \`differential(straight)(x, y, z)(dx, dy, dz)\`, \`derivative(pendulum)(θ₀)\`,
  \`derivative(poly)(x)\`. For (a) this includes the closure \`differential\` returns per point.
- **hand-written**: bench/hand-written.ts, dual numbers written by hand as pairs of scalars,
  with the same algorithm; checked to agree with nabla to ${AGREEMENT} (relative) before timing.

The programs are in bench/programs: (a) 50 arithmetic and Math operations of three inputs;
(b) 10⁶ Euler steps of a damped pendulum, differentiated with respect to the initial angle;
(c) Horner evaluation of a degree-24 polynomial as a recursion of depth 25.

The same ratios computed from the fastest run of each variant instead of the median, a
cross-check when other processes compete for the CPU:

${fastestTable(rows)}

${reverseReport(reverse)}
${structuredReport(structured)}
${higherOrderReport(higherOrder)}
${functionValuesReport(functionValues)}
## Compile time

${compileTable(compile, inferred)}

Target: ≤ ${TARGET_COMPILE_MS} ms. The program is generated by bench/compile-time.ts: 100 functions
with loops, branches, early returns, break/continue, Math calls and calls between them, each
differentiated through one of the forward operators. The time is that of \`compileProgram\`
(parse, lower, differentiate, emit) on the source held in memory. The generated derivatives
are checked against finite differences before the report is written. The "inferred" rows
compile the same program with its 100 result types left unwritten, so TypeScript's checker
gives them; they run in a fresh worker, whose first compile starts the checker process.
The program's file lies inside this repository, so the checker opens the repository's whole
tsconfig project behind it (about 0.7 s of the cold time); the same program outside any
project compiles cold in about 0.85 s, checker start included.

### Scaling

${scalingTable(scaling)}

Compile time against the size of one function (bench/compile-scaling.ts: blocks of ten lines
with arithmetic, \`Math\` calls, a helper call, a branch and a loop, differentiated with
\`derivative\` and \`gradient\`) and against the length of a chain of five-line functions each
calling the next. Each size is compiled in a fresh worker with the stack the \`nabla\` command
compiles with: once cold, then ${SCALING_RUNS - 1} more times, the fastest of which is the warm
time. \`npm run bench:compile\` measures only this part and the program above. Target: linear,
under ${TARGET_COMPILE_MS} ms per 2,000 lines warm.

${SCALING_BEFORE}

## Method

Each variant runs in its own loop of calls (one call site per variant, so V8 can inline it as
in user code), with an input that changes on every call and results summed into a sink that is
printed, so no work can be hoisted or dropped (all components of a gradient are summed). Each
loop first runs with a growing number of calls until one run takes at least
${TIMING.minSampleMs} ms, confirmed by a second run taking at least half as long (a pause of the
machine can make one run look long): this is the warm-up, during which V8 optimizes it. It then runs once
more untimed, then ${TIMING.repetitions} times timed, interleaved with the other variants of the
same benchmark, and the median of those runs is reported. A gradient of a 10⁶-step loop takes
longer than ${TIMING.minSampleMs} ms, so there each timed run is one call. The ratios are ratios
of medians; the spread of the runs is printed on stderr. Programs are compiled by nabla through
its module hooks, as \`nabla run\` does.
`;
}

const FORWARD_BENCHMARKS = [
  "(a) straight-line, ~50 ops, 3 inputs",
  "(b) loop, 10⁶ pendulum steps",
  "(c) recursion, depth 25 (Horner)",
] as const;

// Loading the programs, five agreement checks, the forward benchmarks, the reverse ones and
// tfjs, the structured ones and tfjs, higher order (tfjs included), function values, compile
// time.
const STEPS =
  1 +
  5 +
  FORWARD_BENCHMARKS.length +
  REVERSE_BENCHMARKS.length +
  1 +
  STRUCTURED_BENCHMARKS.length +
  1 +
  HIGHER_ORDER_BENCHMARKS.length +
  FUNCTION_VALUES_BENCHMARKS.length +
  1;

async function main(p: Progress): Promise<void> {
  const log = (message: string) => p.log(message);
  p.step("load: compiling bench/programs through nabla's module hooks");
  const straight = await importCompiled<StraightProgram>(join(PROGRAMS, "straight.ts"));
  const loop = await importCompiled<LoopProgram>(join(PROGRAMS, "loop.ts"));
  const recursive = await importCompiled<RecursiveProgram>(join(PROGRAMS, "recursive.ts"));

  const reversePrograms = await loadReversePrograms(PROGRAMS);
  const structuredProgram = await loadStructuredProgram(PROGRAMS);
  const higherOrderProgram = await loadHigherOrderProgram(PROGRAMS);
  const functionValuesProgram = await loadFunctionValuesProgram(PROGRAMS);

  p.step("check: forward derivatives against the hand-written ones");
  verify(straight, loop, recursive);
  p.step("check: gradients against the hand-written ones and finite differences");
  verifyReverse(reversePrograms);
  p.step(
    "check: gradients of structured data against the hand-written ones and finite differences",
  );
  verifyStructured(structuredProgram);
  p.step("check: Hessians, HVPs and checkpointed gradients against the hand-written ones");
  const agreement = verifyHigherOrder(higherOrderProgram);
  p.step("check: specialized RK4 gradient against the hand-inlined one and finite differences");
  const functionValuesAgreement = verifyFunctionValues(functionValuesProgram);

  const benchmarks: [string, () => Measurement[]][] = [
    [FORWARD_BENCHMARKS[0], () => benchStraight(straight)],
    [FORWARD_BENCHMARKS[1], () => benchLoop(loop)],
    [FORWARD_BENCHMARKS[2], () => benchRecursive(recursive)],
  ];
  const rows: Row[] = [];
  for (const [name, run] of benchmarks) {
    p.step(`forward: derivative ${name}`);
    const [primal, nabla, hand] = run();
    for (const m of [primal!, nabla!, hand!]) {
      log(
        `    ${m.name.padEnd(12)} ${formatNs(m.nsPerCall).padStart(12)} ns/call  (range ${formatNs(m.minNs)}–${formatNs(m.maxNs)}, ${m.callsPerSample} calls/run)`,
      );
    }
    rows.push({
      benchmark: name,
      primal: primal!.nsPerCall,
      nabla: nabla!.nsPerCall,
      hand: hand!.nsPerCall,
      fastest: { primal: primal!.minNs, nabla: nabla!.minNs, hand: hand!.minNs },
    });
  }

  const reverse = await runReverse(reversePrograms, log, (_k, name) => p.step(`reverse: ${name}`));
  const structured = await runStructured(structuredProgram, log, (_k, name) =>
    p.step(`structured: ${name}`),
  );
  const higherOrder = await runHigherOrder(higherOrderProgram, agreement, log, (_k, name) =>
    p.step(`higher order: ${name}`),
  );
  const functionValues = runFunctionValues(
    functionValuesProgram,
    functionValuesAgreement,
    log,
    (_k, name) => p.step(`function values: ${name}`),
  );

  p.step(`compile: compile time of a generated program (${GENERATED_FUNCTIONS} functions)`);
  const source = generateProgram(GENERATED_FUNCTIONS);
  const compile = measureCompileTime(join(REPO_ROOT, "bench/generated.ts"), source, COMPILE_RUNS);
  log(
    `    cold ${compile.coldMs.toFixed(0)} ms, warm ${compile.warmMs.toFixed(0)} ms; checking the generated derivatives`,
  );
  await checkGeneratedProgram(source, GENERATED_FUNCTIONS);
  p.step("compile: the same program, its result types inferred by TypeScript's checker");
  const inferred = await measureCompileTimeOffThread(
    join(REPO_ROOT, "bench/generated-inferred.ts"),
    withInferredResults(source),
    COMPILE_RUNS,
  );
  log(`    cold ${inferred.coldMs.toFixed(0)} ms, warm ${inferred.warmMs.toFixed(0)} ms`);
  const scaling: ScalingPoint[] = [];
  for (const shape of SCALING_SHAPES) {
    for (const lines of SCALING_LINES) {
      p.step(`compile: scaling, ${shape}, ${lines} lines`);
      const file = join(REPO_ROOT, `bench/scaling-${shape}.ts`);
      scaling.push(await measureScalingOffThread(file, shape, lines, SCALING_RUNS));
    }
  }

  if (!Number.isFinite(sinkValue())) {
    throw new Error(`a benchmark produced a non-finite result (sink ${sinkValue()})`);
  }
  const text = report(
    rows,
    reverse,
    structured,
    higherOrder,
    functionValues,
    compile,
    inferred,
    scaling,
  );
  const chart = await benchmarksSvg({
    when: new Date().toISOString().slice(0, 10),
    forward: rows,
    forwardTargets: { primal: TARGET_VS_PRIMAL, hand: TARGET_VS_HAND },
    reverse,
    structured,
    higherOrder,
    functionValues,
  });
  // The status line goes before the report, which may go to the same terminal.
  p.done();
  process.stdout.write(text);
  writeFileSync(REPORT, text);
  writeFileSync(CHART, chart);
  p.log(`report written to docs/benchmarks.md, chart to docs/benchmarks.svg (sink ${sinkValue()})`);
}

const reporter = progress(STEPS, "bench");
try {
  await main(reporter);
} catch (error) {
  reporter.fail();
  throw error;
}
