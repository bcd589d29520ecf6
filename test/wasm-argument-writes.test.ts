import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { compileFiles, diagnosticsText, loadProgram, REPO_ROOT } from "./support/harness.js";
import type { Stats } from "./support/wasm-backends.js";

// Functions tagged `@backend wasm` that write into the arrays and objects they are given, as
// people write them: output buffers filled, state updated in place, arrays passed twice.
// Each runs beside an untagged twin of the same source, on the same arguments (plain typed
// arrays and arrays of a `wasmArrays` memory), and must leave every argument as the twin
// does, to the bit: written arrays are copied in and back, and those a function only stores
// into are written in place when they are in a `wasmArrays` memory.

interface Memory {
  from(values: ArrayLike<number>): Float64Array;
  rows(rows: ArrayLike<ArrayLike<number>>): Float64Array[];
  float64Array(length: number): Float64Array;
}
type Fn = (...args: unknown[]) => unknown;
type Program = Record<string, Fn> & {
  wasmStats: Stats;
  wasmArrays: (options?: { megabytes?: number }) => Memory;
};

/** Each function of `source` twice: as written, and tagged `@backend wasm` under name + "W". */
function twins(source: string): Record<string, string> {
  const tagged = source.replace(
    /export function (\w+)\(/g,
    "/** @backend wasm */\nexport function $1W(",
  );
  return {
    "main.ts": `export { wasmArrays, wasmStats } from "nabla";\n${source}\n${tagged}`,
  };
}

/** Every number of `v` (arrays, rows, objects' fields in order), for comparing to the bit. */
function numbers(v: unknown): number[] {
  if (typeof v === "number") return [v];
  if (ArrayBuffer.isView(v)) return Array.from(v as Float64Array);
  if (Array.isArray(v)) return v.flatMap(numbers);
  if (typeof v === "object" && v !== null) return Object.values(v).flatMap(numbers);
  return [];
}

function sameBits(actual: unknown, expected: unknown, what: string): void {
  const a = numbers(actual);
  const e = numbers(expected);
  assert.equal(a.length, e.length, `${what}: length`);
  a.forEach((x, k) =>
    assert.ok(Object.is(x, e[k]), `${what}[${k}]: wasm ${x}, JavaScript ${e[k]}`),
  );
}

/**
 * Calls `name` and its tagged twin on arguments `make()` builds afresh for each (so each
 * starts from the same contents), and compares results and arguments afterwards.
 */
function check(
  m: Program,
  name: string,
  make: () => unknown[],
  expected: { wasm: number; javascript?: number; inPlace?: number },
): void {
  const jsArgs = make();
  const jsResult = m[name]!(...jsArgs);
  const wasmArgs = make();
  const before = { ...m.wasmStats };
  const wasmResult = m[`${name}W`]!(...wasmArgs);
  sameBits(wasmResult, jsResult, `${name}: result`);
  sameBits(wasmArgs, jsArgs, `${name}: arguments after the call`);
  assert.equal(m.wasmStats.wasm - before.wasm, expected.wasm, `${name}: calls run in wasm`);
  assert.equal(
    m.wasmStats.javascript - before.javascript,
    expected.javascript ?? 0,
    `${name}: calls run as JavaScript`,
  );
  if (expected.inPlace !== undefined)
    assert.equal(m.wasmStats.inPlace - before.inPlace, expected.inPlace, `${name}: in place`);
}

const BUFFERS = `
export function squares(x: Float64Array, out: Float64Array): void {
  for (let i = 0; i < x.length; i++) out[i] = x[i] * x[i];
}

export function accumulate(x: Float64Array, total: Float64Array): void {
  for (let i = 0; i < x.length; i++) total[i] += x[i];
}

export function shiftRight(src: Float64Array, dst: Float64Array): void {
  for (let i = 0; i + 1 < src.length; i++) dst[i + 1] = src[i];
}

export function normalizeRows(rows: Float64Array[]): number {
  let largest = 0;
  for (const row of rows) {
    let norm = 0;
    for (let i = 0; i < row.length; i++) norm += row[i] * row[i];
    norm = Math.sqrt(norm);
    largest = Math.max(largest, norm);
    for (let i = 0; i < row.length; i++) row[i] /= norm;
  }
  return largest;
}

interface Particles {
  pos: Float64Array;
  vel: Float64Array;
  time: number;
}

export function advance(p: Particles, dt: number, steps: number): number {
  for (let s = 0; s < steps; s++) {
    for (let i = 0; i < p.pos.length; i++) {
      p.vel[i] -= 9.81 * dt;
      p.pos[i] += p.vel[i] * dt;
    }
    p.time += dt;
  }
  return p.time;
}

export function gatherInto(x: Float64Array, at: number[], out: Float64Array): void {
  for (let i = 0; i < at.length; i++) out[i] = x[at[i]] * 2;
}

export function carry(x: Float64Array, out: Float64Array): void {
  for (let i = 0; i + 1 < x.length; i++) out[i + 1] += x[i];
}

export function doubleRowInto(rows: Float64Array[], which: number[], out: Float64Array): void {
  for (let i = 0; i < which.length; i++) out[i] = rows[which[i]][i] * 2;
}

export function fillWithScratch(n: number, out: Float64Array): void {
  out[0] = n;
  const scratch = new Float64Array(n);
  for (let i = 0; i < n; i++) scratch[i] = Math.sqrt(i);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += scratch[i];
  out[1] = sum;
}

export function sumRowsInto(rows: Float64Array[], out: Float64Array): void {
  for (let i = 0; i + 1 < out.length; i++) out[i + 1] = rows[0][i] + rows[1][i];
}
`;

test("functions writing their arguments run as WebAssembly with JavaScript's results, on plain arrays and on wasmArrays", async () => {
  const files = twins(BUFFERS);
  const compiled = compileFiles(files);
  assert.equal(diagnosticsText(compiled), "", "no NABLA202");
  const code = compiled.outputs.get(join(compiled.dir, "main.ts"))?.code ?? "";
  assert.match(
    code,
    /squaresW \(@backend wasm\) at main\.ts:\d+:\d+: WebAssembly \(\d+ bytes\); per call it copies in parameters 0, 1, copies back parameters 1; the Float64Arrays of parameter 0 made by wasmArrays are read in place; those of parameter 1, which it only stores into, are written in place/,
  );
  // `+=` reads what it writes: copied, not in place.
  assert.match(
    code,
    /accumulateW \(@backend wasm\)[^\n]*copies back parameters 1; the Float64Arrays of parameter 0 made by wasmArrays are read in place\n/,
  );
  const m = await loadProgram<Program>(files);
  const memory = m.wasmArrays({ megabytes: 4 });
  const x = [0.5, -1.25, 3, 7.5];
  const plain = (xs: number[]) => Float64Array.from(xs);
  const kept = (xs: number[]) => memory.from(xs);
  for (const array of [plain, kept]) {
    const inMemory = array === kept;
    check(m, "squares", () => [array(x), array([9, 9, 9, 9])], {
      wasm: 1,
      inPlace: inMemory ? 1 : 0,
    });
    check(m, "accumulate", () => [array(x), array([1, 2, 3, 4])], { wasm: 1 });
    check(m, "shiftRight", () => [array(x), array([0, 0, 0, 0])], { wasm: 1 });
    const rows = () =>
      inMemory
        ? memory.rows([[3, 4], [1, 1, 1, 1], [0.1]])
        : [plain([3, 4]), plain([1, 1, 1, 1]), plain([0.1])];
    check(m, "normalizeRows", () => [rows()], { wasm: 1 });
    check(m, "advance", () => [{ pos: array([10, 20]), vel: array([0, 1]), time: 0.5 }, 0.01, 50], {
      wasm: 1,
    });
    check(m, "fillWithScratch", () => [100_000, array([7, 7])], { wasm: 1 });
  }
});

test("an array passed twice, written through one and read through the other, is one array in wasm as in JavaScript", async () => {
  const m = await loadProgram<Program>(twins(BUFFERS));
  const memory = m.wasmArrays({ megabytes: 4 });
  // Plain: one copy for both; in the memory: read in place and written in place would let a
  // rerun read what the first run wrote, so the call copies both, as one.
  for (const array of [
    (xs: number[]) => Float64Array.from(xs),
    (xs: number[]) => memory.from(xs),
  ]) {
    // Each function given one array twice.
    for (const [name, values] of [
      ["shiftRight", [1, 2, 3, 4]],
      ["carry", [1, 2, 3, 4]],
      ["accumulate", [1, 2, 3]],
    ] as const)
      check(
        m,
        name,
        () => {
          const a = array([...values]);
          return [a, a];
        },
        { wasm: 1 },
      );
  }
  // A row of a table read in place, written through another argument.
  check(
    m,
    "sumRowsInto",
    () => {
      const rows = memory.rows([
        [1, 2, 3, 4],
        [10, 20, 30, 40],
      ]);
      return [rows, rows[0]];
    },
    { wasm: 1, inPlace: 0 },
  );
  check(
    m,
    "sumRowsInto",
    () => {
      const rows = memory.rows([
        [1, 2, 3, 4],
        [10, 20, 30, 40],
      ]);
      return [rows, memory.float64Array(4)];
    },
    { wasm: 1, inPlace: 1 },
  );
});

test("two views of one buffer that overlap ('x' and 'x.subarray(1)'), one written, run as JavaScript: its writes show through the other", async () => {
  const m = await loadProgram<Program>(twins(BUFFERS));
  const memory = m.wasmArrays({ megabytes: 4 });
  for (const array of [
    (xs: number[]) => Float64Array.from(xs),
    (xs: number[]) => memory.from(xs),
  ]) {
    // dst[i] = src[i] * src[i] with dst = src shifted by one: each square squares the last.
    check(
      m,
      "squares",
      () => {
        const x = array([1.5, 2, 3, 4, 5]);
        return [x.subarray(0, 4), x.subarray(1)];
      },
      { wasm: 0, javascript: 1 },
    );
    // total[i] += x[i] with total the part of x from 1 on: a prefix sum.
    check(
      m,
      "accumulate",
      () => {
        const x = array([1, 2, 3, 4, 5, 6]);
        return [x.subarray(0, 5), x.subarray(1)];
      },
      { wasm: 0, javascript: 1 },
    );
    // Views of one buffer that do not overlap, and a view read only: wasm as before.
    check(
      m,
      "squares",
      () => {
        const x = array([1, 2, 3, 4, 5, 6]);
        return [x.subarray(0, 3), x.subarray(3)];
      },
      { wasm: 1 },
    );
  }
  // Rows of one flat buffer, each normalized in place.
  check(
    m,
    "normalizeRows",
    () => {
      const flat = Float64Array.from([3, 4, 1, 1, 6, 8]);
      return [[0, 1, 2].map((r) => flat.subarray(2 * r, 2 * r + 2))];
    },
    { wasm: 1 },
  );
});

test("a call that traps after writing in place reruns as JavaScript, and one out of heap reruns in wasm, with the single run's result", async () => {
  const m = await loadProgram<Program>(twins(BUFFERS));
  const memory = m.wasmArrays({ megabytes: 8 });
  // at[2] is out of range: wasm traps after storing out[0], out[1] and out[2] = -1.
  check(m, "gatherInto", () => [memory.from([1, 2, 3]), [2, 0, 9, 1], memory.from([5, 5, 5, 5])], {
    wasm: 0,
    javascript: 1,
  });
  check(m, "gatherInto", () => [memory.from([1, 2, 3]), [2, 0, 1], memory.from([5, 5, 5])], {
    wasm: 1,
    inPlace: 1,
  });
  // Passed twice (written in place, read in place): a rerun would read what the first run wrote.
  check(
    m,
    "gatherInto",
    () => {
      const x = memory.from([1, 2, 3]);
      return [x, [0, 9], x];
    },
    { wasm: 0, javascript: 1 },
  );
  // A row of a table read in place, written through another argument, then a trap.
  check(
    m,
    "doubleRowInto",
    () => {
      const rows = memory.rows([
        [1, 2],
        [5, 6, 7],
      ]);
      return [rows, [0, 0, 0], rows[0]];
    },
    { wasm: 0, javascript: 1 },
  );
  // 100,000 numbers of scratch overflow the first heap: reruns with a larger one, out[0] written each time.
  check(m, "fillWithScratch", () => [150_000, memory.from([7, 7])], { wasm: 1, inPlace: 1 });
});

test("a gradient asked for in wasm of a function that writes its argument, or with hasAux, says what to do, not which types wasm covers", () => {
  const compiled = compileFiles({
    "main.ts": `import { gradient, valueWithGradient } from "nabla";
interface State { pos: Float64Array; vel: Float64Array }
function energy(s: State, dt: number): number {
  for (let i = 0; i < s.pos.length; i++) s.pos[i] += dt * s.vel[i];
  let e = 0;
  for (let i = 0; i < s.pos.length; i++) e += s.pos[i] * s.pos[i];
  return e;
}
function withPeak(x: Float64Array): [number, number] {
  let s = 0;
  let peak = -Infinity;
  for (let i = 0; i < x.length; i++) {
    s += x[i] * x[i];
    peak = Math.max(peak, x[i]);
  }
  return [s, peak];
}
export const g = gradient(energy, { backend: "wasm" });
export const a = valueWithGradient(withPeak, { hasAux: true, backend: "wasm" });
`,
  });
  const text = diagnosticsText(compiled);
  assert.match(
    text,
    /'gradient' runs as JavaScript, not WebAssembly: it may write its argument 's' \(the backend copies arguments in, not back\)\n[^]*?help: let the function change copies it makes/,
  );
  assert.match(
    text,
    /'valueWithGradient' runs as JavaScript, not WebAssembly: 'hasAux' is not covered yet\n[^]*?help: differentiate a function returning the number alone/,
  );
  assert.doesNotMatch(text, /covers functions of numbers/);
});

test("a tagged function storing arrays into its argument, or growing it, stays JavaScript and says why", () => {
  const result = compileFiles({
    "main.ts": `/** @backend wasm */
export function collect(xs: number[], out: number[][]): void {
  out[0] = xs;
}

/** @backend wasm */
export function record(x: number, log: number[]): void {
  log.push(x);
}
`,
  });
  const text = diagnosticsText(result);
  assert.match(
    text,
    /main\.ts:2:8: warning NABLA202: 'collect' runs as JavaScript, not WebAssembly: it may store arrays or objects into its arguments 'xs', 'out' \(the backend copies only numbers back\)\n {2}1 \| \/\*\* @backend wasm \*\/\n> 2 \| export function collect/,
  );
  assert.match(
    text,
    /main\.ts:7:8: warning NABLA202: 'record' runs as JavaScript, not WebAssembly: it may lengthen or shorten its argument 'log'\n {2}6 \| \/\*\* @backend wasm \*\/\n> 7 \| export function record/,
  );
});

test("GradBench's ba Jacobian filled in wasm (gradbench/wasm/ba.ts): in place in a wasmArrays memory, copied otherwise, as its JavaScript pullbacks and central differences give", async () => {
  const read = (path: string) => readFileSync(join(REPO_ROOT, "gradbench", path), "utf8");
  const files = {
    "evals/ba.ts": read("evals/ba.ts"),
    "wasm/ba.ts": read("wasm/ba.ts"),
    "main.ts": `export { wasmArrays, wasmStats } from "nabla";
export { fillJacobian, jacobianStorage } from "./wasm/ba.js";
export { baJacobian, reprojectionError } from "./evals/ba.js";
`,
  };
  const compiled = compileFiles(files);
  assert.equal(diagnosticsText(compiled), "", "no diagnostic (no NABLA202)");
  const code = compiled.outputs.get(join(compiled.dir, "wasm/ba.ts"))?.code ?? "";
  assert.match(
    code,
    /fillJacobian \(@backend wasm\) at ba\.ts:\d+:\d+: WebAssembly[^\n]*those of parameter 1, which it only stores into, are written in place/,
  );
  interface Sparse {
    nrows: number;
    ncols: number;
    rows: ArrayLike<number>;
    cols: ArrayLike<number>;
    vals: Float64Array;
  }
  interface Problem {
    cams: Float64Array[];
    points: Float64Array[];
    weights: Float64Array;
    obs: { camera: number; point: number }[];
    feats: Float64Array[];
  }
  const m = await loadProgram<{
    wasmStats: Stats;
    wasmArrays: Program["wasmArrays"];
    fillJacobian: (p: Problem, jac: Sparse) => void;
    jacobianStorage: (p: Problem) => Sparse;
    baJacobian: (p: Problem) => Sparse;
    reprojectionError: (cam: Float64Array, x: Float64Array, w: number, f: Float64Array) => number[];
  }>(files);
  const wave = (k: number) => Math.sin(1.7 * k + 0.3);
  const problem: Problem = {
    cams: [0, 1, 2].map((c) =>
      Float64Array.from({ length: 11 }, (_, j) =>
        j < 3 ? 0.2 * wave(c * 11 + j) : j === 5 ? -4 + wave(c) : j === 6 ? 1.5 : 0.1 * wave(j + c),
      ),
    ),
    points: [0, 1, 2, 3].map((q) => Float64Array.from({ length: 3 }, (_, j) => wave(q * 3 + j))),
    weights: Float64Array.from({ length: 7 }, (_, i) => 0.6 + 0.05 * i),
    obs: Array.from({ length: 7 }, (_, i) => ({ camera: i % 3, point: (i * 3) % 4 })),
    feats: Array.from({ length: 7 }, (_, i) => Float64Array.of(wave(i) * 0.3, wave(i + 7) * 0.3)),
  };
  const js = m.baJacobian(problem);
  const memory = m.wasmArrays({ megabytes: 4 });
  const plain = m.jacobianStorage(problem);
  const storage = plain.vals.length;
  const kept = {
    ...plain,
    rows: memory.float64Array(plain.rows.length),
    cols: memory.float64Array(plain.cols.length),
    vals: memory.float64Array(storage),
  };
  for (const [jac, inPlace] of [
    [plain, 0],
    [kept, 1],
  ] as const) {
    // Garbage first: every entry must be written.
    (jac.vals as Float64Array).fill(NaN);
    const before = { ...m.wasmStats };
    m.fillJacobian(problem, jac);
    assert.equal(m.wasmStats.wasm - before.wasm, 1, "ran in wasm");
    assert.equal(m.wasmStats.inPlace - before.inPlace, inPlace, "in place");
    assert.deepEqual(
      [jac.nrows, jac.ncols, Array.from(jac.rows), Array.from(jac.cols)],
      [js.nrows, js.ncols, Array.from(js.rows), Array.from(js.cols)],
      "structure",
    );
    jac.vals.forEach((v, k) =>
      assert.ok(
        Math.abs(v - js.vals[k]!) <= 1e-12 * Math.max(1, Math.abs(v)),
        `vals[${k}]: wasm ${v}, the JavaScript pullbacks' ${js.vals[k]}`,
      ),
    );
  }
  // Each reprojection row's entries against central differences of its residual.
  for (let i = 0; i < problem.obs.length; i++) {
    const { camera, point } = problem.obs[i]!;
    for (let row = 0; row < 2; row++) {
      const r = 2 * i + row;
      const residual = (cam: Float64Array, x: Float64Array, w: number) =>
        m.reprojectionError(cam, x, w, problem.feats[i]!)[row]!;
      for (let k = kept.rows[r]!; k < kept.rows[r + 1]!; k++) {
        const col = kept.cols[k]!;
        const moved = (h: number) => {
          const cam = problem.cams[camera]!.slice();
          const x = problem.points[point]!.slice();
          let w = problem.weights[i]!;
          if (col < 33) cam[col - 11 * camera] += h;
          else if (col < 33 + 12) x[col - 33 - 3 * point] += h;
          else w += h;
          return residual(cam, x, w);
        };
        const fd = (moved(1e-6) - moved(-1e-6)) / 2e-6;
        assert.ok(
          Math.abs(kept.vals[k]! - fd) <= 1e-6 * Math.max(1, Math.abs(fd)),
          `row ${r}, column ${col}: wasm ${kept.vals[k]}, central differences ${fd}`,
        );
      }
    }
  }
});

test("a function returning an array or object it was given returns that one, not a copy, as JavaScript does", async () => {
  const files = {
    "main.ts": `export { wasmArrays, wasmStats } from "nabla";
const table = new Float64Array([7, 8, 9]);

/** @backend wasm */
export function scaleInto(x: Float64Array, factor: number, out: Float64Array): Float64Array {
  for (let i = 0; i < x.length; i++) out[i] = factor * x[i];
  return out;
}

/** @backend wasm */
export function larger(a: Float64Array, b: Float64Array): Float64Array {
  let sa = 0;
  let sb = 0;
  for (let i = 0; i < a.length; i++) sa += a[i];
  for (let i = 0; i < b.length; i++) sb += b[i];
  return sa >= sb ? a : b;
}

/** @backend wasm */
export function nearestRow(rows: Float64Array[], target: number): Float64Array {
  let best = rows[0];
  for (const row of rows) if (Math.abs(row[0] - target) < Math.abs(best[0] - target)) best = row;
  return best;
}

/** @backend wasm */
export function withTable(x: Float64Array): { data: Float64Array; table: Float64Array; total: number } {
  let total = 0;
  for (let i = 0; i < x.length; i++) total += x[i] * table[i % table.length];
  return { data: x, table, total };
}
`,
  };
  const m = await loadProgram<Program>(files);
  const memory = m.wasmArrays({ megabytes: 4 });
  for (const array of [
    (xs: number[]) => Float64Array.from(xs),
    (xs: number[]) => memory.from(xs),
  ]) {
    const before = { ...m.wasmStats };
    const x = array([1, 2, 3]);
    const out = array([0, 0, 0]);
    const scaled = m.scaleInto!(x, 2, out);
    assert.equal(scaled, out, "scaleInto returns its 'out'");
    assert.deepEqual(Array.from(out), [2, 4, 6]);
    const a = array([1, 1]);
    const b = array([0, 5]);
    assert.equal(m.larger!(a, b), b);
    assert.equal(m.larger!(b, a), b);
    const rows = [array([0, 1]), array([10, 1]), array([4, 1])];
    assert.equal(m.nearestRow!(rows, 5), rows[2]);
    const held = m.withTable!(x) as { data: Float64Array; table: Float64Array; total: number };
    assert.equal(held.data, x, "the object's field is the argument");
    assert.equal(held.total, 1 * 7 + 2 * 8 + 3 * 9);
    const again = m.withTable!(x) as typeof held;
    assert.equal(again.table, held.table, "the module's array, the same at each call");
    assert.notEqual(again, held, "the object itself is new at each call");
    assert.equal(m.wasmStats.wasm - before.wasm, 6, "all in wasm");
    assert.equal(m.wasmStats.javascript - before.javascript, 0);
  }
});

test("a state update written with a destructured options parameter, defaults and an optional field runs as WebAssembly", async () => {
  const files = twins(`
interface Particles {
  x: Float64Array;
  v: Float64Array;
  mass?: number;
  time: number;
}

interface StepOptions {
  dt: number;
  gravity?: number;
  drag?: number;
}

export function step(p: Particles, { dt, gravity = -9.81, drag = 0.01 }: StepOptions): number {
  const m = p.mass ?? 1;
  let energy = 0;
  for (let i = 0; i < p.x.length; i++) {
    const force = m * gravity - drag * p.v[i];
    p.v[i] += (force / m) * dt;
    p.x[i] += p.v[i] * dt;
    if (p.x[i] < 0) {
      p.x[i] = -p.x[i];
      p.v[i] = -p.v[i];
    }
    energy += 0.5 * m * p.v[i] ** 2;
  }
  p.time += dt;
  return energy;
}

export function clampedSum(xs: Float64Array, factor = 2, [lo, hi]: [number, number] = [0, 10]): number {
  let s = 0;
  for (const x of xs) s += Math.min(hi, Math.max(lo, x * factor));
  return s;
}
`);
  assert.equal(diagnosticsText(compileFiles(files)), "", "no NABLA202");
  const m = await loadProgram<Program>(files);
  const particles = (mass?: number) => ({
    x: Float64Array.of(1, 2, 3, 4),
    v: Float64Array.of(0, 0.5, -1, 2),
    ...(mass === undefined ? {} : { mass }),
    time: 0,
  });
  check(m, "step", () => [particles(), { dt: 0.01, drag: 0.05 }], { wasm: 1 });
  check(m, "step", () => [particles(2.5), { dt: 0.02, gravity: -1 }], { wasm: 1 });
  check(m, "clampedSum", () => [Float64Array.of(1, 3, 7), 1, [2, 5]], { wasm: 1 });
  // A destructured parameter left out is passed as undefined: JavaScript applies its default.
  check(m, "clampedSum", () => [Float64Array.of(1, 3, 7), 3], { wasm: 0, javascript: 1 });
});
