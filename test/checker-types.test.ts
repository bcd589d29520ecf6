import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { compileProgram } from "../src/compiler/compile.js";
import { openChecker } from "../src/compiler/types/typescript-checker.js";
import {
  assertClose,
  compileFiles,
  diagnosticsText,
  finiteGradient,
  loadProgram,
  writeProgram,
} from "./support/harness.js";
import { checkTwoWays } from "./support/two-ways.js";

// Types from TypeScript's checker (types/typescript-checker.ts): code that leaves its types to
// TypeScript — unannotated results, locals, callbacks, generics — and the optional and default
// parameters and fields that follow from reading declared types whole. Each program is written
// as plain TypeScript, then f's gradient is checked against central differences and its
// differential against the gradient (forward against reverse mode).

test("inferred results: a helper returning an array or an object literal, unannotated", async () => {
  await checkTwoWays(`
function make(x: number, y: number) {
  return [x * y, x + y, 2];
}
function polar(x: number, y: number) {
  return { r: Math.hypot(x, y), angle: Math.atan2(y, x), tag: "p" };
}
export function f(x: number, y: number) {
  const v = make(x, y);
  const p = polar(x, y);
  return v[0] * p.r + v[1] * Math.sin(p.angle) + v[2];
}`);
});

test("inferred types: module data built by a call, loop variables and callback parameters", async () => {
  await checkTwoWays(`
function makeSamples(n: number) {
  const out = [];
  for (let i = 0; i < n; i++) out.push({ t: i / n, w: 1 + (i % 3) });
  return out;
}
const samples = makeSamples(6);
const scale = Math.sqrt(samples.length);
export function f(x: number, y: number) {
  const residuals = samples.map((s) => (x * s.t + y * s.t * s.t - Math.cos(s.t)) * s.w);
  let total = 0;
  for (const r of residuals) total += r * r;
  samples.forEach((s) => {
    total += 0.1 * s.w * x * y;
  });
  return samples.reduce((acc, s) => acc + s.t * x, total) / scale;
}`);
});

test("optional parameters: '?' with '??', given and omitted", async () => {
  await checkTwoWays(`
function step(v: number, rate: number, h?: number) {
  const dt = h ?? 0.25;
  return v - rate * v * dt;
}
export function f(x: number, y: number) {
  return step(x, y) + step(x, y, 0.5) * step(y, x, x);
}`);
});

test("a tuple with optional or rest elements is as long as the array given: its gradient has that shape, in JavaScript and wasm", async () => {
  // `[a: number, b?: number]` given `[3]` had the gradient [2, 0] (its optional element read
  // as required); `[number, number?]` and `[number, ...number[]]` did not compile.
  type Gradient = (p: number[]) => number[];
  type Differential = (p: number[]) => (dp: number[]) => number;
  const names = ["optional", "named", "rest", "aliased"] as const;
  const m = await loadProgram<
    Record<(typeof names)[number], (p: number[]) => number> & {
      gradients: Record<string, [Gradient, Gradient]>;
      differentials: Record<string, Differential>;
    }
  >({
    "main.ts": `import { differential, gradient } from "nabla";
export function optional(p: [number, number?]) { return p[0] * (p[1] ?? 2) + p.length; }
export function named(p: [a: number, b?: number]) { return p[0] * (p[1] ?? 2); }
export function rest(p: [number, ...number[]]) { return p.reduce((s, v) => s + v * v, 0) * p[0]; }
type Triple = [a: number, b?: number, c?: number];
export function aliased(p: Triple) { const [a, b = 2, c = 3] = p; return a * b * Math.sin(c); }
export const gradients = {
  optional: [gradient(optional), gradient(optional, { backend: "wasm" })],
  named: [gradient(named), gradient(named, { backend: "wasm" })],
  rest: [gradient(rest), gradient(rest, { backend: "wasm" })],
  aliased: [gradient(aliased), gradient(aliased, { backend: "wasm" })],
};
export const differentials = {
  optional: differential(optional),
  named: differential(named),
  rest: differential(rest),
  aliased: differential(aliased),
};
`,
  });
  for (const name of names) {
    for (const p of [
      [0.7],
      [0.7, -1.3],
      ...(name === "optional" || name === "named" ? [] : [[0.7, -1.3, 0.4]]),
    ]) {
      const expected = finiteGradient((...v) => m[name](v), p);
      for (const [i, g] of m.gradients[name]!.entries()) {
        const what = `${name} at [${p}], ${i === 0 ? "js" : "wasm"}`;
        assert.equal(g(p).length, p.length, `${what}: the gradient's length`);
        g(p).forEach((gi, k) => assertClose(gi, expected[k]!, 1e-6, `${what}: ∂/∂p${k}`));
      }
      const forward = p.map((_, k) =>
        m.differentials[name]!(p)(p.map((_, j) => (j === k ? 1 : 0))),
      );
      const reverse = m.gradients[name]![0](p);
      forward.forEach((dk, k) =>
        assertClose(dk, reverse[k]!, 1e-12, `${name} at [${p}]: ∂/∂p${k}, forward mode`),
      );
    }
  }
});

