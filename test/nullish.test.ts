import { test } from "node:test";
import assert from "node:assert/strict";
import { assertClose, centralDifference, loadProgram } from "./support/harness.js";

// `??`, `||`, `&&` and their assignments keep JavaScript's semantics in every derivative:
// `??` takes its right side only for null or undefined (an optional field, an optional array
// or object, `T | undefined`, an element out of range), `||` and `&&` test truthiness (0 and
// NaN are falsy). A read out of range gives undefined, has no derivative, and leaves the
// gradient array exactly the argument's shape. Each derivative is checked against finite
// differences and forward mode against reverse mode.

const PROGRAM = `
import { gradient, differential, valueWithGradient } from "nabla";

interface Sample { x: number; weight?: number }
export function weighted(w: number, ds: Sample[]): number {
  let s = 0;
  for (const d of ds) s += (d.weight ?? 1) * w * d.x;
  return s;
}
export const gWeighted = valueWithGradient(weighted, { wrt: [0, 1] });
export const dWeighted = differential(weighted, { wrt: [0] });

interface Options { k?: number; scale: number | undefined }
export function scaled(x: number, o: Options): number {
  return (o.k ?? 3) * x * x + (o.scale ?? 0.5) * x;
}
export const gScaled = gradient(scaled, { wrt: [0, 1] });
export const dScaled = differential(scaled, { wrt: [0] });

interface Meta { s: number }
interface Event { x: number; meta?: Meta; w?: number[] }
export function tagged(e: Event): number {
  const w = e.w ?? [1, 2];
  return (e.meta ?? { s: 2 }).s * e.x * w[1]!;
}
export const gTagged = gradient(tagged);
export const dTagged = differential(tagged);

export function maybe(x: number, h: number | undefined): number {
  return x * (h ?? 2);
}
export const gMaybe = gradient(maybe, { wrt: 0 });
export const dMaybe = differential(maybe, { wrt: [0] });

export function previous(xs: number[], i: number): number {
  return (xs[i - 1] ?? 1) * xs[i]!;
}
export function previousLocal(xs: number[], i: number): number {
  const v = xs[i - 1];
  return (v ?? 1) * xs[i]!;
}
export function past(xs: number[]): number {
  return (xs[xs.length] || 5) * xs[0]!;
}
export function pastLocal(xs: number[]): number {
  const v = xs[xs.length]!;
  return (v || 5) * xs[0]!;
}
export function overrun(xs: number[]): number {
  let s = 0;
  for (let i = 0; i <= xs.length; i++) {
    const v = xs[i]!;
    s += v > 0 ? v * v : 0;
  }
  return s;
}
export const gPrevious = gradient(previous, { wrt: 0 });
export const dPrevious = differential(previous, { wrt: [0] });
export const gPreviousLocal = gradient(previousLocal, { wrt: 0 });
export const dPreviousLocal = differential(previousLocal, { wrt: [0] });
export const gPast = gradient(past);
export const dPast = differential(past);
export const gPastLocal = gradient(pastLocal);
export const dPastLocal = differential(pastLocal);
export const gOverrun = gradient(overrun);
export const dOverrun = differential(overrun);

export function truthiness(x: number, y: number): number {
  return (x && y) * 3 + (x || y) * 2 + (y ?? x);
}
export const gTruthiness = gradient(truthiness);
export const dTruthiness = differential(truthiness);

interface Slot { a?: number; b: number }
export function assigns(x: number, y: number, p: Slot): number {
  let u = y;
  u ||= x * 2;
  u &&= u * x;
  p.a ??= x * x;
  return u + p.a * p.b;
}
export const gAssigns = gradient(assigns, { wrt: [0, 1] });
export const dAssigns = differential(assigns, { wrt: [0, 1] });
`;

type Differential = (...args: never[]) => (...tangents: never[]) => number;
type M = Record<string, (...args: never[]) => unknown>;

async function program(): Promise<M> {
  return loadProgram<M>({ "main.ts": PROGRAM });
}

const call = <T>(f: unknown, ...args: unknown[]): T => (f as (...a: unknown[]) => T)(...args);

/** Checks d/dx f(x, …rest) by finite differences, forward and reverse mode. */
function checkNumber(
  primal: unknown,
  reverse: number,
  forward: number,
  x: number,
  rest: () => unknown[],
  what: string,
): void {
  const fd = centralDifference((t) => call<number>(primal, t, ...rest()), x);
  assertClose(reverse, fd, 1e-6, `${what}: reverse vs finite differences`);
  assertClose(forward, reverse, 1e-12, `${what}: forward vs reverse`);
}

