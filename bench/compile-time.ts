import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileProgram } from "../src/compiler/compile.js";
import { formatDiagnostics } from "../src/compiler/diagnostics/report.js";
import { importCompiled } from "./load.js";
import { median, timeMs } from "./timing.js";

// Compile-time benchmark: a generated module of about 2,000 lines with 100 functions to
// differentiate, compiled by `compileProgram` in this process. The bodies cycle through five
// shapes (straight-line Math, a loop with branches, early returns, a while loop with break and
// continue, calls to other functions), with constants varied per function so no two are
// alike, and the operators cycle through the forward ones with different `wrt` sets.

const SHAPES = 5;

function constants(i: number): [string, string, string] {
  return [
    (0.3 + (i % 7) * 0.1).toFixed(2),
    (0.5 + (i % 5) * 0.05).toFixed(2),
    (1 + (i % 3)).toFixed(1),
  ];
}

/** The body of function i (without braces), one statement per line. */
function body(i: number): string[] {
  const [c1, c2, c3] = constants(i);
  switch (i % SHAPES) {
    case 0:
      return [
        `const a = x * ${c1} + y;`,
        `const b = Math.sin(a) + Math.cos(y * ${c2});`,
        `const c = Math.exp(-a * a) * b;`,
        `const d = Math.sqrt(1 + c * c + y * y);`,
        `const e = Math.log(d + ${c3}) - Math.tanh(b);`,
        `const g = Math.atan2(e, d) + Math.hypot(a, b);`,
        `const h = (a * b - c) / (1 + d * d);`,
        `const k = Math.pow(d, ${c2}) + Math.abs(h - g);`,
        `const m = Math.max(a, b, c) - Math.min(e, g);`,
        `const p = a * b * c + d * e * g;`,
        `const q = p / (1 + Math.abs(p));`,
        `const r = Math.sinh(q * 0.5) + Math.cosh(h * 0.1);`,
        `const s = r * k - m * q;`,
        `const t = s + Math.expm1(h * 0.01) + Math.log1p(d);`,
        `const u = t * t * 0.001 + s;`,
        `const v = u + Math.cbrt(k + 2);`,
        `return v * ${c1} + Math.log2(1 + v * v);`,
      ];
    case 1:
      return [
        `let s = 0;`,
        `let p = x;`,
        `for (let k = 1; k <= ${4 + (i % 6)}; k++) {`,
        `  const t = Math.sin(p * k) * y;`,
        `  if (t > 0) {`,
        `    s = s + t * t;`,
        `  } else {`,
        `    s = s - t * ${c1};`,
        `  }`,
        `  p = p * ${c2} + s * 0.01;`,
        `  s = s + Math.exp(-p * p) * ${c3};`,
        `  if (s > 10) {`,
        `    s = s * 0.5;`,
        `  }`,
        `}`,
        `const r = s + p * y;`,
        `return r / Math.sqrt(1 + r * r);`,
      ];
    case 2:
      return [
        `const a = x - y * ${c1};`,
        `if (a > ${c3}) {`,
        `  return Math.log(a) * y + x;`,
        `}`,
        `let r: number;`,
        `if (a < -${c3}) {`,
        `  r = Math.exp(a) * x;`,
        `} else if (y > ${c2}) {`,
        `  r = a * a * y - Math.sin(x);`,
        `} else {`,
        `  r = Math.cos(a) + x * y;`,
        `}`,
        `const q = r * r + 1;`,
        `const w = x > 0 ? Math.sqrt(q) : q * ${c2};`,
        `const z = Math.sinh(r * 0.1) - a / q;`,
        `return w * Math.atan(r) + z;`,
      ];
    case 3:
      return [
        `let v = x;`,
        `let w = y;`,
        `let k = 0;`,
        `while (k < ${10 + (i % 10)}) {`,
        `  k++;`,
        `  if (k % 3 === 0) {`,
        `    continue;`,
        `  }`,
        `  v = v + Math.tanh(w) * ${c1};`,
        `  w = w * 0.9 - v * 0.05;`,
        `  w = Math.max(w, -5);`,
        `  if (Math.abs(v) > 50) {`,
        `    break;`,
        `  }`,
        `}`,
        `const z = v * w + Math.sin(v - w);`,
        `return z / (1 + v * v);`,
      ];
    default: {
      // Calls the two functions before it (never call shapes themselves) and, along a chain,
      // the previous call-shaped function: about 60 calls per evaluation at the end of the chain.
      const chain = i >= SHAPES ? `f${i - SHAPES}(a * 0.1, b * 0.1)` : `a * b`;
      return [
        `const a = f${i - 1}(x, y);`,
        `const b = f${i - 2}(y, x * ${c1});`,
        `const c = ${chain};`,
        `let s = a + b * ${c2};`,
        `if (c > s) {`,
        `  s = s + Math.sin(c) * a;`,
        `} else {`,
        `  s = s - Math.cos(c) * b;`,
        `}`,
        `const t = Math.exp(-s * s * 0.01);`,
        `const u = s * t + c / (1 + c * c);`,
        `const v = Math.sqrt(1 + u * u);`,
        `const w = u * ${c3} + Math.hypot(a, b) * 0.1;`,
        `return w / v;`,
      ];
    }
  }
}