test("default parameters: omitted, given, and a default reading an earlier parameter", async () => {
  await checkTwoWays(`
function simulate(v0: number, k: number, steps = 8, dt = 1 / steps) {
  let v = v0;
  for (let i = 0; i < steps; i++) v -= k * v * v * dt;
  return v;
}
export function f(x: number, y = 0.5) {
  return simulate(x, y) + simulate(x, y, 4) + simulate(y, x, 3, 0.1);
}`);
});

test("optional fields: object literals that leave them out, spread over defaults, ?? on them", async () => {
  await checkTwoWays(`
interface Options { gain?: number; offset?: number; label?: string }
const defaults = { gain: 2, offset: 1 };
function apply(x: number, options: Options) {
  const o = { ...defaults, ...options };
  return o.gain * x * x + o.offset * x + (options.gain ?? 0);
}
export function f(x: number, y: number) {
  return apply(x, {}) + apply(y, { gain: x }) + apply(x, { offset: y, label: "b" });
}`);
});

test("optional array and object fields spread over defaults: those left out keep the default", async () => {
  // A field of an array or object type left out of the options used to be read as undefined
  // (its type and the default's are alike, but not the same object): a TypeError at run time.
  await checkTwoWays(`
interface Shape { weights?: number[]; origin?: { x: number; y: number }; scale?: number }
const DEFAULTS: Required<Shape> = { weights: [1, 1], origin: { x: 0, y: 0 }, scale: 1 };
function energy(p: number[], shape: Shape) {
  const o = { ...DEFAULTS, ...shape };
  let e = 0;
  for (let i = 0; i < p.length; i++) e += o.weights[i]! * o.scale * (p[i]! - o.origin.x) ** 2;
  return e;
}
export function f(x: number, y: number) {
  return (
    energy([x, y], {}) +
    energy([x, y], { weights: [2, y] }) +
    energy([y, x], { origin: { x: 0.5, y: x }, scale: 3 })
  );
}`);
});

test("declared types nabla did not read itself: extends, Pick, Partial, a class with a getter", async () => {
  await checkTwoWays(`
interface Base { a: number }
interface Extended extends Base { b: number }
type Only = Pick<Extended, "b">;
class Vec2 {
  static readonly unit = 1;
  x = 0;
  y = 0;
  get length() {
    return Math.hypot(this.x, this.y);
  }
}
function weigh(e: Extended, o: Only, p: Partial<Extended>, v: Vec2) {
  return e.a * e.b + o.b + (p.a ?? 1) + v.x * v.y;
}
export function f(x: number, y: number) {
  const v: Vec2 = { x, y, length: 0 } as Vec2;
  return weigh({ a: x, b: y }, { b: x * y }, {}, v);
}`);
});

