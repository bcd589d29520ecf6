import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { assertClose, loadProgram } from "./support/harness.js";

// Copies of arrays of objects and of arrays of arrays (`slice`, `Array.from`, `map((o) => o)`,
// spreads), which share their elements with the original, so their shadows must share the
// original's element shadows; and arrays filled by index past their end (`const ys = []`,
// `ys[i] = …`), whose shadows must grow with them. Issue 17, items 1 and 3: reverse mode gave
// 0 and NaN where forward mode was right. Every case is checked against central differences
// and forward mode against reverse mode (the dot-product identity), for gradient,
// valueWithGradient and derivative or differential, and a pullback run twice.

const PROGRAM = `
import { gradient, valueWithGradient, derivative, differential, pullback, checkpoint } from "nabla";

interface P {
  y: number;
}

// ---- copies of locals ----

export function sliceObjects(k: number): number {
  const ps = [{ y: k }, { y: 2 * k }];
  return ps.slice()[1].y * ps.slice(1)[0].y;
}
export function fromObjects(k: number): number {
  const ps = [{ y: k }, { y: 2 * k }];
  return Array.from(ps)[1].y * k;
}
export function mapIdentity(k: number): number {
  const ps = [{ y: k }, { y: Math.sin(k) }];
  return ps.map((o) => o)[1].y * ps[0].y;
}
export function sliceRows(k: number): number {
  const A = [[k, 1], [2 * k, 3]];
  return A.slice()[1][0] * A.slice(1)[0][0] + A.slice(0, 1)[0][0];
}
export function spreads(k: number): number {
  const ps = [{ y: k }, { y: 2 * k }];
  const qs = [{ y: 3 }, ...ps, ...ps.slice(1)];
  return qs[2].y * qs[3].y + [...ps][0].y;
}
export function copyThenWrite(k: number): number {
  const A = [[k, 1], [2 * k, 3]];
  const B = A.slice();
  B[1][0] = B[1][0] * k;
  B[0] = [k * k, 5];
  return A[1][0] + B[0][0] * A[0][0];
}
export function writeObjects(k: number): number {
  const ps = [{ y: 1 }, { y: 2 }];
  ps[1] = { y: k * k };
  ps[0].y = k;
  const qs = ps.slice();
  qs[0] = { y: Math.cos(k) };
  return qs[1].y * ps[0].y + qs[0].y;
}

// ---- copies inside callees ----

function copyRows(A: number[][]): number[][] {
  return A.slice();
}
function copyObjects(ps: P[]): P[] {
  return ps.map((o) => o);
}
export function calleeCopies(k: number): number {
  const A = [[k, 1], [2 * k, 3]];
  const ps = [{ y: k }, { y: 3 * k }];
  return copyRows(A)[1][0] * copyRows(A)[0][0] + copyObjects(ps)[1].y * k;
}

// ---- copies of arguments ----

export function rowsArgument(A: number[][]): number {
  const B = A.slice();
  const C = Array.from(A);
  return B[1][0] * A.slice(1)[0][1] + C[0][1] * C[0][1] + [...A][0][0];
}
export function objectsArgument(ps: P[]): number {
  const qs = ps.map((o) => o);
  return qs[0].y * qs[1].y + ps.slice(1)[0].y;
}
export function rowsThroughCallee(A: number[][]): number {
  const B = copyRows(A);
  return B[0][0] * B[1][1];
}

// ---- arrays filled by index ----

export function fillEmpty(x: number): number {
  const ys: number[] = [];
  for (let i = 0; i < 3; i++) ys[i] = x * (i + 1);
  let s = 0;
  for (const y of ys) s += y * y;
  return s + ys[2];
}
export function fillWhile(x: number): number {
  const ys: number[] = [];
  let i = 0;
  while (i < 4) {
    ys[i] = Math.sin(x * (i + 1));
    i++;
  }
  return ys[3] * ys[1];
}
export function fillNewArray(x: number): number {
  const ys: number[] = new Array(3);
  const zs: number[] = Array(2);
  for (let i = 0; i < 3; i++) ys[i] = x * (i + 1);
  zs[0] = ys[1] * x;
  zs[1] = ys[2];
  return ys[0] * ys[2] + zs[0] * zs[1];
}
export function fillPastEnd(x: number): number {
  const ys: number[] = new Array(2).fill(0);
  for (let i = 0; i < 4; i++) ys[i] = x * (i + 1);
  return ys[3] * ys[1];
}
export function fillNested(x: number): number {
  const m: number[][] = [];
  for (let i = 0; i < 2; i++) {
    m[i] = [];
    for (let j = 0; j < 3; j++) m[i][j] = x * (i + j + 1);
  }
  const n: number[][] = new Array(2);
  for (let i = 0; i < 2; i++) {
    n[i] = Array(2);
    for (let j = 0; j < 2; j++) n[i][j] = m[i][j] * x;
  }
  return m[1][2] * m[0][1] + n[1][1];
}
export function fillObjects(x: number): number {
  const ps: P[] = [];
  for (let i = 0; i < 3; i++) ps[i] = { y: x * i };
  const qs: P[] = new Array(2);
  qs[1] = ps[2];
  return ps[2].y * ps[1].y + qs[1].y;
}
function fillInto(ys: number[], x: number): void {
  for (let i = 0; i < 3; i++) ys[i] = x * (i + 1);
}
export function fillThroughCallee(x: number): number {
  const ys: number[] = [];
  fillInto(ys, x);
  return ys[2] * ys[0];
}
export function fillThroughCheckpoint(x: number): number {
  const ys: number[] = [];
  checkpoint(fillInto)(ys, x);
  return ys[2] * ys[0];
}
export function fillArgument(v: number[]): number {
  for (let i = v.length; i < 4; i++) v[i] = v[0] * i;
  return v[3] * v[1];
}

// ---- arrays and objects stored into data that is not differentiated ----

export function storeIntoData(p: P, data: P[]): number {
  data[0] = p;
  return data[0].y * data[0].y + data[1].y;
}
export function rowIntoData(v: number[], data: number[][]): number {
  data[1] = v;
  let s = 0;
  for (const r of data) s += r[0] * r[1];
  return s;
}
`;

