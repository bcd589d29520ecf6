import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { installHooks } from "../src/register/install.js";
import { compileFiles, diagnosticsText, smoothDerivative } from "./support/harness.js";
import {
  randomStructuredProgram,
  type Param,
  type RandomStructuredProgram,
} from "./support/random-structured.js";

// Random programs over arrays and objects (test/support/random-structured.ts): local
// Float64Arrays and number[]s written in loops and read before and after overwrites, in-place
// updates, prefix sums, double buffers, aliases, arrays of arrays, objects holding arrays,
// `.push`, `.slice`, `.map`, `.reduce`, `for…of`, helpers that write arrays or return new ones,
// early returns in loops over arrays. The main function takes two numbers, or an array (a
// number[] or a Float64Array) and a number, or an object { s, v } and a number. The compiler
// must accept every program; at seeded random points every coordinate of the gradient
// (reverse mode) and of the differential along each basis tangent (forward mode) must agree
// with finite differences wherever the function is smooth there, and forward and reverse mode
// with each other everywhere: ⟨J·v, w⟩ = ⟨v, Jᵀ·w⟩ for a random tangent v of the arguments'
// own kinds and a random w. NABLA_SEED picks the programs, NABLA_PROGRAMS how many.

const seed = Number(process.env.NABLA_SEED ?? 20261122);
const count = Number(process.env.NABLA_PROGRAMS ?? 200);

/**
 * Programs of the default run that hit a known nabla bug, left out: seed → the bug. The checks
 * stay as they are; remove an entry when its bug is fixed.
 */
const KNOWN_BUGS: Record<number, string> = {};

const seeds = [
  ...new Set(fc.sample(fc.integer({ min: 1, max: 2 ** 30 }), { numRuns: count, seed: seed + 1 })),
].filter((s) => !(s in KNOWN_BUGS));
const programs = seeds.map(randomStructuredProgram);

const HEADER = `import { differential, gradient, valueWithPullback, jacobian } from "nabla";`;

/** Programs whose first parameter is an array: `jacobian` takes its forward mode along all directions. */
const withArray = (p: RandomStructuredProgram) =>
  p.params[0]!.kind === "number[]" || p.params[0]!.kind === "Float64Array";

/**
 * For a program `main(v, x)` with an array v: `lanes(v, x)`, the program at five values of x
 * (more outputs than v has numbers, so its Jacobian in v is taken in forward mode, along all
 * directions at once).
 */
function lanesWrapper(p: RandomStructuredProgram): string {
  return `export function lanes_${p.seed}(v: ${p.params[0]!.kind}, x: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < 5; i++) out.push(${p.name}(v, x + 0.25 * i));
  return out;
}`;
}

/** One module with the programs and, for each, its differential, gradient and pullback. */
function moduleOf(ps: RandomStructuredProgram[]): string {
  const table = (name: string, operator: string) =>
    `export const ${name} = {\n${ps.map((p) => `  ${p.name}: ${operator}(${p.name}),`).join("\n")}\n};`;
  const lanes = ps.filter(withArray);
  const laneTable = (name: string, operator: string, wrt = "0") =>
    `export const ${name} = {\n${lanes.map((p) => `  ${p.name}: ${operator}(lanes_${p.seed}, { wrt: ${wrt} }),`).join("\n")}\n};`;
  return [
    HEADER,
    ...ps.map((p) => p.source),
    table("differentials", "differential"),
    table("gradients", "gradient"),
    table("pullbacks", "valueWithPullback"),
    `export const primals = { ${ps.map((p) => p.name).join(", ")} };`,
    ...lanes.map(lanesWrapper),
    laneTable("jacobians", "jacobian"),
    laneTable("laneDifferentials", "differential"),
    laneTable("bothJacobians", "jacobian", "[0, 1]"),
    laneTable("xDifferentials", "differential", "1"),
  ].join("\n\n");
}

/** The seed of the program at an offset of `moduleOf(programs)`, for compile errors. */
function seedAt(offset: number): number | undefined {
  let at = HEADER.length + 2;
  for (const p of programs) {
    if (offset < at + p.source.length) return offset >= at ? p.seed : undefined;
    at += p.source.length + 2;
  }
  return undefined;
}

/** The programs compiled once; those with errors are reported, and the others still checked. */
let compiled:
  | { result: ReturnType<typeof compileFiles>; errors: string; rejected: Set<number | undefined> }
  | undefined;
function compileAll(): NonNullable<typeof compiled> {
  if (compiled) return compiled;
  const result = compileFiles({ "main.ts": moduleOf(programs) });
  const errors = result.diagnostics.filter((d) => d.severity === "error");
  compiled = {
    result,
    errors: errors.length ? diagnosticsText({ ...result, diagnostics: errors }) : "",
    rejected: new Set(errors.map((d) => seedAt(d.loc.start))),
  };
  return compiled;
}

