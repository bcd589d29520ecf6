import { test } from "node:test";
import assert from "node:assert/strict";
import {
  assertClose,
  compileFiles,
  diagnosticsText,
  finiteGradient,
  loadProgram,
} from "./support/harness.js";
import { checkTwoWays } from "./support/two-ways.js";

// Arrays shortened in place: `pop`, `shift`, `splice`, `unshift` and `xs.length = n`, as
// TypeScript developers write them (a stack of indices for a convex hull, a queue, a window
// of recent values, removing an element). Each is checked against central differences and
// forward mode against reverse mode; array results, Jacobians, second order and pullbacks
// run twice as well, since reverse mode keeps a shadow longer than its array.

test("pop: a stack of numbers and a stack of indices (a convex hull's area)", async () => {
  await checkTwoWays(`interface Point { x: number; y: number }
function cross(o: Point, a: Point, b: Point): number {
  return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}
function hullArea(points: Point[]): number {
  const order = points.map((_, i) => i).sort((i, j) => points[i].x - points[j].x);
  const lower: number[] = [];
  for (const i of order) {
    while (lower.length >= 2 && cross(points[lower[lower.length - 2]], points[lower[lower.length - 1]], points[i]) <= 0) {
      lower.pop();
    }
    lower.push(i);
  }
  const upper: number[] = [];
  for (let k = order.length - 1; k >= 0; k--) {
    const i = order[k];
    while (upper.length >= 2 && cross(points[upper[upper.length - 2]], points[upper[upper.length - 1]], points[i]) <= 0) {
      upper.pop();
    }
    upper.push(i);
  }
  lower.pop();
  upper.pop();
  const hull = [...lower, ...upper];
  let area = 0;
  for (let k = 0; k < hull.length; k++) {
    const p = points[hull[k]];
    const q = points[hull[(k + 1) % hull.length]];
    area += p.x * q.y - q.x * p.y;
  }
  return area / 2;
}
type Token = { kind: "number"; value: number } | { kind: "op"; op: "+" | "*" | "-" };
function evalRpn(tokens: Token[]): number {
  const stack: number[] = [];
  for (const t of tokens) {
    if (t.kind === "number") {
      stack.push(t.value);
      continue;
    }
    const b = stack.pop()!;
    const a = stack.pop()!;
    stack.push(t.op === "+" ? a + b : t.op === "*" ? a * b : a - b);
  }
  return stack.pop() ?? 0;
}
const num = (value: number): Token => ({ kind: "number", value });
export function f(x: number, y: number): number {
  const pts = [{ x: 0, y: 0 }, { x: 2 + x, y: 0.1 }, { x: 1, y: 1 }, { x: 2.1, y: 2 + y }, { x: 0, y: 2 }];
  return hullArea(pts) + evalRpn([num(x), num(y), { kind: "op", op: "*" }, num(3), { kind: "op", op: "+" }, num(x), { kind: "op", op: "-" }]);
}`);
});

test("pop then push reuses the slot: the popped value's derivative is not the new one's", async () => {
  await checkTwoWays(`export function f(x: number, y: number): number {
  const xs: number[] = [];
  xs.push(x * x);
  const a = xs[0] * y;
  const top = xs.pop()!;
  xs.push(Math.sin(y));
  xs.push(top * 3);
  const b = xs.pop()! + xs.pop()!;
  xs.push(x * y);
  return a + b * xs[0] + xs.length;
}`);
});

test("pop and shift on arrays of objects: the removed object keeps its derivative", async () => {
  await checkTwoWays(`interface Body { m: number; v: number }
export function f(x: number, y: number): number {
  const bodies: Body[] = [{ m: x, v: y }, { m: y * y, v: 1 }, { m: 2, v: x * y }];
  const energy = (b: Body) => 0.5 * b.m * b.v * b.v;
  const before = energy(bodies[0]) + energy(bodies[2]);
  const last = bodies.pop()!;
  const first = bodies.shift()!;
  bodies.push({ m: x + 1, v: y });
  bodies.unshift(last);
  return before * 0.1 + energy(first) * energy(last) + bodies[0].m * bodies[2].v + bodies[1].m;
}`);
});