type Fn = (...args: unknown[]) => number;
type Exports = Record<string, unknown>;

/** The cases: a function of one argument (numbers, arrays, objects), and where to take it. */
const CASES: Record<string, () => unknown> = {
  sliceObjects: () => 1.3,
  fromObjects: () => 1.3,
  mapIdentity: () => 0.7,
  sliceRows: () => 1.3,
  spreads: () => 1.3,
  copyThenWrite: () => 1.3,
  writeObjects: () => 0.8,
  calleeCopies: () => 1.1,
  rowsArgument: () => [
    [1.5, 2.5],
    [3.5, 4.5],
  ],
  objectsArgument: () => [{ y: 2 }, { y: 5 }],
  rowsThroughCallee: () => [
    [1.5, 2.5],
    [3.5, 4.5],
  ],
  fillEmpty: () => 1.3,
  fillWhile: () => 0.6,
  fillNewArray: () => 1.3,
  fillPastEnd: () => 1.3,
  fillNested: () => 1.2,
  fillObjects: () => 1.3,
  fillThroughCallee: () => 1.3,
  fillThroughCheckpoint: () => 1.3,
  fillArgument: () => [1.5, 2.5],
};

/** The program with, for each case, its gradient, valueWithGradient, differential, pullback. */
function source(): string {
  const lines = Object.entries(CASES).flatMap(([name, at]) => [
    `export const g_${name} = gradient(${name});`,
    `export const vg_${name} = valueWithGradient(${name});`,
    `export const d_${name} = differential(${name});`,
    `export const p_${name} = pullback(${name});`,
    ...(typeof at() === "number" ? [`export const der_${name} = derivative(${name});`] : []),
  ]);
  return `${PROGRAM}\n${lines.join("\n")}\n`;
}

let compiled: Promise<Exports> | undefined;
function program(): Promise<Exports> {
  compiled ??= loadProgram<Exports>({ "main.ts": source() });
  return compiled;
}

type Path = (string | number)[];

/** The paths of the numbers in v. */
function leaves(v: unknown, path: Path = []): Path[] {
  if (typeof v === "number") return [path];
  if (Array.isArray(v)) return v.flatMap((x, i) => leaves(x, [...path, i]));
  if (v !== null && typeof v === "object")
    return Object.entries(v).flatMap(([k, x]) => leaves(x, [...path, k]));
  return [];
}
function getAt(v: unknown, path: Path): number {
  return path.reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], v) as number;
}
function setAt(v: unknown, path: Path, x: number): unknown {
  if (path.length === 0) return x;
  const parent = getAt(v, path.slice(0, -1)) as unknown as Record<string | number, unknown>;
  parent[path[path.length - 1]!] = x;
  return v;
}
/** A value shaped like `like`, its numbers from a fixed sequence. */
function tangentLike(like: unknown, seed: number): unknown {
  let k = seed;
  const next = () => Math.sin(++k * 12.9898) * 0.9;
  const build = (v: unknown): unknown =>
    typeof v === "number"
      ? next()
      : Array.isArray(v)
        ? v.map(build)
        : Object.fromEntries(Object.entries(v as object).map(([key, x]) => [key, build(x)]));
  return build(like);
}
function dot(a: unknown, b: unknown): number {
  return leaves(a).reduce((s, p) => s + getAt(a, p) * getAt(b, p), 0);
}

/**
 * The gradient against central differences in every coordinate, forward against reverse
 * (<J·v, 1> = <v, Jᵀ·1>), valueWithGradient and derivative against gradient, and a pullback
 * run twice giving w times the gradient both times.
 */
