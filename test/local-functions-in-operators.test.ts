import { test } from "node:test";
import assert from "node:assert/strict";
import {
  assertClose,
  assertGradientTwoWays,
  centralDifference,
  compileFiles,
  diagnosticsText,
  finiteGradient,
  loadProgram,
  type Fn,
} from "./support/harness.js";

// A function given to an operator that calls (or passes on, or differentiates again) a local
// function of the enclosing function: `const g = (s) => a * s ** 3; derivative((s) => 2 *
// g(s))(t)`. The local function's code goes with the lambda, what it reads becomes captures
// of the lambda. Each enclosing function's value is checked against central differences of
// the same formula written in plain JavaScript, and its gradient against central differences
// of the compiled function and against forward mode (its differential along each basis vector).

type Differential = (...xs: number[]) => (...ts: number[]) => number;

const PROGRAM = `import { derivative, differential, gradient, valueWithGradient } from "nabla";

/** A local arrow reading a parameter, called inside the lambda. */
export function scaled(a: number, t: number): number {
  const g = (s: number) => a * s * s * s;
  return derivative((s: number) => 2 * g(s))(t);
}

/** The local function differentiated again inside the lambda. */
export function inner(a: number, t: number): number {
  const g = (s: number) => a * s * s * s;
  return derivative((s: number) => derivative(g)(s))(t);
}

/** The derivative of the local function's derivative. */
export function twice(a: number, t: number): number {
  const g = (s: number) => a * s * s * s;
  return derivative(derivative(g))(t);
}

/** The lambda's parameter has the name of the variable the local function reads. */
export function sameName(a: number, t: number): number {
  const g = (s: number) => a * s * s * s;
  return derivative((a: number) => derivative(g)(a) * a)(t);
}

/** A local function declaration, written after the code that calls it. */
export function declared(a: number, t: number): number {
  return derivative((s: number) => wave(s) * s)(t);
  function wave(s: number): number {
    return a * Math.sin(s) * s;
  }
}

/** A local function reading numbers, an array and an object of the enclosing function. */
export function several(a: number, b: number, t: number): number {
  const weights = [a, b, a * b];
  const shape = { k: b, c: 2 };
  const poly = (s: number) =>
    weights[0] * s + weights[1] * s * s + shape.k * Math.sin(s * weights[2]) + shape.c;
  return derivative((s: number) => poly(s) * poly(s))(t);
}

/** A local function calling another one. */
export function chained(a: number, b: number, t: number): number {
  const grow = (s: number) => b * Math.exp(0.1 * s);
  const g = (s: number) => a * grow(s) * s;
  return derivative((s: number) => g(s) + grow(s))(t);
}

/** The local function called by the enclosing function and inside the lambda. */
export function both(a: number, t: number): number {
  const g = (s: number) => a * Math.cos(s) + s * s;
  return g(t) + derivative((s: number) => g(s) * s)(t);
}

/** A variable the local function reads, changed before the operator runs. */
export function changed(a: number, t: number): number {
  let k = a;
  const g = (s: number) => k * s * s;
  k = 2 * a + t;
  return derivative((s: number) => g(s) * s)(t);
}

function integrate(f: (x: number) => number, to: number): number {
  let sum = 0;
  const n = 8;
  for (let i = 0; i < n; i++) sum += f(((i + 0.5) * to) / n) * (to / n);
  return sum;
}

/** The local function passed on, from the lambda, to a function of the module. */
export function passedOn(a: number, t: number): number {
  const g = (s: number) => a * s * s + Math.sin(s);
  return derivative((s: number) => integrate(g, s) * s)(t);
}

/** \`gradient\` of a lambda over an array. */
export function viaGradient(a: number, b: number): number {
  const g = (x: number[]) => a * x[0] * x[0] + b * x[0] * x[1];
  const grad = gradient((x: number[]) => g(x) + x[1] * x[1])([a, b]);
  return grad[0] + 2 * grad[1];
}

/** \`valueWithGradient\` of a lambda of two numbers. */
export function viaValueWithGradient(a: number, b: number): number {
  const g = (x: number, y: number) => a * x * y + Math.exp(b * x);
  const r = valueWithGradient((x: number, y: number) => g(x, y) * y)(a, b);
  return r.value + r.gradient[0] * r.gradient[1];
}

export const g = {
  scaled: gradient(scaled),
  inner: gradient(inner),
  twice: gradient(twice),
  sameName: gradient(sameName),
  declared: gradient(declared),
  several: gradient(several),
  chained: gradient(chained),
  both: gradient(both),
  changed: gradient(changed),
  passedOn: gradient(passedOn),
  viaGradient: gradient(viaGradient),
  viaValueWithGradient: gradient(viaValueWithGradient),
};
export const d = {
  scaled: differential(scaled),
  inner: differential(inner),
  twice: differential(twice),
  sameName: differential(sameName),
  declared: differential(declared),
  several: differential(several),
  chained: differential(chained),
  both: differential(both),
  changed: differential(changed),
  passedOn: differential(passedOn),
  viaGradient: differential(viaGradient),
  viaValueWithGradient: differential(viaValueWithGradient),
};
`;