test("shift as a queue: a moving average over a window", async () => {
  await checkTwoWays(`function movingAverage(samples: number[], width: number): number[] {
  const window: number[] = [];
  const out: number[] = [];
  let sum = 0;
  for (const s of samples) {
    window.push(s);
    sum += s;
    if (window.length > width) sum -= window.shift()!;
    out.push(sum / window.length);
  }
  return out;
}
export function f(x: number, y: number): number {
  const smooth = movingAverage([x, y, x * y, Math.exp(x), y - x, 2], 3);
  return smooth.reduce((acc, v, i) => acc + v * (i + 1), 0);
}`);
});

test("splice: removing, inserting (spread too) and replacing, with the removed elements", async () => {
  await checkTwoWays(`export function f(x: number, y: number): number {
  const xs = [x, y, x * y, x + y, 2 * x];
  const removed = xs.splice(1, 2);
  xs.splice(1, 0, y * y, Math.cos(x));
  const replaced = xs.splice(-2, 1, 7 * y);
  const rest = xs.splice(3);
  const none = xs.splice(0, 0);
  const outOfRange = xs.splice(10, 5, x);
  const more = [y, x * x];
  xs.splice(1, 1, ...more, y);
  xs.unshift(...more);
  xs.splice(0, 1, xs[1] * y, xs[0]);
  const same = xs.unshift();
  let s = 0;
  xs.forEach((v, i) => (s += v * (i + 1)));
  return s + removed[0] * removed[1] + replaced[0] - rest.length * rest[0] + none.length + outOfRange.length + xs[xs.length - 1] + same;
}`);
});

test("splice at a position found at run time, on an array of objects", async () => {
  await checkTwoWays(`interface Item { w: number; label: string }
function removeLightest(items: Item[]): Item {
  let k = 0;
  for (let i = 1; i < items.length; i++) if (items[i].w < items[k].w) k = i;
  return items.splice(k, 1)[0];
}
export function f(x: number, y: number): number {
  const items: Item[] = [{ w: x, label: "a" }, { w: y, label: "b" }, { w: x * y + 3, label: "c" }];
  const lightest = removeLightest(items);
  let total = 0;
  for (const it of items) total += it.w * it.w;
  return total + 10 * lightest.w + items.length;
}`);
});

test("unshift and length = n: prepending and truncating", async () => {
  await checkTwoWays(`export function f(x: number, y: number): number {
  const xs = [x, y];
  const n = xs.unshift(x * y, 3);
  xs.length = 3;
  const ys = [...xs, x, y];
  ys.length -= 2;
  ys.length = Math.min(ys.length, 10);
  const zs: number[] = [y, y];
  zs.length = 0;
  zs.push(x);
  return n * xs[0] + xs[2] * ys[ys.length - 1] + ys.length + zs[0] * y;
}`);
});

test("a callee that pops its argument: the caller's array is shorter after the call", async () => {
  await checkTwoWays(`function takeLast(xs: number[]): number {
  return xs.pop()!;
}
function dropFirst(rows: number[][]): void {
  rows.shift();
}
export function f(x: number, y: number): number {
  const xs = [x, y, x * y];
  const last = takeLast(xs);
  const rows = [[x, 1], [y, 2], [x + y, 3]];
  dropFirst(rows);
  return last * xs[xs.length - 1] + xs.length + rows[0][0] * rows.length;
}`);
});

