import { test } from "node:test";
import assert from "node:assert/strict";
import { loadProgram } from "./support/harness.js";
import { checkAt, compile, type Program } from "./support/hole-programs.js";

// Holes (elements never written) made by one function and met by another: an array a helper
// returns, a class field, an object field, rows of a grid, an operator's argument. JavaScript's
// forEach, map, reduce… skip holes and a read gives undefined; nabla's derivative code does
// neither, so an array with a hole is refused with a RangeError where it leaves the function
// that wrote it (and where an operator is given one), the same in both modes and both
// backends. Arrays filled completely, in whatever order, by whichever function, get their
// derivatives, checked against central differences and forward mode against reverse mode.

/** The message's end, after where the hole is, for a write at main.ts:line:column. */
function leftBy(line: number, column: number): string {
  return (
    ` (an element never written, left by the write past the array's end at main.ts:${line}:` +
    `${column}); JavaScript's array methods skip holes and reading one gives undefined, ` +
    `nabla's derivative code does neither. Write every element, e.g. with push or fill.`
  );
}

/** The message of a write at `at` in `fn` past the end of an array of `length`, at `index`. */
function wouldLeave(at: string, fn: string, index: number, length: number): string {
  return (
    `nabla: the write at ${at} in '${fn}' would leave a hole: index ${index} is past the end ` +
    `of the array (length ${length}), so an element before it is never written. JavaScript's ` +
    `array methods skip holes and reading one gives undefined, nabla's derivative code does ` +
    `neither. Write the elements in order, e.g. with push, or fill the array first.`
  );
}

/** Every mode and backend stops at (x, k) with `message`; `f` itself gives `primal`. */
function checkRefusedAt(
  m: Program,
  x: number,
  k: number,
  message: string,
  primal: "a number" | "NaN",
): void {
  const value = m.f(x, k);
  if (primal === "NaN") assert.ok(Number.isNaN(value), "the program gives NaN");
  else assert.ok(Number.isFinite(value), "the program gives a number");
  const error = { name: "RangeError", message };
  assert.throws(() => m.reverse(x, k), error);
  assert.throws(() => m.forward(x, k)(1), error);
  assert.throws(() => m.reverseWasm(x, k), error);
  assert.throws(() => m.forwardWasm(x, k)(1), error);
}

test("a helper filling every other element, its result reduced: refused in both modes (was NaN in forward mode)", async () => {
  const m = await compile(`function sparse(x: number, n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i += 2) out[i] = x * i;
  return out;
}
export function f(x: number, k: number): number {
  const xs = sparse(x, 6);
  return xs.reduce((a, b) => a + b, 0) + k;
}`);
  const message = "nabla: 'sparse' (main.ts:2:1) hands on an array with a hole at out[1]";
  checkRefusedAt(m, 2, 0, message + leftBy(4, 34), "a number");
});

test("the same helper filling every element (by index, into an empty array): right", async () => {
  const m = await compile(`function filled(x: number, n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out[i] = x * i + Math.sin(x + i);
  return out;
}
export function f(x: number, k: number): number {
  const xs = filled(x, k);
  return xs.reduce((a, b) => a * (1 + 0.1 * b), 1);
}`);
  for (const k of [0, 1, 6]) checkAt(m, 0.7, k);
});

test("a helper filling from the last element, then from a loop that skips: right when full, refused with a gap", async () => {
  const m = await compile(`function backwards(x: number, n: number, step: number): number[] {
  const ys: number[] = [];
  for (let i = n - 1; i >= 0; i -= step) ys[i] = Math.exp(0.1 * x * i);
  return ys;
}
export function f(x: number, k: number): number {
  let s = 0;
  backwards(x, 5, k).forEach((y, i) => (s += y * (i + 1)));
  return s;
}`);
  checkAt(m, 0.4, 1);
  const message = "nabla: 'backwards' (main.ts:2:1) hands on an array with a hole at ys[1]";
  checkRefusedAt(m, 0.4, 2, message + leftBy(4, 42), "a number");
});