/** A gradient array: exactly the argument's indices, no NaN, matching finite differences and forward mode. */
function checkArray(
  m: M,
  name: string,
  xs: number[],
  rest: unknown[],
  gradient: number[],
  forward: Differential,
): void {
  assert.deepEqual(Object.keys(gradient), Object.keys(xs), `${name}: the gradient's shape`);
  xs.forEach((x, j) => {
    const at = (t: number) =>
      call<number>(m[name], ...[xs.map((v, k) => (k === j ? t : v)), ...rest]);
    assertClose(
      gradient[j]!,
      centralDifference(at, x),
      1e-6,
      `${name} ∂x${j}: vs finite differences`,
    );
    const basis = xs.map((_, k) => (k === j ? 1 : 0));
    const tangent = call<(...t: unknown[]) => number>(forward, xs, ...rest)(basis);
    assertClose(tangent, gradient[j]!, 1e-12, `${name} ∂x${j}: forward vs reverse`);
  });
}

test("?? on an optional field: the right side only where the field is missing (it was compiled away: NaN)", async () => {
  const m = await program();
  const ds = () => [{ x: 2 }, { x: 3, weight: 0.5 }, { x: 4, weight: 0 }];
  assert.equal(call(m["weighted"], 1.5, ds()), 1.5 * 2 + 0.5 * 1.5 * 3);
  const { value, gradient } = call<{ value: number; gradient: [number, unknown] }>(
    m["gWeighted"],
    1.5,
    ds(),
  );
  assert.equal(value, call(m["weighted"], 1.5, ds()));
  const forward = call<(dw: number) => number>(m["dWeighted"], 1.5, ds())(1);
  checkNumber(m["weighted"], gradient[0], forward, 1.5, () => [ds()], "∂w");
  // ∂/∂d.x is weight · w, ∂/∂d.weight is w · x where present; the gradient of an object that
  // leaves the field out leaves it out too (the same keys as the value).
  assert.deepEqual(gradient[1], [{ x: 1.5 }, { x: 0.75, weight: 4.5 }, { x: 0, weight: 6 }]);
});

test("?? on optional fields and T | undefined fields of an object that omits them", async () => {
  const m = await program();
  for (const o of [{ scale: undefined }, { k: 0, scale: 2 }, { k: 2, scale: undefined }]) {
    const [dx, dO] = call<[number, { k: number; scale: number }]>(m["gScaled"], 1.5, { ...o });
    const forward = call<(d: number) => number>(m["dScaled"], 1.5, { ...o })(1);
    checkNumber(m["scaled"], dx, forward, 1.5, () => [{ ...o }], `∂x with ${JSON.stringify(o)}`);
    // A missing field has no adjoint (the gradient has the value's keys); `scale: undefined` is
    // a key of the value, whose adjoint read nothing: 0.
    assert.equal(dO.k, "k" in o ? 2.25 : undefined);
    assert.equal(dO.scale, o.scale === undefined ? 0 : 1.5);
  }
});

test("?? on an optional object or array field: the default's value, no TypeError, the argument's shape", async () => {
  const m = await program();
  const cases = [
    { x: 3 },
    { x: 3, meta: { s: 5 } },
    { x: 3, w: [4, 7] },
    { x: 3, meta: { s: 5 }, w: [4, 7] },
  ];
  for (const e of cases) {
    const g = call<{ x: number; meta?: { s: number }; w?: number[] }>(m["gTagged"], e);
    const s = e.meta?.s ?? 2;
    const w1 = e.w?.[1] ?? 2;
    assert.equal(call(m["tagged"], e), s * 3 * w1);
    assertClose(g.x, s * w1, 1e-15, "∂x");
    assert.deepEqual(g.meta, e.meta ? { s: 3 * w1 } : undefined);
    assert.deepEqual(g.w, e.w ? [0, s * 3] : undefined);
    const tangent = { x: 1, ...(e.meta ? { meta: { s: 0 } } : {}), ...(e.w ? { w: [0, 0] } : {}) };
    assertClose(call<(t: unknown) => number>(m["dTagged"], e)(tangent), g.x, 1e-15, "forward ∂x");
  }
});