async function check(name: string): Promise<void> {
  const m = await program();
  const at = CASES[name]!;
  const f = m[name] as Fn;
  const grad = (m[`g_${name}`] as Fn)(at()) as unknown;
  // An argument the function lengthens has a gradient as long as it became (as with `push`),
  // zero past its original end.
  const shape = leaves(grad).slice(0, name === "fillArgument" ? leaves(at()).length : undefined);
  assert.deepEqual(shape, leaves(at()), `${name}: the gradient's shape`);
  for (const path of leaves(at())) {
    const x = getAt(at(), path);
    const h = 1e-6 * Math.max(1, Math.abs(x));
    const fd = (f(setAt(at(), path, x + h)) - f(setAt(at(), path, x - h))) / (2 * h);
    assertClose(getAt(grad, path), fd, 1e-5, `${name}: ∂/∂[${path.join(", ")}]`);
  }
  const v = tangentLike(at(), name.length);
  const forward = (m[`d_${name}`] as (x: unknown) => (v: unknown) => number)(at())(v);
  assertClose(forward, dot(v, grad), 1e-9, `${name}: <J·v, 1> against <v, Jᵀ·1>`);
  const vg = (m[`vg_${name}`] as (x: unknown) => { value: number; gradient: unknown })(at());
  assertClose(vg.value, f(at()), 1e-12, `${name}: valueWithGradient's value`);
  assert.deepEqual(vg.gradient, grad, `${name}: valueWithGradient's gradient`);
  if (typeof at() === "number") {
    const d = (m[`der_${name}`] as (x: number) => number)(at() as number);
    assertClose(d, grad as number, 1e-9, `${name}: derivative against gradient`);
  }
  const back = (m[`p_${name}`] as (x: unknown) => (w: number) => unknown)(at());
  for (const run of [1, 2]) {
    const adjoint = back(2);
    for (const path of leaves(at()))
      assertClose(getAt(adjoint, path), 2 * getAt(grad, path), 1e-9, `${name}: pullback #${run}`);
  }
}

describe("copies of arrays of objects and of arrays of arrays, in reverse mode", () => {
  for (const name of [
    "sliceObjects",
    "fromObjects",
    "mapIdentity",
    "sliceRows",
    "spreads",
    "copyThenWrite",
    "writeObjects",
    "calleeCopies",
    "rowsArgument",
    "objectsArgument",
    "rowsThroughCallee",
  ])
    test(name, () => check(name));

  test("the issue's program: ps.slice()[1].y", async () => {
    const m = await loadProgram<Record<string, (k: number) => number>>({
      "main.ts": `import { gradient, derivative } from "nabla";
function f(k: number) { const ps = [{ y: k }, { y: 2 * k }]; return ps.slice()[1].y; }
export const g = gradient(f);
export const d = derivative(f);
`,
    });
    assert.equal(m.g!(3), 2);
    assert.equal(m.d!(3), 2);
  });
});

describe("arrays filled by index, in reverse mode", () => {
  for (const name of [
    "fillEmpty",
    "fillWhile",
    "fillNewArray",
    "fillPastEnd",
    "fillNested",
    "fillObjects",
    "fillThroughCallee",
    "fillThroughCheckpoint",
    "fillArgument",
  ])
    test(name, () => check(name));
});

describe("arrays and objects stored into data that is not differentiated", () => {
  test("an object stored into an array argument, and a row into a matrix argument", async () => {
    const m = await loadProgram<Record<string, (...args: unknown[]) => unknown>>({
      "main.ts": `${PROGRAM}
export const gStore = gradient(storeIntoData, { wrt: 0 });
export const pStore = pullback(storeIntoData, { wrt: 0 });
export const dStore = differential(storeIntoData, { wrt: 0 });
export const gRow = gradient(rowIntoData, { wrt: 0 });
export const dRow = differential(rowIntoData, { wrt: 0 });
`,
    });
    const data = () => [{ y: 1 }, { y: 7 }];
    // p.y² + 7: 2·p.y.
    assert.deepEqual(m.gStore!({ y: 3 }, data()), { y: 6 });
    const back = m.pStore!({ y: 3 }, data()) as (w: number) => unknown;
    assert.deepEqual(back(1), { y: 6 });
    assert.deepEqual(back(1), { y: 6 });
    assert.equal((m.dStore!({ y: 3 }, data()) as (v: unknown) => number)({ y: 1 }), 6);
    // 1·1 + v0·v1: (v1, v0).
    const rows = () => [
      [1, 1],
      [5, 5],
    ];
    assert.deepEqual(m.gRow!([2, 3], rows()), [3, 2]);
    assert.equal((m.dRow!([2, 3], rows()) as (v: unknown) => number)([1, 10]), 23);
  });
});
