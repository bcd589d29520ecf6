// Checks one program of the corpus (test/corpus/): programs written the way TypeScript
// developers write them, without nabla in mind, each exporting `objective` and sample `args`.
// nabla differentiates `objective` in both modes with respect to every argument that has a
// tangent, and the result is checked two independent ways: forward against reverse mode
// (⟨J·v, 1⟩ = ⟨∇f, v⟩ along random directions v over all arguments), and both against central
// differences of the plain program (its types stripped by esbuild, not by nabla) along
// directions where the program is smooth. The values nabla's code computes must be the plain
// program's.

import { buildSync } from "esbuild";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { compileProgram } from "../../src/compiler/compile.js";
import { formatDiagnostics } from "../../src/compiler/diagnostics/report.js";
import { importCompiled, REPO_ROOT, smoothDerivative } from "./harness.js";
import { rng } from "./random-program.js";

export const CORPUS = join(REPO_ROOT, "test/corpus");

/** ok; rejected: a compile error; crash: a throw nabla caused; wrong: a value or derivative differs. */
export type CorpusOutcome =
  { kind: "ok"; checks: number } | { kind: "rejected" | "crash" | "wrong"; message: string };

type Objective = (...args: unknown[]) => number;

/** The corpus's programs: its files that export `objective` (the others are their modules). */
export function corpusPrograms(): string[] {
  return readdirSync(CORPUS)
    .filter((f) => f.endsWith(".ts"))
    .map((f) => f.slice(0, -3))
    .filter((name) => /^\s*export function objective\b/m.test(readSource(name)))
    .sort();
}

function readSource(name: string): string {
  return readFileSync(join(CORPUS, `${name}.ts`), "utf8");
}

/**
 * A copy of the corpus in a fresh folder, with a check module of `name` beside it: `lines`
 * after the import of its `objective` and the export of its `args`.
 */
export function stageCorpus(name: string, lines: string[]): { dir: string; check: string } {
  const dir = mkdtempSync(join(tmpdir(), "nabla-corpus-"));
  for (const f of readdirSync(CORPUS))
    if (f.endsWith(".ts")) copyFileSync(join(CORPUS, f), join(dir, f));
  const check = join(dir, `check-${name}.ts`);
  writeFileSync(
    check,
    [
      `import { objective } from "./${name}";`,
      // The arguments as nabla's build of the program makes them: its instances are of its
      // classes, which its code tests (`instanceof`), not of the plain build's copies.
      `export { args } from "./${name}";`,
      ...lines,
      "",
    ].join("\n"),
  );
  return { dir, check };
}

/**
 * The check module asking for the gradient and the differential with respect to `wrt`, every
 * argument holding numbers: optional ones too, which the operators leave out by default.
 */
function stage(name: string, wrt: number[]): { dir: string; check: string } {
  const options = `{ wrt: [${wrt.join(", ")}] }`;
  return stageCorpus(name, [
    `import { differential, valueWithGradient } from "nabla";`,
    `export const reverse = valueWithGradient(objective, ${options});`,
    `export const forward = differential(objective, ${options});`,
  ]);
}

/** The program run as plain JavaScript: bundled and stripped of types by esbuild. */
async function loadPlain(
  dir: string,
  name: string,
): Promise<{ objective: Objective; args: unknown[] }> {
  const out = join(dir, `plain-${name}.mjs`);
  buildSync({
    entryPoints: [join(dir, `${name}.ts`)],
    bundle: true,
    format: "esm",
    outfile: out,
    logLevel: "silent",
  });
  const m = (await import(pathToFileURL(out).href)) as { objective: Objective; args: unknown[] };
  return m;
}

/** A number-leaf walk: the same shape as `x` with `leaf` applied to each number (others kept). */
function mapNumbers(x: unknown, leaf: (v: number) => number): unknown {
  if (typeof x === "number") return leaf(x);
  if (x instanceof Float64Array || x instanceof Float32Array) return x.map(leaf);
  if (Array.isArray(x)) return x.map((e) => mapNumbers(e, leaf));
  if (x instanceof Map) return new Map([...x].map(([k, v]) => [k, mapNumbers(v, leaf)]));
  if (x && typeof x === "object") {
    const copy = Object.create(Object.getPrototypeOf(x) as object) as Record<string, unknown>;
    for (const [k, v] of Object.entries(x)) copy[k] = mapNumbers(v, leaf);
    return copy;
  }
  return x;
}

/** The number leaves of `x` in walk order. */
function numbers(x: unknown, out: number[] = []): number[] {
  mapNumbers(x, (v) => (out.push(v), v));
  return out;
}

/** x + h·v, leaf by leaf (v has x's shape). */
function step(x: unknown, v: unknown, h: number): unknown {
  const vs = numbers(v);
  let i = 0;
  return mapNumbers(x, (a) => a + h * vs[i++]!);
}

/** ⟨g, v⟩ over the leaves of v, reading g at the same paths; a missing entry of g is NaN. */
function dot(g: unknown, v: unknown): number {
  if (typeof v === "number") return typeof g === "number" ? g * v : v === 0 ? 0 : NaN;
  if (v instanceof Float64Array || v instanceof Float32Array || Array.isArray(v)) {
    let s = 0;
    const gs = g as ArrayLike<unknown> | undefined;
    for (let i = 0; i < v.length; i++) s += dot(gs?.[i], v[i]);
    return s;
  }
  if (v instanceof Map) {
    let s = 0;
    for (const [k, e] of v)
      s += dot(g instanceof Map ? g.get(k) : (g as Record<string, unknown>)?.[k as string], e);
    return s;
  }
  if (v && typeof v === "object") {
    let s = 0;
    for (const [k, e] of Object.entries(v))
      s += dot((g as Record<string, unknown> | undefined)?.[k], e);
    return s;
  }
  return 0;
}

