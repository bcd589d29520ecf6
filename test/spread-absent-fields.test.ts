import { test } from "node:test";
import assert from "node:assert/strict";
import { assertClose, loadProgram } from "./support/harness.js";
import { checkTwoWays } from "./support/two-ways.js";

// Spreading an object that may lack an optional field. JavaScript copies own keys only, so the
// copy lacks the field too, and a later spread of the copy keeps the value before it. nabla's
// copy had the key, holding undefined, so `{ ...defaults, ...copy }` lost the default: a wrong
// value and a wrong derivative. And `...(c ? { bonus: x } : {})` was refused (NABLA109: the
// two sides were given the first side's type, in which `bonus` is required).

const ITEM = `interface Item {
  base: number;
  bonus?: number;
}
`;

test("a copy of an object lacking an optional field lacks it too: a spread over defaults keeps the default", async () => {
  await checkTwoWays(`${ITEM}export function f(x: number, y: number): number {
  const plain: Item = { base: y };
  const copy: Item = { ...plain };
  const defaults: Item = { base: 0, bonus: x * x };
  const merged: Item = { ...defaults, ...copy };
  return (merged.bonus ?? 100) * y + merged.base;
}`);
});

test("a conditional spread of object literals into an object literal", async () => {
  await checkTwoWays(
    `${ITEM}export function f(x: number, y: number): number {
  const base = { base: y };
  const big = x > 1;
  const a: Item = { ...base, ...(big ? { bonus: x } : {}) };
  const b: Item = { ...base, ...(!big ? { bonus: x * y } : {}) };
  const fallback: Item = { base: 1, bonus: Math.sin(y) };
  const c: Item = { ...fallback, ...b };
  return a.base * (a.bonus ?? 1) + b.base * (b.bonus ?? 3) + (c.bonus ?? 0) * x;
}`,
  );
});

test("under backend 'wasm' such functions run as JavaScript, with the same gradient", async () => {
  const m = await loadProgram<{ js: (x: number) => number; wasm: (x: number) => number }>({
    "main.ts": `import { derivative } from "nabla";
${ITEM}
function f(x: number): number {
  const plain: Item = { base: x };
  const defaults: Item = { base: 0, bonus: 3 };
  const merged: Item = { ...defaults, ...plain, ...(x > 0 ? {} : { bonus: 5 }) };
  return (merged.bonus ?? 100) * x * x;
}
export const js = derivative(f);
export const wasm = derivative(f, { backend: "wasm" });
`,
  });
  // Above 0, merged.bonus is the default 3: f = 3x²; below, 5x².
  assertClose(m.js(0.5), 3, 1e-12, "js, x > 0");
  assertClose(m.wasm(0.5), 3, 1e-12, "wasm, x > 0");
  assertClose(m.js(-0.5), -5, 1e-12, "js, x < 0");
  assert.equal(m.wasm(-0.5), m.js(-0.5), "wasm, x < 0");
});

test("a copy made where no type is declared (in a map callback) lacks the field too, for a later spread", async () => {
  // `ps.map((p) => ({ ...p }))`: the copy's type had 'tag' as a field always there, so
  // `{ tag: "default", ...c }` took c's undefined over the default where c lacked it.
  await checkTwoWays(`interface P {
  v: number;
  tag?: string;
}
export function f(x: number, y: number): number {
  const ps: P[] = [{ v: x, tag: "keep" }, { v: y }, { v: x * y, tag: undefined }];
  const copies = ps.map((p) => ({ ...p }));
  let s = 0;
  for (const c of copies) {
    const merged = { tag: "default", ...c };
    s += merged.tag === undefined ? c.v * 3 : merged.tag === "default" ? c.v * 2 : c.v;
  }
  return s;
}`);
});
