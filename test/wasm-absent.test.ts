import { test } from "node:test";
import assert from "node:assert/strict";
import { assertClose, finiteGradient, loadProgram } from "./support/harness.js";
import { checkBackends, f64, wasmFallback } from "./support/wasm-backends.js";

// undefined and null in the WebAssembly backend (emit/wasm/absent-values.ts): default
// parameters and optional parameters of helpers, inlined where their argument is left out or
// called in a copy made for such calls, so their tests settle; optional fields of objects,
// whose presence wasm reads from the object; what no test settles keeps the function
// JavaScript, saying why.

test("default and optional parameters of helpers, with the argument given and left out", async () => {
  await checkBackends(
    `function huber(r: number, delta = 1.5): number {
  const a = Math.abs(r);
  return a <= delta ? 0.5 * r * r : delta * (a - 0.5 * delta);
}
function scaled(x: number, scale?: number): number {
  return x * (scale ?? 2);
}
function shifted(x: number, by?: number): number {
  if (by === undefined) return x + 1;
  return x + by;
}
export function f(x: Float64Array, y: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    s += huber(x[i] - y[i]) + huber(x[i], 0.25) + scaled(x[i]) + scaled(y[i], 3);
    s += shifted(x[i]) * shifted(y[i], x[i]);
  }
  return s;
}`,
    [
      [f64(0.5, -2, 3, 0.1), f64(1, 1, -1, 0.2)],
      [f64(0.05, 4), f64(-0.3, 2.5)],
    ],
  );
});

test("what no test settles stays JavaScript, and says so", () => {
  // A value that is a number at some iterations and undefined at others.
  const best = wasmFallback(`export function f(x: Float64Array): number {
  let best: number | undefined = undefined;
  for (let i = 0; i < x.length; i++) if (best === undefined || x[i] < best) best = x[i];
  return best ?? 0;
}`);
  assert.match(best, /NABLA202/);
  assert.match(
    best,
    /'best' may be undefined while a loop in 'f' carries it, and the wasm backend carries only numbers through a loop/,
  );
  // Set at some iterations only, then given a default with ??: a loop carrying undefined.
  const last = wasmFallback(`export function f(x: Float64Array): number {
  let last: number | undefined = undefined;
  for (let i = 0; i < x.length; i++) if (x[i] > 0) last = x[i];
  return (last ?? -1) * 2;
}`);
  assert.match(last, /NABLA202/);
  // null as a default, which reverse mode saves on its tape: wasm would save 0 there.
  const saved = wasmFallback(`function orSquare(x: number, w: number | null = null): number {
  return w === null ? x * x : x * w;
}
export function f(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += orSquare(x[i]) + orSquare(x[i], 0.5);
  return s;
}`);
  assert.match(saved, /NABLA202/);
});

test("a 'number | undefined' a loop carries: NABLA202 says so in a sentence, and JavaScript's gradient is right", async () => {
  // It read "undefined (a default parameter value, an optional parameter or field, or a test
  // for one): 'previous', undefined, in the operation 'loop'".
  const source = `export function f(xs: number[]): number {
  let s = 0;
  let previous: number | undefined;
  for (const x of xs) {
    if (previous !== undefined) s += (x - previous) ** 2;
    previous = x;
  }
  return s;
}`;
  const text = wasmFallback(source);
  assert.match(
    text,
    /warning NABLA202: 'gradient' runs as JavaScript, not WebAssembly: 'previous' may be undefined while a loop in 'f' carries it, and the wasm backend carries only numbers through a loop\n/,
  );
  const m = await loadProgram<{ f: (xs: number[]) => number; g: (xs: number[]) => number[] }>({
    "main.ts": `import { gradient } from "nabla";
${source}
export const g = gradient(f, { backend: "wasm" });
`,
  });
  const xs = [0.5, 2, -1.25];
  const expected = finiteGradient((...v) => m.f(v), xs);
  m.g(xs).forEach((gi, i) => assertClose(gi, expected[i]!, 1e-6, `∂f/∂x${i}`));
});

test("an element read once and tested ('const p = xs[i - 1]; if (p !== undefined) …', 'xs.at(-1) ?? 0') runs in wasm, read only where it is there", async () => {
  const { wasm } = await checkBackends(
    `export function f(xs: number[], x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    const p = xs[i - 1];
    if (p !== undefined) s += p * xs[i];
  }
  const last = xs.at(-1) ?? 0;
  return s + last * x.length;
}`,
    [0, 1, 2, 5].flatMap((n) => {
      const xs = Array.from({ length: n }, (_, i) => Math.cos(i) + 2);
      return [
        [xs, f64()],
        [xs, f64(0.5, -1)],
      ];
    }),
  );
  assert.equal(wasm, 24);
});