const hasNumbers = (x: unknown) => numbers(x).length > 0;

const agree = (a: number, b: number, tolerance: number, scale: number) =>
  Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(a), Math.abs(b), scale);

/**
 * The derivative at 0 of a smooth function whose curvature is large next to its slope (a
 * squared pricing error in rates, say), which smoothDerivative's fixed tolerances take for a
 * kink: there the one-sided differences differ by the curvature times the step, so their gap
 * shrinks tenfold with a tenfold smaller step; at a kink it stays, at a jump it grows.
 */
function curvedDerivative(f: (t: number) => number): number | undefined {
  const gap = (h: number) => (f(h) - f(0)) / h - (f(0) - f(-h)) / h;
  const central = (h: number) => (f(h) - f(-h)) / (2 * h);
  const [wide, narrow] = [gap(1e-5), gap(1e-6)];
  const fine = central(1e-6);
  if (!Number.isFinite(fine) || !Number.isFinite(wide) || !Number.isFinite(narrow))
    return undefined;
  // Smooth: the gap is the curvature times the step (a tenth of it at a tenth of the step),
  // and central differences at both steps agree to their O(h²) error.
  const ratio = narrow / wide;
  const shrinks = wide !== 0 && ratio > 0.05 && ratio < 0.15;
  const settled = Math.abs(central(1e-5) - fine) <= 1e-6 * Math.max(1, Math.abs(fine));
  return shrinks && settled ? fine : undefined;
}

/**
 * The arguments of a corpus program's `objective` the checks differentiate: every one holding
 * numbers, optional ones too (which the operators leave out without `wrt`).
 */
export async function corpusWrt(name: string): Promise<number[]> {
  const { args } = await loadPlain(stageCorpus(name, []).dir, name);
  return args.flatMap((a, i) => (hasNumbers(a) ? [i] : []));
}

/** Compiles, loads and checks one corpus program. */
export async function checkCorpusProgram(name: string, directions = 3): Promise<CorpusOutcome> {
  let wrt: number[];
  try {
    wrt = await corpusWrt(name);
  } catch (error) {
    return { kind: "crash", message: `loading the plain program: ${String(error)}` };
  }
  const { dir, check } = stage(name, wrt);
  const compiled = compileProgram([check]);
  const errors = compiled.diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0) {
    return {
      kind: "rejected",
      message: formatDiagnostics(errors, compiled.sourceText, { cwd: dir }),
    };
  }
  let plain: { objective: Objective; args: unknown[] };
  let nabla: {
    reverse: (...a: unknown[]) => { value: number; gradient: unknown };
    forward: (...a: unknown[]) => (...t: unknown[]) => number;
    args: unknown[];
  };
  try {
    plain = await loadPlain(dir, name);
    nabla = await importCompiled(check);
  } catch (error) {
    return { kind: "crash", message: `loading: ${String(error)}` };
  }
  const args = plain.args;
  const value = plain.objective(...args);
  let result: { value: number; gradient: unknown };
  try {
    result = nabla.reverse(...nabla.args);
  } catch (error) {
    return { kind: "crash", message: `reverse mode threw: ${String(error)}` };
  }
  if (!agree(result.value, value, 1e-12, 0)) {
    return { kind: "wrong", message: `value ${result.value}, the plain program's ${value}` };
  }
  // One differentiated argument: its gradient; several: a tuple in argument order.
  const gradients = wrt.length === 1 ? [result.gradient] : (result.gradient as unknown[]);
  const random = rng(name.length * 7919 + 17);
  let checks = 0;
  for (let d = 0; d < directions; d++) {
    // Direction 0 moves the first argument only (the program's natural inputs); the others all.
    const v = args.map((a, i) =>
      wrt.includes(i) && (d > 0 || i === wrt[0])
        ? mapNumbers(a, () => 2 * random() - 1)
        : mapNumbers(a, () => 0),
    );
    let jvp: number;
    try {
      jvp = nabla.forward(...nabla.args)(...wrt.map((i) => v[i]));
    } catch (error) {
      return { kind: "crash", message: `forward mode threw: ${String(error)}` };
    }
    const vjp = wrt.reduce((s, i, k) => s + dot(gradients[k], v[i]), 0);
    const scale = wrt.reduce(
      (s, i, k) =>
        s + Math.abs(dot(mapNumbers(gradients[k], Math.abs), mapNumbers(v[i], Math.abs))),
      0,
    );
    if (!agree(jvp, vjp, 1e-8, scale)) {
      return { kind: "wrong", message: `direction ${d}: forward mode ${jvp}, reverse mode ${vjp}` };
    }
    const along = (t: number) => plain.objective(...args.map((a, i) => step(a, v[i], t)));
    // Moving every number may move an index too (`landmarks[point]`): the plain program may
    // then throw, or jump; neither direction is one to check against differences.
    let difference: number | undefined;
    try {
      difference = smoothDerivative(along, 0) ?? curvedDerivative(along);
    } catch {
      difference = undefined;
    }
    if (difference === undefined) continue; // a kink or a jump (an integer count moved): no check
    if (!agree(jvp, difference, 1e-4, scale)) {
      return {
        kind: "wrong",
        message: `direction ${d}: derivative ${jvp}, central differences ${difference}`,
      };
    }
    checks++;
  }
  if (checks === 0) return { kind: "wrong", message: "no direction was smooth enough to check" };
  return { kind: "ok", checks };
}