const dt = centralDifference;
const jsIntegrate = (f: (x: number) => number, to: number) => {
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += f(((i + 0.5) * to) / 8) * (to / 8);
  return sum;
};

/** The enclosing functions, written in plain JavaScript with central differences for the operators. */
const REFERENCE: Record<string, (...xs: number[]) => number> = {
  scaled: (a, t) => dt((s) => 2 * a * s ** 3, t),
  inner: (a, t) => 6 * a * t,
  twice: (a, t) => 6 * a * t,
  sameName: (a, t) => dt((u) => 3 * a * u * u * u, t),
  declared: (a, t) => dt((s) => a * Math.sin(s) * s * s, t),
  several: (a, b, t) => {
    const poly = (s: number) => a * s + b * s * s + b * Math.sin(s * a * b) + 2;
    return dt((s) => poly(s) * poly(s), t);
  },
  chained: (a, b, t) => {
    const grow = (s: number) => b * Math.exp(0.1 * s);
    return dt((s) => a * grow(s) * s + grow(s), t);
  },
  both: (a, t) => {
    const g = (s: number) => a * Math.cos(s) + s * s;
    return g(t) + dt((s) => g(s) * s, t);
  },
  changed: (a, t) => dt((s) => (2 * a + t) * s * s * s, t),
  passedOn: (a, t) => dt((s) => jsIntegrate((x) => a * x * x + Math.sin(x), s) * s, t),
  viaGradient: (a, b) => {
    const f = (x0: number, x1: number) => a * x0 * x0 + b * x0 * x1 + x1 * x1;
    const [g0, g1] = finiteGradient(f, [a, b]);
    return g0! + 2 * g1!;
  },
  viaValueWithGradient: (a, b) => {
    const f = (x: number, y: number) => (a * x * y + Math.exp(b * x)) * y;
    const [g0, g1] = finiteGradient(f, [a, b]);
    return f(a, b) + g0! * g1!;
  },
};

const POINTS: number[][] = [
  [0.4, 1.3],
  [-0.7, 0.55],
  [1.1, -0.9],
];

test("a lambda given to an operator calls local functions: values, gradients and forward mode agree with finite differences", async () => {
  const m = await loadProgram<{
    g: Record<string, (...xs: number[]) => number[]>;
    d: Record<string, Differential>;
    [name: string]: unknown;
  }>({ "main.ts": PROGRAM });
  assert.deepEqual(Object.keys(m.g).sort(), Object.keys(REFERENCE).sort());
  for (const name of Object.keys(m.g)) {
    const f = m[name] as Fn;
    for (const point of POINTS) {
      const args = REFERENCE[name]!.length === 3 ? [0.8, ...point] : point;
      assertClose(f(...args), REFERENCE[name]!(...args), 1e-6, `${name} at ${args}: value`);
      const gradient = m.g[name]!(...args);
      assert.equal(gradient.length, args.length, name);
      assertGradientTwoWays(name, f, gradient, m.d[name]!, args, 1e-5, 1e-10);
    }
  }
});

