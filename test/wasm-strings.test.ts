import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";
import { checkBackends, f64 } from "./support/wasm-backends.js";
import { checkTwoWays } from "./support/two-ways.js";

// Strings in the WebAssembly backend (kinds.ts: i32 ids, equal strings equal ids): fields of
// string literal types tested against constants (a discriminated union's `kind`, a `switch`),
// arrays of strings, strings passed in and compared with one another, an optional string
// field's truthiness. Each program is checked by checkBackends: wasm against JavaScript within
// 1e-12, central differences, forward mode against reverse mode, every call run in wasm.

test("a discriminated union switched on its kind", async () => {
  await checkBackends(
    `type Shape =
  | { kind: "circle"; cx: number; cy: number; r: number }
  | { kind: "square"; cx: number; cy: number; half: number };
function distance(s: Shape, x: number, y: number): number {
  switch (s.kind) {
    case "circle":
      return Math.hypot(x - s.cx, y - s.cy) - s.r;
    case "square":
      return Math.max(Math.abs(x - s.cx), Math.abs(y - s.cy)) - s.half;
  }
}
export function f(shapes: Shape[], p: Float64Array): number {
  let s = 0;
  for (const shape of shapes) s += distance(shape, p[0], p[1]) ** 2;
  return s;
}`,
    [
      [
        [
          { kind: "circle", cx: 0.5, cy: -1, r: 2 },
          { kind: "square", cx: 3, cy: 1, half: 0.75 },
        ],
        f64(0.25, 0.4),
      ],
    ],
  );
});

test("string fields and strings passed in, compared with constants and with one another", async () => {
  await checkBackends(
    `interface Sample { group: string; weight: number; split: "train" | "test"; note?: string }
interface Query { target: string; scale: number }
export function f(samples: Sample[], query: Query, w: Float64Array): number {
  const target = query.target;
  let loss = 0;
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i];
    if (s.split !== "train") continue;
    const hit = s.group === target ? 1 : 0;
    const noted = s.note ? 2 : s.note === "" ? 1.5 : 1;
    if (s.note !== "kept" && s.note === s.group) loss += 100;
    loss += noted * s.weight * (w[i] - query.scale * hit) ** 2;
  }
  return loss;
}`,
    [
      [
        [
          { group: "a", weight: 1.5, split: "train" },
          { group: "b", weight: 0.5, split: "train", note: "kept" },
          { group: "a", weight: 2, split: "test" },
          { group: "c", weight: 1, split: "train", note: "" },
        ],
        { target: "a", scale: 1.25 },
        f64(0.3, 0.9, -0.2, 0.6),
      ],
      [[{ group: "z", weight: 1, split: "train" }], { target: "z", scale: 0.5 }, f64(0.1)],
    ],
  );
});

test("an array of strings: its length and its elements", async () => {
  await checkBackends(
    `interface Table { names: string[]; x: Float64Array }
export function f(table: Table): number {
  const { names, x } = table;
  let s = 0;
  for (let i = 0; i < names.length; i++) {
    const scale = names[i] === "double" ? 2 : names[i] === names[0] ? 0.5 : 1;
    s += scale * Math.sin(x[i]) * names.length;
  }
  return s;
}`,
    [
      [{ names: ["first", "double", "first", "other"], x: f64(0.5, 1, 1.5, -2) }],
      [{ names: ["double"], x: f64(0.25) }],
    ],
  );
});

test("a string returned in an object comes back as the same string", async () => {
  const m = await loadProgram<{ run: (x: number, y: number) => { label: string; v: number } }>({
    "main.ts": `import { valueWithGradient } from "nabla";
interface Labelled { label: string; v: number }
function pick(x: number, y: number): number {
  return x > y ? x * y : x + y;
}
export const vg = valueWithGradient(pick, { backend: "wasm" });
export function run(x: number, y: number): Labelled {
  return { label: x > y ? "product" : "sum", v: vg(x, y).value };
}
`,
  });
  assert.deepEqual(m.run(2, 1), { label: "product", v: 2 });
  assert.deepEqual(m.run(1, 2), { label: "sum", v: 3 });
});

test("an ordering of strings stays JavaScript, saying why", () => {
  const compiled = compileFiles({
    "main.ts": `import { gradient } from "nabla";
export function f(names: string[], x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < names.length; i++) if (names[i] < "m") s += x[i] * x[i];
  return s;
}
export const g = gradient(f, { backend: "wasm" });
`,
  });
  assert.match(
    diagnosticsText(compiled),
    /runs as JavaScript, not WebAssembly: an ordering of strings \('<'; wasm compares strings for equality only\) in 'f'/,
  );
});

test("a character of a string read in an arrow given to the operator: the reason says what, and 'this function'", async () => {
  const files = {
    "main.ts": `import { gradient } from "nabla";
function score(x: number, word: string): number {
  let s = 0;
  for (let i = 0; i < 6; i++) if (word[i] === "a") s += x * i;
  return s;
}
export const g = gradient((x: number) => score(x, "banana"), { backend: "wasm" });
`,
  };
  assert.match(
    diagnosticsText(compileFiles(files)),
    /runs as JavaScript, not WebAssembly: a character of a string \('s\[i\]'; wasm compares strings for equality only\) in this function\n/,
  );
  const m = await loadProgram<{ g: (x: number) => number }>(files);
  assert.equal(m.g(2), 1 + 3 + 5);
});

test("text made in the function (a template literal, a sort without a comparator) stays JavaScript, saying so", () => {
  const reason = (body: string) =>
    diagnosticsText(
      compileFiles({
        "main.ts": `import { gradient } from "nabla";
export function f(x: Float64Array): number {
${body}
}
export const g = gradient(f, { backend: "wasm" });
`,
      }),
    );
  const made =
    /runs as JavaScript, not WebAssembly: text made with '\+' or a template literal \(a sort without a comparator makes it too: it orders numbers as text; wasm compares strings for equality only\) in 'f'/;
  // The default sort orders [10, 9] as text: "10" < "9".
  assert.match(reason("  const sorted = Array.from(x).sort();\n  return sorted[0] * x[0];"), made);
  assert.match(reason("  const label = `n=${x.length}`;\n  return label.length * x[0];"), made);
});

test("strings as conditions and ordered, in the JavaScript backend as in plain TypeScript", async () => {
  // Both were refused before (NABLA106, NABLA109): `if (label)` and `name < "m"`.
  await checkTwoWays(`interface Item { name: string; note?: string; w: number }
const items: Item[] = [
  { name: "alpha", w: 1 },
  { name: "omega", note: "late", w: 2 },
  { name: "kappa", note: "", w: 3 },
];
export function f(x: number, y: number): number {
  let s = 0;
  for (const item of items) {
    const early = item.name < "m" ? x : y;
    s += item.note ? early * item.w : early * early;
    if (item.name >= "kappa" && item.name) s += x * y;
  }
  return s;
}`);
});