test("fields typed by utility types (Partial, Readonly, Pick, Required, ReadonlyArray): values, gradients, and the gradient of such an object", async () => {
  const body = `
interface Physics {
  gravity: number;
  drag: number;
  name: string;
}
interface Config {
  mass: number;
  overrides?: Partial<Physics>;
  base: Readonly<Physics>;
  only: Pick<Physics, "drag">;
  weights: ReadonlyArray<number>;
  full?: Required<Partial<Physics>>;
}
export function energy(v: number, config: Config): number {
  const p = { ...config.base, ...config.overrides };
  let w = 0;
  for (const x of config.weights) w += x * v;
  return 0.5 * config.mass * v * v + config.mass * p.gravity - p.drag * v + config.only.drag * w + (config.full?.gravity ?? 0);
}
export function f(x: number, y: number): number {
  const base = { gravity: 9.81, drag: 0.1, name: "earth" };
  return (
    energy(x, { mass: y, base, only: { drag: x }, weights: [1, y] }) +
    energy(y, { mass: 1, overrides: { drag: x }, base, only: { drag: 2 }, weights: [], full: { gravity: x, drag: 1, name: "x" } })
  );
}`;
  await checkTwoWays(body);
  const m = await loadProgram<{
    g: (v: number, c: unknown) => unknown;
  }>({
    "main.ts": `import { gradient } from "nabla";
${body}
export const g = gradient(energy, { wrt: 1 });
`,
  });
  const config = {
    mass: 2,
    base: { gravity: 9.81, drag: 0.1, name: "earth" },
    only: { drag: 3 },
    weights: [1, 3],
    overrides: { gravity: 1 },
  };
  // p = { ...base, ...overrides }: gravity 1 from overrides, drag 0.1 from base; w = 1·3 + 3·3.
  assert.deepEqual(m.g(3, config), {
    mass: 0.5 * 9 + 1,
    overrides: { gravity: 2 },
    base: { gravity: 0, drag: -3 },
    only: { drag: 12 },
    weights: [9, 9],
  });
});

test("generic functions: one instantiation per call, type parameters read in annotations", async () => {
  await checkTwoWays(`
interface Point { x: number; y: number; mass: number }
function sumBy<T>(xs: readonly T[], f: (x: T) => number) {
  let total = 0;
  for (const x of xs) total += f(x);
  return total;
}
function centroid<T extends { x: number; y: number }>(items: T[]): { x: number; y: number } {
  const n = items.length;
  return { x: sumBy(items, (p) => p.x) / n, y: sumBy(items, (p) => p.y) / n };
}
function weightOf<T extends { w: number }>(items: T[]): number {
  return items.reduce((m, t) => m + t.w * t.w, 0);
}
function first<T>(xs: T[]): T {
  const head: T = xs[0];
  return head;
}
export function f(x: number, y: number) {
  const points: Point[] = [{ x, y, mass: 1 }, { x: y, y: 2, mass: x }, { x: 1, y: x * y, mass: 2 }];
  const c = centroid(points);
  const spread = sumBy(points, (p) => p.mass * ((p.x - c.x) ** 2 + (p.y - c.y) ** 2));
  // A call with no derivative runs the function itself; its types' text (a '/' here) stays
  // out of the names the generated code uses.
  const constant = weightOf([{ w: 1 / 3, s: "a/b" }]);
  return spread + sumBy([x, y, x * y], (v) => v * v) + first(points).mass * first([y, x]) + constant;
}`);
});

test("a program compiled again after an edit gets the types of the new text", () => {
  const dir = writeProgram({
    "main.ts": `import { gradient } from "nabla";
function make(x: number) {
  return x * 2;
}
export const g = gradient((x: number) => make(x));
`,
  });
  const main = join(dir, "main.ts");
  assert.equal(compileProgram([main]).diagnostics.length, 0);
  writeFileSync(
    main,
    `import { gradient } from "nabla";
function make(x: number) {
  return [x * 2];
}
export const g = gradient((x: number) => make(x)[0]);
`,
  );
  assert.deepEqual(
    compileProgram([main]).diagnostics.map((d) => d.message),
    [],
    "the checker read the edited file again",
  );
});

