import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";
import { checkTwoWays } from "./support/two-ways.js";

// Optional function parameters, as TypeScript code writes progress hooks and options:
// `onStep?: (i: number, loss: number) => void` left out, given, or given undefined or null,
// called as `onStep?.(…)` or after `if (onStep)`, `onStep !== undefined`, `onStep != null`,
// `typeof onStep === "function"`, passed on, or replaced with `onStep ?? fallback`. Each call
// site's specialization knows whether a function was given, so these tests are settled when it
// is compiled. Every case: nabla's value is the plain function's, the gradient matches central
// differences and forward mode.

const FIT = `type Hook = (step: number, loss: number) => void;

function residual(w0: number, w1: number, x: number, scale?: (r: number) => number): number {
  const r = w0 * x + w1 - Math.sin(x);
  return scale ? scale(r) : r;
}

function report(r: number, i: number, hook?: Hook | null): number {
  hook?.(i, r);
  return r * r;
}

function fit(w0: number, w1: number, onStep?: Hook | null, scale?: (r: number) => number): number {
  let loss = 0;
  for (let i = 0; i < 4; i++) {
    const x = 0.5 * i;
    loss += report(residual(w0, w1, x, scale), i, onStep);
    if (onStep !== undefined && onStep !== null) onStep(i, loss);
    if (typeof onStep === "function") loss += 0.001 * w0;
    if (onStep != null) loss += 0.002 * w1;
    if (!onStep) loss -= 0.003 * w0 * w1;
    if (onStep === null) loss += 0.004 * w0 * w0;
  }
  return loss;
}
`;

test("a progress hook left out, given undefined or null, or given an arrow: the same loss, its gradient two ways", async () => {
  await checkTwoWays(
    `${FIT}
export function f(x: number, y: number): number {
  const steps: number[] = [];
  const a = fit(x, y);
  const b = fit(x, y, undefined);
  const c = fit(x, y, null);
  const d = fit(x, y, (i, l) => {
    steps.push(l);
  });
  const e = fit(x, y, undefined, (r) => 2 * r);
  // Functions known only at run time: a Math function, an optional field's hook.
  const options: { hook?: Hook | null; shape?: (r: number) => number } = { shape: Math.atan };
  const g = fit(x, y, options.hook, Math.tanh) + fit(y, x, null, options.shape);
  options.hook = null;
  const h = fit(x, y, options.hook);
  return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * g + 7 * h + steps.length;
}`,
  );
});

test("a hook passed on, or replaced with ?? by a module-level one that takes fewer arguments", async () => {
  await checkTwoWays(
    `type Hook = (step: number, loss: number) => void;
const quiet: Hook = () => {};

function inner(r: number, i: number, report?: Hook): number {
  report?.(i, r * r);
  return r * r;
}

function run(w0: number, w1: number, onStep?: Hook): number {
  const hook = onStep ?? quiet;
  let loss = 0;
  for (let i = 0; i < 3; i++) {
    loss += inner(w0 * i + w1, i, onStep);
    hook(i, loss);
  }
  return loss;
}

// (A hook that assigns a variable it captures, \`calls++\`, is refused: NABLA112, listed in the guide.)
export function f(x: number, y: number): number {
  const calls: number[] = [];
  return run(x, y) + run(y, x, (i) => {
    calls.push(i);
  }) + calls.length;
}`,
  );
});

test("calling a hook that was left out, without ?., throws JavaScript's TypeError", async () => {
  const m = await loadProgram<{
    f: (x: number) => number;
    g: (x: number) => number;
  }>({
    "main.ts": `import { gradient } from "nabla";
function step(x: number, onStep?: (x: number) => void): number {
  onStep!(x);
  return x * x;
}
export function f(x: number): number {
  return step(x);
}
export const g = gradient(f);
`,
  });
  assert.throws(() => m.f(2), { name: "TypeError", message: "onStep is not a function" });
  assert.throws(() => m.g(2), { name: "TypeError", message: "onStep is not a function" });
});

/** An energy that hands its hook to forEach, and a hook counting positive values. */
const ENERGY = `type Hook = (v: number) => void;
let seen = 0;
function count(v: number): void {
  if (v > 0) seen++;
}
function energy(xs: number[], hook?: Hook): number {
  let e = 0;
  for (const x of xs) e += x * x;
  xs.forEach(hook!);
  return e;
}`;