test("?? on a parameter typed number | undefined", async () => {
  const m = await program();
  for (const h of [undefined, 0, 5]) {
    const reverse = call<number>(m["gMaybe"], 1.5, h);
    const forward = call<(d: number) => number>(m["dMaybe"], 1.5, h)(1);
    checkNumber(m["maybe"], reverse, forward, 1.5, () => [h], `h = ${h}`);
    assert.equal(reverse, h ?? 2);
  }
});

test("reads out of range: undefined as in JavaScript, zero derivative, no NaN entry or '-1' key", async () => {
  const m = await program();
  for (const [name, i] of [
    ["previous", 0],
    ["previous", 1],
    ["previousLocal", 0],
    ["previousLocal", 1],
  ] as const) {
    const xs = [2, 3];
    const gradient = call<number[]>(m[`g${name[0]!.toUpperCase()}${name.slice(1)}`], xs, i);
    assert.equal(call(m[name], xs, i), i === 0 ? 2 : 6);
    const forward = m[`d${name[0]!.toUpperCase()}${name.slice(1)}`] as Differential;
    checkArray(m, name, xs, [i], gradient, forward);
  }
  for (const name of ["past", "pastLocal", "overrun"]) {
    const xs = [2, 3];
    const upper = `${name[0]!.toUpperCase()}${name.slice(1)}`;
    const gradient = call<number[]>(m[`g${upper}`], xs);
    checkArray(m, name, xs, [], gradient, m[`d${upper}`] as Differential);
  }
  assert.deepEqual(call(m["gPast"], [2, 3]), [5, 0]);
  assert.deepEqual(call(m["gOverrun"], [2, 3]), [4, 6]);
});

test("|| and && test truthiness (0 and NaN are falsy), ?? only null and undefined", async () => {
  const m = await program();
  for (const [x, y] of [
    [0, 2],
    [1.5, 2],
    [1.5, 0],
    [NaN, 2],
    [-0.5, -1],
  ] as const) {
    const js = (a: number, b: number) => (a && b) * 3 + (a || b) * 2 + (b ?? a);
    assert.ok(Object.is(call(m["truthiness"], x, y), js(x, y)), `value at ${x}, ${y}`);
    const [gx, gy] = call<[number, number]>(m["gTruthiness"], x, y);
    const d = call<(dx: number, dy: number) => number>(m["dTruthiness"], x, y);
    // Which operand each operator yields decides the derivative: (x && y) yields y when x is truthy.
    assert.equal(gx, (x ? 0 : 3) + (x ? 2 : 0));
    assert.equal(gy, (x ? 3 : 0) + (x ? 0 : 2) + 1);
    assert.equal(d(1, 0), gx);
    assert.equal(d(0, 1), gy);
  }
});

test("??=, ||= and &&= on locals and fields", async () => {
  const m = await program();
  for (const [y, p] of [
    [0, { b: 2 }],
    [4, { a: 5, b: 2 }],
    [NaN, { a: 0, b: 3 }],
  ] as const) {
    const args = () => [y, { ...p }];
    const [gx, gy] = call<[number, number]>(m["gAssigns"], 1.5, ...args());
    const d = call<(dx: number, dy: number) => number>(m["dAssigns"], 1.5, ...args());
    checkNumber(m["assigns"], gx, d(1, 0), 1.5, args, `∂x at y = ${y}, ${JSON.stringify(p)}`);
    // At y = 0 or NaN, u ||= … jumps: no finite difference in y there.
    if (y !== 0 && !Number.isNaN(y)) {
      const fd = centralDifference((t) => call<number>(m["assigns"], 1.5, t, { ...p }), y);
      assertClose(gy, fd, 1e-6, "∂y vs finite differences");
    }
    assert.equal(d(0, 1), gy);
  }
});

test("an optional field set in a branch never taken, read with ?. and ??, whose derivative is unused", async () => {
  // The tangent of `o`, an object literal nothing reads after the branch, was inlined where
  // the branch writes it: `{ v: 0 }.next = …`, which JavaScript parses as a block (a
  // SyntaxError loading the module). Found by the idiom fuzzer (optional-chaining).
  const m = await loadProgram<{ d: (x: number, y: number) => (dx: number, dy: number) => number }>({
    "main.ts": `import { differential } from "nabla";
export function f(x: number, y: number): number {
  const o: { v: number; next?: { v: number } } = { v: 1.6 };
  if (x > 100) o.next = { v: x };
  return (o.next?.v ?? o.v) * 0 + x * y;
}
export const d = differential(f);
`,
  });
  assert.equal(m.d(3, 2)(1, 0), 2);
  assert.equal(m.d(3, 2)(0, 1), 3);
});
