import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import {
  REPO_ROOT,
  assertClose,
  compileFiles,
  diagnosticsText,
  finiteGradient,
  loadProgram,
  writeProgram,
} from "./support/harness.js";

// Names: generated code lives in the user's modules, so no user identifier — a local at an
// operator call, a module-level declaration, an import, a parameter, a variable of a
// differentiated function — may capture or shadow a generated name (`f$jvp`, `$nabla`,
// `$tape`…), and a module's own `Math`, `Array`… is the program's, not the platform's, both
// where the user's code calls it and where generated code needs the built-in. Every
// derivative is checked against finite differences and forward mode against reverse mode.

type Fn2 = (x: number, y: number) => number;

const NAMES = {
  "other.ts": `export const f$jvp = "imported f$jvp";
export const $nabla = "imported $nabla";
export const g$vjp = "imported g$vjp";
`,
  "main.ts": `import {
  derivative,
  gradient,
  differential,
  pullback,
  valueWithGradient,
  withDerivative,
} from "nabla";
import { f$jvp as importedJvp, $nabla as importedRuntime, g$vjp } from "./other.ts";

// Module-level names generated code would take.
const f$fwd = 1;
const $nabla = 2;
const f$grad = 3;
const $derivative = 0.5;
/** A loop: not inlined, so derivatives call it by name. */
function $tape(n: number): number {
  let s = 1;
  for (let i = 0; i < n; i++) s += i;
  return s;
}
function $top(y: number): number {
  return y + 1;
}

export function f(x: number): number {
  return x * x * x;
}

export function g(x: number, y: number): number {
  let s = 0;
  for (let i = 0; i < 3; i++) s += Math.sin(x * i + y) * $tape(i) * $top(y);
  // The adjustment reads the module's $derivative (d * 0.5 * 2 = d: the derivative stays).
  return withDerivative(s, (d: number) => d * $derivative * 2) + x * y;
}

/** Variables named like the emitter's temporaries, tangents, adjoints and counters. */
export function temps(x: number, dx: number): number {
  const t = x * 2;
  const dt = x + dx;
  let t_1 = 0;
  let trips = 0;
  for (let i = 0; i < 3; i++) {
    t_1 += Math.exp(t * i * 0.1) * dt;
    trips++;
  }
  const x_adj = t_1 * dx;
  return x_adj + trips;
}

/** Locals at the operator calls named like the derivatives and the wrappers' locals. */
export function atCallSite(x: number): number[] {
  const f$jvp = (a: number) => 42 + a;
  const f$bwd = 8;
  const value = 9;
  const seed = 10;
  const mark = 11;
  const h = (y: number) => f(y) * value * seed * mark;
  return [derivative(f)(x), gradient(f)(x), valueWithGradient(h)(x).gradient, f$jvp(0) + f$bwd];
}

/** Parameters named like the runtime, a derivative and the platform's globals. */
export function withParams($nabla: number, f$jvp: number, Math: number, Array: number): number[] {
  return [derivative(f)($nabla), ...gradient(g)($nabla, f$jvp), Math + Array];
}

export const dg = gradient(g);
export const dgAt = differential(g);
export const pg = pullback(g);
export const dTemps = gradient(temps);
export const dTempsAt = differential(temps);
export const values = [f$fwd, $nabla, f$grad, importedJvp, importedRuntime, g$vjp];
`,
};

interface Names {
  g: Fn2;
  temps: Fn2;
  atCallSite: (x: number) => number[];
  withParams: (a: number, b: number, c: number, d: number) => number[];
  dg: (x: number, y: number) => number[];
  dgAt: (x: number, y: number) => (dx: number, dy: number) => number;
  pg: (x: number, y: number) => (seed: number) => number[];
  dTemps: (x: number, y: number) => number[];
  dTempsAt: (x: number, y: number) => (dx: number, dy: number) => number;
  values: unknown[];
}

