import assert from "node:assert/strict";
import { test } from "node:test";
import { compileFiles, diagnosticsText } from "./support/harness.js";
import { checkTwoWays } from "./support/two-ways.js";

// Generators iterated by `for…of` (lower/generators.ts): the generator is inlined at the loop,
// each `yield` running the loop's body. Programs as people write them, each derivative checked
// against central differences and forward mode against reverse mode; then the uses of a
// generator that stay unsupported, each with its diagnostic where it is written.

test("pairs of elements from a generic generator of another module, destructured", async () => {
  await checkTwoWays(
    `import { pairs, type Body } from "./geometry";
export function f(x: number, y: number) {
  const bodies: Body[] = [{ x, y, charge: 1 }, { x: y, y: -x, charge: 2 }, { x: x * y, y: 1, charge: 0.5 }];
  let energy = 0;
  for (const [a, b] of pairs(bodies)) {
    const r = Math.hypot(a.x - b.x, a.y - b.y) + 0.1;
    energy += (a.charge * b.charge) / r;
  }
  return energy;
}`,
    undefined,
    true,
    {
      "geometry.ts": `export interface Body {
  x: number;
  y: number;
  charge: number;
}
export function* pairs<T>(xs: readonly T[]): Generator<[T, T]> {
  for (let i = 0; i < xs.length; i++) for (let j = i + 1; j < xs.length; j++) yield [xs[i], xs[j]];
}
`,
    },
  );
});

test("a range generator with a default step, and a generator over another generator", async () => {
  await checkTwoWays(`function* range(start: number, end: number, step = 1) {
  for (let i = start; i < end; i += step) yield i;
}
function* squares(n: number) {
  for (const i of range(0, n)) yield i * i;
}
export function f(x: number, y: number) {
  let s = 0;
  for (const i of range(1, 6, 2)) s += Math.sin(x * i) * y;
  for (const q of squares(4)) s += q * x * x;
  return s;
}`);
});

test("a class with a generator [Symbol.iterator] method, iterated by for…of", async () => {
  await checkTwoWays(`class RingBuffer {
  private readonly data: number[] = [];
  private head = 0;
  constructor(readonly capacity: number) {
    for (let i = 0; i < capacity; i++) this.data.push(0);
  }
  push(value: number) {
    this.head = (this.head + 1) % this.capacity;
    this.data[this.head] = value;
  }
  get(k: number): number {
    return this.data[(this.head - k + this.capacity) % this.capacity];
  }
  *[Symbol.iterator]() {
    for (let k = 0; k < this.capacity; k++) yield this.get(k);
  }
}
class Fir {
  private readonly history: RingBuffer;
  constructor(private readonly taps: number[]) {
    this.history = new RingBuffer(taps.length);
  }
  process(x: number) {
    this.history.push(x);
    let acc = 0;
    let k = 0;
    for (const sample of this.history) acc += this.taps[k++] * sample;
    return acc;
  }
}
export function f(x: number, y: number) {
  const fir = new Fir([0.5, y, 0.25]);
  let out = 0;
  for (const v of [x, 2 * x, y, x * y]) out += fir.process(v) ** 2;
  return out;
}`);
});

test("a generator method called by name on an instance", async () => {
  await checkTwoWays(`class Polyline {
  constructor(readonly xs: number[], readonly ys: number[]) {}
  *segments() {
    for (let i = 1; i < this.xs.length; i++)
      yield { dx: this.xs[i] - this.xs[i - 1], dy: this.ys[i] - this.ys[i - 1] };
  }
}
export function f(x: number, y: number) {
  const line = new Polyline([0, x, 2 * x, 3], [1, y, x * y, 0]);
  let length = 0;
  for (const { dx, dy } of line.segments()) length += Math.sqrt(dx * dx + dy * dy);
  return length;
}`);
});

