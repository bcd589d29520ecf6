import assert from "node:assert/strict";
import { test } from "node:test";
import ts from "typescript";
import {
  assertClose,
  compileFiles,
  diagnosticsText,
  finiteGradient,
  loadProgram,
} from "./support/harness.js";

// `"radius" in s` on plain objects (a union of interfaces, an optional field, a key held in a
// variable), and `...(flag && { … })` in an object literal, written as TypeScript developers
// write them. Each program is also run as plain JavaScript (types stripped by TypeScript):
// nabla's value must be its value, the gradient its central differences, and forward mode
// must agree with reverse mode.

interface Compiled {
  f: (x: number, y: number) => number;
  vg: (x: number, y: number) => { value: number; gradient: [number, number] };
  d: (x: number, y: number) => (dx: number, dy: number) => number;
}

async function plainF(body: string): Promise<(x: number, y: number) => number> {
  const js = ts.transpileModule(body, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const m = (await import(`data:text/javascript,${encodeURIComponent(js)}`)) as {
    f: (x: number, y: number) => number;
  };
  return m.f;
}

async function check(body: string, points: [number, number][], backend = "js"): Promise<void> {
  const m = await loadProgram<Compiled>({
    "main.ts": `import { differential, valueWithGradient } from "nabla";
${body}
export const vg = valueWithGradient(f, { wrt: [0, 1], backend: "${backend}" });
export const d = differential(f, { wrt: [0, 1], backend: "${backend}" });
`,
  });
  const plain = await plainF(body);
  for (const [x, y] of points) {
    const { value, gradient } = m.vg(x, y);
    assert.equal(value, plain(x, y), `value at (${x}, ${y}), against plain JavaScript`);
    const expected = finiteGradient(plain, [x, y]);
    gradient.forEach((g, i) => {
      assertClose(g, expected[i]!, 1e-6, `∂f/∂x${i} at (${x}, ${y}), finite differences`);
      const e: [number, number] = [0, 0];
      e[i] = 1;
      assertClose(m.d(x, y)(...e), g, 1e-12, `∂f/∂x${i} at (${x}, ${y}), forward mode`);
    });
  }
}

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
  await check(SHAPES, [
    [0.7, -0.4],
    [1.3, 0.9],
  ]);
});

test("'in' with an optional field: a key left out, a key written undefined, a key in a variable", async () => {
  await check(
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
  await check(
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
  await check(OPTIONS, [[0.7, -0.4]], "wasm");
  await check(OPTIONS, [[0.7, -0.4]], "auto");
});
