import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText } from "./support/harness.js";
import { checkTwoWays } from "./support/two-ways.js";

// Spreading a value that may be undefined (`...maybe` of `Opt | undefined`, `...overrides` of an
// optional parameter): JavaScript spreads nothing where it is absent. nabla read its fields
// regardless, so such a call threw a TypeError ("Cannot read properties of undefined") in
// every derivative. Each field now comes from it only where it is there (and has the field).

test("a spread of an object that may be undefined, over fields written before it", async () => {
  await checkTwoWays(`interface Opt {
  w: number;
}
export function f(x: number, y: number): number {
  const maybe: Opt | undefined = x > 1 ? { w: x } : undefined;
  const o = { w: 2, h: y, ...maybe };
  return o.w * o.h + Math.sin(o.w);
}`);
});

test("an optional parameter spread over defaults, passed and left out, its own fields optional too", async () => {
  await checkTwoWays(`interface Forces {
  spring: number;
  damping: number;
  gravity?: number;
}
const DEFAULTS: Forces = { spring: 2, damping: 0.5 };
function energy(x: number, overrides?: Partial<Forces>): number {
  const forces = { ...DEFAULTS, ...overrides };
  return forces.spring * x * x + forces.damping * x + (forces.gravity ?? 9.81) * x;
}
export function f(x: number, y: number): number {
  return energy(x) + energy(y, { damping: x }) + energy(x * y, { gravity: y, spring: x });
}`);
});

test("a field only the absent-or-not object has: the object made lacks it where it is absent", async () => {
  await checkTwoWays(`interface Extra {
  z: number;
}
export function f(x: number, y: number): number {
  const extra: Extra | null = y > 0 ? { z: x * y } : null;
  const o = { base: x, ...extra };
  return o.base * (o.z ?? 5) + x * y;
}`);
});

test("an optional field spread ('...config.overrides') and a call that may return undefined ('...pick(i)')", async () => {
  await checkTwoWays(`interface Physics {
  gravity: number;
  drag: number;
}
interface Config {
  mass: number;
  overrides?: { gravity?: number; drag?: number };
}
const DEFAULTS: Physics = { gravity: 9.81, drag: 0.1 };
function energy(v: number, config: Config): number {
  const p = { ...DEFAULTS, ...config.overrides };
  return 0.5 * config.mass * v * v + config.mass * p.gravity - p.drag * v;
}
interface Tweak {
  gain?: number;
  bias?: number;
}
function pick(i: number, x: number): Tweak | undefined {
  return i > 0 ? { gain: x } : undefined;
}
export function f(x: number, y: number): number {
  let s = energy(x, { mass: 2 }) + energy(y, { mass: x, overrides: { drag: y } });
  for (let i = 0; i < 3; i++) {
    const t = { gain: 2, bias: y, ...pick(i - 1, x) };
    s += t.gain * x + t.bias;
  }
  return s;
}`);
});

test("what it cannot spread where the object may be absent is refused, saying how to write it", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { gradient } from "nabla";
interface Opt {
  w: number;
}
function f(x: number): number {
  const maybe: Opt | undefined = x > 1 ? { w: x } : undefined;
  const o = { w: "none", ...maybe };
  return typeof o.w === "number" ? o.w * x : x;
}
export const g = gradient(f);
`,
    }),
  );
  assert.match(
    text,
    /NABLA101: spreading 'maybe', which may be undefined or null here, is not supported where the field 'w' before it is of another type/,
  );
  assert.match(
    text,
    /help: spread it where it is known to be there: 'maybe \? \{ \.\.\.base, \.\.\.maybe \} : base'/,
  );
});
