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
  // The gradient of each variant has its own number fields only.
  assert.deepEqual(Object.keys(grad[0]!), ["cx", "cy", "r"]);
  assert.deepEqual(Object.keys(grad[1]!), ["x", "y", "w", "h"]);
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

const TREES = `type Expr =
  | { kind: "num"; v: number }
  | { kind: "var"; name: string }
  | { kind: "add"; a: Expr; b: Expr }
  | { kind: "mul"; a: Expr; b: Expr }
  | { kind: "sin"; arg: Expr };

function evaluate(e: Expr, env: Record<string, number>): number {
  switch (e.kind) {
    case "num":
      return e.v;
    case "var":
      return env[e.name] ?? 0;
    case "add":
      return evaluate(e.a, env) + evaluate(e.b, env);
    case "mul":
      return evaluate(e.a, env) * evaluate(e.b, env);
    case "sin":
      return Math.sin(evaluate(e.arg, env));
  }
}

interface TreeNode {
  value: number;
  children: TreeNode[];
}

function total(t: TreeNode, depth: number): number {
  let s = t.value * depth;
  for (const c of t.children) s += total(c, depth + 1);
  return s;
}
`;

test("recursive types: an expression tree over a union, and a tree of nodes with children", async () => {
  await checkTwoWays(
    `${TREES}
export function f(x: number, y: number): number {
  const e: Expr = {
    kind: "add",
    a: { kind: "mul", a: { kind: "var", name: "x" }, b: { kind: "num", v: y } },
    b: { kind: "sin", arg: { kind: "var", name: "y" } },
  };
  const t: TreeNode = { value: x, children: [{ value: y, children: [] }, { value: x * y, children: [{ value: 2, children: [] }] }] };
  return evaluate(e, { x, y }) + total(t, 1);
}`,
  );
});

test("the gradient with respect to a tree is a tree of the live variants' numbers", async () => {
  const m = await loadProgram<{
    g: (e: unknown, x: number) => unknown;
  }>({
    "main.ts": `import { gradient } from "nabla";
${TREES}
export function scaled(e: Expr, x: number): number {
  return evaluate(e, { x, y: 0.5 }) * x;
}
export const g = gradient(scaled, { wrt: 0 });
`,
  });
  const e = {
    kind: "mul",
    a: { kind: "num", v: 3 },
    b: {
      kind: "sin",
      arg: { kind: "add", a: { kind: "var", name: "x" }, b: { kind: "num", v: 0.25 } },
    },
  };
  const x = 1.2;
  const grad = m.g(e, x) as { a: { v: number }; b: { arg: { a: object; b: { v: number } } } };
  // scaled = 3·sin(x + 0.25)·x
  assertClose(grad.a.v, Math.sin(x + 0.25) * x, 1e-12, "∂/∂(the 3)");
  assertClose(grad.b.arg.b.v, 3 * Math.cos(x + 0.25) * x, 1e-12, "∂/∂(the 0.25)");
  assert.deepEqual(grad.b.arg.a, {}, "a variable has no number");
});

test("a switch that lists every kind of a union is complete: code after it is not reached", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { gradient } from "nabla";
type Op = { kind: "double"; x: number } | { kind: "square"; x: number };
function apply(op: Op): number {
  switch (op.kind) {
    case "double":
      return 2 * op.x;
    case "square":
      return op.x * op.x;
  }
}
function partial(op: Op): number {
  switch (op.kind) {
    case "double":
      return 2 * op.x;
  }
}
export const g = gradient((x: number) => apply({ kind: "square", x }));
export const h = gradient((x: number) => partial({ kind: "double", x }));
`,
    }),
  );
  // \`apply\` compiles; \`partial\` may reach its end, as TypeScript says too.
  assert.match(
    text,
    /main\.ts:16:1: error NABLA107: 'partial' can reach its end without returning a number/,
  );
  assert.equal(text.match(/error NABLA/g)?.length, 1, text);
});

test("the adjoint a pullback of a union-returning function gives has only the fields of the variant passed", async () => {
  const m = await loadProgram<{ adjoint: unknown; bar: unknown }>({
    "main.ts": `import { pullback } from "nabla";
type Shape = { kind: "disk"; r: number } | { kind: "bar"; len: number; w: number };
function grow(s: Shape, k: number): Shape {
  return s.kind === "disk" ? { kind: "disk", r: s.r * k } : { kind: "bar", len: s.len * k, w: s.w };
}
export const adjoint = pullback(grow)({ kind: "disk", r: 2 }, 3)({ r: 1 } as never);
export const bar = pullback(grow)({ kind: "bar", len: 2, w: 5 }, 3)({ len: 1, w: 1 } as never);
`,
  });
  assert.deepEqual(m.adjoint, [{ r: 3 }, 2]);
  assert.deepEqual(m.bar, [{ len: 3, w: 1 }, 2]);
});

test("forward mode: the tangent of a union-valued result has only the fields of the variant returned", async () => {
  const m = await loadProgram<{ disk: unknown; bar: unknown; withValue: unknown }>({
    "main.ts": `import { derivative, differential, valueWithDerivative } from "nabla";
type Shape = { kind: "disk"; r: number } | { kind: "bar"; len: number; w: number };
function make(x: number, y: number): Shape {
  return x > 0 ? { kind: "disk", r: x * y } : { kind: "bar", len: x, w: 2 * y };
}
export const disk = derivative((x: number) => make(x, 2))(1.5);
export const bar = differential(make)(-1.5, 2)(1, 1);
export const withValue = valueWithDerivative((x: number) => make(x, 3))(-2);
`,
  });
  assert.deepEqual(m.disk, { r: 2 });
  assert.deepEqual(m.bar, { len: 1, w: 2 });
  assert.deepEqual(m.withValue, {
    value: { kind: "bar", len: -2, w: 6 },
    derivative: { len: 1, w: 0 },
  });
});
