import { test } from "node:test";
import { assertClose, loadProgram } from "./support/harness.js";
import { checkTwoWays } from "./support/two-ways.js";

// `{ base: v, bonus: i % 2 ? x : undefined }` returned from a map callback, where the field
// is optional (`bonus?: number`) or typed `number | undefined`: the literal has no declared type
// where it is written, so `undefined` was refused (NABLA101). TypeScript's type for the
// literal (its context's, else its own) says the field may be absent.

test("an optional field written 'c ? x : undefined' in an object a map callback returns", async () => {
  await checkTwoWays(`interface Item {
  base: number;
  bonus?: number;
}
export function f(x: number, y: number): number {
  const items: Item[] = [x, y, x * y].map((v, i) => ({
    base: v,
    bonus: i % 2 ? x : undefined,
  }));
  let total = 0;
  for (const it of items) total += it.base * (it.bonus ?? 1);
  return total;
}`);
});

test("the same with the callback's result type written, or no interface at all", async () => {
  await checkTwoWays(`interface Item {
  base: number;
  bonus?: number;
}
export function f(x: number, y: number): number {
  const annotated = [x, y].map((v, i): Item => ({ base: v, bonus: i === 0 ? undefined : y * y }));
  const inferred = [y, x].map((v, i) => ({ weight: v, extra: i > 0 ? Math.exp(x) : undefined }));
  let total = 0;
  for (const it of annotated) total += it.bonus === undefined ? it.base : it.base * it.bonus;
  for (const it of inferred) total += it.weight + (it.extra ?? 0);
  return total;
}`);
});

test("under backend 'wasm' such a function runs as JavaScript, with the same gradient", async () => {
  const m = await loadProgram<{
    js: (x: number, y: number) => number[];
    wasm: (x: number, y: number) => number[];
  }>({
    "main.ts": `import { gradient } from "nabla";
interface Item {
  base: number;
  bonus?: number;
}
function f(x: number, y: number): number {
  const items: Item[] = [x, y].map((v, i) => ({ base: v, bonus: i ? Math.sin(x) : undefined }));
  return items.reduce((s, it) => s + it.base * (it.bonus ?? 2), 0);
}
export const js = gradient(f);
export const wasm = gradient(f, { backend: "wasm" });
`,
  });
  // f = 2x + y·sin(x)
  const [x, y] = [0.3, 1.7];
  const expected = [2 + y * Math.cos(x), Math.sin(x)];
  m.js(x, y).forEach((g, i) => assertClose(g, expected[i]!, 1e-12, `js ∂f/∂x${i}`));
  m.wasm(x, y).forEach((g, i) => assertClose(g, expected[i]!, 1e-12, `wasm ∂f/∂x${i}`));
});