/** How the generated module asks for the derivative of function i: operator, then wrt. */
function request(i: number): string {
  switch (i % 4) {
    case 0:
      return `derivative((x: number) => f${i}(x, 0.7))`;
    case 1:
      return `differential(f${i})`;
    case 2:
      return `valueWithDerivative((y: number) => f${i}(0.4, y))`;
    default:
      return `differential(f${i}, { wrt: 1 })`;
  }
}

export function generateProgram(count: number): string {
  const lines = [
    `import { derivative, differential, valueWithDerivative } from "nabla";`,
    ``,
    `// Generated by bench/compile-time.ts for the compile-time benchmark.`,
    ``,
  ];
  for (let i = 0; i < count; i++) {
    lines.push(`export function f${i}(x: number, y: number): number {`);
    lines.push(...body(i).map((line) => `  ${line}`));
    lines.push(`}`, ``);
  }
  for (let i = 0; i < count; i++) lines.push(`export const d${i} = ${request(i)};`);
  return lines.join("\n") + "\n";
}

export interface CompileTiming {
  lines: number;
  functions: number;
  /** Derivative functions nabla generated (callees are differentiated too). */
  derivatives: number;
  coldMs: number;
  warmMs: number;
  warmRuns: number;
}

/** Compiles the generated program: once cold, once to warm up, then `runs` times. */
export function measureCompileTime(file: string, source: string, runs: number): CompileTiming {
  const sources = new Map([[file, source]]);
  const compile = () => {
    const result = compileProgram([file], { sources });
    if (result.diagnostics.some((d) => d.severity === "error")) {
      throw new Error(
        `the generated program does not compile:\n${formatDiagnostics(result.diagnostics, result.sourceText)}`,
      );
    }
    return result;
  };
  let derivatives = 0;
  const coldMs = timeMs(() => {
    derivatives = [...compile().functions.keys()].filter((key) => key.includes("@jvp(")).length;
  });
  compile();
  const warm: number[] = [];
  for (let r = 0; r < runs; r++) warm.push(timeMs(() => compile()));
  return {
    lines: source.split("\n").length - 1,
    functions: (source.match(/^export function /gm) ?? []).length,
    derivatives,
    coldMs,
    warmMs: median(warm),
    warmRuns: runs,
  };
}

/**
 * The generated program with its functions' result types left to TypeScript (`): number {`
 * written `) {`): compiling it asks TypeScript's checker for them.
 */
export function withInferredResults(source: string): string {
  return source.replace(/\): number \{/g, ") {");
}

/**
 * measureCompileTime in a fresh worker: its first compile starts everything cold, the checker
 * process included (one serves each thread that compiles).
 */
export function measureCompileTimeOffThread(
  file: string,
  source: string,
  runs: number,
): Promise<CompileTiming> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./compile-worker.js", import.meta.url), {
      workerData: { file, source, runs },
    });
    worker.once("message", resolve);
    worker.once("error", reject);
  });
}

type Generated = Record<string, unknown>;

/** Central difference with a step scaled to t. */
function slope(f: (t: number) => number, t: number): number {
  const h = 1e-6 * Math.max(1, Math.abs(t));
  return (f(t + h) - f(t - h)) / (2 * h);
}

/**
 * Runs the generated program (compiled through the hooks) and compares every derivative with
 * a central difference, so the benchmark times a compile of code that actually works.
 */
export async function checkGeneratedProgram(source: string, count: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "nabla-bench-"));
  const file = join(dir, "generated.ts");
  writeFileSync(file, source);
  const m = await importCompiled<Generated>(file);
  const [x, y] = [0.35, 0.62];
  const bad: string[] = [];
  for (let i = 0; i < count; i++) {
    const f = m[`f${i}`] as (x: number, y: number) => number;
    const d = m[`d${i}`] as (...args: number[]) => unknown;
    let got: number;
    let expected: number;
    switch (i % 4) {
      case 0:
        got = d(x) as number;
        expected = slope((t) => f(t, 0.7), x);
        break;
      case 1:
        got = (d(x, y) as (dx: number, dy: number) => number)(1, 0.5);
        expected = slope((t) => f(x + t, y + 0.5 * t), 0);
        break;
      case 2:
        got = (d(y) as { derivative: number }).derivative;
        expected = slope((t) => f(0.4, t), y);
        break;
      default:
        got = (d(x, y) as (dy: number) => number)(1);
        expected = slope((t) => f(x, t), y);
    }
    if (!(Math.abs(got - expected) <= 1e-5 * Math.max(1, Math.abs(expected)))) {
      bad.push(`f${i}: nabla ${got}, finite difference ${expected}`);
    }
  }
  if (bad.length > 0) {
    throw new Error(`derivatives of the generated program are wrong (${file}):\n${bad.join("\n")}`);
  }
  // The folder stays behind only when the check fails, for inspection.
  rmSync(dir, { recursive: true });
}