test("break out of a generator's nested loops, and continue", async () => {
  await checkTwoWays(`function* grid(n: number): Generator<[number, number]> {
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) yield [i, j];
  }
}
export function f(x: number, y: number) {
  let s = 0;
  let visited = 0;
  for (const [i, j] of grid(5)) {
    visited++;
    if (i === j) continue;
    s += x * i + y * j * x;
    if (visited > 13) break;
  }
  return s + visited;
}`);
});

test("return from inside the loop over a generator, and a labeled exit to an outer loop", async () => {
  await checkTwoWays(`function* range(n: number) {
  for (let i = 0; i < n; i++) yield i;
}
function firstAbove(x: number, limit: number): number {
  let s = 0;
  for (const i of range(10)) {
    s += x * x * (i + 1);
    if (s > limit) return s * i;
  }
  return -s;
}
export function f(x: number, y: number) {
  let total = 0;
  outer: for (let round = 0; round < 3; round++) {
    for (const i of range(4)) {
      if (i === round + 1) continue outer;
      if (round === 2 && i === 2) break outer;
      total += x * i + y * round;
    }
  }
  return total + firstAbove(x, 3) + firstAbove(y, 100);
}`);
});

test("a generator's locals named like the loop's variables do not capture them", async () => {
  await checkTwoWays(`function* scaled(xs: number[], s: number) {
  let total = 0;
  for (const x of xs) {
    total += x;
    yield x * s + total;
  }
}
export function f(x: number, y: number) {
  let total = 1;
  const s = 3;
  for (const v of scaled([x, y, x * y], 2)) {
    const x = v + s;
    total *= x;
  }
  return total;
}`);
});

test("yield* of a generator and of an array, a generator that returns early, a local generator", async () => {
  await checkTwoWays(`function* upTo(limit: number, values: number[]) {
  for (const v of values) {
    if (v > limit) return;
    yield v;
  }
}
function* both(xs: number[]) {
  yield* upTo(2, xs);
  yield 10;
  yield* xs;
}
export function f(x: number, y: number) {
  const scale = x * y;
  const scaledBy = function* (ws: number[]) {
    for (const w of ws) yield w * scale;
  };
  let s = 0;
  for (const v of both([1, x, 3, y])) s += v * x;
  for (const w of scaledBy([1, 2])) s += Math.sin(w);
  return s;
}`);
});

test("a generator consumed inside the loop over another generator", async () => {
  await checkTwoWays(`function* range(n: number) {
  for (let i = 0; i < n; i++) yield i;
}
export function f(x: number, y: number) {
  let s = 0;
  for (const i of range(3)) {
    for (const j of range(i + 2)) {
      if (j === 3) break;
      s += Math.cos(x * i - y * j);
    }
  }
  return s;
}`);
});

/** The diagnostics of a program with the generator `range` and `body` differentiated. */
function diagnosticsOf(body: string): string {
  return diagnosticsText(
    compileFiles({
      "main.ts": `import { gradient } from "nabla";
function* range(n: number) {
  for (let i = 0; i < n; i++) yield i;
}
${body}
export const g = gradient(f);
`,
    }),
  );
}

test("a generator's values used other than by a for…of, a spread or Array.from are reported at its call", () => {
  for (const [body, column] of [
    [
      `export function f(x: number) { const g = range(3); let s = 0; for (const i of g) s += x * i; return s; }`,
      42,
    ],
    [`export function f(x: number) { const v = range(3).next().value; return x * (v ?? 0); }`, 42],
  ] as const) {
    const text = diagnosticsOf(body);
    assert.match(
      text,
      new RegExp(
        `main\\.ts:5:${column}: error NABLA101: 'range' is a generator; differentiable code can use its values only in a 'for…of' over its call\n`,
      ),
    );
    assert.match(
      text,
      /help: loop over the call, 'for \(const x of range\(…\)\)', pushing the values into an array if you need them together/,
    );
  }
});