// ---------------------------------------------------------------------------------------------
// Arguments and tangents: numbers, number[], Float64Array and objects of them.

type Value = number | number[] | Float64Array | { [field: string]: Value };
type Path = (string | number)[];

/** Arguments for `params` from the numbers of r, in order; fresh on every call. */
function build(params: Param[], r: number[]): Value[] {
  let at = 0;
  const one = (p: Param): Value => {
    if (p.kind === "number") return r[at++]!;
    if (p.kind === "object") return Object.fromEntries(p.fields.map((f) => [f.name, one(f)]));
    const xs = r.slice(at, (at += p.length));
    return p.kind === "Float64Array" ? Float64Array.from(xs) : xs;
  };
  return params.map(one);
}

function size(params: Param[]): number {
  return params.reduce(
    (n, p) => n + (p.kind === "number" ? 1 : p.kind === "object" ? size(p.fields) : p.length),
    0,
  );
}

/** The paths of the numbers in a value, in a fixed order. */
function leaves(v: unknown, path: Path = []): Path[] {
  if (typeof v === "number") return [path];
  if (v instanceof Float64Array || Array.isArray(v))
    return Array.from(v as ArrayLike<unknown>, (x, i) => leaves(x, [...path, i])).flat();
  if (v !== null && typeof v === "object")
    return Object.keys(v).flatMap((k) => leaves((v as Record<string, unknown>)[k], [...path, k]));
  throw new Error(`not a tangent at ${pathText(path)}: ${String(v)}`);
}

/** The shape of a value: kinds of arrays and their lengths, keys of objects. */
function shape(v: unknown): string {
  if (typeof v === "number") return "number";
  if (v instanceof Float64Array) return `Float64Array(${v.length})`;
  if (Array.isArray(v)) return `[${v.map(shape).join(", ")}]`;
  if (v !== null && typeof v === "object")
    return `{ ${Object.entries(v)
      .map(([k, x]) => `${k}: ${shape(x)}`)
      .join(", ")} }`;
  return typeof v;
}

function getAt(v: unknown, path: Path): number {
  let x = v;
  for (const k of path) x = (x as Record<string | number, unknown>)[k];
  return x as number;
}

function setAt(v: unknown, path: Path, value: number): void {
  let x = v;
  for (const k of path.slice(0, -1)) x = (x as Record<string | number, unknown>)[k];
  (x as Record<string | number, unknown>)[path[path.length - 1]!] = value;
}

function pathText(path: Path): string {
  return path.map((k) => (typeof k === "number" ? `[${k}]` : `.${k}`)).join("");
}

/** Whether a and b have the same shape and numbers (NaN equal to NaN). */
function sameNumbers(a: Value[], b: Value[]): boolean {
  const same = (x: number, y: number) => x === y || (Number.isNaN(x) && Number.isNaN(y));
  return (
    a.map(shape).join() === b.map(shape).join() &&
    leaves(a).every((path) => same(getAt(a, path), getAt(b, path)))
  );
}

/** Arguments as text, Float64Arrays as arrays. */
function text(args: Value[]): string {
  return JSON.stringify(args, (_, v) => (v instanceof Float64Array ? Array.from(v) : v));
}

/** A value shaped like v (same kinds), its numbers from `next`. */
function like(v: Value, next: () => number): Value {
  if (typeof v === "number") return next();
  if (v instanceof Float64Array) return Float64Array.from(v, next);
  if (Array.isArray(v)) return v.map(next);
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, like(x, next)]));
}

/** ⟨a, b⟩ over the numbers of a, and Σ|aᵢ·bᵢ| (the scale of its rounding error). */
function dot(a: Value, b: unknown): { value: number; scale: number } {
  let value = 0;
  let scale = 0;
  for (const path of leaves(a)) {
    const term = getAt(a, path) * getAt(b, path);
    value += term;
    scale += Math.abs(term);
  }
  return { value, scale };
}

// ---------------------------------------------------------------------------------------------

/**
 * A coordinate in [-2, 2]: mostly uniform, sometimes fast-check's doubles (biased to 0, tiny
 * values and the ends), which alone would put most points where a branch always goes one way.
 */
const coordinate = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.noBias(fc.integer({ min: -(2 ** 30), max: 2 ** 30 })).map((k) => k / 2 ** 29),
  },
  { weight: 1, arbitrary: fc.double({ min: -2, max: 2, noNaN: true }) },
);

