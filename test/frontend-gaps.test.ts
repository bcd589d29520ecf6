import assert from "node:assert/strict";
import { test } from "node:test";
import { checkTwoWays } from "./support/two-ways.js";
import {
  assertClose,
  assertGradientTwoWays,
  compileFiles,
  diagnosticsText,
  loadProgram,
  type Differential,
  type Fn,
} from "./support/harness.js";

// Ordinary numeric TypeScript a front end must take as JavaScript runs it: built-in functions
// as callbacks, `sort()` without a comparator, getters of object literals, deep copies. Each
// `f` takes numbers; its value is checked against the plain function's, its gradient against
// central differences and against forward mode along each coordinate.

interface Compiled {
  f: Fn;
  g: (...xs: number[]) => number[];
  d: Differential;
}

async function checkProgram(body: string, points: number[][]): Promise<void> {
  const m = await loadProgram<Compiled & { value: Fn }>({
    "main.ts": `import { differential, gradient } from "nabla";
${body}
export const g = gradient(f);
export const d = differential(f);
`,
  });
  for (const xs of points) {
    assert.equal(m.d(...xs)(...xs.map(() => 0)), 0, `f at ${xs}: a zero tangent`);
    assertGradientTwoWays("f", m.f, m.g(...xs), m.d, xs, 1e-6, 1e-12);
  }
}

test("'.sort()' without a comparator orders numbers as text, as JavaScript does, derivatives moving with them", async () => {
  await checkProgram(
    `
function median(values: number[]): number {
  const sorted = values.slice().sort();
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
export function f(a: number, b: number, c: number): number {
  const weights = [a * 10, b, c * c, 0.5];
  const ranked = weights.toSorted();
  const picked = new Float64Array([a, b, c, -c]);
  picked.sort();
  let s = median([a, b, c]) + median(weights);
  ranked.forEach((w, i) => (s += w * (i + 1)));
  picked.forEach((w, i) => (s += w * (i + 3)));
  return s;
}
`,
    [
      [1.1, 8.5, 3],
      [0.7, -2.5, 1.3],
      [-0.2, 12, 2.9],
    ],
  );
});

test("'.sort()' without a comparator: the permutation is JavaScript's ([10, 9, 1] gives [1, 10, 9])", async () => {
  const m = await loadProgram<{ g: (xs: number[]) => number[]; plain: (xs: number[]) => number }>({
    "main.ts": `import { gradient } from "nabla";
function positional(xs: number[]): number {
  const s = [...xs].sort();
  return s.reduce((acc, v, i) => acc + v * (i + 1), 0);
}
export const plain = positional;
export const g = gradient(positional);
`,
  });
  // Each value's derivative is its place (1-based) in JavaScript's order.
  for (const xs of [
    [10, 9, 1],
    [-1, 2, -0.5, 100, 25],
    [1e21, 3, 2e-7, 0.4],
  ]) {
    const order = [...xs].sort();
    assert.deepEqual(
      m.g(xs),
      xs.map((x) => order.indexOf(x) + 1),
      `at ${xs}`,
    );
  }
});

test("built-in functions as callbacks: 'xs.map(Math.abs)', 'xs.map(Number)', 'filter(Boolean)', 'map(parseFloat)'", async () => {
  await checkProgram(
    `
function l1(values: number[]): number {
  return values.map(Math.abs).reduce((s, v) => s + v, 0);
}
function rms(values: number[]): number {
  const squares = values.map((v) => v * v);
  return squares.map(Math.sqrt).reduce((s, v) => s + v, 0) / values.length;
}
function softmaxFirst(logits: number[]): number {
  const e = logits.map(Math.exp);
  return e[0] / e.reduce((s, v) => s + v, 0);
}
export function f(a: number, b: number, c: number): number {
  const xs = [a, b, c];
  const copy = xs.map(Number);
  const scales = ["0.5", "2"].map(parseFloat);
  const nonzero = [a - b, 0, c].filter(Boolean).length;
  const finite = xs.every(Number.isFinite) ? 1 : 0;
  const logs = new Float64Array([a * a + 1, b * b + 2]).map(Math.log);
  const squashed = xs.map(Math.tanh).reduce((s, v) => s + v);
  return (
    l1(xs) * scales[0] +
    rms(copy) * scales[1] +
    softmaxFirst(xs) * nonzero +
    finite * copy[2] +
    logs[0] * logs[1] +
    squashed
  );
}
`,
    [
      [0.7, -0.4, 1.3],
      [-1.2, 2.5, 0.3],
      [2, 1.5, -0.8],
    ],
  );
});

