import assert from "node:assert/strict";
import { compileFiles, diagnosticsText, loadProgram } from "./harness.js";
import { environmentBackend } from "../../src/register/environment-backend.js";

// The check the WebAssembly backend's tests share: a function \`f\` compiled with
// valueWithGradient and valueWithDifferential twice, JavaScript and \`backend: "wasm"\`, and at
// each point wasm against JavaScript (value, gradient, a differential) within 1e-12 relative,
// the gradient against central differences and against forward mode, and every wasm call run
// in wasm. Values are numbers, booleans, arrays and objects of them.

export type Value = number | boolean | Float64Array | Value[] | { [field: string]: Value } | Opaque;

/** Values wasm does not carry, in fields it leaves alone: no derivative, never changed. */
type Opaque = string | undefined | (() => unknown);

const isOpaque = (v: Value): v is Opaque =>
  typeof v === "string" || typeof v === "function" || v === undefined;

export interface Stats {
  wasm: number;
  javascript: number;
  instances: number;
  /** Calls that read arguments in a `wasmArrays` memory in place. */
  inPlace: number;
  /** Memories made for instances: the thread's one, and larger ones as calls need them. */
  memories: number;
  /** Instances that compute Math.exp themselves (they agree with the engine's). */
  ownExp: number;
  /** Instances that compute Math.sin and Math.cos themselves (they agree with the engine's). */
  ownTrig: number;
}

export interface Both {
  vgJs: (...args: Value[]) => { value: number; gradient: Value };
  vgWasm: (...args: Value[]) => { value: number; gradient: Value };
  vdJs: (...args: Value[]) => { value: Value; differential: (...t: Value[]) => Value };
  vdWasm: (...args: Value[]) => { value: Value; differential: (...t: Value[]) => Value };
  wasmStats: Stats;
}

export const f64 = (...xs: number[]) => Float64Array.from(xs);

/** The fields of an object in a fixed order (by name: a gradient's may come in another). */
const fieldsOf = (v: { [field: string]: Value }) => Object.keys(v).sort();

/** Every number in a value, in order (booleans, which have no derivative, left out). */
export function flat(v: Value): number[] {
  if (typeof v === "number") return [v];
  if (typeof v === "boolean" || isOpaque(v)) return [];
  if (v instanceof Float64Array || Array.isArray(v))
    return Array.from(v as ArrayLike<Value>).flatMap((x) => flat(x));
  return fieldsOf(v).flatMap((k) => flat(v[k]!));
}

/** `v` with its i-th number (in `flat` order) replaced by `x`, copied. */
export function withNumber(v: Value, i: number, x: number): Value {
  let k = 0;
  const walk = (u: Value): Value => {
    if (typeof u === "number") return k++ === i ? x : u;
    if (typeof u === "boolean" || isOpaque(u)) return u;
    if (u instanceof Float64Array) return u.map((y) => (k++ === i ? x : y));
    if (Array.isArray(u)) return u.map(walk);
    return Object.fromEntries(fieldsOf(u).map((f) => [f, walk(u[f]!)]));
  };
  return walk(v);
}

/** A tangent of `v` (booleans left out, as from a tangent type) with pseudo-random numbers. */
export function direction(v: Value, seed: { s: number }): Value {
  const next = () => ((seed.s = (seed.s * 16807) % 2147483647) / 2147483647) * 2 - 1;
  if (typeof v === "number") return next();
  if (v instanceof Float64Array) return v.map(() => next());
  if (Array.isArray(v)) return v.map((u) => direction(u, seed));
  if (typeof v === "boolean" || isOpaque(v)) throw new Error("no tangent");
  return Object.fromEntries(
    fieldsOf(v)
      .filter((f) => hasTangent(v[f]!))
      .map((f) => [f, direction(v[f]!, seed)]),
  );
}

/** Whether a field has a tangent: not a boolean, a string, a function, or an array of those. */
function hasTangent(v: Value): boolean {
  if (typeof v === "boolean" || isOpaque(v)) return false;
  return Array.isArray(v) ? v.every(hasTangent) : true;
}

export function assertRelative(
  actual: number[],
  expected: number[],
  tolerance: number,
  what: string,
) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  actual.forEach((a, i) => {
    const e = expected[i]!;
    const scale = Math.max(Math.abs(a), Math.abs(e), 1e-300);
    assert.ok(
      Object.is(a, e) || Math.abs(a - e) <= tolerance * scale,
      `${what}[${i}]: wasm ${a}, expected ${e} (relative tolerance ${tolerance})`,
    );
  });
}

/** `wrt`: the parameters to differentiate, where not the operators' default (the required ones). */
const program = (source: string, wrt?: number[]) => {
  const w = wrt ? `wrt: [${wrt.join(", ")}], ` : "";
  return {
    "main.ts": `import { valueWithGradient, valueWithDifferential } from "nabla";
export { wasmStats } from "nabla";
${source}
export const vgJs = valueWithGradient(f${w ? `, { ${w.slice(0, -2)} }` : ""});
export const vgWasm = valueWithGradient(f, { ${w}backend: "wasm" });
export const vdJs = valueWithDifferential(f${w ? `, { ${w.slice(0, -2)} }` : ""});
export const vdWasm = valueWithDifferential(f, { ${w}backend: "wasm" });
`,
  };
};

/**
 * `f` (defined in `source`) at each point: wasm against JavaScript (value, gradient, a
 * differential) within 1e-12, the gradient against central differences, forward mode against
 * reverse mode, and every wasm call run in wasm. Returns how many wasm calls read arguments in
 * place (from a `wasmArrays` memory).
 */