type Fn = (...args: Value[]) => number;
interface Exports {
  jacobians: Record<string, (v: Value, x: number) => ArrayLike<number>[]>;
  laneDifferentials: Record<string, (v: Value, x: number) => (dv: Value) => number[]>;
  bothJacobians: Record<string, (v: Value, x: number) => [ArrayLike<number>, number][]>;
  xDifferentials: Record<string, (v: Value, x: number) => (dx: number) => number[]>;
  primals: Record<string, Fn>;
  gradients: Record<string, (...args: Value[]) => Value[]>;
  differentials: Record<string, (...args: Value[]) => (...tangents: Value[]) => number>;
  pullbacks: Record<
    string,
    (...args: Value[]) => { value: number; pullback: (w: number) => Value[] }
  >;
}

test(`compiles ${programs.length} random programs over arrays and objects (seed ${seed})`, () => {
  const { errors, rejected } = compileAll();
  assert.equal(errors, "", `seeds ${[...rejected].join(", ")} do not compile:\n${errors}`);
});

test("forward and reverse mode agree with finite differences and with each other", async () => {
  const { result, rejected } = compileAll();
  if (rejected.has(undefined)) assert.fail("an error outside the programs: nothing to check");
  const accepted = programs.filter((p) => !rejected.has(p.seed));
  // Loaded from the outputs compiled above (compiled again without the rejected programs).
  const { outputs, dir } = rejected.size ? compileFiles({ "main.ts": moduleOf(accepted) }) : result;
  installHooks(outputs);
  const m = (await import(pathToFileURL(join(dir, "main.ts")).href)) as Exports;
  const failures: string[] = [];
  let [checked, coordinates] = [0, 0];
  for (const p of accepted) {
    const f = m.primals[p.name]!;
    const points = fc.sample(
      fc.tuple(
        fc.array(coordinate, { minLength: size(p.params), maxLength: size(p.params) }),
        fc.integer(),
      ),
      { numRuns: 3, seed: p.seed },
    );
    const messages: string[] = [];
    const fail = (message: string) => messages.push(message);
    try {
      for (const [r, tangentSeed] of points) {
        const args = () => build(p.params, r);
        const where = `at ${text(args())}`;
        const grads = m.gradients[p.name]!(...args());
        // One tangent per argument, of the argument's shape and kinds.
        const shapes = args().map(shape);
        if (grads.map(shape).join() !== shapes.join()) {
          fail(`${where}: gradient ${grads.map(shape).join(", ")}, arguments ${shapes.join(", ")}`);
          break;
        }
        const zeros = args().map((a) => like(a, () => 0));
        // Each coordinate: reverse (the gradient) and forward (the differential along it)
        // against finite differences of the primal.
        for (let k = 0; k < p.params.length; k++) {
          for (const path of leaves(args()[k]!)) {
            const what = `${where}, ∂/∂${p.params[k]!.name}${pathText(path)}`;
            const at = (t: number) => {
              const xs = args();
              if (path.length === 0) xs[k] = t;
              else setAt(xs[k], path, t);
              return f(...xs);
            };
            const expected = smoothDerivative(
              at,
              path.length ? getAt(args()[k], path) : (args()[k] as number),
            );
            coordinates++;
            if (expected === undefined) continue;
            checked++;
            const basis = zeros.map((z) => like(z, () => 0));
            if (path.length === 0) basis[k] = 1;
            else setAt(basis[k], path, 1);
            const forward = m.differentials[p.name]!(...args())(...basis);
            const reverse = path.length ? getAt(grads[k], path) : (grads[k] as number);
            const tolerance = 1e-4 * Math.max(1, Math.abs(expected));
            if (!(Math.abs(forward - expected) <= tolerance))
              fail(`${what}: forward ${forward}, finite differences ${expected}`);
            if (!(Math.abs(reverse - expected) <= tolerance))
              fail(`${what}: reverse ${reverse}, finite differences ${expected}`);
          }
        }
        // ⟨J·v, w⟩ = ⟨v, Jᵀ·w⟩ (a pullback called twice gives the same adjoints), and what
        // the operators leave in the arguments (the function may write them) and the value
        // valueWithPullback gives are what the function leaves and gives.
        let s = tangentSeed;
        const next = () => {
          s = (Math.imul(s, 1103515245) + 12345) >>> 0;
          return (s / 2 ** 32) * 2 - 1;
        };
        const v = args().map((a) => like(a, next));
        const w = next();
        const [called, differentiated, pulled, graded] = [args(), args(), args(), args()];
        const primal = f(...called);
        const forward = m.differentials[p.name]!(...differentiated)(...v) * w;
        const { value, pullback } = m.pullbacks[p.name]!(...pulled);
        m.gradients[p.name]!(...graded);
        if (!Object.is(value, primal))
          fail(`${where}: valueWithPullback gives ${value}, the function ${primal}`);
        for (const [op, after] of [
          ["differential", differentiated],
          ["valueWithPullback", pulled],
          ["gradient", graded],
        ] as const) {
          if (!sameNumbers(after, called))
            fail(
              `${where}: ${op} leaves ${text(after)} in the arguments, the function ${text(called)}`,
            );
        }
        const back = pullback(w);
        if (!sameNumbers(pullback(w), back)) fail(`${where}: a second pullback differs`);
        const products = v.map((vk, k) => dot(vk, back[k]));
        const reverse = products.reduce((t, x) => t + x.value, 0);
        const scale = products.reduce((t, x) => t + x.scale, Math.abs(forward));
        // Where an intermediate is NaN or infinite, 0·NaN makes the modes differ: not compared.
        if (Number.isFinite(forward) && Number.isFinite(reverse)) {
          if (!(Math.abs(forward - reverse) <= 1e-9 * Math.max(1, scale)))
            fail(`${where}: ⟨J·v, w⟩ = ${forward} but ⟨v, Jᵀ·w⟩ = ${reverse}`);
        }
      }
    } catch (error) {
      fail(`throws ${(error as Error).stack}`);
    }
    if (messages.length > 0) {
      const shown = messages.slice(0, 4).join("\n");
      const more = messages.length > 4 ? `\n(${messages.length - 4} more)` : "";
      failures.push(`seed ${p.seed}:\n${shown}${more}\n${p.source}`);
    }
  }
  assert.equal(failures.length, 0, `${failures.length} programs fail:\n\n${failures.join("\n\n")}`);
  assert.ok(
    checked > coordinates / 2,
    `too few smooth points: ${checked} of ${coordinates} coordinates checked`,
  );
});