test("built-ins that read the index too, as callbacks, are refused with the call JavaScript makes", () => {
  const result = compileFiles({
    "main.ts": `import { gradient } from "nabla";
export function parsed(x: number): number {
  const steps = ["10", "10", "10"].map(parseInt);
  return x * steps[1];
}
export function largest(xs: number[]): number {
  return xs.reduce(Math.max);
}
export function powers(xs: number[]): number {
  return xs.map(Math.pow).reduce((s, v) => s + v, 0);
}
export const g1 = gradient(parsed);
export const g2 = gradient(largest);
export const g3 = gradient(powers);
`,
  });
  assert.equal(
    diagnosticsText(result),
    `main.ts:3:40: error NABLA101: 'parseInt' as the callback of '.map' is called with (element, index, array), and it reads the second as its radix
  2 | export function parsed(x: number): number {
> 3 |   const steps = ["10", "10", "10"].map(parseInt);
    |                                        ^^^^^^^^
help: pass an arrow that calls it as you mean, such as '(s) => parseInt(s, 10)'
main.ts:12:19: note: when differentiating 'parsed' for 'gradient'
> 12 | export const g1 = gradient(parsed);
     |                   ^^^^^^^^^^^^^^^^

main.ts:7:20: error NABLA101: 'Math.max' as the callback of '.reduce' is called with (accumulator, element, index, array), and it reads all of them
  6 | export function largest(xs: number[]): number {
> 7 |   return xs.reduce(Math.max);
    |                    ^^^^^^^^
help: pass an arrow that calls it as you mean, such as '(a, b) => Math.max(a, b)'
main.ts:13:19: note: when differentiating 'largest' for 'gradient'
> 13 | export const g2 = gradient(largest);
     |                   ^^^^^^^^^^^^^^^^^

main.ts:10:17: error NABLA101: 'Math.pow' as the callback of '.map' is called with (element, index, array), and it reads the first two
   9 | export function powers(xs: number[]): number {
> 10 |   return xs.map(Math.pow).reduce((s, v) => s + v, 0);
     |                 ^^^^^^^^
help: pass an arrow that calls it as you mean, such as '(v) => Math.pow(v, …)'
main.ts:14:19: note: when differentiating 'powers' for 'gradient'
> 14 | export const g3 = gradient(powers);
     |                   ^^^^^^^^^^^^^^^^

3 errors`,
  );
});

test("getters and methods in object literals run at each read, with 'this' the object", async () => {
  await checkProgram(
    `
interface Box {
  w: number;
  h: number;
  readonly area: number;
  scaled(k: number): number;
}
export function f(w: number, h: number, d: number): number {
  const box: Box = {
    w,
    h,
    get area() {
      return this.w * this.h;
    },
    scaled(k: number) {
      return k * this.area;
    },
  };
  const before = box.area;
  box.w = w * d;
  const snapshot = { ...box };
  box.h = Math.exp(d);
  const { area: current } = box;
  const stats = {
    values: [w, h, d],
    get mean() {
      return this.values.reduce((s, v) => s + v, 0) / this.values.length;
    },
  };
  stats.values[2] = d * d;
  return before + box.area + snapshot.area * 2 + Math.sin(box.scaled(h)) + stats.mean * current;
}
`,
    [
      [2, 3, 0.5],
      [-0.7, 1.3, -1.1],
    ],
  );
});

