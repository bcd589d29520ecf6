import { test } from "node:test";
import assert from "node:assert/strict";
import { assertClose, compileFiles, loadProgram } from "./support/harness.js";
import { kmeansCostSource, SQUARED_DISTANCE } from "./support/wasm-backends.js";

// A loop that keeps the smallest of values computed by a helper — the nearest centroid,
// the best score — has as its derivative the helper's at the winner alone. Reverse mode
// calls the helper's derivative once, after the loop, for the iteration that won (the loop
// carries its index), instead of taping a flag and running the helper's forward sweep at
// every replacement (differentiate/last-write.ts, primal-calls.ts). Only a helper that writes
// nothing and calls nothing outside the program is called again this way; the rest keep
// their flags. Every result is checked against central differences and forward mode.

const PROGRAM = `import { differential, gradient, gradientAndHessianVectorProduct } from "nabla";

${SQUARED_DISTANCE}

${kmeansCostSource("nearestCost")}
export const gCost = gradient(nearestCost, { wrt: 1 });
export const dCost = differential(nearestCost, { wrt: 1 });
export const gHvCost = gradientAndHessianVectorProduct(nearestCost, { wrt: 1 });

// A helper writing into a scratch array: called again, it would write again.
function distanceVia(scratch: Float64Array, a: Float64Array, b: Float64Array): number {
  for (let i = 0; i < a.length; i++) scratch[i] = a[i] - b[i];
  let sum = 0;
  for (let i = 0; i < scratch.length; i++) sum += scratch[i] * scratch[i];
  return sum;
}
export function nearestScratch(points: Float64Array[], centroids: Float64Array[]): number {
  const scratch = new Float64Array(points[0].length);
  let total = 0;
  for (const point of points) {
    let nearest = Infinity;
    for (const centroid of centroids) {
      const dist = distanceVia(scratch, point, centroid);
      if (dist < nearest) nearest = dist;
    }
    total += nearest;
  }
  return total;
}
export const gScratch = gradient(nearestScratch, { wrt: 1 });
export const dScratch = differential(nearestScratch, { wrt: 1 });

// The best score of a set of linear models, through a squashing function.
function score(w: Float64Array, x: Float64Array, bias: number): number {
  let s = bias;
  for (let i = 0; i < x.length; i++) s += w[i] * x[i];
  return Math.tanh(s);
}
export function bestScore(weights: Float64Array[], x: Float64Array, bias: number): number {
  let best = -Infinity;
  let runnerUp = -Infinity;
  for (let k = 0; k < weights.length; k++) {
    const s = score(weights[k], x, bias);
    if (s > best) {
      runnerUp = best;
      best = s;
    }
  }
  return best + 0.5 * Math.max(runnerUp, -1);
}
export const gBest = gradient(bestScore, { wrt: [1, 2] });
export const dBest = differential(bestScore, { wrt: [1, 2] });
`;

type Rows = Float64Array[];
interface Program {
  nearestCost: (p: Rows, c: Rows) => number;
  gCost: (p: Rows, c: Rows) => Rows;
  dCost: (p: Rows, c: Rows) => (dc: Rows) => number;
  gHvCost: (p: Rows, c: Rows, v: Rows) => { gradient: Rows; hessianVectorProduct: Rows };
  nearestScratch: (p: Rows, c: Rows) => number;
  gScratch: (p: Rows, c: Rows) => Rows;
  dScratch: (p: Rows, c: Rows) => (dc: Rows) => number;
  bestScore: (w: Rows, x: Float64Array, bias: number) => number;
  gBest: (w: Rows, x: Float64Array, bias: number) => [Float64Array, number];
  dBest: (w: Rows, x: Float64Array, bias: number) => (dx: Float64Array, db: number) => number;
}

function random(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 16807) % 2147483647) / 2147483647) * 2 - 1;
}
const rows = (n: number, d: number, next: () => number): Rows =>
  Array.from({ length: n }, () => Float64Array.from({ length: d }, next));
const copy = (r: Rows): Rows => r.map((x) => x.slice());

/** The gradient of `f` with respect to rows `c` by central differences. */
function differences(f: (c: Rows) => number, c: Rows): Rows {
  return c.map((row, j) =>
    row.map((x, i) => {
      const h = 1e-6 * Math.max(1, Math.abs(x));
      const at = (t: number) => {
        const moved = copy(c);
        moved[j]![i] = t;
        return f(moved);
      };
      return (at(x + h) - at(x - h)) / (2 * h);
    }),
  );
}