test("a generator's values spread into an array or given to Array.from", async () => {
  await checkTwoWays(`function* range(n: number) {
  for (let i = 0; i < n; i++) yield i;
}
function* pairs<T>(xs: readonly T[]): Generator<[T, T]> {
  for (let i = 0; i < xs.length; i++) for (let j = i + 1; j < xs.length; j++) yield [xs[i], xs[j]];
}
export function f(x: number, y: number) {
  const indices = [...range(4)];
  const products = Array.from(pairs([x, y, x * y]), ([a, b]) => a * b);
  const scaled = function* (n: number) {
    for (let i = 0; i < n; i++) yield x * i;
  };
  let s = 0;
  for (const i of indices) s += x * i;
  for (const [a, b] of Array.from(pairs([y, 2, x]))) s += Math.sin(a - b);
  return s + products.reduce((a, b) => a + b, 0) + [...scaled(3), y].reduce((a, b) => a * b + 1, 0);
}`);
});

test("a recursive generator, a returned value and a yield's value are reported where written", () => {
  const recursive = diagnosticsOf(`function* down(n: number): Generator<number> {
  if (n > 0) {
    yield n;
    yield* down(n - 1);
  }
}
export function f(x: number) { let s = 0; for (const i of down(3)) s += x * i; return s; }`);
  assert.match(
    recursive,
    /main\.ts:8:12: error NABLA101: the generator 'down' iterates itself; recursive generators are not supported in differentiable code\n/,
  );
  assert.match(recursive, /help: write the recursion as a loop over an explicit stack/);

  const returned = diagnosticsOf(`function* r(n: number) {
  yield n;
  return 5;
}
export function f(x: number) { let s = 0; for (const i of r(3)) s += x * i; return s; }`);
  assert.match(
    returned,
    /main\.ts:7:3: error NABLA101: a generator's 'return' with a value is not supported in differentiable code \('for…of' never sees that value\)\n/,
  );
  assert.match(
    returned,
    /help: write 'return;', and 'yield' the value first if the loop should see it/,
  );
  assert.match(returned, /main\.ts:9:59: note: in the generator 'r', which this loop iterates/);

  const bare = diagnosticsOf(`function* r(n: number) {
  yield;
}
export function f(x: number) { let s = 0; for (const i of r(3)) s += x; return s; }`);
  assert.match(
    bare,
    /main\.ts:6:3: error NABLA101: 'yield' without a value \(it yields undefined\) is not supported in differentiable code\n/,
  );

  const value = diagnosticsOf(`function* r(n: number) {
  const got = yield n;
}
export function f(x: number) { let s = 0; for (const i of r(3)) s += x * i; return s; }`);
  assert.match(
    value,
    /main\.ts:6:15: error NABLA101: the value of a 'yield' expression \(what 'next\(v\)' passes in\) is not supported in differentiable code\n/,
  );
});

test("plain code that calls generators runs as JavaScript beside differentiated code", async () => {
  const { loadProgram } = await import("./support/harness.js");
  const m = await loadProgram<{
    f: (x: number) => number;
    g: (x: number) => number;
    count: () => number[];
  }>({
    "main.ts": `import { derivative } from "nabla";
function* range(n: number) {
  for (let i = 0; i < n; i++) yield i;
}
export function count() {
  return [...range(4)];
}
export function f(x: number) {
  let s = 0;
  for (const i of range(3)) s += x ** i;
  return s;
}
export const g = derivative(f);
`,
  });
  assert.deepEqual(m.count(), [0, 1, 2, 3]);
  assert.equal(m.g(2), 0 + 1 + 2 * 2);
});