test("an optional boolean compared with '!==': NABLA202 names the comparison as written, not the IR's 'ne'", () => {
  const text = wasmFallback(`interface Options { enabled?: boolean }
export function f(x: Float64Array, o: Options): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += o.enabled !== false ? x[i] * x[i] : x[i];
  return s;
}`);
  assert.match(
    text,
    /warning NABLA202: 'gradient' runs as JavaScript, not WebAssembly: 'enabled' may be undefined where 'f' gives it to a comparison for equality \('===', '!=='\); the wasm backend takes undefined only into arithmetic and tests for it \('=== undefined', '\?\?'\)\n/,
  );
});

test("a helper too large to inline, called with its argument left out: a copy for such calls", async () => {
  // Recursive, so never inlined: power(x) runs a copy of power whose test of n settles.
  await checkBackends(
    `function power(x: number, n = 3): number {
  return n <= 0 ? 1 : x * power(x, n - 1);
}
export function f(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += power(x[i]) + power(x[i], 2);
  return s;
}`,
    [[f64(0.5, -2, 1.5)], [f64(3)]],
  );
});

const OPTIONS = `interface FitOptions {
  scale?: number;
  offset?: number;
  robust?: boolean;
  name?: string;
}
export function f(x: Float64Array, options: FitOptions = {}): number {
  const { scale = 2, robust = false } = options;
  const offset = options.offset ?? 0.5;
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    const r = scale * x[i] - offset;
    s += robust ? Math.log(1 + r * r) : r * r;
  }
  if (options.offset !== undefined) s += options.offset * options.offset;
  return s;
}`;

test("optional fields of an options object, present or not, read in wasm", async () => {
  const x = f64(0.5, -2, 1.5);
  await checkBackends(
    OPTIONS,
    [
      [x, {}],
      [x, { scale: 3 }],
      [x, { offset: -1, robust: true }],
      [x, { scale: 0.5, offset: 2, robust: false, name: "fit" }],
    ],
    1e-5,
    // The defaulted options too (the operators' default is the required parameters only).
    [0, 1],
  );
});

test("an object the function makes with an optional field left out, and gradients of optional fields", async () => {
  await checkBackends(
    `interface Weights { main: number; extra?: number }
function weighted(w: Weights, x: number): number {
  return w.extra === undefined ? w.main * x : w.main * x + w.extra * x * x;
}
export function f(x: Float64Array, w: Weights): number {
  const plain: Weights = { main: w.main };
  const both: Weights = { main: 1, extra: w.extra ?? 0.25 };
  let s = 0;
  for (let i = 0; i < x.length; i++) s += weighted(plain, x[i]) + weighted(both, x[i]) + weighted(w, x[i]);
  return s;
}`,
    [
      [f64(0.5, -2), { main: 1.5 }],
      [f64(0.5, -2), { main: 1.5, extra: -0.75 }],
    ],
  );
});

test("new of a class whose constructor sets its fields, with a default parameter", async () => {
  await checkBackends(
    `class Spring {
  stiffness: number;
  rest: number;
  constructor(stiffness: number, rest = 1) {
    this.stiffness = stiffness;
    this.rest = rest;
  }
  energy(x: number): number {
    const s = x - this.rest;
    return 0.5 * this.stiffness * s * s;
  }
}
export function f(x: Float64Array, k: number): number {
  const loose = new Spring(k);
  const tight = new Spring(4 * k, 0.5);
  let e = 0;
  for (let i = 0; i < x.length; i++) e += loose.energy(x[i]) + tight.energy(x[i]);
  return e;
}`,
    [[f64(0.5, -2, 1.5), 3]],
  );
  // A constructor reading a field before it sets it reads undefined: that stays JavaScript.
  const early = wasmFallback(`class Account {
  balance: number;
  doubled: number;
  constructor(start: number) {
    this.doubled = this.balance * 2;
    this.balance = start;
  }
}
export function f(x: number): number {
  const a = new Account(x);
  return a.balance + (Number.isNaN(a.doubled) ? 1 : 0);
}`);
  assert.match(
    early,
    /runs as JavaScript, not WebAssembly: an object whose field 'balance' may be undefined where it is made in 'f'/,
  );
});

test("optional array and object fields of a differentiated argument, there or not", async () => {
  // Reverse mode's shadow of such a field is read in the backward sweep, where no test says it
  // is there: it may be absent (0 in wasm), and a read of it checks first (a trap on 0, and
  // the call runs as JavaScript). Here every call runs in wasm: the shadow is there wherever
  // the field is.
  await checkBackends(
    `interface Fit {
  weights?: Float64Array;
  center?: { at: number; pull: number };
}
export function f(x: Float64Array, fit: Fit): number {
  const center = fit.center ?? { at: 0, pull: 0 };
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    const w = fit.weights ? fit.weights[i] : 1;
    const r = x[i] - center.at;
    s += w * r * r + center.pull * r;
  }
  return s;
}`,
    [
      [f64(0.5, -1, 2), { weights: f64(1, 2, 3), center: { at: 0.3, pull: 0.2 } }],
      [f64(0.5, -1, 2), { center: { at: 0.3, pull: 0.2 } }],
      [f64(0.5, -1, 2), { weights: f64(1, 2, 3) }],
      [f64(0.5, -1, 2), {}],
    ],
  );
});