/** The gradient against central differences, and along `v` against forward mode. */
function checkRows(
  g: Rows,
  f: (c: Rows) => number,
  forward: number,
  c: Rows,
  v: Rows,
  what: string,
) {
  const fd = differences(f, c);
  g.forEach((row, j) =>
    row.forEach((gi, i) => assertClose(gi, fd[j]![i]!, 1e-5, `${what}: gradient [${j}][${i}]`)),
  );
  const along = g.reduce((s, row, j) => s + row.reduce((t, gi, i) => t + gi * v[j]![i]!, 0), 0);
  assertClose(along, forward, 1e-10, `${what}: reverse mode along v against forward mode`);
}

const emitted = [...compileFiles({ "main.ts": PROGRAM }).outputs.values()][0]!.code;
/** The text of the innermost loop of the generated function whose name starts with `prefix`. */
function innerLoop(prefix: string): string {
  const start = emitted.indexOf(`export function ${prefix}`);
  assert.ok(start >= 0, `no function ${prefix}… in the output`);
  const body = emitted.slice(start, emitted.indexOf("\n}\n", start));
  const inner = body.indexOf("while (", body.indexOf("while (") + 1);
  return body.slice(inner, body.indexOf("\n    }\n", inner));
}

test("the nearest centroid: the helper's derivative once per point, after the loop, in both sweeps of a Hessian-vector product", async () => {
  // No flag and no call of the helper's forward sweep per centroid: the loop over centroids
  // is the function's own, in the gradient and in the gradient of the forward derivative.
  for (const name of ["nearestCost$fwd", "nearestCost$jvp_1$h$fwd"]) {
    const loop = innerLoop(name);
    assert.doesNotMatch(loop, /\$tape/, `${name}: the loop over centroids tapes nothing`);
    assert.doesNotMatch(loop, /\$fwd/, `${name}: it calls no forward sweep`);
  }
  // The winner's distance derivative after the loop needs nothing from the forward sweep
  // (its own leaves the tape alone), and the product's value is never read: no call of a
  // forward sweep is left in the Hessian-vector product's.
  const start = emitted.indexOf("export function nearestCost$jvp_1$h$fwd");
  const sweep = emitted.slice(emitted.indexOf("{", start), emitted.indexOf("\n}\n", start));
  assert.doesNotMatch(sweep, /\$fwd/);
  const m = await loadProgram<Program>({ "main.ts": PROGRAM });
  const next = random(2026);
  for (const [n, k, d] of [
    [1, 1, 1],
    [7, 3, 2],
    [20, 5, 3],
  ] as const) {
    const points = rows(n, d, next);
    const centroids = rows(k, d, next);
    const v = rows(k, d, next);
    const g = m.gCost(points, copy(centroids));
    checkRows(
      g,
      (c) => m.nearestCost(points, c),
      m.dCost(points, centroids)(v),
      centroids,
      v,
      "cost",
    );
    // The Hessian-vector product: its gradient is the cost's, its product the derivative of
    // the gradient along v by central differences (the cost is piecewise quadratic).
    const { gradient, hessianVectorProduct } = m.gHvCost(points, centroids, v);
    gradient.forEach((row, j) => row.forEach((gi, i) => assertClose(gi, g[j]![i]!, 1e-12)));
    const h = 1e-6;
    const moved = (s: number) => centroids.map((row, j) => row.map((x, i) => x + s * v[j]![i]!));
    const plus = m.gCost(points, moved(h));
    const minus = m.gCost(points, moved(-h));
    hessianVectorProduct.forEach((row, j) =>
      row.forEach((hi, i) =>
        assertClose(hi, (plus[j]![i]! - minus[j]![i]!) / (2 * h), 1e-5, `Hv [${j}][${i}]`),
      ),
    );
  }
  // Ties (a centroid given twice, a point on both): the first wins, in both modes alike.
  const points = [Float64Array.of(0, 0), Float64Array.of(1, 2)];
  const centroids = [Float64Array.of(1, 1), Float64Array.of(-1, -1), Float64Array.of(1, 1)];
  const g = m.gCost(points, centroids);
  const units = centroids.flatMap((row, j) =>
    [...row].map((_, i) => centroids.map((r, l) => r.map((_, q) => (l === j && q === i ? 1 : 0)))),
  );
  const forward = units.map((u) => m.dCost(points, centroids)(u));
  assert.deepEqual(
    g.flatMap((row) => [...row]),
    forward,
  );
  assert.deepEqual([...g[2]!], [0, 0], "the second copy of the centroid never wins");
});

test("a helper that writes a scratch array keeps its flags, and is right", async () => {
  assert.match(innerLoop("nearestScratch$fwd"), /\$tape/);
  const m = await loadProgram<Program>({ "main.ts": PROGRAM });
  const next = random(7);
  const points = rows(12, 3, next);
  const centroids = rows(4, 3, next);
  const v = rows(4, 3, next);
  const g = m.gScratch(points, centroids);
  checkRows(
    g,
    (c) => m.nearestScratch(points, c),
    m.dScratch(points, centroids)(v),
    centroids,
    v,
    "scratch",
  );
  g.forEach((row, j) =>
    row.forEach((gi, i) => assertClose(gi, m.gCost(points, centroids)[j]![i]!, 1e-12)),
  );
});