test("the examples of the report: f(1, 2) = 24 with gradient [24, 24]; nested, 12 with [12, 6]", async () => {
  const m = await loadProgram<{
    scaled: Fn;
    inner: Fn;
    twice: Fn;
    g: Record<string, (...xs: number[]) => number[]>;
  }>({ "main.ts": PROGRAM });
  assertClose(m.scaled(1, 2), 24, 1e-12);
  assert.deepEqual(
    m.g.scaled!(1, 2).map((x) => Math.round(x * 1e9) / 1e9),
    [24, 24],
  );
  for (const name of ["inner", "twice"] as const) {
    assertClose(m[name](1, 2), 12, 1e-12);
    assert.deepEqual(
      m.g[name]!(1, 2).map((x) => Math.round(x * 1e9) / 1e9),
      [12, 6],
    );
  }
});

const PLAIN = `import { derivative, differential, gradient, hessian, pullback } from "nabla";

/** The pullback of a lambda calling a local function, at (x, y). */
export function pullbackOf(a: number, b: number, x: number, y: number): number[] {
  const g = (u: number, v: number) => a * Math.sin(u) * v + b * u;
  const back = pullback((u: number, v: number) => g(u, v) * g(v, u))(x, y);
  return back(1.5);
}

/** Its differential, along (du, dv). */
export function differentialOf(
  a: number,
  b: number,
  x: number,
  y: number,
  du: number,
  dv: number,
): number {
  const g = (u: number, v: number) => a * Math.sin(u) * v + b * u;
  return differential((u: number, v: number) => g(u, v) * g(v, u))(x, y)(du, dv);
}

/** The Hessian of a lambda over an array calling a local function. */
export function hessianOf(a: number, b: number, x0: number, x1: number): number[][] {
  const g = (x: number[]) => a * x[0] * x[0] * x[1] + b * x[1] * x[1] * x[1] + a * Math.sin(x[0] * x[1]);
  return hessian((x: number[]) => g(x) * 2)([x0, x1]);
}

/** The gradient of the same lambda (reverse mode). */
export function gradientOf(a: number, b: number, x0: number, x1: number): number[] {
  const g = (x: number[]) => a * x[0] * x[0] * x[1] + b * x[1] * x[1] * x[1] + a * Math.sin(x[0] * x[1]);
  return gradient((x: number[]) => g(x) * 2)([x0, x1]);
}

/** A local function reading an array parameter. */
export function fromArray(xs: number[], t: number): number {
  const g = (s: number) => xs[0] * s + xs[1] * Math.sin(s * xs[2]);
  return derivative((s: number) => g(s) * g(s))(t);
}
export const gradientOfFromArray = gradient(fromArray);
export const differentialOfFromArray = differential(fromArray);
`;

test("pullback, differential, hessian and gradient of lambdas calling local functions in plain code", async () => {
  const m = await loadProgram<{
    pullbackOf: (...xs: number[]) => number[];
    differentialOf: (...xs: number[]) => number;
    hessianOf: (...xs: number[]) => number[][];
    gradientOf: (...xs: number[]) => number[];
  }>({ "main.ts": PLAIN });
  const [a, b] = [0.7, -0.4];
  for (const [x, y] of POINTS) {
    const g = (u: number, v: number) => a * Math.sin(u) * v + b * u;
    const expected = finiteGradient((u, v) => g(u, v) * g(v, u), [x!, y!]);
    const back = m.pullbackOf(a, b, x!, y!);
    const forward = [m.differentialOf(a, b, x!, y!, 1, 0), m.differentialOf(a, b, x!, y!, 0, 1)];
    expected.forEach((e, i) => {
      assertClose(back[i]!, 1.5 * e, 1e-6, `pullback at ${[x, y]}: ${i}, finite differences`);
      assertClose(back[i]!, 1.5 * forward[i]!, 1e-12, `pullback at ${[x, y]}: ${i}, forward mode`);
    });

    const h = m.hessianOf(a, b, x!, y!);
    const s = Math.sin(x! * y!);
    const c = Math.cos(x! * y!);
    // The Hessian of 2 (a x0² x1 + b x1³ + a sin(x0 x1)), by hand.
    const byHand = [
      [2 * (2 * a * y! - a * y! * y! * s), 2 * (2 * a * x! + a * (c - x! * y! * s))],
      [2 * (2 * a * x! + a * (c - x! * y! * s)), 2 * (6 * b * y! - a * x! * x! * s)],
    ];
    for (let i = 0; i < 2; i++) {
      // Row i: finite differences of the reverse-mode gradient along x_i.
      const row = [0, 1].map((j) =>
        centralDifference((t) => {
          const p = [x!, y!];
          p[i] = t;
          return m.gradientOf(a, b, p[0]!, p[1]!)[j]!;
        }, [x!, y!][i]!),
      );
      for (let j = 0; j < 2; j++) {
        assertClose(h[i]![j]!, byHand[i]![j]!, 1e-10, `hessian at ${[x, y]}: ${i}${j}, by hand`);
        assertClose(h[i]![j]!, row[j]!, 1e-5, `hessian at ${[x, y]}: ${i}${j}, of the gradient`);
      }
    }
  }
});

