import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { WasmKind } from "../src/api/wasm-entry.js";
import { isLeaf, leafCopier } from "../src/runtime/wasm-leaf-objects.js";
import { checkBackends, f64, type Value } from "./support/wasm-backends.js";

// Objects of numbers, booleans and opaque fields copied into wasm memory by a function made for
// their fields (runtime/wasm-leaf-objects.ts), and field by field where code cannot be made.

class NotCopyable extends Error {}

const FIELDS: [string, WasmKind][] = [
  ["x", "number"],
  ["on", "boolean"],
  ["label", "opaque"],
  ["w", { optional: "number" }],
  ["flag", { optional: "boolean" }],
];

test("a leaf object's block: its cells, its length and its presence mask", () => {
  assert.equal(isLeaf(FIELDS), true);
  assert.equal(isLeaf([["inner", { fields: [["x", "number"]] }]]), false);
  const copy = leafCopier(FIELDS, NotCopyable)!;
  const f64s = new Float64Array(16).fill(7);
  const i32 = new Int32Array(f64s.buffer);
  copy({ x: 1.5, on: true, label: "a", w: -2 }, f64s, i32, 16);
  assert.equal(i32[4], 5, "the field count");
  assert.equal(i32[5], 0b01000, "the mask: w there, flag not");
  assert.equal(f64s[3], 1.5);
  assert.equal(i32[8], 1, "on");
  assert.equal(i32[10], 0, "the opaque cell");
  assert.equal(f64s[6], -2);
  assert.equal(i32[14], 0, "flag absent: 0");
  copy({ x: 0, on: false, label: "b", flag: true }, f64s, i32, 16);
  assert.equal(i32[5], 0b10000);
  assert.ok(Number.isNaN(f64s[6]), "w absent: NaN");
  assert.throws(() => copy({ x: "1", on: true }, f64s, i32, 16), NotCopyable);
  assert.throws(() => copy({ x: 1, on: 1 }, f64s, i32, 16), NotCopyable);
  assert.throws(() => copy({ x: 1, on: true, w: null }, f64s, i32, 16), NotCopyable);
});

test("where code cannot be made from text (a Content-Security-Policy), no copier: field by field", () => {
  const module = fileURLToPath(new URL("../src/runtime/wasm-leaf-objects.js", import.meta.url));
  const made = execFileSync(
    process.execPath,
    [
      "--disallow-code-generation-from-strings",
      "--input-type=module",
      "-e",
      `import { leafCopier } from ${JSON.stringify(module)};
console.log(String(leafCopier([["x", "number"]], Error)));`,
    ],
    { encoding: "utf8" },
  );
  assert.equal(made.trim(), "undefined");
});

test("arrays of small objects and class instances, through both backends", async () => {
  await checkBackends(
    `interface Sample { x: number; y: number; weight?: number; tag: string; valid: boolean }
export class Vec { constructor(public x: number, public y: number) {} }
export function f(samples: Sample[], origin: Vec, scale: Float64Array): number {
  let s = 0;
  for (const p of samples) {
    if (!p.valid) continue;
    const dx = p.x - origin.x, dy = p.y - origin.y;
    s += (p.weight ?? 1) * scale[0] * (dx * dx + dy * dy);
  }
  return s;
}`,
    (m) => [
      [
        [
          { x: 1, y: 2, tag: "a", valid: true },
          { x: -0.5, y: 0.25, weight: 3, tag: "b", valid: true },
          { x: 4, y: 1, weight: 2, tag: "c", valid: false },
        ],
        new (m.Vec as new (x: number, y: number) => Value)(0.5, -1),
        f64(1.5),
      ],
    ],
  );
});