/** Gradient against finite differences, forward mode against it (the two columns). */
function checkBothWays(
  fn: Fn2,
  gradient: (x: number, y: number) => number[],
  differential: (x: number, y: number) => (dx: number, dy: number) => number,
  points: [number, number][],
): void {
  for (const [x, y] of points) {
    const expected = finiteGradient(fn, [x, y]);
    const reverse = gradient(x, y);
    reverse.forEach((gi, i) => assertClose(gi, expected[i]!, 1e-6, `∂/∂x${i} at ${x}, ${y}`));
    assertClose(differential(x, y)(1, 0), reverse[0]!, 1e-12, "forward ∂x against reverse");
    assertClose(differential(x, y)(0, 1), reverse[1]!, 1e-12, "forward ∂y against reverse");
  }
}

test("names: a local named f$jvp at the call does not hijack derivative(f); wrappers' locals hide no capture", async () => {
  const m = await loadProgram<Names>(NAMES);
  const [d, g, h, own] = m.atCallSite(2) as [number, number, number, number];
  assert.equal(d, 12);
  assert.equal(g, 12);
  assertClose(h, 12 * 9 * 10 * 11, 1e-12, "derivative of a lambda capturing value, seed, mark");
  assert.equal(own, 50, "the user's own f$jvp and f$bwd");
});

test("names: module-level declarations, imports and parameters named like generated names", async () => {
  const m = await loadProgram<Names>(NAMES);
  assert.deepEqual(m.values, [1, 2, 3, "imported f$jvp", "imported $nabla", "imported g$vjp"]);
  checkBothWays(m.g, m.dg, m.dgAt, [
    [0.3, 0.7],
    [-1.1, 0.4],
  ]);
  const [x, y] = [0.3, 0.7];
  const back = m.pg(x, y)(1);
  m.dg(x, y).forEach((gi, i) => assertClose(back[i]!, gi, 1e-12, `pullback ∂x${i}`));
  const [d, gx, gy, sum] = m.withParams(x, y, 2, 3) as [number, number, number, number];
  assertClose(d, 3 * x * x, 1e-12, "derivative(f) with a parameter named $nabla");
  assertClose(gx, m.dg(x, y)[0]!, 1e-12, "∂g/∂x with parameters named $nabla, f$jvp");
  assertClose(gy, m.dg(x, y)[1]!, 1e-12, "∂g/∂y with parameters named $nabla, f$jvp");
  assert.equal(sum, 5);
});

test("names: a module function named $tape, called where a sweep keeps the tape in locals", async () => {
  const m = await loadProgram<{
    g: (x: number) => number;
    dg: (x: number) => number;
    fg: (x: number) => number;
  }>({
    "main.ts": `import { derivative, gradient } from "nabla";
/** A loop: not inlined, so the sweeps call it by name. */
function $tape(n: number): number {
  let s = 1;
  for (let i = 0; i < n; i++) s += i;
  return s;
}
export function g(x: number): number {
  let s = 0;
  for (let i = 0; i < 3; i++) s += Math.sin(x * i) * $tape(i);
  return s;
}
export const dg = gradient(g);
export const fg = derivative(g);
`,
  });
  for (const x of [0.5, -1.3]) {
    assertClose(m.dg(x), finiteGradient(m.g, [x])[0]!, 1e-6, `reverse against differences at ${x}`);
    assertClose(m.fg(x), m.dg(x), 1e-12, `forward against reverse at ${x}`);
  }
});

test("names: a withDerivative arrow reading a module constant named $derivative", async () => {
  const m = await loadProgram<{
    dg: (x: number) => number;
    fg: (x: number) => number;
  }>({
    "main.ts": `import { derivative, gradient, withDerivative } from "nabla";
const $derivative = 2;
function g(x: number): number {
  return withDerivative(x * x, (d: number) => d * $derivative);
}
export const dg = gradient(g);
export const fg = derivative(g);
`,
  });
  // The adjustment doubles the derivative 2x of x²: finite differences of g cannot see it.
  for (const x of [3, -0.5]) {
    assertClose(m.dg(x), 4 * x, 1e-12, `reverse at ${x}`);
    assertClose(m.fg(x), m.dg(x), 1e-12, `forward against reverse at ${x}`);
  }
});