test("a local function reading an array parameter: the gradient over the array and the point", async () => {
  const m = await loadProgram<{
    fromArray: (xs: number[], t: number) => number;
    gradientOfFromArray: (xs: number[], t: number) => [number[], number];
    differentialOfFromArray: (xs: number[], t: number) => (dxs: number[], dt: number) => number;
  }>({ "main.ts": PLAIN });
  const xs = [0.6, -1.2, 0.9];
  const t = 0.45;
  const g = (s: number) => xs[0]! * s + xs[1]! * Math.sin(s * xs[2]!);
  assertClose(
    m.fromArray(xs, t),
    centralDifference((s) => g(s) * g(s), t),
    1e-6,
    "value",
  );
  const flat = (...v: number[]) => m.fromArray(v.slice(0, 3), v[3]!);
  const expected = finiteGradient(flat, [...xs, t]);
  const [gxs, gt] = m.gradientOfFromArray(xs, t);
  const reverse = [...gxs, gt];
  reverse.forEach((r, i) => {
    assertClose(r, expected[i]!, 1e-5, `∂/∂x${i}, finite differences`);
    const basis = [0, 0, 0, 0];
    basis[i] = 1;
    const forward = m.differentialOfFromArray(xs, t)(basis.slice(0, 3), basis[3]!);
    assertClose(r, forward, 1e-10, `∂/∂x${i}, forward mode`);
  });
});

function diagnose(source: string): string {
  return diagnosticsText(compileFiles({ "main.ts": source }));
}

