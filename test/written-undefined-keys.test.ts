import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText } from "./support/harness.js";
import { checkTwoWays } from "./support/two-ways.js";

// A key written with the value undefined (`{ scale: undefined }`, `{ rate }` of a parameter
// left out) is a key of the object in JavaScript, so spreading the object over defaults gives
// undefined there, not the default. nabla's object left the key out (any field holding the
// constant undefined was), so `{ ...defaults, ...options }` kept the default: a wrong value and
// a wrong derivative.

test("a key written undefined replaces the default it is spread over", async () => {
  await checkTwoWays(`interface Options {
  scale?: number;
  offset?: number;
}
const defaults = { scale: 2, offset: 1 };
export function f(x: number, y: number): number {
  const options: Options = { scale: undefined, offset: y };
  const o = { ...defaults, ...options };
  return (o.scale ?? 10) * x + (o.offset ?? 0) * x;
}`);
});

test("a shorthand key of a parameter left out is a key: spread, it replaces the default", async () => {
  await checkTwoWays(`interface Opts {
  rate?: number;
  decay?: number;
}
function make(rate?: number): Opts {
  return { rate };
}
export function f(x: number, y: number): number {
  const defaults = { rate: 0.5, decay: 2 };
  const o = { ...defaults, ...make() };
  const p = { ...defaults, ...make(y) };
  return (o.rate ?? 3) * x + (p.rate ?? 3) * x * x + o.decay;
}`);
});

test("a field TypeScript types 'undefined', spread over a number, is not the number", () => {
  // { base: v, bonus: undefined } from a map callback: its 'bonus' is of type undefined, which
  // nabla has no type for; the spread object's bonus is no longer the default's.
  const compiled = compileFiles({
    "main.ts": `import { gradient } from "nabla";
export function f(x: number, y: number): number {
  const items = [x, y].map((v) => ({ base: v, bonus: undefined }));
  const defaults = { base: 1, bonus: 5 };
  let t = 0;
  for (const it of items) {
    const m = { ...defaults, ...it };
    t += m.base * (m.bonus ?? y);
  }
  return t;
}
export const g = gradient(f);
`,
  });
  assert.match(diagnosticsText(compiled), /has no field 'bonus'/);
});