test("names: a checkpointed function named like the checkpoint sweeps' locals ($a0)", async () => {
  const m = await loadProgram<{ f: Fn2; df: (x: number, y: number) => number[]; ff: Fn2 }>({
    "main.ts": `import { gradient, derivative, checkpoint } from "nabla";
function $a0(x: number, y: number): number {
  let s = 0;
  for (let i = 0; i < 3; i++) s += Math.sin(x * i) * y;
  return s;
}
export function f(x: number, y: number): number {
  let s = 0;
  for (let k = 0; k < 2; k++) s += checkpoint($a0)(x + k, y);
  return s;
}
export const df = gradient(f);
export function ff(x: number, y: number): number {
  return derivative((t: number) => f(t, y))(x);
}
`,
  });
  for (const [x, y] of [
    [0.4, 0.9],
    [-1.2, 0.3],
  ] as [number, number][]) {
    const expected = finiteGradient(m.f, [x, y]);
    m.df(x, y).forEach((gi, i) => assertClose(gi, expected[i]!, 1e-6, `∂/∂x${i}`));
    assertClose(m.ff(x, y), m.df(x, y)[0]!, 1e-12, "forward against reverse");
  }
});

test("names: variables of a differentiated function named like the emitter's temporaries", async () => {
  const m = await loadProgram<Names>(NAMES);
  checkBothWays(m.temps, m.dTemps, m.dTempsAt, [
    [0.3, 0.7],
    [1.2, -0.5],
  ]);
});

test("names: a module's non-exported function shared with generated code elsewhere, when the module has name$nabla", async () => {
  const m = await loadProgram<{
    d: (x: number) => number;
    g: (x: number) => number;
    value: (x: number) => number;
    cube$nabla: string;
  }>({
    "lib.ts": `export function apply(f: (x: number) => number, x: number): number {
  return f(x) * 2;
}
`,
    "main.ts": `import { derivative, gradient } from "nabla";
import { apply } from "./lib.ts";
function cube(x: number): number {
  return x * x * x;
}
export const cube$nabla = "mine";
export function value(x: number): number {
  return apply(cube, x) * apply(cube, 2);
}
export const d = derivative((x: number) => apply(cube, x) * apply(cube, 2));
export const g = gradient((x: number) => apply(cube, x) * apply(cube, 2));
`,
  });
  assert.equal(m.cube$nabla, "mine");
  for (const x of [3, -0.7]) {
    const expected = finiteGradient(m.value, [x])[0]!;
    assertClose(m.d(x), expected, 1e-6, "forward against differences");
    assertClose(m.g(x), m.d(x), 1e-12, "reverse against forward");
  }
});

const MATH_MODULE = `export function cos(x: number): number {
  return 3 * x * x;
}
export function sin(x: number): number {
  return x;
}
`;

test("names: Math imported as a namespace is the program's: its cos is differentiated, not the built-in rule", async () => {
  const m = await loadProgram<{
    f: (x: number) => number;
    d: (x: number) => number;
    g: (x: number) => number;
  }>({
    "mymath.ts": MATH_MODULE,
    "main.ts": `import { derivative, gradient } from "nabla";
import * as Math from "./mymath.ts";
export function f(x: number): number {
  return Math.cos(x) + Math.sin(x) * x;
}
export const d = derivative(f);
export const g = gradient(f);
`,
  });
  assertClose(m.d(1), 8, 1e-12, "d/dx (3x² + x²) at 1");
  for (const x of [1, -2.5, 0.3]) {
    assertClose(m.d(x), finiteGradient(m.f, [x])[0]!, 1e-6, `forward against differences at ${x}`);
    assertClose(m.g(x), m.d(x), 1e-12, `reverse against forward at ${x}`);
  }
});

