import { test } from "node:test";
import assert from "node:assert/strict";
import {
  assertClose,
  centralDifference,
  compileFiles,
  diagnosticsText,
  assertGradientTwoWays,
  loadProgram,
  type Differential,
  type Fn,
} from "./support/harness.js";
import { checkTwoWays } from "./support/two-ways.js";

// Destructuring in differentiated code: declarations (`const [a, b] = …`, `const { x, y } = p`,
// nested, holes, renames, in `for…of`) and assignments (`[a, b] = [b, a]`, array element swaps).
// Each function takes numbers, so every gradient is checked against central differences of the
// primal and against forward mode along each coordinate.

const PROGRAM = `
import { gradient, differential } from "nabla";

interface Point { x: number; y: number }
interface Segment { from: Point; to: Point }

function indexTriple(v: Float64Array, tri: number[]): number {
  const [i, j, k] = tri;
  return v[i] * v[j] + Math.sin(v[k]);
}
export function arrayOfIndices(a: number, b: number, c: number): number {
  return indexTriple(new Float64Array([a, b, c]), [2, 0, 1]);
}

export function activeElements(a: number, b: number, c: number): number {
  const [x, y, z] = [a * b, b + c, Math.exp(c)];
  return x * y - z;
}

function lengthOf(s: Segment): number {
  const { from: { x: x0, y: y0 }, to } = s;
  const { x, y } = to;
  return Math.hypot(x - x0, y - y0);
}
export function nestedObject(a: number, b: number, c: number): number {
  return lengthOf({ from: { x: a, y: b }, to: { x: c, y: a * c } });
}

export function holes(a: number, b: number, c: number): number {
  const [, second, , fourth] = [a, b * a, c, c * c];
  return second / (1 + fourth);
}

export function tuples(a: number, b: number, c: number): number {
  const pairs: [number, number][] = [[a, b], [b, c], [c, a]];
  let s = 0;
  for (const [p, q] of pairs) s += p * q * q;
  return s;
}

export function fibonacciSwap(a: number, b: number, c: number): number {
  let x = a;
  let y = b;
  for (let i = 0; i < 5; i++) [x, y] = [y, x + c * y];
  return x + y;
}

export function elementSwap(a: number, b: number, c: number): number {
  const v = [a, b, c];
  for (let i = 0; i < v.length - 1; i++) {
    if (v[i] > v[i + 1]) [v[i], v[i + 1]] = [v[i + 1], v[i]];
  }
  return v[0] + 2 * v[1] + 3 * v[2] * v[2];
}

export function letThenReassign(a: number, b: number, c: number): number {
  let [p, q] = [a, b];
  p = p * c;
  ({ x: q } = { x: q + p, y: 0 });
  return p * q;
}

export const g = {
  arrayOfIndices: gradient(arrayOfIndices),
  activeElements: gradient(activeElements),
  nestedObject: gradient(nestedObject),
  holes: gradient(holes),
  tuples: gradient(tuples),
  fibonacciSwap: gradient(fibonacciSwap),
  elementSwap: gradient(elementSwap),
  letThenReassign: gradient(letThenReassign),
};
export const d = {
  arrayOfIndices: differential(arrayOfIndices),
  activeElements: differential(activeElements),
  nestedObject: differential(nestedObject),
  holes: differential(holes),
  tuples: differential(tuples),
  fibonacciSwap: differential(fibonacciSwap),
  elementSwap: differential(elementSwap),
  letThenReassign: differential(letThenReassign),
};
`;

const POINTS: number[][] = [
  [0.4, 1.3, -0.8],
  [-0.7, 0.55, 1.9],
  [1.1, -0.9, 0.3],
];

test("destructuring: gradients agree with finite differences and with forward mode", async () => {
  const m = await loadProgram<{
    g: Record<string, (...xs: number[]) => number[]>;
    d: Record<string, Differential>;
    [name: string]: unknown;
  }>({ "main.ts": PROGRAM });
  assert.equal(Object.keys(m.g).length, 8);
  for (const name of Object.keys(m.g)) {
    const f = m[name] as Fn;
    for (const point of POINTS) {
      const gradient = m.g[name]!(...point);
      assertGradientTwoWays(name, f, gradient, m.d[name]!, point, 1e-6, 1e-12);
    }
  }
});

test("destructuring: the values of the primal are unchanged", async () => {
  const m = await loadProgram<Record<string, Fn>>({ "main.ts": PROGRAM });
  assert.equal(m.fibonacciSwap!(1, 1, 1), 21);
  assert.equal(m.elementSwap!(3, 2, 1), 2 + 2 * 1 + 3 * 3 * 3); // sorted by one bubble pass: [2, 1, 3]
  assert.equal(m.holes!(2, 3, 1), 6 / 2);
});