test("the best score and the runner-up, through tanh: the winner's derivative, and the runner-up's", async () => {
  const m = await loadProgram<Program>({ "main.ts": PROGRAM });
  const next = random(99);
  for (let trial = 0; trial < 5; trial++) {
    const weights = rows(6, 4, next);
    const x = Float64Array.from({ length: 4 }, next);
    const bias = next();
    const [gx, gb] = m.gBest(weights, x, bias);
    const dx = Float64Array.from({ length: 4 }, next);
    const db = next();
    const h = 1e-6;
    const f = (y: Float64Array, b: number) => m.bestScore(weights, y, b);
    gx.forEach((gi, i) => {
      const plus = x.slice();
      const minus = x.slice();
      plus[i] += h;
      minus[i] -= h;
      assertClose(gi, (f(plus, bias) - f(minus, bias)) / (2 * h), 1e-6, `∂/∂x[${i}]`);
    });
    assertClose(gb, (f(x, bias + h) - f(x, bias - h)) / (2 * h), 1e-6, "∂/∂bias");
    const along = gx.reduce((s, gi, i) => s + gi * dx[i]!, 0) + gb * db;
    assertClose(along, m.dBest(weights, x, bias)(dx, db), 1e-12, "forward mode");
  }
});

const GUARDS = `import { differential, gradient } from "nabla";

function weighted(a: number[], b: number[], scale: number[] = [1, 1, 1]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += scale[i] * (a[i] - b[i]) ** 2;
  return s;
}

// The loop changes what the helper reads: the helper is not called again after it.
export function drifting(rows: number[][], x: number[]): number {
  const scale = [1, 1, 1];
  let best = Infinity;
  for (let j = 0; j < rows.length; j++) {
    scale[j % 3] = 1 + 0.5 * j;
    const d = weighted(rows[j], x, scale);
    if (d < best) best = d;
  }
  return best;
}
export const gDrifting = gradient(drifting, { wrt: 1 });
export const dDrifting = differential(drifting, { wrt: 1 });

// The loop replaces the rows it reads: a row read again after it would be the new one.
export function replacing(rows: number[][], x: number[]): number {
  let best = Infinity;
  for (let j = 0; j < rows.length; j++) {
    const d = weighted(rows[j], x);
    if (d < best) best = d;
    rows[j] = [x[0] * 2, x[1], x[2]];
  }
  return best;
}
export const gReplacing = gradient(replacing, { wrt: 1 });
export const dReplacing = differential(replacing, { wrt: 1 });

// The inner loop's winner chosen again by the outer loop.
export function worstOfBest(groups: number[][][], x: number[]): number {
  let worst = -Infinity;
  for (const g of groups) {
    let best = Infinity;
    for (const r of g) {
      const d = weighted(r, x);
      if (d < best) best = d;
    }
    if (best > worst) worst = best;
  }
  return worst;
}
export const gWorstOfBest = gradient(worstOfBest, { wrt: 1 });
export const dWorstOfBest = differential(worstOfBest, { wrt: 1 });

// Two places replace: the helper's value, or a plain product.
export function mixed(rows: number[][], x: number[]): number {
  let best = Infinity;
  for (const r of rows) {
    const d = weighted(r, x);
    if (d < best) best = d;
    else if (r[0] * x[0] < best) best = r[0] * x[0];
  }
  return best;
}
export const gMixed = gradient(mixed, { wrt: 1 });
export const dMixed = differential(mixed, { wrt: 1 });
`;