test("names: generated code reaches the built-ins where the module declares Math, Array or Float64Array", async () => {
  const m = await loadProgram<{
    h: (v: number[]) => number;
    k: (v: Float64Array) => number;
    dh: (v: number[]) => number[];
    dk: (v: Float64Array) => Float64Array;
    jac: (v: number[]) => number[][];
    vector: (v: number[]) => number[];
    hessianAt: (v: number[]) => number[][];
  }>({
    "main.ts": `import { gradient, jacobian, hessian } from "nabla";
export function h(v: number[]): number {
  return Math.sin(v[0]) * v[1] + Math.exp(v[1]);
}
export function k(v: Float64Array): number {
  return Math.cos(v[0] * v[1]);
}
export function vector(v: number[]): number[] {
  return [Math.sin(v[0]) * v[1], v[0] + 2 * v[1], Math.exp(v[0])];
}
export const dh = gradient(h);
export const dk = gradient(k);
export function hessianAt(v: number[]): number[][] {
  // Locals of the calls' scope named like the built-ins the wrappers use.
  const Array = 0;
  const Math = 1;
  return Array + Math > 0 ? hessian(h)(v) : [];
}
export function jacobianOf(v: number[]): number[][] {
  const Math = { min: (a: number, b: number) => 0 };
  return Math.min(1, 2) === 0 ? jacobian(vector)(v) : [];
}
export const jac = jacobianOf;
// Module-level names of the platform's globals generated code uses.
const Float64Array = "not the typed array";
export const Array = [Float64Array];
`,
  });
  const v = [0.4, 0.9];
  const dh = m.dh(v);
  finiteGradient((a, b) => m.h([a, b]), v).forEach((e, i) => assertClose(dh[i]!, e, 1e-6));
  const typed = new globalThis.Float64Array([0.4, 0.9]);
  const dk = m.dk(typed);
  assert.ok(dk instanceof globalThis.Float64Array, "a typed array's gradient is a typed array");
  finiteGradient((a, b) => m.k(new globalThis.Float64Array([a, b])), [0.4, 0.9]).forEach((e, i) =>
    assertClose(dk[i]!, e, 1e-6),
  );
  const jac = m.jac(v);
  assert.equal(jac.length, 3);
  for (let i = 0; i < 3; i++) {
    const row = finiteGradient((a, b) => m.vector([a, b])[i]!, v);
    row.forEach((e, j) => assertClose(jac[i]![j]!, e, 1e-6, `J[${i}][${j}]`));
  }
  // Hessian rows against differences of the (reverse-mode) gradient.
  const hess = m.hessianAt(v);
  for (let i = 0; i < 2; i++) {
    const row = finiteGradient((a, b) => m.dh([a, b])[i]!, v);
    row.forEach((e, j) => assertClose(hess[i]![j]!, e, 1e-5, `H[${i}][${j}]`));
  }
});

// `nabla check` and `nabla run` must agree: a program check accepts loads and runs.

const BIN = join(REPO_ROOT, "bin/nabla.js");

function nabla(args: string[], cwd: string): { status: number | null; out: string } {
  const env = { ...process.env };
  delete env.NABLA_DEBUG;
  delete env.FORCE_COLOR;
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    env,
    encoding: "utf8",
    timeout: 30_000,
  });
  return { status: r.status, out: r.stdout + r.stderr };
}

