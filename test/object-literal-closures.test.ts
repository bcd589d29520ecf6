import { test } from "node:test";
import assert from "node:assert/strict";
import { checkTwoWays } from "./support/two-ways.js";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";

// Functions written as fields of an object literal handed to a function of the program: an
// options object's callbacks, a solver's `{ f, df }`, a minimizer's progress hook. The callee
// is specialized for the object's functions (lower/object-closures.ts), as it is for a function
// passed as an argument; variables such a function assigns are held in cells (lower/cells.ts).
// Each program is checked against central differences and forward mode against reverse mode.

const RK4 = `type Deriv = (t: number, y: number[]) => number[];
interface SolveOptions {
  steps?: number;
  onStep?: (t: number, y: number[]) => void;
}
function rk4(f: Deriv, y0: number[], t1: number, opts: SolveOptions = {}): number[] {
  const n = opts.steps ?? 100;
  const h = t1 / n;
  let y = [...y0];
  let t = 0;
  for (let s = 0; s < n; s++) {
    const k1 = f(t, y);
    const k2 = f(t + h / 2, y.map((v, i) => v + (h / 2) * k1[i]));
    const k3 = f(t + h / 2, y.map((v, i) => v + (h / 2) * k2[i]));
    const k4 = f(t + h, y.map((v, i) => v + h * k3[i]));
    y = y.map((v, i) => v + (h / 6) * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]));
    t += h;
    opts.onStep?.(t, y);
  }
  return y;
}`;

test("an ODE solver's options object with a step hook that tracks a peak", async () => {
  await checkTwoWays(`${RK4}
export function f(k: number, c: number): number {
  let peak = 0;
  const y = rk4((t, [x, v]) => [v, -k * x - c * v], [1, 0], 2, {
    steps: 50,
    onStep: (t, [x]) => {
      if (x * x > peak) peak = x * x;
    },
  });
  return y[0] * y[0] + peak;
}`);
});

test("the same solver given no options, and options whose hook is chosen by a condition", async () => {
  await checkTwoWays(`${RK4}
export function f(k: number, c: number): number {
  const plain = rk4((t, [x, v]) => [v, -k * x], [1, 0], 1);
  let energy = 0;
  const verbose = k > 1;
  const y = rk4((t, [x, v]) => [v, -c * x - 0.1 * v], [0.5, 0], 1, {
    steps: 20,
    onStep: verbose ? (t, [x, v]) => { energy += x * x + v * v; } : undefined,
  });
  return plain[0] + y[1] * k + energy * c;
}`);
});

test("a Newton solver taking { f, df }, destructured or read as fields", async () => {
  await checkTwoWays(`interface Problem {
  f: (x: number) => number;
  df: (x: number) => number;
}
function newton({ f, df }: Problem, x0: number, iterations = 20): number {
  let x = x0;
  for (let i = 0; i < iterations; i++) x -= f(x) / df(x);
  return x;
}
function newtonFields(p: Problem, x0: number): number {
  let x = x0;
  for (let i = 0; i < 20; i++) x -= p.f(x) / p.df(x);
  return x;
}
export function f(a: number, b: number): number {
  const cubic = newton({ f: (x) => x * x * x + a * a * x - b, df: (x) => 3 * x * x + a * a }, 1);
  const shifted = newtonFields({ f: (x) => Math.exp(x) - a * a - b * b, df: Math.exp }, 0.5);
  return cubic + shifted;
}`);
});

test("a minimizer's onIteration hook counting calls and keeping the best value and point", async () => {
  await checkTwoWays(`interface MinimizeOptions {
  rate?: number;
  iterations?: number;
  onIteration?: (i: number, x: number[], fx: number) => void;
}
function minimize(f: (x: number[]) => number, x0: number[], options: MinimizeOptions = {}): number[] {
  const rate = options.rate ?? 0.1;
  const x = x0.slice();
  for (let i = 0; i < (options.iterations ?? 30); i++) {
    const fx = f(x);
    if (options.onIteration) options.onIteration(i, x, fx);
    const g = x.map((_, j) => {
      const xp = x.slice();
      xp[j] += 1e-4;
      return (f(xp) - fx) / 1e-4;
    });
    for (let j = 0; j < x.length; j++) x[j] -= rate * g[j];
  }
  return x;
}
export function f(a: number, b: number): number {
  let calls = 0;
  let best = Infinity;
  let bestAt = [0, 0];
  const x = minimize((p) => (p[0] - a) ** 2 + (b * b + 1) * (p[1] + 1) ** 2 + p[0] * p[1] * 0.1, [0, 0], {
    rate: 0.2,
    onIteration: (i, p, fx) => {
      calls++;
      if (fx < best) {
        best = fx;
        bestAt = p.slice();
      }
    },
  });
  return best + calls * 0.01 + bestAt[0] * x[1];
}`);
});