test("the helper is called again only where that is the same call: not when the loop changes what it reads", async () => {
  const code = [...compileFiles({ "main.ts": GUARDS }).outputs.values()][0]!.code;
  const forward = (name: string) => {
    const start = code.indexOf(`export function ${name}$fwd`);
    return code.slice(start, code.indexOf("\n}\n", start));
  };
  assert.doesNotMatch(forward("drifting"), /which/);
  assert.doesNotMatch(forward("replacing"), /which/);
  assert.match(forward("worstOfBest"), /which/);
  assert.match(forward("mixed"), /which/);
  type Data = number[][] | number[][][];
  const m = await loadProgram<Record<string, unknown>>({ "main.ts": GUARDS });
  const next = random(5);
  const triples = (n: number) => Array.from({ length: n }, () => [next(), next(), next()]);
  const makers: Record<string, () => Data> = {
    drifting: () => triples(5),
    replacing: () => triples(5),
    worstOfBest: () => [triples(3), triples(4), triples(2)],
    mixed: () => triples(6),
  };
  const fresh = (data: Data) => JSON.parse(JSON.stringify(data)) as Data;
  for (const [name, make] of Object.entries(makers)) {
    const upper = name[0]!.toUpperCase() + name.slice(1);
    const f = m[name] as (data: Data, x: number[]) => number;
    const g = m[`g${upper}`] as (data: Data, x: number[]) => number[];
    const d = m[`d${upper}`] as (data: Data, x: number[]) => (dx: number[]) => number;
    for (let trial = 0; trial < 10; trial++) {
      const data = make();
      const x = [next(), next(), next()];
      const gradient = g(fresh(data), x.slice());
      gradient.forEach((gi, i) => {
        const h = 1e-6;
        const at = (t: number) =>
          f(
            fresh(data),
            x.map((xj, j) => (j === i ? t : xj)),
          );
        const what = `${name}, trial ${trial}: ∂/∂x${i}`;
        assertClose(gi, (at(x[i]! + h) - at(x[i]! - h)) / (2 * h), 1e-5, `${what}, differences`);
        const basis = x.map((_, j) => (j === i ? 1 : 0));
        assertClose(gi, d(fresh(data), x.slice())(basis), 1e-10, `${what}, forward mode`);
      });
    }
  }
});

// Written as a TypeScript developer would, without nabla in mind: a class holding optional
// weights, its private method the helper, inferred return types, destructuring.
const FIELD = `import { gradient, differential, hessianVectorProduct } from "nabla";

interface Site { x: number; y: number; weight?: number }

class Field {
  constructor(private readonly sites: Site[], private softness = 0.1) {}

  private cost(site: Site, px: number, py: number) {
    const dx = px - site.x, dy = py - site.y;
    return (site.weight ?? 1) * Math.sqrt(dx * dx + dy * dy + this.softness);
  }

  nearestCost(px: number, py: number) {
    let best = Infinity;
    for (const site of this.sites) {
      const c = this.cost(site, px, py);
      if (c < best) best = c;
    }
    return best;
  }
}

export function total(points: number[], w: number) {
  const field = new Field([{ x: 0, y: 0 }, { x: 2, y: 1, weight: w }, { x: -1, y: 3 }]);
  let sum = 0;
  for (let i = 0; i + 1 < points.length; i += 2) {
    const [px, py] = [points[i], points[i + 1]];
    sum += field.nearestCost(px, py);
  }
  return sum;
}
export const g = gradient(total);
export const d = differential(total);
export const hv = hessianVectorProduct(total, { wrt: 0 });
`;

test("a class's nearest-site cost through a private method: right in both modes, and its Hessian-vector product", async () => {
  const code = [...compileFiles({ "main.ts": FIELD }).outputs.values()][0]!.code;
  assert.match(code, /which/, "the nearest site's cost is taken once, after the loop");
  const m = await loadProgram<{
    total: (points: number[], w: number) => number;
    g: (points: number[], w: number) => [number[], number];
    d: (points: number[], w: number) => (dp: number[], dw: number) => number;
    hv: (points: number[], w: number, v: number[]) => number[];
  }>({ "main.ts": FIELD });
  const points = [0.3, 0.4, 1.7, 1.2, -0.8, 2.5, 1.1, 0.2];
  const w = 0.7;
  const h = 1e-6;
  const [gp, gw] = m.g(points, w);
  points.forEach((x, i) => {
    const at = (t: number) =>
      m.total(
        points.map((p, j) => (j === i ? t : p)),
        w,
      );
    assertClose(gp[i]!, (at(x + h) - at(x - h)) / (2 * h), 1e-6, `∂/∂points[${i}], differences`);
    const basis = points.map((_, j) => (j === i ? 1 : 0));
    assertClose(gp[i]!, m.d(points, w)(basis, 0), 1e-12, `∂/∂points[${i}], forward mode`);
  });
  assertClose(gw, (m.total(points, w + h) - m.total(points, w - h)) / (2 * h), 1e-6, "∂/∂w");
  assertClose(
    gw,
    m.d(points, w)(
      points.map(() => 0),
      1,
    ),
    1e-12,
    "∂/∂w, forward mode",
  );
  const v = points.map((_, i) => (i % 3) - 1);
  const plus = m.g(
    points.map((x, i) => x + h * v[i]!),
    w,
  )[0];
  const minus = m.g(
    points.map((x, i) => x - h * v[i]!),
    w,
  )[0];
  m.hv(points, w, v).forEach((hi, i) =>
    assertClose(hi, (plus[i]! - minus[i]!) / (2 * h), 1e-5, `(Hv)[${i}]`),
  );
});