test("an array result shortened by pop: forward mode's tangent has the array's length, a pullback runs twice, the Jacobian matches", async () => {
  const m = await loadProgram<{
    trim: (xs: number[]) => number[];
    d: (xs: number[]) => (dxs: number[]) => number[];
    back: (xs: number[]) => (dy: number[]) => number[];
    jac: (xs: number[]) => number[][];
    h: (x: number) => number;
    h2: (x: number) => number;
  }>({
    "main.ts": `import { differential, pullback, jacobian, derivative } from "nabla";
export function trim(xs: number[]): number[] {
  const ys = xs.map((v) => v * v);
  ys.pop();
  ys.splice(0, 1, ys[0] * xs[2]);
  return ys;
}
export const d = differential(trim);
export const back = pullback(trim);
export const jac = jacobian(trim);
function g(x: number): number {
  const stack = [x, x * x, Math.sin(x)];
  const top = stack.pop()!;
  stack.push(top * x);
  return stack.reduce((a, b) => a * b, 1);
}
export const h = g;
export const h2 = derivative(derivative(g));
`,
  });
  const xs = [1.5, -0.5, 2];
  const dx = [0.3, 1, -2];
  const tangent = m.d(xs)(dx);
  assert.equal(tangent.length, 2, "the tangent has the result's length");
  const eps = 1e-6;
  const plus = m.trim(xs.map((v, i) => v + eps * dx[i]!));
  const minus = m.trim(xs.map((v, i) => v - eps * dx[i]!));
  tangent.forEach((t, i) =>
    assertClose(t, (plus[i]! - minus[i]!) / (2 * eps), 1e-6, `tangent ${i}`),
  );
  const back = m.back(xs);
  const dy = [0.7, -1.1];
  const first = back(dy);
  assert.deepEqual(back(dy), first, "a pullback run twice gives the same adjoints");
  // <dy, J dx> = <Jᵀ dy, dx>: reverse against forward mode.
  const lhs = dy.reduce((s, v, i) => s + v * tangent[i]!, 0);
  const rhs = first.reduce((s, v, i) => s + v * dx[i]!, 0);
  assertClose(lhs, rhs, 1e-12, "reverse mode against forward mode");
  const jac = m.jac(xs);
  assert.equal(jac.length, 2);
  for (let j = 0; j < 3; j++) {
    const e = [0, 0, 0];
    e[j] = 1;
    const column = m.d(xs)(e);
    jac.forEach((row, i) => assertClose(row[j]!, column[i]!, 1e-12, `J[${i}][${j}]`));
  }
  // Second order through a popped stack, against differences of the first derivative.
  const first1 = (x: number) => finiteGradient((v: number) => m.h(v), [x])[0]!;
  assertClose(
    m.h2(0.8),
    (first1(0.8 + 1e-4) - first1(0.8 - 1e-4)) / 2e-4,
    1e-4,
    "second derivative",
  );
});

test("a depth-first walk with a stack, rows popped, a parameter array popped by the function itself", async () => {
  await checkTwoWays(`interface TreeNode { weight: number; children: number[] }
function reachWeight(nodes: TreeNode[], root: number): number {
  const stack = [root];
  let total = 0;
  while (stack.length > 0) {
    const i = stack.pop()!;
    total += nodes[i].weight * (stack.length + 1);
    for (const c of nodes[i].children) stack.push(c);
  }
  return total;
}
function drain(values: number[]): number {
  let s = 0;
  while (values.length > 0) s = s * 0.5 + values.pop()! * values.length;
  return s;
}
export function f(x: number, y: number): number {
  const nodes: TreeNode[] = [
    { weight: x, children: [1, 2] },
    { weight: y * y, children: [3] },
    { weight: Math.exp(x), children: [] },
    { weight: x * y, children: [] },
  ];
  const rows = [[x, y, 1], [y, x * x]];
  rows[0].pop();
  rows[1].shift();
  rows.pop();
  return reachWeight(nodes, 0) + drain([x, y, x * y, 2]) + rows[0][rows[0].length - 1] * rows.length;
}`);
});