test("a class holding a sparse buffer written through a method: refused where the method returns", async () => {
  const m = await compile(`class Buffer {
  data: number[] = [];
  put(i: number, v: number): void {
    this.data[i] = v;
  }
  total(): number {
    return this.data.map((v) => v * 2).reduce((a, b) => a + b, 0);
  }
}
export function f(x: number, k: number): number {
  const buf = new Buffer();
  buf.put(0, x);
  buf.put(k, x * x);
  return buf.total();
}`);
  checkAt(m, 1.5, 1);
  checkAt(m, 1.5, 0);
  const message = "nabla: 'Buffer.put' (main.ts:4:6) hands on an array with a hole at this.data[1]";
  checkRefusedAt(m, 1.5, 3, message + leftBy(5, 5), "a number");
});

test("an object whose field a factory fills with gaps: refused where the factory returns", async () => {
  const m = await compile(`interface Series {
  values: number[];
  scale: number;
}
function makeSeries(x: number): Series {
  const values: number[] = [];
  values[2] = x;
  values[4] = 3 * x;
  return { values, scale: 2 };
}
export function f(x: number, k: number): number {
  const s = makeSeries(x);
  let total = k;
  s.values.forEach((v) => {
    total += s.scale * v * v;
  });
  return total;
}`);
  const message = "nabla: 'makeSeries' (main.ts:6:1) hands on an array with a hole at values[0]";
  checkRefusedAt(m, 1.5, 0, message + leftBy(8, 3), "a number");
});

test("a grid built row by row, each row starting at the diagonal: refused as each row is made", async () => {
  const m = await compile(`function upper(x: number, n: number): number[][] {
  const rows: number[][] = [];
  for (let r = 0; r < n; r++) {
    const row: number[] = [];
    for (let c = r; c < n; c++) row[c] = x * (r + c + 1);
    rows.push(row);
  }
  return rows;
}
export function f(x: number, k: number): number {
  return upper(x, 3).reduce((s, row) => s + row.reduce((a, v) => a + v * v, 0), k);
}`);
  const message = "nabla: 'upper' (main.ts:2:1) hands on an array with a hole at row[0]";
  checkRefusedAt(m, 2, 0, message + leftBy(6, 33), "a number");
});

test("the same grid with every cell written (rows filled from the diagonal both ways): right", async () => {
  const m = await compile(`function full(x: number, n: number): number[][] {
  const rows: number[][] = [];
  for (let r = 0; r < n; r++) {
    const row: number[] = [];
    for (let c = r; c < n; c++) row[c] = x * (r + c + 1);
    for (let c = r - 1; c >= 0; c--) row[c] = x - c;
    rows.push(row);
  }
  return rows;
}
export function f(x: number, k: number): number {
  return full(x, 3).reduce((s, row) => s + row.reduce((a, v) => a + v * v, 0), k);
}`);
  for (const x of [2, -0.3]) checkAt(m, x, 1);
});

test("a helper filling in order but skipping one index: refused at the write past the end", async () => {
  const m = await compile(`function except(x: number, n: number, skip: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    if (i !== skip) out[i] = Math.cos(x * i);
  }
  return out;
}
export function f(x: number, k: number): number {
  return except(x, 4, k).reduce((s, v) => s + v * v, 0);
}`);
  checkAt(m, 0.8, 3);
  checkAt(m, 0.8, -1);
  checkRefusedAt(m, 0.8, 1, wouldLeave("main.ts:5:21", "except", 2, 1), "a number");
});

test("rows of a grid written in place (cholesky): right, and still WebAssembly; empty rows filled backwards refused", async () => {
  const m = await loadProgram<Program & { wasmStats: { wasm: number } }>({
    "main.ts": `import { differential, gradient } from "nabla";
export { wasmStats } from "nabla";
function lower(x: number, n: number, width: number): number[][] {
  const L: number[][] = [];
  for (let r = 0; r < n; r++) L.push(new Array<number>(width).fill(0));
  for (let i = 0; i < n; i++) {
    for (let j = i; j >= 0; j--) L[i][j] = Math.sin(x * (i + 1)) + j;
  }
  return L;
}
export function f(x: number, k: number): number {
  let s = 0;
  for (const row of lower(x, 3, k)) for (let j = 0; j < row.length; j++) s += row[j] * row[j];
  return s;
}
export const forward = differential(f, { wrt: [0] });
export const reverse = gradient(f, { wrt: [0] });
export const forwardWasm = differential(f, { wrt: [0], backend: "wasm" });
export const reverseWasm = gradient(f, { wrt: [0], backend: "wasm" });
`,
  });
  const before = m.wasmStats.wasm;
  checkAt(m, 0.7, 3);
  assert.ok(m.wasmStats.wasm > before, "the derivatives ran as WebAssembly");
  // Empty rows, each filled from the diagonal down: row 1's first write, at 1, leaves its
  // element 0 unwritten until the next write. Writes into rows are checked as they run (which
  // keeps them WebAssembly), so this one is refused though JavaScript fills the hole next.
  checkRefusedAt(m, 0.7, 0, wouldLeave("main.ts:7:34", "lower", 1, 0), "a number");
});