const AGREEMENT: {
  name: string;
  files: Record<string, string>;
  prints?: string;
  error?: RegExp;
}[] = [
  {
    name: "a module-level f$jvp",
    files: {
      "main.ts": `import { derivative } from "nabla";
function f(x: number): number {
  return x * x * x;
}
const f$jvp = 5;
console.log(derivative(f)(2), f$jvp);
`,
    },
    prints: "12 5",
  },
  {
    name: "a module-level $nabla",
    files: {
      "main.ts": `import { gradient } from "nabla";
function f(x: number): number {
  return x * x * x;
}
const $nabla = 5;
console.log(gradient(f)(2), $nabla);
`,
    },
    prints: "12 5",
  },
  {
    name: "a local f$jvp at the call",
    files: {
      "main.ts": `import { derivative } from "nabla";
function f(x: number): number {
  return x * x * x;
}
function main() {
  const f$jvp = (x: number, dx: number) => 42;
  console.log(derivative(f)(2), f$jvp(0, 0));
}
main();
`,
    },
    prints: "12 42",
  },
  {
    name: "a module-level Math object",
    files: {
      "main.ts": `import { derivative } from "nabla";
const Math = { cos: (x: number) => 3 * x * x, sin: (x: number) => 0 };
function f(x: number): number {
  return Math.cos(x);
}
console.log(derivative(f)(1));
`,
    },
    // A program's own `Math`: its `cos` is a function written in module-level data.
    prints: "6",
  },
  {
    name: "a Math object local to the function calling the operator",
    files: {
      "main.ts": `import { derivative } from "nabla";
function main() {
  const Math = { cos: (x: number) => 3 * x * x };
  console.log(derivative((x: number) => Math.cos(x))(1));
}
main();
`,
    },
    // A local object's function is no candidate: the call cannot be followed.
    error:
      /main\.ts:4:41: error NABLA102: no function of the program fits this call of '\{ cos: \(x: number\) => number; \}\.cos'/,
  },
  {
    name: "a decorator on a differentiated method",
    files: {
      "main.ts": `import { derivative } from "nabla";
function log(target: unknown, context: unknown) {
  return target;
}
class A {
  k = 2;
  @log
  f(x: number): number {
    return this.k * x * x;
  }
}
const a = new A();
console.log(derivative((x: number) => a.f(x))(3));
`,
    },
    error: /main\.ts:7:3: error NABLA101: decorators are not supported/,
  },
  {
    name: "decorators on a class and a field in an imported module",
    files: {
      "lib.ts": `function sealed(target: unknown, context: unknown) {
  return target;
}
function field(target: unknown, context: unknown) {}
@sealed
export class B {
  @field k = 2;
}
`,
      "main.ts": `import { derivative } from "nabla";
import { B } from "./lib.ts";
console.log(new B().k, derivative((x: number) => x * x)(3));
`,
    },
    error: /lib\.ts:5:1: error NABLA101: decorators[^]*lib\.ts:7:3: error NABLA101: decorators/,
  },
];

for (const program of AGREEMENT) {
  test(`names: check and run agree on ${program.name}`, () => {
    const dir = writeProgram(program.files);
    const check = nabla(["check", "main.ts"], dir);
    const run = nabla(["run", "main.ts"], dir);
    assert.equal(check.status === 0, run.status === 0, `check:\n${check.out}\nrun:\n${run.out}`);
    if (program.prints !== undefined) {
      assert.equal(run.status, 0, run.out);
      assert.equal(run.out.trim(), program.prints);
    } else {
      assert.match(check.out, program.error!);
      assert.match(run.out, program.error!);
      assert.doesNotMatch(run.out, /SyntaxError|TypeError/);
    }
  });
}

test("names: the diagnostic of a decorator points at it, at check time", () => {
  const result = compileFiles({
    "main.ts": `class A {
  @log
  f(x: number): number {
    return x;
  }
}
function log(target: unknown, context: unknown) {
  return target;
}
`,
  });
  assert.equal(
    diagnosticsText(result).split("\n")[0],
    "main.ts:2:3: error NABLA101: decorators are not supported in files nabla compiles (nabla does not transform them, and Node cannot run them); apply the decorator function by hand instead",
  );
});
