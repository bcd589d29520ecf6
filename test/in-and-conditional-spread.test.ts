import assert from "node:assert/strict";
import { test } from "node:test";
import { compileFiles, diagnosticsText } from "./support/harness.js";
import { checkAgainstPlain } from "./support/two-ways.js";

// `"radius" in s` on plain objects (a union of interfaces, an optional field, a key held in a
// variable), and `...(flag && { … })` in an object literal, written as TypeScript developers
// write them. Each program is also run as plain JavaScript (types stripped by TypeScript):
// nabla's value must be its value, the gradient its central differences, and forward mode
// must agree with reverse mode.

const SHAPES = `interface Circle {
  radius: number;
}
interface Rect {
  width: number;
  height: number;
}
type Shape = Circle | Rect;

function area(s: Shape): number {
  if ("radius" in s) return Math.PI * s.radius ** 2;
  return s.width * s.height;
}

function perimeter(s: Shape): number {
  return !("width" in s) ? 2 * Math.PI * s.radius : 2 * (s.width + s.height);
}

export function f(x: number, y: number): number {
  const shapes: Shape[] = [{ radius: x }, { width: x, height: y }];
  shapes.push({ radius: x * y });
  let total = 0;
  for (const s of shapes) total += area(s) + perimeter(s);
  const copies = shapes.map((s) => ({ ...s }));
  for (const c of copies) if ("radius" in c) total += c.radius * y;
  return total;
}`;

test("'in' on a union of interfaces narrows as in TypeScript: values, gradients, both modes", async () => {
  await checkAgainstPlain(SHAPES, [
    [0.7, -0.4],
    [1.3, 0.9],
  ]);
});

test("'in' with an optional field: a key left out, a key written undefined, a key in a variable", async () => {
  await checkAgainstPlain(
    `interface Options {
  scale?: number;
  offset?: number;
}

function apply(v: number, o: Options): number {
  let r = v;
  if ("scale" in o) r *= o.scale ?? 10;
  if ("offset" in o && o.offset !== undefined) r += o.offset;
  return r;
}

function count(o: Options, keys: string[]): number {
  let n = 0;
  for (const k of keys) if (k in o) n++;
  return n;
}

export function f(x: number, y: number): number {
  const a: Options = { scale: y };
  const b: Options = { offset: x };
  const c: Options = { scale: undefined, offset: y };
  const d: Options = {};
  const keys = ["scale", "offset", "other"];
  return apply(x, a) + apply(y, b) + apply(x, c) + apply(x * y, d) + count(c, keys) * x + count(d, keys);
}`,
    [
      [0.7, -0.4],
      [1.3, 0.9],
    ],
  );
});

test("'...(flag && { … })': the fields where the flag holds, nothing where it is false, 0 or ''", async () => {
  await checkAgainstPlain(
    `interface Box {
  width: number;
  height: number;
  depth?: number;
  label?: string;
}

function makeBox(w: number, big: boolean, layers: number, name: string): Box {
  return {
    width: w,
    height: 2,
    ...(big && { depth: w * 3 }),
    ...(layers && { height: layers * w }),
    ...(name && { label: name }),
  };
}

function volume(b: Box): number {
  return b.width * b.height * (b.depth ?? 1) + (b.label ? b.label.length : 0);
}

export function f(x: number, y: number): number {
  return (
    volume(makeBox(x, true, 0, "")) +
    volume(makeBox(y, false, 3, "crate")) +
    volume(makeBox(x * y, y > 0, 1, "x"))
  );
}`,
    [
      [0.7, -0.4],
      [1.3, 0.9],
    ],
  );
});

const OPTIONS = `interface Options {
  scale?: number;
}

function apply(v: number, o: Options): number {
  return "scale" in o ? v * (o.scale ?? 1) : v;
}

export function f(x: number, y: number): number {
  return apply(x, { scale: y }) + apply(y, {});
}`;

test("under backend 'wasm', a function asking 'in' runs as JavaScript and says why; 'auto' says nothing", async () => {
  const wasm = compileFiles({
    "main.ts": `import { gradient } from "nabla";
${OPTIONS}
export const g = gradient(f, { backend: "wasm" });
`,
  });
  assert.match(diagnosticsText(wasm), /NABLA202: 'gradient' runs as JavaScript.*'in'/);
  await checkAgainstPlain(OPTIONS, [[0.7, -0.4]], "wasm");
  await checkAgainstPlain(OPTIONS, [[0.7, -0.4]], "auto");
});
