import assert from "node:assert/strict";
import { test } from "node:test";
import { compileFiles, diagnosticsText } from "./support/harness.js";
import { checkTwoWays } from "./support/two-ways.js";

// Everyday syntax of TypeScript inside differentiated code (issue 21): optional chaining,
// spread arguments and rest parameters, array methods (concat, reverse, entries, keys,
// Array.from), `continue` in a `switch`, local functions in loops, lambdas in module-level
// blocks, namespace re-exports. Each program is written as a TypeScript developer writes it
// and checked against central differences, and forward mode against reverse mode.

test("optional chaining: optional fields and objects, present and absent, with ??", async () => {
  await checkTwoWays(
    `interface Wind { x: number; y: number; gust?: { k: number } }
interface Particle { pos: number; wind?: Wind; weights?: number[] }
interface Options { scale?: number; wind?: Wind }
function drift(p: Particle, t: number) {
  const wx = p.wind?.x ?? 0;
  const gust = p.wind?.gust?.k ?? 1;
  const first = p.weights?.[0] ?? 2;
  const n = p.weights?.length ?? 0;
  const energy = p.weights?.map((w) => w * w).reduce((a, b) => a + b, 0) ?? 0;
  return p.pos + t * wx * gust + first * n + energy;
}
function scaled(x: number, opts?: Options) {
  const s = opts?.scale ?? 1;
  return x * s + (opts?.wind?.y ?? 0.5) * x;
}
export function f(x: number, y: number) {
  const a: Particle = { pos: x, wind: { x: y, y: 1, gust: { k: x } }, weights: [x, y] };
  const b: Particle = { pos: y };
  const c: Particle = { pos: x * y, wind: { x, y } };
  return drift(a, 2) + drift(b, 3) + drift(c, y) + scaled(x) + scaled(y, {}) +
    scaled(x, { scale: y, wind: { x: 1, y: x } });
}`,
  );
});

test("optional chaining: a method of an optional class instance, a chain read on both paths", async () => {
  await checkTwoWays(
    `class Vec {
  constructor(public a: number, public b: number) {}
  norm() { return Math.hypot(this.a, this.b); }
}
interface Holder { v?: Vec; next?: { v: Vec } }
function length(h: Holder) {
  return (h.v?.norm() ?? 0) + (h.next?.v.a ?? -1);
}
export function f(x: number, y: number) {
  const present: Holder = { v: new Vec(x, y), next: { v: new Vec(y, 2) } };
  const maybe: Holder = x > 1 ? present : {};
  const t = maybe.v?.a;
  return length(present) + length({}) + length(maybe) * y + (t === undefined ? y : t * t);
}`,
    [
      [0.7, 1.3],
      [1.4, -0.6],
    ],
    // Math.hypot's derivative is not the plain function's last digit.
    false,
  );
});

test("an optional call stays a diagnostic, at the call", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { gradient } from "nabla";
interface Model { transform?: (x: number) => number }
export function f(x: number, m: Model) {
  return m.transform?.(x) ?? x;
}
export const g = gradient(f, { wrt: 0 });
`,
    }),
  );
  assert.match(text, /main\.ts:4:10: error NABLA101: optional calls are not supported/);
});
