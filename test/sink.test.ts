import assert from "node:assert/strict";
import { test } from "node:test";
import { parseFunction } from "../src/compiler/ir/parser.js";
import { printFunction } from "../src/compiler/ir/printer.js";
import { pureFunctions, sinkIntoBranches } from "../src/compiler/ir/sink.js";
import type { FunctionKey, IRFunction } from "../src/compiler/ir/types.js";
import { assertClose, compileFiles, loadProgram } from "./support/harness.js";

// Code sinking (ir/sink.ts): what only one branch of an `if` reads is computed in that branch.
// On IR written by hand, what moves and what must stay; then the case it is for, a
// reverse-over-forward derivative of a minimum, checked for happening and for being right.

/** `fn` after sinking, with `callees` (IR text by key) as the functions it may call. */
function sunk(text: string, callees: Record<string, string> = {}): string {
  const fn = parseFunction(text);
  const table = new Map<FunctionKey, IRFunction>([["f", fn]]);
  for (const [key, body] of Object.entries(callees)) table.set(key, parseFunction(body));
  sinkIntoBranches(fn, pureFunctions(table));
  return printFunction(fn);
}

const PURE_SQUARE = `func @sq(%a.0: number) -> number {
  %1: number = mul %a.0, %a.0
  return %1
}`;
const LOGGING = `func @log(%a.0: number) -> number {
  extern %a.0 {callee = "console.log"}
  return %a.0
}`;

test("a chain only one branch reads moves into it, a pure call with it; what both branches or the condition read stays", () => {
  const out = sunk(
    `func @f(%x.0: number, %y.1: number) -> number {
  %2: number = mul %x.0, %y.1
  %3: number = call @sq %2
  %4: number = add %x.0, %y.1
  %5: boolean = gt %4, %y.1
  %6 = if %5 -> (number) {
    yield %3
  } else {
    yield %4
  }
  return %6
}`,
    { sq: PURE_SQUARE },
  );
  assert.equal(
    out,
    `func @f(%x.0: number, %y.1: number) -> number {
  %4: number = add %x.0, %y.1
  %5: boolean = gt %4, %y.1
  %6 = if %5 -> (number) {
    %2: number = mul %x.0, %y.1
    %3: number = call @sq %2
    yield %3
  } else {
    yield %4
  }
  return %6
}`,
  );
});

test("what stays: a call with an effect, a random number, a read of memory written before the branch, a value read after it", () => {
  const text = `func @f(%x.0: number, %xs.1: number[]) -> number {
  %2: number = call @log %x.0
  %3: number = math @random
  %4: number = const 0
  %5: number = index %xs.1, %4
  setIndex %xs.1, %4, %x.0
  %6: number = mul %x.0, %x.0
  %7: boolean = gt %x.0, %4
  %8 = if %7 -> (number) {
    %9: number = add %2, %3
    %10: number = add %9, %5
    %11: number = add %10, %6
    yield %11
  } else {
    yield %x.0
  }
  %12: number = add %8, %6
  return %12
}`;
  assert.equal(sunk(text, { log: LOGGING }), printFunction(parseFunction(text)));
});

test("a read of memory moves past ops that write none, and into a nested branch", () => {
  const out = sunk(`func @f(%x.0: number, %xs.1: number[]) -> number {
  %2: number = const 0
  %3: number = index %xs.1, %2
  %4: boolean = gt %x.0, %2
  %5 = if %4 -> (number) {
    %6: boolean = lt %x.0, %3
    %7 = if %6 -> (number) {
      yield %x.0
    } else {
      yield %2
    }
    yield %7
  } else {
    yield %2
  }
  return %5
}`);
  assert.equal(
    out,
    `func @f(%x.0: number, %xs.1: number[]) -> number {
  %2: number = const 0
  %4: boolean = gt %x.0, %2
  %5 = if %4 -> (number) {
    %3: number = index %xs.1, %2
    %6: boolean = lt %x.0, %3
    %7 = if %6 -> (number) {
      yield %x.0
    } else {
      yield %2
    }
    yield %7
  } else {
    yield %2
  }
  return %5
}`,
  );
});