test("an options object built in a variable first, then passed (its closure sees later assignments)", async () => {
  await checkTwoWays(`${RK4}
export function f(k: number, c: number): number {
  let scale = 1;
  let total = 0;
  const options: SolveOptions = {
    steps: 25,
    onStep: (t, [x]) => {
      total += scale * x;
    },
  };
  scale = c;
  const y = rk4((t, [x, v]) => [v, -k * x], [1, 0], 1, options);
  scale = 2 * c;
  const z = rk4((t, [x, v]) => [v, -c * c * x], [y[0], y[1]], 0.5, options);
  return z[0] + total;
}`);
});

test("options handed on to a helper, spread over defaults, and destructured with defaults", async () => {
  await checkTwoWays(`interface Options {
  steps?: number;
  scale?: number;
  onStep?: (i: number, value: number) => void;
}
const defaults = { steps: 8, scale: 1 };
function stepOnce(i: number, value: number, options: Options): number {
  const next = value * (options.scale ?? 1) * 0.9 + 0.1 * Math.sin(value);
  options.onStep?.(i, next);
  return next;
}
function iterate(x0: number, options: Options = {}): number {
  const o = { ...defaults, ...options };
  let x = x0;
  for (let i = 0; i < o.steps; i++) x = stepOnce(i, x, o);
  return x;
}
function iterateDestructured(x0: number, { steps = 5, onStep }: Options = {}): number {
  let x = x0;
  for (let i = 0; i < steps; i++) {
    x = x * x * 0.5 + 0.3;
    if (onStep !== undefined) onStep(i, x);
  }
  return x;
}
export function f(a: number, b: number): number {
  let sum = 0;
  const hook = (i: number, v: number) => {
    sum += v * (i + 1);
  };
  const plain = iterate(a) + iterateDestructured(b);
  const traced = iterate(b, { scale: a, onStep: hook }) + iterateDestructured(a, { onStep: hook });
  return plain + traced + sum * b;
}`);
});

test("an optional options parameter read with ?. and ??, and comparator objects for sort", async () => {
  await checkTwoWays(`interface SortOptions {
  compare: (p: number, q: number) => number;
}
function ascending(p: number, q: number): number {
  return p - q;
}
function sortedWeights(xs: number[], options: SortOptions): number {
  const ys = xs.slice().sort(options.compare);
  let s = 0;
  for (let i = 0; i < ys.length; i++) s += (i + 1) * ys[i];
  return s;
}
interface Trace {
  onValue?: (v: number) => void;
}
function sumSquares(xs: number[], trace?: Trace): number {
  let s = 0;
  const hooks = trace ?? {};
  for (const x of xs) {
    s += x * x;
    trace?.onValue?.(s);
    hooks.onValue?.(-x);
  }
  return s;
}
export function f(a: number, b: number): number {
  const xs = [a, b, a * b, a - b];
  let peak = -Infinity;
  const byDistance = sortedWeights(xs, { compare: (p, q) => Math.abs(p - b) - Math.abs(q - b) });
  const inOrder = sortedWeights(xs, { compare: ascending });
  const s = sumSquares(xs, {
    onValue: (v) => {
      peak = Math.max(peak, v - a);
    },
  }) + sumSquares(xs);
  return byDistance + inOrder * 0.5 + s + peak;
}`);
});