test("a hole read directly, in the array a helper returns: refused (JavaScript gives NaN)", async () => {
  const m = await compile(`function pair(x: number): number[] {
  const o: number[] = [];
  o[0] = x;
  o[2] = x * x;
  return o;
}
export function f(x: number, k: number): number {
  const xs = pair(x);
  return xs[0] + xs[1] * k;
}`);
  const message = "nabla: 'pair' (main.ts:2:1) hands on an array with a hole at o[1]";
  checkRefusedAt(m, 2, 1, message + leftBy(5, 3), "NaN");
});

test("a hole read directly where it was made: refused (JavaScript gives NaN; reverse mode gave a number)", async () => {
  const m = await compile(`export function f(x: number, k: number): number {
  const o: number[] = [x];
  o[2] = x * x;
  return o[0] + o[1] * k;
}`);
  checkRefusedAt(
    m,
    2,
    1,
    "nabla: 'o[1]' at main.ts:5:17 met a hole (an element never written, left by the write " +
      "past the array's end at main.ts:4:3); JavaScript reads undefined there, which nabla's " +
      "derivative code has no derivative for. Write every element before reading it, e.g. " +
      "with push or fill.",
    "NaN",
  );
});

test("for…of over the holes where they were made, the program testing for undefined: right", async () => {
  const m = await compile(`export function f(x: number, k: number): number {
  const o: number[] = [x];
  o[3] = x * x;
  let s = 0;
  for (const v of o) s += v ?? k;
  let n = 0;
  for (const v of o) if (v !== undefined) n += v * x;
  return s + n + o.length * x;
}`);
  for (const x of [2, -0.5]) checkAt(m, x, 1.5);
});

test("spread, slice, concat and Array.from of an array with holes, where it was made: refused at the copy", async () => {
  const m = await compile(`export function f(x: number, k: number): number {
  const xs: number[] = [x];
  xs[2] = x * x;
  const copies = [[...xs], xs.slice(), xs.concat([x]), Array.from(xs)];
  return copies[k].length * x;
}`);
  for (const k of [0, 1, 2, 3]) {
    assert.throws(() => m.reverse(1.5, k), { name: "RangeError" });
    assert.throws(() => m.forward(1.5, k)(1), { name: "RangeError" });
  }
  const error = (read: string) => ({ name: "RangeError", message: read });
  const message =
    "nabla: '[...xs]' at main.ts:5:19 met a hole (an element never written, left by the " +
    "write past the array's end at main.ts:4:3); JavaScript reads undefined there, which " +
    "nabla's derivative code has no derivative for. Write every element before reading it, " +
    "e.g. with push or fill.";
  assert.throws(() => m.reverse(1.5, 0), error(message));
  assert.throws(() => m.forward(1.5, 0)(1), error(message));
});

test("an array lengthened by xs.length = n and measured: right (no element is read)", async () => {
  const m = await compile(`function padded(x: number, n: number): number {
  const xs: number[] = [x, 2 * x];
  xs.length = n;
  return xs.length * x + xs[0];
}
export function f(x: number, k: number): number {
  return padded(x, k) * x;
}`);
  for (const k of [1, 2, 5]) checkAt(m, 0.9, k);
});

test("a helper that writes past the end and hands the array to another: refused before the call", async () => {
  const m = await compile(`function sumSquares(xs: number[]): number {
  return xs.reduce((s, v) => s + v * v, 0);
}
export function f(x: number, k: number): number {
  const xs: number[] = [x, x];
  xs[k] = 3 * x;
  return sumSquares(xs);
}`);
  checkAt(m, 1.2, 1);
  checkAt(m, 1.2, 2);
  const message =
    "nabla: 'f' (main.ts:5:8) hands on an array with a hole at xs[2] to 'sumSquares' at " +
    "main.ts:8:10";
  checkRefusedAt(m, 1.2, 3, message + leftBy(7, 3), "a number");
});