test("an array method given a hook that was left out throws before it looks at the array, even an empty one", async () => {
  const m = await loadProgram<{
    total: (xs: number[]) => number;
    g: (xs: number[]) => number[];
    withHook: (xs: number[]) => number[];
  }>({
    "main.ts": `import { gradient } from "nabla";
${ENERGY}
export function total(xs: number[]): number {
  return energy(xs, count) + energy([]);
}
export const g = gradient(total);
export const withHook = gradient((xs: number[]) => energy(xs, count));
`,
  });
  // JavaScript's [].forEach(undefined) throws; the derivative must too, not return a gradient.
  assert.throws(() => m.total([1, 2, 3]), { name: "TypeError" });
  assert.throws(() => m.g([1, 2, 3]), { name: "TypeError", message: "hook is not a function" });
  assert.deepEqual(m.withHook([1, 2, 3]), [2, 4, 6]);
});

test("an array method given a hook chosen at run time throws, before the loop, when it holds none", async () => {
  const m = await loadProgram<{
    total: (xs: number[], y: number) => number;
    g: (xs: number[], y: number) => [number[], number];
  }>({
    "main.ts": `import { gradient } from "nabla";
${ENERGY}
export function total(xs: number[], y: number): number {
  return energy(xs, y > 0 ? count : undefined) * y;
}
export const g = gradient(total);
`,
  });
  // No hook and an empty array: [].forEach(undefined) throws in JavaScript, so must the gradient.
  assert.throws(() => m.total([], -1), { name: "TypeError" });
  assert.throws(() => m.g([], -1), { name: "TypeError", message: "hook is not a function" });
  assert.deepEqual(m.g([], 2), [[], 0]);
  assert.deepEqual(m.g([1, 3], 2), [[4, 12], 10]);
});

test("derivative(curve!) under a test that curve was given: differentiated where it is passed", async () => {
  const m = await loadProgram<{
    slope: (x: number, curve?: (t: number) => number) => number;
    square: (x: number) => number;
    d: (x: number) => number;
  }>({
    "main.ts": `import { derivative } from "nabla";
export function slope(x: number, curve?: (t: number) => number): number {
  if (curve) return derivative(curve!)(x);
  return 0;
}
export function square(x: number): number {
  return slope(x, (t) => t * t) + slope(x);
}
export const d = derivative((x: number) => slope(x, (t) => t * t * x));
`,
  });
  // Before, the arrow passed to slope had no derivative attached: a TypeError at the call.
  assert.equal(m.square(2), 4);
  // slope(x, t ↦ t²·x) = 2x², whose derivative is 4x.
  assert.equal(m.d(3), 12);
});

test("gradient of a function parameter that was left out is reported where it is asked", () => {
  const files = {
    "main.ts": `import { gradient } from "nabla";
function slope(x: number, curve?: (t: number) => number): number {
  return gradient(curve!)(x);
}
export const g = gradient((x: number) => slope(x));
`,
  };
  const text = diagnosticsText(compileFiles(files));
  assert.match(
    text,
    /error NABLA116: 'curve' holds no function here \(it was left out, or given undefined or null\), so 'gradient' has nothing to differentiate/,
  );
  assert.match(text, /main\.ts:3:19/);
  assert.match(text, /^1 error$/m);
});

test("review: a function or no function chosen by a condition is tested at run time, and ?? takes the other", async () => {
  await checkTwoWays(
    `type Sc = (z: number) => number;
function h(x: number, s?: Sc | null): number {
  let r = x;
  if (s) r += 100 * x;
  if (s === undefined) r += 10;
  if (s === null) r += 20 * x * x;
  r += s?.(x) ?? 1000;
  return r + (s ?? Math.cos)(x);
}
export function f(x: number, y: number): number {
  return (
    h(x, y > 0 ? (z: number) => 2 * z * y : undefined) +
    h(y, x > 0 ? null : (z: number) => z * z) +
    h(x * y, x < y ? undefined : null)
  );
}`,
    [
      [0.7, -0.4],
      [1.3, 0.9],
      [-0.6, 0.2],
    ],
  );
});

test("review: a function parameter with a default given undefined, written or at run time, takes the default", async () => {
  await checkTwoWays(`type Act = (z: number) => number;
function apply(x: number, act: Act = Math.tanh): number {
  return act(x) * x;
}
export function f(x: number, y: number): number {
  const options: { act?: Act } = {};
  const chosen: { act?: Act } = { act: Math.atan };
  return apply(x, undefined) + apply(y, options.act) + apply(x * y, chosen.act) + apply(y);
}`);
});