test("an object literal with a getter passed on: the callee's read runs the getter (lower/passed-accessors.ts)", async () => {
  await checkTwoWays(`interface Sized {
  readonly area: number;
}
function double(s: Sized): number {
  return 2 * s.area;
}
export function f(w: number, h: number): number {
  const box = {
    w,
    h,
    get area() {
      return this.w * this.h;
    },
  };
  return double(box);
}`);
});

test("a setter in an object literal is refused with what to do instead", () => {
  const result = compileFiles({
    "main.ts": `import { derivative } from "nabla";
export function f(x: number): number {
  const t = { c: x, set f(v: number) { this.c = (v - 32) / 1.8; } };
  t.f = x;
  return t.c;
}
export const d = derivative(f);
`,
  });
  assert.equal(
    diagnosticsText(result),
    `main.ts:3:21: error NABLA101: a setter in an object literal ('set f(v)') is not supported in differentiable code
  2 | export function f(x: number): number {
> 3 |   const t = { c: x, set f(v: number) { this.c = (v - 32) / 1.8; } };
    |                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: assign the fields it would set where the value changes, or make the object an instance of a class with 'set f(v)'
main.ts:7:18: note: when differentiating 'f' for 'derivative'
> 7 | export const d = derivative(f);
    |                  ^^^^^^^^^^^^^

1 error`,
  );
});

test("structuredClone of arrays, typed arrays, tuples and objects of numbers: a copy the derivative flows through", async () => {
  await checkProgram(
    `
interface Pose {
  x: number;
  y: number;
  label: string;
  fixed?: boolean;
}
export function f(a: number, b: number): number {
  const xs = [a, b, a * b];
  const copy = structuredClone(xs);
  copy[1] = copy[1] * 3;
  copy.push(Math.sin(a));
  const weights = new Float64Array([a, b]);
  const trial = structuredClone(weights);
  trial[0] += 1;
  const pose: Pose = { x: a, y: b, label: "start" };
  const moved = structuredClone(pose);
  moved.x = moved.x * moved.y;
  const pair: [number, number] = [a, -b];
  const pairCopy = structuredClone(pair);
  pairCopy[0] = 0;
  return (
    xs[1] * copy[1] +
    copy[3] * copy.length +
    weights[0] * trial[0] +
    pose.x * moved.x +
    pair[0] * pairCopy[1] +
    (moved.fixed ? 1 : 0)
  );
}
`,
    [
      [0.7, 1.3],
      [-1.1, 0.4],
    ],
  );
});

