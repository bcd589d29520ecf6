import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText } from "./support/harness.js";
import { checkProgram } from "./support/number-programs.js";

// Ordinary TypeScript the third sweep of realistic programs (sweep/s3) found nabla refusing.
// Each function takes numbers; its gradient is checked against central differences and
// against forward mode along each coordinate.

const POINTS = [
  [0.7, -0.4, 1.3],
  [1.1, 0.9, -0.2],
];

test("Math.max.apply(null, xs) and Math.hypot.call(Math, a, b) are Math calls", async () => {
  await checkProgram(
    `
function logSumExp(z: number[]): number {
  const m = Math.max.apply(null, z);
  let s = 0;
  for (const v of z) s += Math.exp(v - m);
  return m + Math.log(s);
}
export function f(x: number, y: number, z: number): number {
  const xs = [x, y * 2, z];
  const lo = Math.min.apply(Math, xs);
  const typed = Float64Array.of(x, z);
  return logSumExp(xs) + lo * Math.hypot.call(Math, x, y) + Math.max.apply(undefined, typed);
}
`,
    POINTS,
  );
});

test("a generic method whose type parameter only its result gives (map<U>(f): Box<U>)", async () => {
  await checkProgram(
    `
class Series<T> {
  constructor(readonly items: readonly T[]) {}
  map<U>(f: (item: T, index: number) => U): Series<U> {
    return new Series(this.items.map(f));
  }
  zip<U, V>(other: Series<U>, f: (a: T, b: U) => V): Series<V> {
    return new Series(this.items.map((a, i) => f(a, other.items[i])));
  }
  reduce<A>(f: (acc: A, item: T) => A, init: A): A {
    let acc = init;
    for (const item of this.items) acc = f(acc, item);
    return acc;
  }
}
export function f(x: number, y: number, z: number): number {
  const s = new Series([x, y, z]);
  const points = s.map((v, i) => ({ t: i, v: v * v }));
  const r = points.zip(s, (p, v) => p.v * Math.sin(v) + p.t);
  return r.reduce((a, b) => a + b, 0);
}
`,
    POINTS,
  );
});

test("[...xs.values()] and Array.from(xs.values()) are copies of the array", async () => {
  await checkProgram(
    `
export function f(x: number, y: number, z: number): number {
  const xs = [x, y, z];
  const copy = [...xs.values()];
  copy[0] = copy[0] * 3;
  const other = Array.from(xs.values(), (v) => v * v);
  return xs[0] * copy[0] + copy[1] * copy[2] + other.reduce((s, v) => s + v, 0);
}
`,
    POINTS,
  );
});

test("a local function given an arrow, a Math function or a local function as an argument", async () => {
  await checkProgram(
    `
export function f(x: number, y: number, z: number): number {
  const angles = [x, y, z];
  let calls = 0;
  const row = (fn: (a: number) => number) => {
    calls++;
    return angles.map((a, i) => fn(a) * (i + 1));
  };
  const twice = (a: number) => 2 * a * y;
  const sum = (xs: number[]) => xs.reduce((s, v) => s + v, 0);
  return sum(row((a) => -Math.sin(a) * z)) + sum(row(Math.cos)) + sum(row(twice)) * calls;
}
`,
    POINTS,
  );
});

test("a parameter property defaulted from a static object's field is a number", async () => {
  await checkProgram(
    `
const DEFAULTS = { rest: 1.5 };
class Spring {
  static readonly defaults = { rest: 1, damping: 0.05 };
  constructor(
    public k: number,
    public rest = Spring.defaults.rest,
    public damping = DEFAULTS.rest * Spring.defaults.damping,
  ) {}
  force(d: number): number {
    return this.k * (d - this.rest) - this.damping * d;
  }
}
export function f(x: number, y: number, z: number): number {
  return new Spring(x).force(y) * new Spring(z, y).force(x);
}
`,
    POINTS,
  );
});

test("a closure a module-level factory call returned: NABLA108 at the operator, NABLA102 at a call", () => {
  const result = compileFiles({
    "main.ts": `import { gradient } from "nabla";
function makeLoss(scale: number): (p: number[]) => number {
  return (p) => scale * p[0] * p[0];
}
const loss = makeLoss(2);
export const g1 = gradient(loss);
export const g2 = gradient((p: number[]) => loss(p) + 1);
`,
  });
  assert.equal(
    diagnosticsText(result),
    `main.ts:6:28: error NABLA108: 'gradient' cannot differentiate 'loss': it holds the closure 'makeLoss(…)' returned when the module ran, which nabla cannot follow from here
  5 | const loss = makeLoss(2);
> 6 | export const g1 = gradient(loss);
    |                            ^^^^
help: make the closure inside the function you differentiate, where nabla inlines it: 'gradient((p) => { const loss = makeLoss(…); return loss(p); })'

main.ts:7:45: error NABLA102: cannot differentiate a call to 'loss': it holds the closure 'makeLoss(…)' returned when the module ran, which nabla cannot follow from here
  6 | export const g1 = gradient(loss);
> 7 | export const g2 = gradient((p: number[]) => loss(p) + 1);
    |                                             ^^^^
help: make the closure inside the function you differentiate, where nabla inlines it: 'const loss = makeLoss(…)' there
main.ts:7:19: note: when differentiating the function given to 'gradient'
> 7 | export const g2 = gradient((p: number[]) => loss(p) + 1);
    |                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

2 errors`,
  );
});

test("the closure made inside the differentiated function, as the help says, works", async () => {
  await checkProgram(
    `
function makeLoss(scale: number): (p: number[]) => number {
  return (p) => scale * p[0] * p[1] + Math.sin(p[2]);
}
export function f(x: number, y: number, z: number): number {
  const loss = makeLoss(x);
  return loss([x, y, z]);
}
`,
    POINTS,
  );
});

test("'void x;' as a statement runs its expression", async () => {
  await checkProgram(
    `
export function f(x: number, y: number, z: number): number {
  const unused = x * y;
  void unused;
  let t = z;
  void (t *= x);
  return t + Math.sin(y);
}
`,
    POINTS,
  );
});

test("a labelled block left by 'break label', with loops and unlabeled exits inside and around", async () => {
  await checkProgram(
    `
export function f(x: number, y: number, z: number): number {
  const p = [x, y, z, x * y];
  let total = 0;
  outer: for (let i = 0; i < p.length; i++) {
    found: {
      if (p[i] > 1) break found;
      total += p[i] * p[i];
      for (let j = 0; j < 3; j++) {
        if (j === 1 && p[i] < 0) break found;
        if (j === 2) continue outer;
        total += Math.sin(p[i] * j);
        if (p[i] > 0.5 && j === 0) break;
      }
      total *= 1.1;
    }
    total += p[i];
    check: {
      if (i === 2) break outer;
      if (p[i] < -0.5) continue;
      total += 0.5 * p[i] ** 3;
    }
  }
  return total;
}
`,
    [...POINTS, [-0.7, 1.3, 0.4], [0.6, 0.2, -0.8]],
  );
});