const NEAREST = `import { differential, gradientAndHessianVectorProduct } from "nabla";

function squaredDistance(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const diff = a[i] - b[i];
    sum += diff * diff;
  }
  return sum;
}

export function cost(points: Float64Array[], centroids: Float64Array[]): number {
  let total = 0;
  for (const point of points) {
    let nearest = Infinity;
    for (const centroid of centroids) {
      const dist = squaredDistance(point, centroid);
      if (dist < nearest) nearest = dist;
    }
    total += nearest;
  }
  return total;
}

export const both = gradientAndHessianVectorProduct(cost, { wrt: 1 });
export const dCost = differential(cost, { wrt: 1 });
`;

test("a nearest-centroid cost: its JVP computes a distance's tangent once per point, for the nearest, and the Hessian-vector product's forward sweep none", async () => {
  const m = await loadProgram<{
    cost: (p: Float64Array[], c: Float64Array[]) => number;
    both: (
      p: Float64Array[],
      c: Float64Array[],
      v: Float64Array[],
    ) => { gradient: Float64Array[]; hessianVectorProduct: Float64Array[] };
  }>({ "main.ts": NEAREST });
  const code = [...compileFiles({ "main.ts": NEAREST }).outputs.values()][0]!.code;
  // The loop over centroids compares plain distances; the nearest's tangent comes after it
  // (differentiate/last-write.ts, in forward mode for a tangent a pure call computes).
  for (const name of ["cost$jvp_1", "cost$jvp_1$h"]) {
    const text = new RegExp(`export function ${name.replace(/\$/g, "\\$")}\\([^]*?\\n}\\n`).exec(
      code,
    )![0];
    const inner = text.indexOf("while (", text.indexOf("while (") + 1);
    const loop = text.slice(inner, text.indexOf("\n    }\n", inner));
    assert.doesNotMatch(loop, /squaredDistance\$jvp/, `${name}: no tangent in the loop`);
    assert.match(loop, /squaredDistance\(point, centroid\)/, `${name}: the distance itself`);
    assert.match(text, /if \(which === 1\) \{[^}]*squaredDistance\$jvp/, `${name}: the nearest's`);
  }
  // The Hessian-vector product never reads that value (⟨∇cost, v⟩): its forward sweep does not
  // compute it (unread-value.ts), and takes the winner's derivative after the loop.
  const sweep = /export function cost\$jvp_1\$h\$fwd[^]*?\n}\n/.exec(code)![0];
  assert.doesNotMatch(sweep, /squaredDistance\$jvp_1\$t\(/);
  assert.match(sweep, /return 0;/);
  const rand = (() => {
    let s = 7;
    return () => ((s = (s * 16807) % 2147483647) / 2147483647) * 2 - 1;
  })();
  const rows = (n: number) => Array.from({ length: n }, () => Float64Array.from([rand(), rand()]));
  const points = rows(12);
  const centroids = rows(3);
  const v = rows(3);
  const { gradient, hessianVectorProduct } = m.both(points, centroids, v);
  // The gradient against central differences; the Hessian-vector product against central
  // differences of the gradient along v (the cost is piecewise quadratic: exact up to rounding).
  const h = 1e-6;
  const moved = (k: number) => centroids.map((c, j) => c.map((x, i) => x + k * v[j]![i]!));
  const gPlus = m.both(points, moved(h), v).gradient;
  const gMinus = m.both(points, moved(-h), v).gradient;
  centroids.forEach((c, j) =>
    c.forEach((_, i) => {
      const bump = (k: number) =>
        m.cost(
          points,
          centroids.map((r, jj) => r.map((x, ii) => x + (jj === j && ii === i ? k : 0))),
        );
      assertClose(gradient[j]![i]!, (bump(h) - bump(-h)) / (2 * h), 1e-6, `gradient ${j},${i}`);
      const fd = (gPlus[j]![i]! - gMinus[j]![i]!) / (2 * h);
      assertClose(hessianVectorProduct[j]![i]!, fd, 1e-6, `Hv ${j},${i}`);
    }),
  );
});
