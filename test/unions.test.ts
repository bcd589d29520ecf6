import assert from "node:assert/strict";
import { test } from "node:test";
import { assertClose, compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";
import { checkTwoWays } from "./support/two-ways.js";

// Unions of object types: the variants of a union told apart by a field (`kind`), narrowed by
// `switch` and `if`, and arrays of object literals that do not all have the same fields, which
// TypeScript types as a union. Checked against central differences and forward mode against
// reverse mode.

const SHAPES = `type Shape =
  | { kind: "circle"; cx: number; cy: number; r: number }
  | { kind: "rect"; x: number; y: number; w: number; h: number }
  | { kind: "point"; x: number; y: number };

function area(s: Shape): number {
  switch (s.kind) {
    case "circle":
      return Math.PI * s.r * s.r;
    case "rect":
      return s.w * s.h;
    default:
      return 0;
  }
}

function centroidX(s: Shape): number {
  if (s.kind === "circle") return s.cx;
  if (s.kind === "rect") return s.x + s.w / 2;
  return s.x;
}
`;

test("a union told apart by its kind, narrowed by switch and if", async () => {
  await checkTwoWays(
    `${SHAPES}
export function f(a: number, b: number): number {
  const shapes: Shape[] = [
    { kind: "circle", cx: a, cy: b, r: a * b },
    { kind: "rect", x: b, y: 0, w: a, h: 2 },
    { kind: "point", x: a * a, y: b },
  ];
  let s = 0;
  for (const sh of shapes) s += area(sh) * centroidX(sh);
  const grown = shapes.map((sh): Shape => (sh.kind === "circle" ? { ...sh, r: sh.r * b } : sh));
  return s + grown.reduce((t, sh) => t + area(sh), 0);
}`,
  );
});

test("arrays of object literals whose fields differ, read with ?? for the missing ones", async () => {
  await checkTwoWays(
    `export function f(a: number, b: number): number {
  const bodies = [{ id: "n1", x: a, y: b }, { id: "n2", x: b, y: -a, mass: 2 }, { id: "n3", x: 1, y: a * b }];
  let e = 0;
  for (const n of bodies) e += (n.x * n.x + n.y) * (n.mass ?? 1);
  return e;
}`,
  );
});

test("the gradient with respect to an array of a union's variants", async () => {
  const m = await loadProgram<{
    total: (shapes: unknown[]) => number;
    g: (shapes: unknown[]) => Record<string, number>[];
  }>({
    "main.ts": `import { gradient } from "nabla";
${SHAPES}
export function total(shapes: Shape[]): number {
  return shapes.reduce((acc, s) => acc + area(s) + centroidX(s) ** 2, 0);
}
export const g = gradient(total);
`,
  });
  const shapes = [
    { kind: "circle", cx: 1, cy: 2, r: 0.5 },
    { kind: "rect", x: 0.3, y: 1, w: 2, h: 3 },
  ];
  const grad = m.g(shapes);
  const h = 1e-6;
  shapes.forEach((s, i) => {
    for (const [k, v] of Object.entries(s)) {
      if (typeof v !== "number") continue;
      const moved = (t: number) => shapes.map((t2, j) => (j === i ? { ...t2, [k]: v + t } : t2));
      const fd = (m.total(moved(h)) - m.total(moved(-h))) / (2 * h);
      assertClose(grad[i]![k]!, fd, 1e-6, `∂/∂shapes[${i}].${k}`);
    }
  });
});

test("a recursive union (a tree) is refused at the field that holds the tree, saying why", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { gradient } from "nabla";
type Expr = { kind: "num"; v: number } | { kind: "add"; a: Expr; b: Expr };
function evaluate(e: Expr): number {
  return e.kind === "num" ? e.v : evaluate(e.a) + evaluate(e.b);
}
export function f(x: number): number {
  const e: Expr = { kind: "add", a: { kind: "num", v: x }, b: { kind: "num", v: 3 } };
  return evaluate(e);
}
export const g = gradient(f);
`,
    }),
  );
  assert.match(
    text,
    /main\.ts:7:34: error NABLA106: field 'a' of 'Expr' holds a value of the type it belongs to \(a recursive type, such as a tree\)/,
  );
});