test("rest elements: the rest of an array, a tuple and an object, in declarations and parameters", async () => {
  await checkTwoWays(`interface Body { mass: number; x: number; v: number; label?: string; "drag-coef": number }
function energy({ mass, ...state }: Body): number {
  return 0.5 * mass * state.v * state.v + mass * 9.81 * state.x + state["drag-coef"] * state.v;
}
function poly(coeffs: number[], t: number): number {
  const [bias, ...weights] = coeffs;
  let s = bias;
  weights.forEach((w, i) => (s += w * t ** (i + 1)));
  return s;
}
export function f(x: number, y: number): number {
  const [a, ...bc] = [x, y, x * y] as [number, number, number];
  const [, ...[second, ...others]] = [y, x, 2 * y, x - y];
  const body: Body = { mass: x * x + 1, x: y, v: x - y, "drag-coef": 0.1, label: "ball" };
  const { label, ...numbers } = body;
  return a * bc[0] + bc[1] * bc.length + second * others[1] + energy(body) +
    poly([x, y, 0.5], x) + (label === "ball" ? numbers.v * numbers.mass : 0);
}`);
});

test("destructuring defaults: taken where the value is undefined, both modes match differences", async () => {
  const m = await loadProgram<{
    f: (x: number, o: { k?: number; c?: number }) => number;
    vg: (x: number, o: { k?: number; c?: number }) => { value: number; gradient: number };
    d: (x: number, o: { k?: number; c?: number }) => (dx: number) => number;
  }>({
    "main.ts": `import { differential, valueWithGradient } from "nabla";
interface Opts { k?: number; c?: number }
export function f(x: number, o: Opts): number {
  const { k = 2 * x, c = 1 } = o;
  const [a, b = 3] = [x * k];
  return a * c + b * x;
}
export const vg = valueWithGradient(f, { wrt: 0 });
export const d = differential(f, { wrt: 0 });
`,
  });
  for (const o of [{}, { k: 5 }, { c: 4 }, { k: -1, c: 0.5 }]) {
    for (const x of [0.7, -1.3]) {
      const { value, gradient } = m.vg(x, o);
      assert.equal(value, m.f(x, o));
      assertClose(
        gradient,
        centralDifference((t) => m.f(t, o), x),
        1e-6,
        `gradient at ${x}`,
      );
      assertClose(m.d(x, o)(1), gradient, 1e-12, `forward mode at ${x}`);
    }
  }
});

test("destructured parameters of functions and callbacks, with defaults: both modes match differences", async () => {
  await checkTwoWays(
    `interface Opt { S: number; K: number; sigma?: number }
function d1({ S, K, sigma = 0.2 }: Opt, t = 1) {
  return (Math.log(S / K) + 0.5 * sigma * sigma * t) / (sigma * Math.sqrt(t));
}
function area([w, h]: [number, number], { scale = 1 }: { scale?: number } = {}) {
  return w * h * scale;
}
export function f(S: number, K: number) {
  const pairs: [number, number][] = [[S, K], [K, 2]];
  const total = pairs.map(([a, b]) => a * b).reduce((acc, v) => acc + v, 0);
  let s = 0;
  [{ x: S, y: K }, { x: 1, y: S }].forEach(({ x, y }, i) => {
    s += x * y * (i + 1);
  });
  return d1({ S, K }) + d1({ S, K, sigma: 0.3 }, 2) + area([S, K]) + area([K, K], { scale: S }) + total + s;
}`,
    [
      [1.2, 0.9],
      [0.7, 1.6],
    ],
  );
});

test("the rest of a record's destructuring is a new record of its other keys; quoted keys read by name", async () => {
  // Before, '...rest' of a record was NABLA101 with a help about arrays ('.slice'), and a
  // quoted key ('{ "fee-eu": fee }') was NABLA101 ("computed property names"), of a record
  // and of an interface alike.
  await checkTwoWays(`interface Fees { "fee-eu": number; base: number }
function spread(r: Record<string, number>): number {
  let s = 0;
  for (const k of Object.keys(r)) s += r[k] * r[k];
  return s;
}
function feeTimesBase({ "fee-eu": fee, base }: Fees): number {
  return fee * base;
}
export function f(x: number, y: number): number {
  const prices: Record<string, number> = { base: x, "fee-eu": y, tax: x * y };
  const { base, "fee-eu": fee, ...others } = prices;
  const weights: Record<string, number[]> = { a: [x, y], b: [y], c: [2 * x] };
  const { a, ...restW } = weights;
  let tail = 0;
  for (const [, ws] of Object.entries(restW)) tail += ws[0] * x;
  let left: Record<string, number>;
  let first: number;
  ({ base: first, ...left } = prices);
  const k = "tax";
  const copy = { ...prices };
  delete copy[k];
  return (
    base * fee + spread(others) + a[1] * tail + first * spread(left) + spread(copy) +
    feeTimesBase({ "fee-eu": x, base: y })
  );
}`);
});

test("the rest of a record after a computed key is refused with a help that works", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { gradient } from "nabla";
export function f(r: Record<string, number>, key: string): number {
  const { [key]: picked, ...rest } = r;
  return picked * Object.keys(rest).length;
}
export const g = gradient(f, { wrt: 0 });
`,
    }),
  );
  assert.equal(
    text.split("\n").slice(0, 5).join("\n"),
    `main.ts:3:11: error NABLA101: a rest element ('...rest') of a record after a computed key ('[k]: v') is not supported in differentiable code
  2 | export function f(r: Record<string, number>, key: string): number {
> 3 |   const { [key]: picked, ...rest } = r;
    |           ^^^^^^^^^^^^^
help: name the keys the rest leaves out as written keys ('{ a, ...rest }'), or copy the record and delete the key ('const rest = { ...r }; delete rest[k]')`,
  );
});