test("an operator given an array with a hole, or an object holding one: refused in both modes", async () => {
  const m = await loadProgram<{
    gradientOf: (xs: number[], x: number) => unknown;
    differentialOf: (xs: number[], x: number) => (dxs: number[], dx: number) => number;
    gradientOfRows: (o: { rows: number[][] }, x: number) => unknown;
  }>({
    "main.ts": `import { differential, gradient } from "nabla";
function total(xs: number[], x: number): number {
  return xs.reduce((a, b) => a + b * x, 0) + xs.length;
}
function rowsTotal(o: { rows: number[][] }, x: number): number {
  return o.rows.reduce((s, row) => s + row.reduce((a, v) => a + v * x, 0), 0);
}
export const gradientOf = gradient(total);
export const differentialOf = differential(total);
export const gradientOfRows = gradient(rowsTotal);
`,
  });
  const xs: number[] = [];
  xs[0] = 1;
  xs[2] = 3;
  const help =
    " (an element never written); JavaScript's array methods skip holes and reading one " +
    "gives undefined, nabla's derivative code does neither. Write every element, e.g. with " +
    "push or fill.";
  assert.throws(() => m.gradientOf(xs, 2), {
    name: "RangeError",
    message: "nabla: the differentiated function was given an array with a hole at xs[1]" + help,
  });
  assert.throws(() => m.differentialOf(xs, 2)([0, 0, 0], 1), {
    name: "RangeError",
    message: "nabla: the differentiated function was given an array with a hole at xs[1]" + help,
  });
  const rows: number[][] = [[1, 2], []];
  rows[1]![1] = 4;
  assert.throws(() => m.gradientOfRows({ rows }, 2), {
    name: "RangeError",
    message:
      "nabla: the differentiated function was given an array with a hole at o.rows[1][0]" + help,
  });
  // Full arrays pass: the derivative of Σ b·x + n in x is Σ b.
  assert.deepEqual(m.gradientOf([1, 2, 3], 2), [[2, 2, 2], 6]);
  assert.equal(m.differentialOf([1, 2, 3], 2)([0, 0, 0], 1), 6);
});

test("a module-level array the module fills by index: right when full, refused with gaps", async () => {
  const full = await compile(`const weights: number[] = [];
for (let i = 0; i < 6; i++) weights[i] = i + 1;
export function f(x: number, k: number): number {
  return weights.reduce((s, w) => s + Math.sin(w * x), k);
}`);
  checkAt(full, 0.3, 1);
  const gaps = await compile(`const weights: number[] = [];
for (let i = 0; i < 6; i += 2) weights[i] = i + 1;
export function f(x: number, k: number): number {
  return weights.reduce((s, w) => s + Math.sin(w * x), k);
}`);
  const message =
    "nabla: the module-level array 'weights' (main.ts:2:7), which 'f' reads, has a hole at " +
    "weights[1] (an element never written); JavaScript's array methods skip holes and reading " +
    "one gives undefined, nabla's derivative code does neither. Write every element, e.g. " +
    "with push or fill.";
  checkRefusedAt(gaps, 0.3, 1, message, "a number");
});

// A sweep of programs as people write them: a helper, a class or a factory fills an array by
// index (in order, from the back, every other element, from 1, after a length set) and another
// function visits it (reduce, forEach, map then reduce, an index loop, for…of). A full array
// gets its derivative in both modes and backends; one with a hole is refused with the same
// RangeError in all four, naming the function that made it.

const FILLS: Record<string, { code: (a: string) => string; full: boolean }> = {
  inOrder: { code: (a) => `for (let i = 0; i < n; i++) ${a}[i] = value(x, i);`, full: true },
  fromBack: { code: (a) => `for (let i = n - 1; i >= 0; i--) ${a}[i] = value(x, i);`, full: true },
  everyOther: { code: (a) => `for (let i = 0; i < n; i += 2) ${a}[i] = value(x, i);`, full: false },
  fromOne: { code: (a) => `for (let i = 1; i < n; i++) ${a}[i] = value(x, i);`, full: false },
  lengthFirst: {
    code: (a) => `${a}.length = n + 1;\n  for (let i = 0; i < n; i++) ${a}[i] = value(x, i);`,
    full: false,
  },
};