test("jacobian along all directions at once agrees with differential, column by column", async () => {
  const { result, rejected } = compileAll();
  if (rejected.has(undefined)) assert.fail("an error outside the programs: nothing to check");
  const accepted = programs.filter((p) => !rejected.has(p.seed));
  const { outputs, dir } = rejected.size ? compileFiles({ "main.ts": moduleOf(accepted) }) : result;
  installHooks(outputs);
  const m = (await import(pathToFileURL(join(dir, "main.ts")).href)) as Exports;
  const failures: string[] = [];
  let compared = 0;
  for (const p of accepted.filter(withArray)) {
    const points = fc.sample(
      fc.array(coordinate, { minLength: size(p.params), maxLength: size(p.params) }),
      { numRuns: 2, seed: p.seed + 7 },
    );
    const messages: string[] = [];
    try {
      for (const r of points) {
        const [v, x] = build(p.params, r) as [number[] | Float64Array, number];
        const fresh = () => (v instanceof Float64Array ? v.slice() : [...v]);
        // Twice: the first call learns m at the call site, the second goes straight to forward mode.
        for (let round = 0; round < 2; round++) {
          const J = m.jacobians[p.name]!(fresh(), x);
          // With respect to v and x at once: each row's v block is J's row (another mode,
          // maybe: to rounding), and its x block the differential along x.
          const both = m.bothJacobians[p.name]!(fresh(), x);
          const alongX = m.xDifferentials[p.name]!(fresh(), x)(1);
          const near = (a: number, b: number) =>
            !Number.isFinite(b) || Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
          both.forEach(([byV, byX], i) => {
            compared++;
            if (!near(byX, alongX[i]!))
              messages.push(
                `at ${text([v, x])}: both[${i}][1] = ${byX}, differential ${alongX[i]}`,
              );
            Array.from(byV).forEach((d, j) => {
              if (!near(d, J[i]![j]!))
                messages.push(`at ${text([v, x])}: both[${i}][0][${j}] = ${d}, J ${J[i]![j]}`);
            });
          });
          for (let j = 0; j < v.length; j++) {
            const e = fresh();
            for (let i = 0; i < e.length; i++) e[i] = i === j ? 1 : 0;
            const column = m.laneDifferentials[p.name]!(fresh(), x)(e);
            column.forEach((expected, i) => {
              const got = J[i]![j]!;
              compared++;
              // Where a tangent is infinite or NaN, the Jacobian may skip its product with an
              // exact zero (0 instead of NaN): only finite columns are compared.
              if (!Number.isFinite(expected)) return;
              if (!(Math.abs(got - expected) <= 1e-12 * Math.max(1, Math.abs(expected))))
                messages.push(
                  `at ${text([v, x])}: J[${i}][${j}] = ${got}, differential ${expected}`,
                );
            });
          }
        }
      }
    } catch (error) {
      messages.push(`throws ${(error as Error).stack}`);
    }
    if (messages.length > 0)
      failures.push(`seed ${p.seed}:\n${messages.slice(0, 4).join("\n")}\n${p.source}`);
  }
  assert.equal(failures.length, 0, `${failures.length} programs fail:\n\n${failures.join("\n\n")}`);
  assert.ok(compared > 500, `only ${compared} entries compared`);
});