test("structuredClone of nested data or of a class instance, and a JSON round trip, are refused with what to write instead", () => {
  const result = compileFiles({
    "main.ts": `import { gradient } from "nabla";
interface Params {
  a: number;
  nested: { c: number };
}
class Particle {
  constructor(public x: number) {}
  get energy(): number {
    return this.x * this.x;
  }
}
export function viaJson(p: Params): number {
  const q: Params = JSON.parse(JSON.stringify(p));
  q.a *= 2;
  return p.a * q.a + q.nested.c;
}
export function rows(tracks: { x: number; trail: number[] }[]): number {
  const copy = structuredClone(tracks);
  copy[0].trail[0] = 1;
  return tracks[0].trail[0] * copy[0].x;
}
export function particle(x: number): number {
  const p = new Particle(x);
  return structuredClone(p).energy;
}
export const g1 = gradient(viaJson);
export const g2 = gradient(rows);
export const g3 = gradient(particle);
`,
  });
  assert.equal(
    diagnosticsText(result),
    `main.ts:13:21: error NABLA102: a copy through JSON text ('JSON.parse(JSON.stringify(…))') is not differentiable: its numbers are read back from text, and it is not faithful (-0 becomes 0, NaN and Infinity become null)
  12 | export function viaJson(p: Params): number {
> 13 |   const q: Params = JSON.parse(JSON.stringify(p));
     |                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: copy with spreads and maps ('{ ...p, nested: { ...p.nested } }', 'rows.map((r) => [...r])'), or with 'structuredClone(x)' for an array or object of numbers; nabla differentiates those
main.ts:26:19: note: when differentiating 'viaJson' for 'gradient'
> 26 | export const g1 = gradient(viaJson);
     |                   ^^^^^^^^^^^^^^^^^

main.ts:18:16: error NABLA102: cannot differentiate a call to 'structuredClone' of a value holding arrays or objects: a deep copy keeps which parts the copy shares with itself, which nabla's derivatives cannot follow (it works for an array or object of numbers, and for an array of such objects or rows)
  17 | export function rows(tracks: { x: number; trail: number[] }[]): number {
> 18 |   const copy = structuredClone(tracks);
     |                ^^^^^^^^^^^^^^^
help: copy the levels you change with spreads and maps ('objs.map((o) => ({ ...o, v: [...o.v] }))', 'rows.map((r) => [...r])')
main.ts:27:19: note: when differentiating 'rows' for 'gradient'
> 27 | export const g2 = gradient(rows);
     |                   ^^^^^^^^^^^^^^

main.ts:24:10: error NABLA102: 'structuredClone' of a 'Particle' gives a plain object, without the class's methods and getters (and its '#private' fields)
  23 |   const p = new Particle(x);
> 24 |   return structuredClone(p).energy;
     |          ^^^^^^^^^^^^^^^
help: copy it with the class's own constructor ('new Particle(…)') or a method that does
main.ts:28:19: note: when differentiating 'particle' for 'gradient'
> 28 | export const g3 = gradient(particle);
     |                   ^^^^^^^^^^^^^^^^^^

3 errors`,
  );
});

test("compose with a rest parameter of functions: built-ins, functions of the program, arrows, called at once or named", async () => {
  await checkProgram(
    `
type Fn = (x: number) => number;
const compose =
  (...fns: Fn[]): Fn =>
  (x) =>
    fns.reduceRight((acc, f) => f(acc), x);
function pipe(...fns: ((x: number) => number)[]) {
  return (x: number) => fns.reduce((acc, f) => f(acc), x);
}
function twice(f: Fn): Fn {
  return (x: number) => f(f(x));
}
function square(v: number): number {
  return v * v;
}
export function f(x: number, k: number): number {
  const scaled = compose(Math.sin, (v) => v * k, square);
  const smooth = pipe(Math.tanh, twice(Math.cos), (v) => v + k);
  let total = 0;
  for (let i = 1; i <= 3; i++) total += scaled(x * i);
  const stages = [Math.sin, square, (v: number) => v - k];
  let weighted = 0;
  stages.forEach((g, i) => {
    weighted += g(x) * (i + 1);
  });
  return (
    total +
    smooth(x) +
    compose(Math.exp, twice(square))(x * 0.5) +
    pipe()(k) +
    stages.reduce((v, g) => g(v), x) +
    weighted
  );
}
`,
    [
      [0.7, 1.3],
      [-0.4, 0.6],
    ],
  );
});

test("functions into the rest parameter of a function that does not make one, and a fold of functions without a start, are refused clearly", () => {
  const result = compileFiles({
    "main.ts": `import { derivative } from "nabla";
type Fn = (x: number) => number;
function applyAll(x: number, ...fns: Fn[]): number {
  return fns.reduceRight((acc, f) => f(acc), x);
}
function chain(...fns: Fn[]): Fn {
  return (x: number) => fns.reduce((acc, f) => f(acc));
}
export function direct(x: number): number {
  return applyAll(x, Math.sin, (v) => v * v);
}
export function folded(x: number): number {
  return chain(Math.sin, Math.cos)(x);
}
export const d1 = derivative(direct);
export const d2 = derivative(folded);
`,
  });
  assert.equal(
    diagnosticsText(result),
    `main.ts:7:25: error NABLA112: '.reduce' of a list of functions is supported with a callback written at the call, of plain parameters, that returns only at its end, and an initial value
  6 | function chain(...fns: Fn[]): Fn {
> 7 |   return (x: number) => fns.reduce((acc, f) => f(acc));
    |                         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: write it as '.reduce((acc, f) => f(acc), x)'
main.ts:16:19: note: when differentiating 'folded' for 'derivative'
> 16 | export const d2 = derivative(folded);
     |                   ^^^^^^^^^^^^^^^^^^

main.ts:10:22: error NABLA101: 'applyAll' takes functions through its rest parameter '...fns', which differentiable code supports only in a function that ends by returning a function written there ('const compose = (...fns: Fn[]) => (x: number) => …')
   9 | export function direct(x: number): number {
> 10 |   return applyAll(x, Math.sin, (v) => v * v);
     |                      ^^^^^^^^
help: write 'applyAll' to return '(x: number) => …' applying the functions, and call that ('applyAll(f, g)(x)'), or take the functions as separate parameters
main.ts:15:19: note: when differentiating 'direct' for 'derivative'
> 15 | export const d1 = derivative(direct);
     |                   ^^^^^^^^^^^^^^^^^^

2 errors`,
  );
});