const MAKERS: Record<string, (fill: (a: string) => string) => { code: string; get: string }> = {
  helper: (fill) => ({
    code: `function build(x: number, n: number): number[] {
  const out: number[] = [];
  ${fill("out")}
  return out;
}`,
    get: "build(x, 4)",
  }),
  factory: (fill) => ({
    code: `function makeSamples(x: number, n: number): { samples: number[]; n: number } {
  const samples: number[] = [];
  ${fill("samples")}
  return { samples, n };
}`,
    get: "makeSamples(x, 4).samples",
  }),
  classBuffer: (fill) => ({
    code: `class Samples {
  values: number[] = [];
  fill(x: number, n: number): void {
    const values = this.values;
    ${fill("values")}
  }
}
function collect(x: number): number[] {
  const s = new Samples();
  s.fill(x, 4);
  return s.values;
}`,
    get: "collect(x)",
  }),
};

const CONSUMERS: Record<string, string> = {
  reduce: "return xs.reduce((s, v) => s + v * v, 0);",
  forEach: "let s = 0;\n  xs.forEach((v, i) => (s += v * Math.cos(i + x)));\n  return s;",
  mapReduce: "return xs.map((v) => Math.exp(0.1 * v)).reduce((a, b) => a + b, 0);",
  indexLoop: "let s = 0;\n  for (let i = 0; i < xs.length; i++) s += xs[i] * (i + 1);\n  return s;",
  forOf: "let p = 1;\n  for (const v of xs) p *= 1 + 0.1 * v;\n  return p;",
};

/** A small deterministic generator (mulberry32), so the sweep is the same each run. */
function generator(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test("a sweep of 12 programs: helpers, classes and factories filling arrays by index, visited elsewhere", async () => {
  const random = generator(20261129);
  const pick = <T>(o: Record<string, T>): [string, T] => {
    const keys = Object.keys(o);
    const key = keys[Math.floor(random() * keys.length)]!;
    return [key, o[key]!];
  };
  let full = 0;
  let refused = 0;
  for (let n = 0; n < 12; n++) {
    // Both outcomes in each half of the sweep.
    const [fillName, fill] =
      n % 4 === 0
        ? ["inOrder", FILLS.inOrder!]
        : n % 4 === 1
          ? ["fromOne", FILLS.fromOne!]
          : pick(FILLS);
    const [makerName, maker] = pick(MAKERS);
    const [consumerName, consumer] = pick(CONSUMERS);
    const built = maker(fill.code);
    const source = `function value(x: number, i: number): number {
  return x * (i + 1) + Math.sin(x * i);
}
${built.code}
function visit(xs: number[], x: number): number {
  ${consumer}
}
export function f(x: number, k: number): number {
  return visit(${built.get}, x) + k;
}`;
    const what = `${makerName} filling ${fillName}, visited by ${consumerName}`;
    const m = await compile(source);
    if (fill.full) {
      full++;
      for (const x of [0.6, -1.1]) checkAt(m, x);
      continue;
    }
    refused++;
    const messages = [
      () => m.reverse(0.6, 0),
      () => m.forward(0.6, 0)(1),
      () => m.reverseWasm(0.6, 0),
      () => m.forwardWasm(0.6, 0)(1),
    ].map((run) => {
      try {
        run();
      } catch (error) {
        assert.ok(error instanceof RangeError, `${what}: a RangeError`);
        return error.message;
      }
      return assert.fail(`${what}: no error`);
    });
    assert.ok(new Set(messages).size === 1, `${what}: one message in all modes`);
    // Where the array leaves its maker, or at the write into an array the maker did not make.
    const makers = String.raw`'(build|makeSamples|Samples\.fill)'`;
    const made = new RegExp(
      String.raw`^nabla: (${makers} \(main\.ts:\d+:\d+\) hands on an array with a hole at |` +
        String.raw`the write at main\.ts:\d+:\d+ in ${makers} would leave a hole: )`,
    );
    assert.match(messages[0]!, made, what);
  }
  assert.ok(full >= 3 && refused >= 3, `both outcomes: ${full} full, ${refused} refused`);
});