test("a solver in another module given an options object written here", async () => {
  await checkTwoWays(
    `import { integrate } from "./quad.js";
export function f(a: number, b: number): number {
  let evaluations = 0;
  let largest = 0;
  const area = integrate({
    f: (x) => Math.exp(-a * x * x) * b,
    from: 0,
    to: 2,
    onSample: (x, fx) => {
      evaluations++;
      if (fx * x > largest) largest = fx * x;
    },
  });
  return area + largest + evaluations * 1e-3;
}`,
    [
      [0.7, -0.4],
      [1.3, 0.9],
    ],
    true,
    {
      "quad.ts": `export interface Integrand {
  f: (x: number) => number;
  from: number;
  to: number;
  n?: number;
  onSample?: (x: number, fx: number) => void;
}
export function integrate(problem: Integrand): number {
  const n = problem.n ?? 40;
  const h = (problem.to - problem.from) / n;
  let sum = 0;
  for (let i = 0; i <= n; i++) {
    const x = problem.from + i * h;
    const fx = problem.f(x);
    problem.onSample?.(x, fx);
    sum += (i === 0 || i === n ? 0.5 : 1) * fx;
  }
  return sum * h;
}
`,
    },
  );
});

test("a method and a constructor given options, and a recursive walk handing its visitor on", async () => {
  await checkTwoWays(`interface Hooks {
  onStep?: (t: number) => void;
}
class Runner {
  constructor(readonly rate: number) {}
  run(n: number, hooks: Hooks): number {
    let s = 0;
    for (let i = 0; i < n; i++) {
      s += this.rate * Math.sin(s + i);
      hooks.onStep?.(s);
    }
    return s;
  }
}
class Accumulator {
  total: number;
  constructor(start: number, hooks: Hooks) {
    this.total = start * start;
    hooks.onStep?.(this.total);
  }
}
interface Visitor {
  maxDepth: number;
  visit: (depth: number, value: number) => void;
}
function walk(value: number, depth: number, v: Visitor): void {
  v.visit(depth, value);
  if (depth < v.maxDepth) {
    walk(Math.sin(value), depth + 1, v);
    walk(value * 0.5, depth + 1, v);
  }
}
export function f(a: number, b: number): number {
  let seen = 0;
  const ran = new Runner(a).run(4, { onStep: (t) => { seen += t * b; } });
  const made = new Accumulator(b, { onStep: (t) => { seen += t * a; } });
  let weighted = 0;
  walk(a * b, 0, { maxDepth: 3, visit: (d, x) => { weighted += x * (d + 1); } });
  return ran + made.total + seen + weighted;
}`);
});

// What is still refused: an object holding such a function anywhere its function could be read
// without nabla knowing it, each with the whole message.

const HOOKS = `import { gradient } from "nabla";
interface Hooks {
  onStep?: (t: number) => void;
}
function run(n: number, hooks: Hooks): number {
  let s = 0;
  for (let i = 0; i < n; i++) {
    s += i;
    hooks.onStep?.(s);
  }
  return s;
}
`;

/** The formatted diagnostics of main.ts. */
function diagnosticsOf(main: string): string {
  return diagnosticsText(compileFiles({ "main.ts": main }));
}

const HELP =
  "help: pass the object straight to the function that calls its functions; to keep a function in data, declare it at the top level of a module, taking what it reads from here as parameters";

test("a list of objects holding closures passed to a function is refused, saying what can be done with it", () => {
  const text = diagnosticsOf(`${HOOKS}function runAll(all: Hooks[]): number {
  let s = 0;
  for (const h of all) s += run(2, h);
  return s;
}
export function f(k: number): number {
  let total = 0;
  const all: Hooks[] = [{ onStep: (t) => { total += k * t; } }];
  return runAll(all) + total;
}
export const d = gradient(f);
`);
  assert.equal(
    text,
    `main.ts:21:17: error NABLA112: 'all' is a list of objects holding functions written here; differentiable code can loop over it ('for (const t of all)', 'all.forEach', '.reduce', '.map'), read and call its elements' members ('all[i].onStep(…)') and read its length, but not pass it on, store it or use it as another kind of value
  20 |   const all: Hooks[] = [{ onStep: (t) => { total += k * t; } }];
> 21 |   return runAll(all) + total;
     |                 ^^^
help: to keep such objects in data, make them instances of classes implementing the interface (their methods can read fields set by the constructor)
main.ts:23:18: note: when differentiating 'f' for 'gradient'
> 23 | export const d = gradient(f);
     |                  ^^^^^^^^^^^

1 error`,
  );
});

