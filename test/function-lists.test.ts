import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";
import { checkTwoWays } from "./support/two-ways.js";

// Local arrays of functions written in place, as pipelines are written
// (`const stages = [(v) => v * a, relu, Math.tanh]`): looped over, called by index, their length
// read (lower/function-lists.ts). Every case: nabla's value is the plain function's, the gradient
// matches central differences and forward mode.

test("a pipeline of arrows, a function expression, a top-level function and a Math function, looped over with a break", async () => {
  await checkTwoWays(`type Layer = (x: number) => number;
function leaky(v: number): number {
  return v > 0 ? v : 0.1 * v;
}
export function f(x: number, a: number): number {
  const stages: Layer[] = [(v) => v * a, leaky, Math.tanh, function (v) { return v + a * a; }];
  const act = Math.atan;
  let y = act(x);
  for (const stage of stages) {
    y = stage(y);
    if (y > 100) break;
  }
  return y;
}`);
});

test("an element that is a function field of an object: Math.tanh of a Math the module declares, settings.act", async () => {
  // Before, such a list was not one of functions (NABLA101 for its other elements).
  await checkTwoWays(`const Math = {
  tanh: (t: number) => globalThis.Math.tanh(t),
  abs: (t: number) => globalThis.Math.abs(t),
};
const settings = { act: (t: number) => t / (1 + t * t) };
function squash(v: number): number {
  return v / (1 + Math.abs(v));
}
export function f(x: number, y: number): number {
  const stages = [squash, Math.tanh, settings.act, (v: number) => v + 0.5 * y];
  let s = x;
  for (const stage of stages) s = stage(s);
  return s + stages[1](y) * stages.length;
}`);
});

test("an arrow-function field of an instance in a list: called through the list", async () => {
  await checkTwoWays(`class Model {
  constructor(readonly k: number) {}
  predict = (t: number): number => this.k * t * t;
}
export function f(x: number, y: number): number {
  const m = new Model(y);
  const steps = [m.predict, (t: number) => t + x];
  let s = x;
  for (const step of steps) s = step(s);
  return s;
}`);
});

test("elements called by a loop index, by a number, and the list's length; a capture read when called", async () => {
  await checkTwoWays(`export function f(x: number, y: number): number {
  let k = 1;
  const terms = [(t: number) => t * t * y, (t: number) => Math.sin(t * k), (t: number) => k * y + t];
  k = 3;
  let sum = 0;
  for (let i = 0; i < terms.length; i++) sum += terms[i](x + i);
  for (const term of terms) {
    if (term(x) < 0) continue;
    sum += 0.5 * term(y);
  }
  return sum + terms[2]!(x * y) * terms.length;
}`);
});

test("an index past the end calls no function: JavaScript's TypeError", async () => {
  const m = await loadProgram<{ f: (x: number) => number; g: (x: number) => number }>({
    "main.ts": `import { gradient } from "nabla";
export function f(x: number): number {
  const fs = [(v: number) => v * 2, (v: number) => v + 1];
  let y = x;
  for (let i = 0; i <= fs.length; i++) y = fs[i](y);
  return y;
}
export const g = gradient(f);
`,
  });
  assert.throws(() => m.f(1), TypeError);
  assert.throws(() => m.g(1), TypeError);
});

test("a list of functions used as a value is reported with what it can do", () => {
  const files = {
    "main.ts": `import { gradient } from "nabla";
export function f(x: number): number {
  const fs = [(v: number) => v * 2, (v: number) => v + 1];
  return fs.map((g) => g(x))[0];
}
export const g = gradient(f);
`,
  };
  assert.match(
    diagnosticsText(compileFiles(files)),
    /main\.ts:4:10: error NABLA112: 'fs' is a list of functions written here; differentiable code can loop over it \('for \(const f of fs\)', 'fs\.reduce\(\(v, f\) => f\(v\), x\)', '\.reduceRight', '\.forEach'\), call its elements \('fs\[i\]\(…\)'\) and read its length, but not use it as another kind of value/,
  );
});

test("a list of functions holding what factories make, beside arrows and Math functions", async () => {
  // Before, NABLA109 "expected an opaque here, got a number" at 'scaleStage(k)'; the same
  // factory's function named first ('const s = scaleStage(k); [s]') worked.
  await checkTwoWays(`type Stage = (v: number) => number;
const scaleStage = (k: number): Stage => (v) => v * k;
function shiftStage(by: number): Stage {
  const half = by / 2;
  return (v) => v + half + half;
}
export function f(x: number, y: number): number {
  const stages: Stage[] = [scaleStage(x), Math.tanh, shiftStage(y), (v) => v * v + y];
  let v = 0.3;
  for (const stage of stages) v = stage(v);
  return v + stages[0](y) + stages[2](x);
}`);
});
