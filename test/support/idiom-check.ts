// Checks one program of random-idioms.ts two independent ways, as the other random tests do:
// forward and reverse mode against finite differences of the plain JavaScript program (types
// stripped by TypeScript, not by nabla), forward against reverse mode (⟨J·v, w⟩ = ⟨v, Jᵀ·w⟩),
// and the values nabla's code computes against the plain program's. Also minimizes a failing
// program by dropping chunks while it still fails the same way.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { compileFiles, diagnosticsText, smoothDerivative } from "./harness.js";
import { rng } from "./random-program.js";
import { hasEnv, programSource, type Chunk } from "./random-idioms.js";

/**
 * ok; rejected: a compile error (a clear diagnostic, but the idiom is not supported), or the
 * documented TypeError of a function value or interface object nabla cannot follow; crash:
 * the compiler throws, its output does not load, or a derivative throws where the program does
 * not (or the plain program itself does not load: a bug of the generator); wrong: a value or
 * derivative differs.
 */
/** The messages of the TypeErrors a derivative throws by design (see docs/guide.md). */
const RUN_TIME_REFUSAL =
  /^nabla: .*(is not one of the functions nabla saw used as a value|that is an instance of none of the classes)/;

export type OutcomeKind = "ok" | "rejected" | "crash" | "wrong";

export interface Outcome {
  kind: OutcomeKind;
  messages: string[];
}

interface Checked {
  seed: number;
  name: string;
  chunks: Chunk[];
}

type Env = object | undefined;
type Primal = (x: number, y: number, env?: Env) => number;
interface Plain {
  primal: Primal;
  makeEnv: () => Env;
}
interface Compiled extends Plain {
  jvp: (x: number, y: number, env?: Env) => (dx: number, dy: number) => number;
  vwg: (x: number, y: number, env?: Env) => { value: number; gradient: [number, number] };
}

const RUNTIME = new URL("../../src/runtime/index.js", import.meta.url).href;

/** Imports JavaScript text as a module from a fresh file. */
async function importText(
  dir: string,
  file: string,
  text: string,
): Promise<Record<string, unknown>> {
  const path = join(dir, file);
  writeFileSync(path, text);
  return (await import(pathToFileURL(path).href)) as Record<string, unknown>;
}

/** The program with its types stripped by TypeScript: nabla plays no part in it. */
async function loadPlain(p: Checked, dir: string): Promise<Plain> {
  const js = ts.transpileModule(programSource(p), {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
  }).outputText;
  // Operators called at module level (`const gradE = gradient(energy)`) are nabla's runtime
  // ones, which compile their function when the program was not compiled, as a user's
  // program run without the compile step does.
  const m = await importText(dir, "plain.mjs", js.replaceAll(`"nabla"`, `"${RUNTIME}"`));
  const makeEnv = m[`makeEnv_${p.name}`] as (() => Env) | undefined;
  return { primal: m[p.name] as Primal, makeEnv: makeEnv ?? (() => undefined) };
}

/** The program compiled by nabla, with its differential and gradient in x and y. */
function compiledSource(p: Checked): string {
  return [
    `import { differential, valueWithGradient } from "nabla";`,
    programSource(p),
    `export const nablaJvp = differential(${p.name}, { wrt: [0, 1] });`,
    `export const nablaVwg = valueWithGradient(${p.name}, { wrt: [0, 1] });`,
  ].join("\n\n");
}

const same = (a: number, b: number) => a === b || (Number.isNaN(a) && Number.isNaN(b));

/**
 * Values agree: to the bit, or, where the program calls an operator itself (a nested
 * gradient, computed otherwise in the compiled derivative than in the plain program's
 * run-time one), to rounding.
 */
const agree = (p: Checked, a: number, b: number) =>
  same(a, b) ||
  (p.chunks.some((c) => c.imports?.length) && Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b)));

