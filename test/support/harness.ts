import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { compileProgram, type CompileResult } from "../../src/compiler/compile.js";
import { formatDiagnostics } from "../../src/compiler/diagnostics/report.js";
import { installHooks } from "../../src/register/install.js";
import { environmentBackend } from "../../src/register/environment-backend.js";
import { wasmStats } from "../../src/runtime/index.js";

// Test helpers: write a small program to a temporary folder, compile it, load it through
// nabla's real module hooks, and compare derivatives with finite differences.

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "../../..");
export const FIXTURES = join(REPO_ROOT, "test/fixtures");

/** Shapes of what compiled programs export, for typing test code. */
export type Fn = (...xs: number[]) => number;
export type Derivative = (x: number) => number;
export type Differential = (...xs: number[]) => (...tangents: number[]) => number;
export type ValueWithDerivative = (x: number) => { value: number; derivative: number };
export type ValueWithDifferential = (...xs: number[]) => {
  value: number;
  differential: (...tangents: number[]) => number;
};

/** The folders writeProgram made, removed when the test file's process exits. */
const written: string[] = [];
process.on("exit", () => {
  for (const dir of written) rmSync(dir, { recursive: true, force: true });
});

/** Writes `files` (name → source) into a fresh temporary folder; returns its path. */
export function writeProgram(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "nabla-test-"));
  written.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/**
 * Compiles a program given as files; `entry` defaults to main.ts. Under NABLA_BACKEND (a run of
 * suites with every operator call in wasm, test/wasm-suites.test.ts) with that backend, as the
 * loader does.
 */
export function compileFiles(
  files: Record<string, string>,
  entry = "main.ts",
): CompileResult & { dir: string } {
  const dir = writeProgram(files);
  const backend = environmentBackend();
  return { ...compileProgram([join(dir, entry)], backend ? { backend } : {}), dir };
}

/** The formatted diagnostics of a compile, paths relative to its folder. */
export function diagnosticsText(result: CompileResult & { dir: string }): string {
  return formatDiagnostics(result.diagnostics, result.sourceText, { cwd: result.dir });
}

let hooksInstalled = false;

/**
 * Under NABLA_BACKEND (a suite run with every operator call in wasm, test/wasm-suites.test.ts):
 * how many calls ran in wasm and how many fell back, as a TAP comment at exit.
 */
function reportWasmCalls(): void {
  process.on("exit", () => {
    const { wasm, javascript } = wasmStats;
    process.stdout.write(`# nabla wasm calls: ${wasm} in wasm, ${javascript} fell back\n`);
  });
}
if (environmentBackend()) reportWasmCalls();

/** Imports a file through nabla's module hooks (compiling it and everything it imports). */
export async function importCompiled<T = Record<string, unknown>>(file: string): Promise<T> {
  if (!hooksInstalled) {
    installHooks();
    hooksInstalled = true;
  }
  return (await import(pathToFileURL(file).href)) as T;
}

/** Writes, compiles and imports a program; returns the entry module's exports. */
export async function loadProgram<T = Record<string, unknown>>(
  files: Record<string, string>,
  entry = "main.ts",
): Promise<T> {
  const dir = writeProgram(files);
  return importCompiled<T>(join(dir, entry));
}

/** Central finite difference of f at x along one coordinate, with a step scaled to x. */
export function centralDifference(
  f: (x: number) => number,
  x: number,
  h = 1e-6 * Math.max(1, Math.abs(x)),
): number {
  return (f(x + h) - f(x - h)) / (2 * h);
}

/** Gradient of f at xs by central differences, one coordinate at a time. */
export function finiteGradient(f: (...xs: number[]) => number, xs: number[]): number[] {
  return xs.map((x, i) => centralDifference((t) => f(...xs.map((v, j) => (j === i ? t : v))), x));
}

/**
 * A gradient of `f` at `xs` checked two ways: against central differences (to `fdTolerance`)
 * and against forward mode, `differentialAt(...xs)` along each basis vector (to
 * `forwardTolerance`).
 */
export function assertGradientTwoWays(
  what: string,
  f: (...xs: number[]) => number,
  gradient: number[],
  differentialAt: (...xs: number[]) => (...ts: number[]) => number,
  xs: number[],
  fdTolerance: number,
  forwardTolerance: number,
): void {
  const expected = finiteGradient(f, xs);
  gradient.forEach((gi, i) => {
    assertClose(gi, expected[i]!, fdTolerance, `${what} at ${xs}: ∂/∂x${i}, finite differences`);
    const basis = xs.map((_, j) => (j === i ? 1 : 0));
    const forward = differentialAt(...xs)(...basis);
    assertClose(gi, forward, forwardTolerance, `${what} at ${xs}: ∂/∂x${i}, forward mode`);
  });
}

/** Whether a and b agree to a relative tolerance (absolute near zero). */
export function close(a: number, b: number, tolerance = 1e-5): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a === b;
  return Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(a), Math.abs(b));
}

/** Throws with both values when they are not close. */
export function assertClose(
  actual: number,
  expected: number,
  tolerance = 1e-5,
  what = "value",
): void {
  if (!close(actual, expected, tolerance)) {
    throw new Error(`${what}: expected ${expected}, got ${actual} (tolerance ${tolerance})`);
  }
}

/**
 * The central difference at t, or undefined when f is not smooth near t: when differences at
 * two step sizes, or one-sided differences from the left and the right (narrow, and over the
 * whole step), disagree — a kink of `Math.abs` or a branch boundary within the step. A kink at
 * distance d < h from t makes the wide one-sided differences differ by twice the error it
 * causes in the central difference, so kinks between 1e-7 and 1e-6 away are found too.
 */
export function smoothDerivative(f: (t: number) => number, t: number): number | undefined {
  const central = (h: number) => (f(t + h) - f(t - h)) / (2 * h);
  const fine = central(1e-6);
  const agree = (a: number, b: number, tolerance: number) =>
    Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(fine));
  const sides = (h: number) => [(f(t) - f(t - h)) / h, (f(t + h) - f(t)) / h] as const;
  const [left, right] = sides(1e-7);
  const [wideLeft, wideRight] = sides(1e-6);
  if (
    !Number.isFinite(fine) ||
    !agree(central(1e-4), fine, 1e-3) ||
    !agree(left, right, 2e-5) ||
    !agree(wideLeft, wideRight, 1e-4)
  )
    return undefined;
  return fine;
}

/**
 * A child process's stderr without the line this sandbox sometimes writes there when a
 * process ends while a worker thread still waits (`context canceled`: not from node or nabla,
 * seen in 2 of about 10 CI runs).
 */
export function childStderr(run: { stderr: string }): string {
  return run.stderr.replace(/^context canceled\n/gm, "");
}