test("an object holding a closure returned by a helper other than by its last statement is refused", () => {
  const text =
    diagnosticsOf(`${HOOKS}function tracer(k: number, total: number[], quiet: boolean): Hooks {
  if (quiet) return {};
  return { onStep: (t) => { total[0] += k * t; } };
}
export function f(k: number): number {
  const total = [0];
  return run(3, tracer(k, total, false)) + total[0];
}
export const d = gradient(f);
`);
  assert.equal(
    text,
    `main.ts:15:10: error NABLA112: this object holds a function written in an object literal ('onStep'); differentiable code can pass such an object to a function of the program, read its fields, call or test its functions, and build it where a factory ending in 'return { … }' is called, but not choose between it and another object by a condition, or keep it in a variable that branches or loops change
  14 |   if (quiet) return {};
> 15 |   return { onStep: (t) => { total[0] += k * t; } };
     |          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
${HELP}
main.ts:19:17: note: when differentiating this call to 'tracer'
> 19 |   return run(3, tracer(k, total, false)) + total[0];
     |                 ^^^^^^^^^^^^^^^^^^^^^^^
main.ts:21:18: note: when differentiating 'f' for 'gradient'
> 21 | export const d = gradient(f);
     |                  ^^^^^^^^^^^

1 error`,
  );
});

test("an object holding a closure returned by a factory ending in 'return { … }' is built where the factory is called", async () => {
  await checkTwoWays(`interface Hooks {
  onStep?: (t: number) => void;
}
function run(n: number, hooks: Hooks): number {
  let s = 0;
  for (let i = 0; i < n; i++) {
    s += i;
    hooks.onStep?.(s);
  }
  return s;
}
function tracer(k: number, total: number[]): Hooks {
  return { onStep: (t) => { total[0] += k * t; } };
}
export function f(k: number, c: number): number {
  const total = [c];
  return run(3, tracer(k, total)) + total[0] * c;
}`);
});

test("an object holding a closure chosen by a condition, or captured by a function passed on, is refused", () => {
  const chosen = diagnosticsOf(`${HOOKS}export function f(k: number): number {
  let total = 0;
  const hooks: Hooks = k > 0 ? { onStep: (t) => { total += k * t; } } : {};
  return run(3, hooks) + total;
}
export const d = gradient(f);
`);
  assert.equal(
    chosen,
    `main.ts:15:32: error NABLA112: this object holds a function written in an object literal ('onStep'); differentiable code can pass such an object to a function of the program, read its fields, call or test its functions, and build it where a factory ending in 'return { … }' is called, but not choose between it and another object by a condition, or keep it in a variable that branches or loops change
  14 |   let total = 0;
> 15 |   const hooks: Hooks = k > 0 ? { onStep: (t) => { total += k * t; } } : {};
     |                                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
${HELP}
main.ts:18:18: note: when differentiating 'f' for 'gradient'
> 18 | export const d = gradient(f);
     |                  ^^^^^^^^^^^

1 error`,
  );
  const captured =
    diagnosticsOf(`${HOOKS}function twice(g: (x: number) => number, x: number): number {
  return g(g(x));
}
export function f(k: number): number {
  let total = 0;
  const hooks: Hooks = { onStep: (t) => { total += k * t; } };
  return twice((x) => run(2, hooks) * x, k) + total;
}
export const d = gradient(f);
`);
  assert.equal(
    captured,
    `main.ts:19:10: error NABLA112: this object holds a function written in an object literal ('onStep'); differentiable code can pass such an object to a function of the program, read its fields, call or test its functions, and build it where a factory ending in 'return { … }' is called, but not capture it in a function that is passed on
  18 |   const hooks: Hooks = { onStep: (t) => { total += k * t; } };
> 19 |   return twice((x) => run(2, hooks) * x, k) + total;
     |          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
${HELP}
main.ts:18:24: note: the object holding the function comes from here
> 18 |   const hooks: Hooks = { onStep: (t) => { total += k * t; } };
     |                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
main.ts:21:18: note: when differentiating 'f' for 'gradient'
> 21 | export const d = gradient(f);
     |                  ^^^^^^^^^^^

1 error`,
  );
});