export async function checkBackends(
  source: string,
  pointsOf: Value[][] | ((m: Record<string, unknown>) => Value[][]),
  fdTolerance = 1e-5,
  wrt?: number[],
): Promise<{ wasm: number; inPlace: number }> {
  const compiled = compileFiles(program(source, wrt));
  const text = diagnosticsText(compiled);
  assert.doesNotMatch(text, /NABLA202/, text);
  const code = [...compiled.outputs.values()][0]!.code;
  assert.match(code, /valueWithGradient\(f\) at main\.ts:\d+:\d+: WebAssembly/);
  assert.match(code, /valueWithDifferential\(f\) at main\.ts:\d+:\d+: WebAssembly/);
  const m = await loadProgram<Both>(program(source, wrt));
  const points = typeof pointsOf === "function" ? pointsOf(m as never) : pointsOf;
  const before = { ...m.wasmStats };
  for (const args of points) {
    const js = m.vgJs(...args);
    const wasm = m.vgWasm(...args);
    assertRelative([wasm.value], [js.value], 1e-12, "value");
    const gradientOf = (g: Value) => (args.length === 1 ? [g] : (g as Value[]));
    // The gradient's shape is the JavaScript backend's (objects of the fields' gradients).
    assert.deepEqual(
      gradientOf(wasm.gradient).map((g) => withNumber(g, -1, 0)),
      gradientOf(js.gradient).map((g) => withNumber(g, -1, 0)),
      "the gradient's shape",
    );
    const gJs = gradientOf(js.gradient).flatMap(flat);
    const gWasm = gradientOf(wasm.gradient).flatMap(flat);
    assertRelative(gWasm, gJs, 1e-12, "gradient");
    let k = 0;
    args.map(flat).forEach((xs, a) =>
      xs.forEach((x, i) => {
        const h = 1e-6 * Math.max(1, Math.abs(x));
        const at = (t: number) =>
          m.vgJs(...args.map((v, b) => (b === a ? withNumber(v, i, t) : v))).value;
        const fd = (at(x + h) - at(x - h)) / (2 * h);
        const g = gWasm[k++]!;
        assert.ok(
          Math.abs(fd - g) <= fdTolerance * Math.max(1, Math.abs(fd), Math.abs(g)),
          `∂f/∂(argument ${a})[${i}]: wasm ${g}, central differences ${fd}`,
        );
      }),
    );
    const seed = { s: 12345 };
    const tangents = args.map((v) => direction(v, seed));
    const dJs = m.vdJs(...args);
    const dWasm = m.vdWasm(...args);
    assertRelative(flat(dWasm.value), flat(dJs.value), 1e-12, "value in forward mode");
    const tJs = flat(dJs.differential(...tangents));
    const tWasm = flat(dWasm.differential(...tangents));
    assertRelative(tWasm, tJs, 1e-12, "differential");
    const along = tangents.flatMap(flat).reduce((s, t, i) => s + t * gWasm[i]!, 0);
    const scale = tangents.flatMap(flat).reduce((s, t, i) => s + Math.abs(t * gWasm[i]!), 0);
    assert.ok(
      Math.abs(tWasm[0]! - along) <= 1e-10 * Math.max(scale, 1e-300),
      `forward mode ${tWasm[0]} against reverse mode ${along}`,
    );
  }
  assert.equal(m.wasmStats.javascript - before.javascript, 0, "calls that fell back");
  // Under a program-wide wasm backend (test/wasm-suites.test.ts) the calls naming no backend
  // run in wasm too.
  const named = 3 * points.length;
  const ran = m.wasmStats.wasm - before.wasm;
  if (environmentBackend() === "wasm") assert.ok(ran >= named, `calls run in wasm: ${ran}`);
  else assert.equal(ran, named, "calls run in wasm");
  return { wasm: m.wasmStats.wasm - before.wasm, inPlace: m.wasmStats.inPlace - before.inPlace };
}

/** kmeans' distance, which the kmeans programs of the wasm tests call. */
export const SQUARED_DISTANCE = `function squaredDistance(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const diff = a[i] - b[i];
    sum += diff * diff;
  }
  return sum;
}`;

/**
 * kmeans' cost as GradBench's kmeans eval writes it (rows of Float64Arrays, the nearest
 * centroid per point), as the exported function `name`, after `doc` (a doc comment, or "").
 */
export function kmeansCostSource(name: string, doc = ""): string {
  return `${doc}export function ${name}(points: Float64Array[], centroids: Float64Array[]): number {
  let total = 0;
  for (const point of points) {
    let nearest = Infinity;
    for (const centroid of centroids) {
      const dist = squaredDistance(point, centroid);
      if (dist < nearest) nearest = dist;
    }
    total += nearest;
  }
  return total;
}`;
}

/**
 * A sum of x[i]·x[i + k], out of range for k > 0 (JavaScript reads undefined: NaN), as
 * valueWithGradient with respect to x twice: `js`, and `wasm` with backend "wasm".
 */
export const OFFSET_PRODUCTS = `import { valueWithGradient } from "nabla";
function f(x: Float64Array, k: number): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i] * x[i + k];
  return s;
}
export const js = valueWithGradient(f, { wrt: 0 });
export const wasm = valueWithGradient(f, { wrt: 0, backend: "wasm" });
`;

/** The NABLA202 warnings of `source`'s gradient of `f` with backend "wasm". */
export function wasmFallback(source: string): string {
  const compiled = compileFiles({
    "main.ts": `import { gradient } from "nabla";
${source}
export const g = gradient(f, { backend: "wasm" });
`,
  });
  return diagnosticsText(compiled);
}