test("a type nabla cannot differentiate yet is reported at the parameter, with TypeScript's text", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { gradient } from "nabla";
export function total(x: number, cells: Record<string, number | string>) {
  return typeof cells.a === "number" ? x * cells.a : x;
}
export const g = gradient(total);
`,
    }),
  );
  assert.match(
    text,
    /main\.ts:2:34: error NABLA106: parameter 'cells' of 'total' has type 'Record<string, number \| string>'/,
  );
});

test("callbacks nested in callbacks that add to a variable of the function (loops carry it)", async () => {
  await checkTwoWays(`
export function f(x: number, y: number) {
  const grid = [[x, 2 * y], [3, x * y]];
  let total = 0;
  grid.forEach((row, i) =>
    row.forEach((value, j) => {
      if (j + 1 < row.length) total += (row[j + 1] - value) ** 2 * (i + 1);
    }),
  );
  for (const row of grid) row.forEach((v) => (total += v * x));
  return total;
}`);
});

test("a callback that returns before its end takes its result type from TypeScript", async () => {
  await checkTwoWays(`
export function f(x: number, y: number) {
  const ys = [x, 2 * y, x * y].map((v) => {
    if (v > 1) return v * v;
    const w = Math.sin(v);
    return w + y;
  });
  const cumulative = ys.reduce<number[]>((acc, v, i) => {
    if (i === 0) return [v];
    return [...acc, acc[i - 1] + v];
  }, []);
  return cumulative[cumulative.length - 1] * ys[0];
}`);
});

test("omitted arguments of a generic function and of one given a function value take their defaults", async () => {
  await checkTwoWays(`
function sumBy<T>(xs: T[], f: (x: T) => number, scale = 2) {
  let s = 0;
  for (const x of xs) s += f(x) * scale;
  return s;
}
function pick<T>(xs: T[], k = 0): T {
  return xs[k];
}
export function f(x: number, y: number) {
  return sumBy([{ v: x }, { v: y }], (p) => p.v * p.v) + sumBy([x], (v) => v * y, 0.5) +
    pick([x, 2 * y]) + pick([x, 3 * y], 1);
}`);
});

test("an empty array as one side of a choice takes the other side's type (flatMap, ??, ||)", async () => {
  await checkTwoWays(`
interface Sample { x: number; y: number; extras?: number[] }
function kept(samples: Sample[], limit: number) {
  return samples.flatMap((s) => (Math.abs(s.x) < limit ? [s.x * s.y] : []));
}
export function f(x: number, y: number) {
  const samples: Sample[] = [{ x, y }, { x: 2 * x, y: y * y, extras: [x, y] }, { x: 9, y }];
  const products = kept(samples, 5);
  const extra = samples.length > 2 ? [x * y, y] : [];
  let total = products.reduce((a, b) => a + b * b, 0) + extra.reduce((a, b) => a + b, 0);
  for (const s of samples) {
    total += (s.extras ?? []).reduce((a, b) => a + a * b, 1);
    const list = s.extras || [];
    total += list.length * s.y;
  }
  return total;
}`);
});

test("a question TypeScript's checker panics on is answered 'not known', and the next is answered", () => {
  // typescript@7.0.2 panics sending back the type of the `[]` in `Math.max(...[])`; that was
  // an internal error (NABLA900) of any program spreading an empty array literal.
  const text = "export const top = Math.max(...[]);\nexport const n = 2;\n";
  const dir = writeProgram({ "main.ts": text });
  const file = join(dir, "main.ts");
  const view = openChecker(() => undefined, dir);
  const empty = text.indexOf("[]");
  assert.equal(view.expectedTypeOf(file, empty, empty + 2), undefined);
  const [n] = view.typesAt(file, [text.indexOf("n =")]);
  assert.equal(n && view.describe(n).kind, "number");
});