test("a local function held in a 'let' stays refused, naming it", () => {
  assert.equal(
    diagnose(`import { derivative } from "nabla";
export function f(a: number, t: number): number {
  let g = (s: number) => a * s * s;
  if (t > 5) g = (s: number) => s;
  return derivative((s: number) => 2 * g(s))(t);
}
`),
    `main.ts:3:7: error NABLA112: 'g' is a 'let' variable holding a local function, which may change; a function given to an operator can call the enclosing function's local functions declared with 'const' or 'function'
  2 | export function f(a: number, t: number): number {
> 3 |   let g = (s: number) => a * s * s;
    |       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: declare it with 'const'
main.ts:5:10: note: when differentiating the function given to 'derivative'
> 5 |   return derivative((s: number) => 2 * g(s))(t);
    |          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  );
});

test("a name the local function reads, declared again where the operator is called, is refused", () => {
  // The call passes what the lambda reads by name: here 'a' would be the block's.
  assert.equal(
    diagnose(`import { derivative } from "nabla";
export function f(a: number, t: number): number {
  const g = (s: number) => a * s * s * s;
  {
    const a = 10;
    return a * derivative(g)(t);
  }
}
`),
    `main.ts:5:11: error NABLA112: the local function 'g' reads 'a', which this declaration hides where the operator is called; nabla passes what a local function reads by name there
  4 |   {
> 5 |     const a = 10;
    |           ^^^^^^
help: rename one of the two variables named 'a'
main.ts:6:16: note: when differentiating the function given to 'derivative'
> 6 |     return a * derivative(g)(t);
    |                ^^^^^^^^^^^^^

1 error`,
  );
  // A module-level name the local function reads, which a block hides at the call.
  assert.match(
    diagnose(`import { derivative } from "nabla";
const k = 3;
export function f(a: number, t: number): number {
  const g = (s: number) => k * a * s * s;
  if (a > 0) {
    const k = 10;
    return derivative((s: number) => k * g(s))(t);
  }
  return 0;
}
`),
    /^main\.ts:6:11: error NABLA112: the local function 'g' reads 'k', which this declaration hides where the operator is called/,
  );
});

test("a local function stored as a value, or assigning what it reads, stays refused", () => {
  assert.equal(
    diagnose(`import { derivative } from "nabla";
interface Holder {
  fn: (x: number) => number;
}
export function f(a: number, t: number, holder: Holder): number {
  const g = (s: number) => a * s * s * s;
  return derivative((s: number) => {
    holder.fn = g;
    return s;
  })(t);
}
`),
    `main.ts:8:17: error NABLA112: a local or inline function can be called, or passed to a function that calls it, but not stored as a value (in a field, an object or an array) in differentiable code
  7 |   return derivative((s: number) => {
> 8 |     holder.fn = g;
    |                 ^
help: declare it at the top level of a module, taking what it reads from here as parameters, and store that (in a class, a method does this)
main.ts:7:10: note: when differentiating the function given to 'derivative'
> 7 |   return derivative((s: number) => {
    |          ^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  );
  assert.equal(
    diagnose(`import { derivative } from "nabla";
export function f(a: number, t: number): number {
  let total = 0;
  const g = (s: number) => {
    total += s;
    return a * s * s;
  };
  return derivative((s: number) => g(s))(t) + total;
}
`),
    `main.ts:5:5: error NABLA112: cannot assign to 'total', a variable of the enclosing function, from differentiated code (closures that mutate captured variables are not supported yet)
  4 |   const g = (s: number) => {
> 5 |     total += s;
    |     ^^^^^
main.ts:8:10: note: when differentiating the function given to 'derivative'
> 8 |   return derivative((s: number) => g(s))(t) + total;
    |          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  );
});

test("a lambda calling a function parameter and a local function, and a local function of an outer function", async () => {
  const m = await loadProgram<{
    viaParameter: Fn;
    twoLevels: Fn;
    inLoop: number[];
    g: Record<string, (...xs: number[]) => number[]>;
    d: Record<string, Differential>;
  }>({
    "main.ts": `import { derivative, differential, gradient } from "nabla";
function solve(fn: (x: number) => number, a: number, t: number): number {
  const g = (s: number) => a * s * s;
  return derivative((s: number) => fn(s) * g(s))(t);
}
function cube(x: number): number {
  return x * x * x;
}
export function viaParameter(a: number, t: number): number {
  return solve(cube, a, t);
}
export function twoLevels(a: number, t: number): number {
  const g = (s: number) => a * s * s;
  function middle(u: number): number {
    const h = (v: number) => g(v) + u * v;
    return derivative((s: number) => h(s) * s)(u);
  }
  return middle(t);
}
export const inLoop: number[] = [];
for (const c of [1, 2]) {
  const g = (s: number) => c * s * s;
  inLoop.push(derivative((s: number) => g(s) * s)(2));
}
export const g = { viaParameter: gradient(viaParameter), twoLevels: gradient(twoLevels) };
export const d = { viaParameter: differential(viaParameter), twoLevels: differential(twoLevels) };
`,
  });
  const reference: Record<string, (a: number, t: number) => number> = {
    viaParameter: (a, t) => centralDifference((s) => s ** 3 * a * s * s, t),
    twoLevels: (a, t) => centralDifference((s) => (a * s * s + t * s) * s, t),
  };
  for (const name of ["viaParameter", "twoLevels"] as const) {
    for (const args of POINTS) {
      assertClose(m[name](...args), reference[name]!(args[0]!, args[1]!), 1e-6, `${name}: value`);
      const expected = finiteGradient(m[name], args);
      m.g[name]!(...args).forEach((gi, i) => {
        assertClose(gi, expected[i]!, 1e-5, `${name} at ${args}: ∂/∂x${i}, finite differences`);
        const basis = args.map((_, j) => (j === i ? 1 : 0));
        const forward = m.d[name]!(...args)(...basis);
        assertClose(gi, forward, 1e-10, `${name} at ${args}: ∂/∂x${i}, forward mode`);
      });
    }
  }
  // d/ds c·s³ at 2 = 12c, for c read by a loop at module level.
  m.inLoop.forEach((v, i) => assertClose(v, 12 * (i + 1), 1e-12, `inLoop[${i}]`));
});