/** Compiles, loads and checks a program at `points` seeded points in [-2, 2]². */
export async function checkProgram(p: Checked, points = 3): Promise<Outcome> {
  const source = compiledSource(p);
  let result: ReturnType<typeof compileFiles>;
  try {
    result = compileFiles({ "main.ts": source });
  } catch (error) {
    return { kind: "crash", messages: [`the compiler throws: ${(error as Error).stack}`] };
  }
  const errors = result.diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0)
    return { kind: "rejected", messages: [diagnosticsText({ ...result, diagnostics: errors })] };
  const dir = result.dir;
  let plain: Plain;
  try {
    plain = await loadPlain(p, dir);
  } catch (error) {
    // Not nabla's fault: the generator wrote a program JavaScript itself cannot load.
    return { kind: "crash", messages: [`the plain program does not load: ${String(error)}`] };
  }
  let compiled: Compiled;
  try {
    const code = result.outputs.get(join(result.dir, "main.ts"))!.code;
    const m = await importText(dir, "main.mjs", code.replaceAll(`"nabla/runtime"`, `"${RUNTIME}"`));
    compiled = {
      primal: m[p.name] as Primal,
      makeEnv: (m[`makeEnv_${p.name}`] as (() => Env) | undefined) ?? (() => undefined),
      jvp: m.nablaJvp as Compiled["jvp"],
      vwg: m.nablaVwg as Compiled["vwg"],
    };
  } catch (error) {
    return { kind: "crash", messages: [`nabla's output does not load: ${(error as Error).stack}`] };
  }
  const r = rng(p.seed * 13 + 7);
  const coordinate = () => Math.round((r() * 4 - 2) * 1e6) / 1e6;
  const wrong: string[] = [];
  const f = (x: number, y: number) => plain.primal(x, y, plain.makeEnv());
  for (let k = 0; k < points; k++) {
    const [x, y] = [coordinate(), coordinate()];
    const [vx, vy, w] = [r() * 2 - 1, r() * 2 - 1, r() * 2 - 1];
    const where = `at (${x}, ${y})`;
    const value = f(x, y);
    let results;
    try {
      const env = () => (hasEnv(p) ? compiled.makeEnv() : undefined);
      results = {
        primal: compiled.primal(x, y, env()),
        vwg: compiled.vwg(x, y, env()),
        ex: compiled.jvp(x, y, env())(1, 0),
        ey: compiled.jvp(x, y, env())(0, 1),
        along: compiled.jvp(x, y, env())(vx, vy),
      };
    } catch (error) {
      // The derivative's documented refusal at run time: a function value holding a function
      // nabla did not compile (a closure in data), an object of no class nabla knows.
      if (error instanceof TypeError && RUN_TIME_REFUSAL.test(error.message))
        return { kind: "rejected", messages: [`${where}: ${error.message}`] };
      return { kind: "crash", messages: [`${where}: throws ${(error as Error).stack}`] };
    }
    if (!agree(p, results.primal, value))
      wrong.push(`${where}: nabla's primal gives ${results.primal}, the plain program ${value}`);
    if (!agree(p, results.vwg.value, value))
      wrong.push(
        `${where}: valueWithGradient's value is ${results.vwg.value}, the plain program's ${value}`,
      );
    const [gx, gy] = results.vwg.gradient;
    const forward = results.along * w;
    const reverse = vx * (w * gx) + vy * (w * gy);
    const scale = Math.abs(forward) + Math.abs(vx * w * gx) + Math.abs(vy * w * gy);
    if (Number.isFinite(forward) && Number.isFinite(reverse)) {
      if (!(Math.abs(forward - reverse) <= 1e-9 * Math.max(1, scale)))
        wrong.push(`${where}: ⟨J·v, w⟩ = ${forward} but ⟨v, Jᵀ·w⟩ = ${reverse}`);
    }
    const expected = [smoothDerivative((t) => f(t, y), x), smoothDerivative((t) => f(x, t), y)];
    const names = ["x", "y"];
    [
      [results.ex, gx],
      [results.ey, gy],
    ].forEach(([fwd, rev], i) => {
      const e = expected[i];
      if (e === undefined) return;
      const tolerance = 1e-4 * Math.max(1, Math.abs(e));
      if (!(Math.abs(fwd! - e) <= tolerance))
        wrong.push(`${where}, d/d${names[i]}: forward ${fwd}, finite differences ${e}`);
      if (!(Math.abs(rev! - e) <= tolerance))
        wrong.push(`${where}, d/d${names[i]}: reverse ${rev}, finite differences ${e}`);
    });
  }
  return wrong.length ? { kind: "wrong", messages: wrong } : { kind: "ok", messages: [] };
}

/**
 * What kind of failure an outcome is, to group failures and to tell whether a smaller program
 * fails the same way: the kind, and for a rejection its diagnostic codes and messages, for a
 * crash its first line (names and numbers blanked).
 */
export function signature(outcome: Outcome): string {
  const blank = (text: string) =>
    text
      .replace(/'[^']*'/g, "'…'")
      .replace(/-?\d+(\.\d+)?(e[-+]?\d+)?/g, "#")
      .replace(/\b[\w$]*\d[\w$]*\b/g, "#")
      .trim();
  if (outcome.kind === "rejected") {
    const errors = outcome.messages.join("\n").match(/error NABLA\d+: .*/g) ?? [];
    return `rejected: ${[...new Set(errors.map((e) => blank(e.replace(/^error /, ""))))].join("; ")}`;
  }
  if (outcome.kind === "crash") return `crash: ${blank(outcome.messages[0]!.split("\n")[0]!)}`;
  return outcome.kind;
}

/**
 * A smaller program that fails the same way (same signature): chunks are dropped one at a
 * time while the failure stays (a program that no longer compiles because a later chunk read
 * what a dropped one declared is not the same failure).
 */
export async function minimize<P extends Checked>(p: P, outcome: Outcome): Promise<P> {
  const wanted = signature(outcome);
  let current = p;
  for (let changed = true; changed;) {
    changed = false;
    for (let k = current.chunks.length - 1; k >= 0; k--) {
      const chunk = current.chunks[k]!;
      if (chunk.idiom === "start" || chunk.idiom === "return") continue;
      const smaller = { ...current, chunks: current.chunks.filter((_, j) => j !== k) };
      if (signature(await checkProgram(smaller)) === wanted) {
        current = smaller;
        changed = true;
      }
    }
  }
  return current;
}

/** A failure as text: the seed, the idioms, the messages (a few) and the program. */
export function failureText(
  p: Checked & { idioms: readonly string[] },
  outcome: Outcome,
  shown = 4,
): string {
  const more = outcome.messages.length > shown ? `\n(${outcome.messages.length - shown} more)` : "";
  return `seed ${p.seed} [${p.idioms.join(", ")}] ${outcome.kind}:\n${outcome.messages.slice(0, shown).join("\n")}${more}\n${programSource(p)}`;
}