test("a popped parameter: its gradient has the length it had; second order; a Jacobian of a number (one column)", async () => {
  const m = await loadProgram<{
    f: (xs: number[]) => number;
    g: (xs: number[]) => number[];
    h: (xs: number[]) => number[][];
    grow: (t: number) => number[];
    jac: (t: number) => number[];
  }>({
    "main.ts": `import { gradient, hessian, jacobian } from "nabla";
export function f(xs: number[]): number {
  const last = xs.pop()!;
  const first = xs.shift()!;
  return last * first + xs.reduce((a, b) => a + b * b, 0) * last;
}
export const g = gradient(f);
export const h = hessian(f);
export function grow(t: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < 6; i++) {
    out.push(Math.sin(t * i));
    if (i % 2 === 1) out.splice(out.length - 2, 1);
  }
  out.unshift(t * t);
  return out;
}
export const jac = jacobian(grow);
`,
  });
  const xs = [0.5, -1.2, 2, 0.3];
  const gradient = m.g([...xs]);
  assert.equal(gradient.length, 4, "one adjoint per element the argument had");
  const fd = finiteGradient((...v: number[]) => m.f(v), xs);
  gradient.forEach((v, i) => assertClose(v, fd[i]!, 1e-6, `∂f/∂x${i}`));
  const hess = m.h([...xs]);
  for (let j = 0; j < 4; j++) {
    const e = xs.map((_, i) => (i === j ? 1e-5 : 0));
    const plus = m.g(xs.map((v, i) => v + e[i]!));
    const minus = m.g(xs.map((v, i) => v - e[i]!));
    hess.forEach((row, i) =>
      assertClose(row[j]!, (plus[i]! - minus[i]!) / 2e-5, 1e-5, `H[${i}][${j}]`),
    );
  }
  const t = 0.7;
  const jac = m.jac(t);
  assert.equal(jac.length, m.grow(t).length);
  const plus = m.grow(t + 1e-6);
  const minus = m.grow(t - 1e-6);
  jac.forEach((v, i) => assertClose(v, (plus[i]! - minus[i]!) / 2e-6, 1e-6, `J[${i}]`));
});

test("the wasm backend leaves a function that shortens an array to JavaScript, saying so", async () => {
  const program = `import { gradient } from "nabla";
function f(xs: number[]): number {
  const ys = xs.map((v) => v * v);
  const last = ys.pop()!;
  let s = 0;
  for (let i = 0; i < ys.length; i++) s += ys[i] * last;
  return s;
}
export const inWasm = gradient(f, { backend: "wasm" });
export const inJs = gradient(f);
`;
  const text = diagnosticsText(compileFiles({ "main.ts": program }));
  assert.match(
    text,
    /^main\.ts:9:23: warning NABLA202: 'gradient' runs as JavaScript, not WebAssembly: an array shortened in place \('pop', 'shift', 'splice' or 'length = n'\) in 'f'\n/,
  );
  const m = await loadProgram<{
    inWasm: (xs: number[]) => number[];
    inJs: (xs: number[]) => number[];
  }>({ "main.ts": program });
  assert.deepEqual(m.inWasm([1, 2, 3]), [18, 36, 30]);
  assert.deepEqual(m.inJs([1, 2, 3]), [18, 36, 30]);
});

test("an array grown by push and shortened by shift (a sliding window) stays JavaScript under wasm, saying it is shortened, not handed on", () => {
  const program = `import { gradient } from "nabla";
function f(x: Float64Array): number {
  const window: number[] = [];
  for (let i = 0; i < x.length; i++) {
    window.push(x[i]);
    if (window.length > 2) window.shift();
  }
  return window.reduce((a, b) => a + b * b, 0);
}
export const g = gradient(f, { backend: "wasm" });
`;
  const text = diagnosticsText(compileFiles({ "main.ts": program }));
  assert.match(
    text,
    /^main\.ts:10:18: warning NABLA202: 'gradient' runs as JavaScript, not WebAssembly: an array shortened in place \('pop', 'shift', 'splice' or 'length = n'\) in 'f'\n/,
  );
  assert.doesNotMatch(text, /handing it on|truncate/);
});