test("a value a loop may leave undefined: an early return from a loop, a search", async () => {
  const source = `interface Item { w: number; h: number }
interface Landing { at: number; speed: number }
function land(x: Float64Array, g: number): Landing {
  let v = x[0];
  let y = x[1];
  for (let i = 0; i < 1000; i++) {
    const next = y + v * 0.01;
    if (next < 0) return { at: i * 0.01, speed: v * v };
    y = next;
    v -= g * 0.01;
  }
  throw new Error("never lands");
}
export function f(x: Float64Array, items: Item[]): number {
  let best: Item | undefined = undefined;
  for (const it of items) if (best === undefined || it.w * x[2] > best.w * x[2]) best = it;
  const landing = land(x, 9.81);
  return landing.at * landing.speed + (best ? best.h * x[2] : 0) + best!.w;
}`;
  const items = [
    { w: 0.5, h: 2 },
    { w: 1.5, h: -1 },
  ];
  await checkBackends(source, [
    [f64(3, 2, 0.7), items],
    [f64(1, 0.5, -0.3), items.slice(0, 1)],
  ]);
  // No item: JavaScript throws reading \`best!.w\`; wasm traps on the 0 it holds for undefined,
  // and the call runs again as JavaScript, which throws the same TypeError.
  const m = await loadProgram<{
    g: (x: Float64Array, items: Item[]) => unknown;
    gJs: (x: Float64Array, items: Item[]) => unknown;
    wasmStats: { wasm: number; javascript: number };
  }>({
    "main.ts": `import { gradient } from "nabla";
export { wasmStats } from "nabla";
${source}
export const g = gradient(f, { backend: "wasm" });
export const gJs = gradient(f, { backend: "js" });
`,
  });
  const before = { ...m.wasmStats };
  assert.throws(() => m.gJs(f64(3, 2, 0.7), []), TypeError);
  assert.throws(() => m.g(f64(3, 2, 0.7), []), TypeError);
  assert.equal(
    m.wasmStats.javascript - before.javascript,
    1,
    "the wasm call ran again as JavaScript",
  );
});

test("elements read past an array's ends with a default ('x[i + 1] ?? 0', 'w[i] ?? 1') run in wasm: the test is whether the index is out of range", async () => {
  // A stencil with defaults at both ends, weights shorter or longer than the data, a tuple
  // with an optional element.
  const { wasm } = await checkBackends(
    `export function f(x: Float64Array, w: number[], pair: [number, number?]): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    const left = x[i - 1] ?? x[i];
    const right = x[i + 1] ?? 0;
    s += (w[i] ?? 1) * (left - 2 * x[i] + right) ** 2;
  }
  for (let i = x.length - 1; i >= 0; i--) s += x[i] * (w[i + 2] ?? -1);
  return s + pair[0] * (pair[1] ?? 2);
}`,
    [0, 1, 2, 3, 5, 17].flatMap((n) => {
      const x = f64(...Array.from({ length: n }, (_, i) => Math.sin(i + 1)));
      const w = Array.from({ length: Math.max(0, n - 2) }, (_, i) => 1 + i / 4);
      return [
        [x, w, [1.5]],
        [x, [...w, 2, 3, 4, 5], [1.5, -0.5]],
      ];
    }),
  );
  assert.equal(wasm, 36);
});

interface Item {
  w: number;
  h: number;
}

test("throw new Error(…) in wasm: a trap, then JavaScript throws the error itself", async () => {
  const source = `export function f(x: Float64Array, scale: number): number {
  if (scale <= 0) throw new Error(\`scale must be positive, got \${scale.toFixed(2)}\`);
  let s = 0;
  for (let i = 0; i < x.length; i++) s += scale * x[i] * x[i];
  return s;
}`;
  await checkBackends(source, [[f64(0.5, -2, 1.5), 2]]);
  const m = await loadProgram<{
    g: (x: Float64Array, scale: number) => Float64Array;
    wasmStats: { wasm: number; javascript: number };
  }>({
    "main.ts": `import { gradient } from "nabla";
export { wasmStats } from "nabla";
${source}
export const g = gradient(f, { wrt: 0, backend: "wasm" });
`,
  });
  assert.deepEqual([...m.g(f64(1, 2), 3)], [6, 12]);
  const before = m.wasmStats.javascript;
  assert.throws(() => m.g(f64(1, 2), -1.5), { message: "scale must be positive, got -1.50" });
  assert.equal(m.wasmStats.javascript - before, 1, "the call that threw ran again as JavaScript");
});