test("a generator of another module reads that module's constants where the loop's module reads them too, or numeric ones, by their values", async () => {
  await checkTwoWays(
    `import { shifted, SCALE } from "./gen";
export function f(x: number, y: number) {
  let s = SCALE;
  for (const v of shifted([x, y])) s += v * v;
  return s;
}`,
    undefined,
    true,
    {
      "gen.ts": `export const SCALE = 2;
export function* shifted(xs: number[]) {
  for (const x of xs) yield x * SCALE;
}
`,
    },
  );
  const text = diagnosticsText(
    compileFiles({
      "gen.ts": `const EPS = [0.25];
export function* shifted(xs: number[]) {
  for (const x of xs) yield x + EPS[0];
}
`,
      "main.ts": `import { gradient } from "nabla";
import { shifted } from "./gen";
export function f(x: number) {
  let s = 0;
  for (const v of shifted([x, 2 * x])) s += v * v;
  return s;
}
export const g = gradient(f);
`,
    }),
  );
  assert.match(
    text,
    /gen\.ts:3:33: error NABLA101: a generator of another module reading its module's 'EPS' is not supported in differentiable code yet\n/,
  );
  assert.match(
    text,
    /help: pass 'EPS' to the generator as an argument, import it where the loop is too, or declare the generator in the loop's module/,
  );
  assert.match(text, /main\.ts:5:19: note: in the generator 'shifted', which this loop iterates/);
});

test("a generator method of a class of another module, its parameters typed there", async () => {
  await checkTwoWays(
    `import { Signal } from "./signal";
export function f(x: number, y: number) {
  const signal = new Signal([x, y, x * y, 1]);
  let s = 0;
  for (const w of signal.windows(2)) s += Math.tanh(w.reduce((a, b) => a + b, 0));
  for (const v of signal) s += v * y;
  return s;
}`,
    undefined,
    true,
    {
      "signal.ts": `export class Signal {
  constructor(readonly values: number[]) {}
  *windows(size: number): Generator<number[]> {
    for (let i = 0; i + size <= this.values.length; i++) yield this.values.slice(i, i + size);
  }
  *[Symbol.iterator]() {
    yield* this.values;
  }
}
`,
    },
  );
});

test("an endless generator left by break, a switch and labeled loops inside a generator, two yields per step", async () => {
  await checkTwoWays(`function* naturals() {
  let n = 0;
  while (true) yield n++;
}
function* parts(k: number) {
  for (let i = 0; i < k; i++) {
    switch (i % 3) {
      case 0:
        yield i;
        break;
      case 1:
        yield -i;
        continue;
      default:
        yield 2 * i;
    }
    yield 100;
  }
}
function* triangle(n: number): Generator<[number, number]> {
  outer: for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      if (j > i) continue outer;
      yield [i, j];
    }
}
export function f(x: number, y: number) {
  let s = 0;
  for (const n of naturals()) {
    if (n > 5) break;
    s += x ** n * y;
  }
  for (const v of parts(5)) {
    if (v === 100) continue;
    s += Math.sin(v * x) * y;
  }
  let count = 0;
  for (const [i, j] of triangle(4)) {
    if (++count === 8) break;
    s += x * i - y * j * x;
  }
  return s;
}`);
});

test("the loop's body changes the array the generator walks, as it runs", async () => {
  await checkTwoWays(`function* walk(xs: number[]) {
  for (let i = 0; i < xs.length; i++) yield xs[i];
}
export function f(x: number, y: number) {
  const xs = [x, y];
  let s = 0;
  for (const v of walk(xs)) {
    if (xs.length < 5) xs.push(v * y);
    s += v;
  }
  return s;
}`);
});

test("a generator declared in the function's body, hoisted, reading and writing the function's variables", async () => {
  await checkTwoWays(`export function f(x: number, y: number) {
  let r = 0;
  let count = 0;
  for (let round = 0; round < 3; round++) for (const v of range(round + 2)) r += v * x + count;
  for (const [a, b] of zip([x, y], [y, 2])) r += a * b;
  return r + count;

  function* range(n: number) {
    count++;
    for (let i = 0; i < n; i++) yield i * y;
  }
  function* zip(as: number[], bs: number[]): Generator<[number, number]> {
    for (let i = 0; i < Math.min(as.length, bs.length); i++) yield [as[i], bs[i]];
  }
}`);
});
