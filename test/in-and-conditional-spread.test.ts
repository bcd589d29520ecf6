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

test("'in' of a function written in an object literal (arrow field, method, interface method) is true, as in JavaScript, here and in a callee", async () => {
  // The objects the derivative code makes hold no key for such a function: asked at run time,
  // 'in' said false there, and the gradient lost those terms (2 instead of 6).
  await checkAgainstPlain(`interface Term {
  w: number;
  eval(x: number): number;
  label?: string;
}
function use(t: Term, x: number): number {
  let s = 0;
  if ("eval" in t) s += t.eval(x);
  if ("label" in t) s += 100;
  return s;
}
export function f(x: number, y: number): number {
  const a: Term = { w: 2, eval: (v) => v * x };
  const b = { w: 3, scale: (v: number) => v * y };
  const c: Term = {
    w: y,
    eval(v) {
      return v + x * this.w;
    },
  };
  let s = 0;
  if ("eval" in a) s += a.eval(x);
  if ("scale" in b) s += b.scale(x);
  if ("eval" in c) s += c.eval(1);
  if ("label" in a) s += 100;
  return s + use(a, y) + use(c, x);
}`);
});

test("'in' with a key chosen at run time, of an object holding functions, is refused", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { gradient } from "nabla";
function f(x: number): number {
  const o = { w: 2, scale: (v: number) => v * x };
  let s = 0;
  for (const k of ["w", "scale"]) if (k in o) s += x;
  return s + o.scale(1);
}
export const g = gradient(f);
`,
    }),
  );
  assert.match(
    text,
    /main\.ts:5:39: error NABLA101: the 'in' operator with a key chosen at run time, of an object holding functions written in it, is not supported in differentiable code\n/,
  );
});