test("a callee assigning, or reading as a value, a function written in the literal it was given is refused", () => {
  const assigned = diagnosticsOf(`import { gradient } from "nabla";
interface Hooks {
  onStep?: (t: number) => void;
}
function once(n: number, hooks: Hooks): number {
  let s = 0;
  for (let i = 0; i < n; i++) {
    hooks.onStep?.(i);
    hooks.onStep = undefined;
    s += i;
  }
  return s;
}
export function f(k: number): number {
  let total = 0;
  return once(3, { onStep: (t) => { total += k * t; } }) + total;
}
export const d = gradient(f);
`);
  assert.equal(
    assigned,
    `main.ts:9:5: error NABLA112: this object holds a function written in an object literal ('onStep'); differentiable code can pass such an object to a function of the program, read its fields, call or test its functions, and build it where a factory ending in 'return { … }' is called, but not assign its function 'onStep'
  8 |     hooks.onStep?.(i);
> 9 |     hooks.onStep = undefined;
    |     ^^^^^^^^^^^^
${HELP}
main.ts:5:26: note: the object holding the function comes from here
> 5 | function once(n: number, hooks: Hooks): number {
    |                          ^^^^^^^^^^^^
main.ts:16:10: note: when differentiating this call to 'once'
> 16 |   return once(3, { onStep: (t) => { total += k * t; } }) + total;
     |          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
main.ts:18:18: note: when differentiating 'f' for 'gradient'
> 18 | export const d = gradient(f);
     |                  ^^^^^^^^^^^

1 error`,
  );
  const read = diagnosticsOf(`import { gradient } from "nabla";
interface Hooks {
  onStep?: (t: number) => void;
}
function logged(n: number, hooks: Hooks): number {
  console.log(hooks.onStep);
  return n * n;
}
export function f(k: number): number {
  let total = 0;
  return logged(k, { onStep: (t) => { total += k * t; } }) + total;
}
export const d = gradient(f);
`);
  assert.equal(
    read,
    `main.ts:6:15: error NABLA112: this object holds a function written in an object literal ('onStep'); differentiable code can pass such an object to a function of the program, read its fields, call or test its functions, and build it where a factory ending in 'return { … }' is called, but not read its function 'onStep' as a value (call it, test it or pass it to a function instead)
  5 | function logged(n: number, hooks: Hooks): number {
> 6 |   console.log(hooks.onStep);
    |               ^^^^^^^^^^^^
${HELP}
main.ts:5:28: note: the object holding the function comes from here
> 5 | function logged(n: number, hooks: Hooks): number {
    |                            ^^^^^^^^^^^^
main.ts:11:10: note: when differentiating this call to 'logged'
> 11 |   return logged(k, { onStep: (t) => { total += k * t; } }) + total;
     |          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
main.ts:13:18: note: when differentiating 'f' for 'gradient'
> 13 | export const d = gradient(f);
     |                  ^^^^^^^^^^^

1 error`,
  );
});

test("an optional function field no function of the program fits: skipped when absent, a TypeError when it holds a closure from elsewhere", async () => {
  const m = await loadProgram<{
    dRun: (k: number, hooks: { onStep?: (t: number) => void }) => number;
  }>({
    "main.ts": `import { gradient } from "nabla";
interface Hooks {
  onStep?: (t: number) => void;
}
export function run(k: number, hooks: Hooks): number {
  let s = 0;
  for (let i = 1; i <= 3; i++) {
    s += k * k * i;
    hooks.onStep?.(s);
  }
  return s;
}
export const dRun = gradient(run, { wrt: 0 });
`,
  });
  assert.equal(m.dRun(2, {}), 2 * 2 * 6);
  assert.throws(
    () => m.dRun(2, { onStep: (t) => void t }),
    (error: Error) =>
      error instanceof TypeError &&
      error.message ===
        "nabla: Hooks.onStep holds 'onStep', which is not one of the functions nabla saw used as a value in the compiled program, so it has no derivative. Pass a function declared at the top level of a compiled module, or written in a module-level object or array that no code writes to (not a closure or a function from outside the program).",
  );
});