test("second order through all of them: a hessian against second differences", async () => {
  const m = await loadProgram<{
    f: (xs: number[]) => number;
    h: (xs: number[]) => number[][];
  }>({
    "main.ts": `import { hessian } from "nabla";
type Fn = (x: number) => number;
const compose =
  (...fns: Fn[]): Fn =>
  (x) =>
    fns.reduceRight((acc, f) => f(acc), x);
export function f(xs: number[]): number {
  const box = {
    a: xs[0],
    b: xs[1],
    get prod() {
      return this.a * this.b * this.a;
    },
  };
  const sorted = xs.map(Math.exp).sort();
  const copy = structuredClone(xs);
  copy[0] *= copy[1];
  return (
    box.prod +
    compose(Math.sin, (v) => v * xs[1])(xs[0]) +
    sorted[0] * sorted[1] +
    copy[0] * copy[0]
  );
}
export const h = hessian(f);
`,
  });
  const step = 1e-4;
  for (const x of [
    [0.3, 0.8],
    [1.7, -0.6],
  ]) {
    const at = (i: number, di: number, j: number, dj: number) =>
      m.f(x.map((v, k) => v + (k === i ? di : 0) + (k === j ? dj : 0)));
    const hessianAt = m.h(x);
    for (let i = 0; i < 2; i++)
      for (let j = 0; j < 2; j++) {
        const second =
          (at(i, step, j, step) -
            at(i, step, j, -step) -
            at(i, -step, j, step) +
            at(i, -step, j, -step)) /
          (4 * step * step);
        assertClose(hessianAt[i]![j]!, second, 1e-5, `∂²f/∂x${i}∂x${j} at ${x}`);
      }
  }
});

test("structuredClone of an array of flat objects or of rows keeps which elements are one object, as JavaScript does", async () => {
  await checkProgram(
    `
interface Cell {
  value: number;
  weight: number;
}
export function f(a: number, b: number): number {
  const shared: Cell = { value: a, weight: 2 };
  const cells: Cell[] = new Array(3).fill(shared);
  cells[1] = { value: b, weight: 3 };
  const deep = structuredClone(cells);
  deep[0].value *= b; // deep[2] is the same copy
  const row = [a, b];
  const grid = [row, row, [b, 1]];
  const gridCopy = structuredClone(grid);
  gridCopy[1][0] = a * a; // so is gridCopy[0]
  const bands = [new Float64Array([a, 1]), new Float64Array([b, 2])];
  const bandsCopy = structuredClone(bands);
  bandsCopy[0][1] = b;
  return (
    deep.reduce((s, c) => s + c.value * c.weight, 0) +
    cells[0].value * cells[2].value +
    gridCopy[0][0] * gridCopy[2][0] +
    grid[0][0] +
    bandsCopy[0][0] * bandsCopy[0][1] +
    bands[0][1]
  );
}
`,
    [
      [0.5, 2],
      [-1.3, 0.7],
    ],
  );
});
