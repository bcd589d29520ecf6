import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import {
  REPO_ROOT,
  assertClose,
  centralDifference,
  compileFiles,
  diagnosticsText,
  loadProgram,
  writeProgram,
} from "./support/harness.js";

// Derivatives attached to function values in plain code (resolve/attachments.ts): a solver
// that applies an operator to a lambda calling its function-typed parameter
// (`derivative(along)(p[i])` in `fgrad(f, p)`) gets that derivative compiled at each call that
// passes a known function, attached to the value passed; lambdas passed on inside such a solver
// forward what their caller attached (`negGrad(f) → fgrad((x) => -s * f(x))`); the same
// solvers differentiated from the outside (nested); captured `const` choices of top-level
// functions returning objects; inner gradients with respect to an object of numbers; the
// run-time error of a function value without derivatives; and two programs sharing a module
// in one process through the loader. Every derivative is checked against central finite
// differences of the compiled primal and against the other mode (forward against reverse).

type Vector = (...args: unknown[]) => number[];

/** Gradient of `f` at `p` by central differences. */
function finiteGradient(f: (p: number[]) => number, p: number[]): number[] {
  return p.map((x, i) => centralDifference((t) => f(p.map((v, j) => (j === i ? t : v))), x));
}

/** Element-wise assertClose, with matching lengths. */
function assertAllClose(actual: number[], expected: number[], tolerance: number, what: string) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  actual.forEach((a, i) => assertClose(a, expected[i]!, tolerance, `${what}[${i}]`));
}

// ---------------------------------------------------------------------------------------------
// Solvers applying operators to lambdas that call their function parameter, in a module of
// their own; call sites in main.ts pass a top-level function, an arrow capturing locals, and a
// local closure capturing an array and a number.

const SOLVERS = `import {
  derivative,
  differential,
  gradient,
  pullback,
  valueWithDerivative,
  valueWithGradient,
} from "nabla";

export type F = (x: number[]) => number;

/** The function's value, through a plain call: the compiled primal finite differences use. */
export function value(f: F, p: number[], _s: number): number[] {
  return [f(p)];
}

/** Forward mode: derivative of a local closure along each coordinate. */
export function forwardLocal(f: F, p: number[], _s: number): number[] {
  const g: number[] = [];
  for (let i = 0; i < p.length; i++) {
    const along = (t: number): number => {
      const q = p.slice();
      q[i] = t;
      return f(q);
    };
    g.push(derivative(along)(p[i]));
  }
  return g;
}

/** Forward mode: an arrow written at the operator. */
export function forwardInline(f: F, p: number[], _s: number): number[] {
  const g: number[] = [];
  for (let i = 0; i < p.length; i++) {
    g.push(
      derivative((t: number) => {
        const q = p.slice();
        q[i] = t;
        return f(q);
      })(p[i]),
    );
  }
  return g;
}

/** Reverse mode on the same closure along each coordinate. */
export function reverseAlong(f: F, p: number[], _s: number): number[] {
  const g: number[] = [];
  for (let i = 0; i < p.length; i++) {
    const along = (t: number): number => {
      const q = p.slice();
      q[i] = t;
      return f(q);
    };
    g.push(gradient(along)(p[i]));
  }
  return g;
}

/** Reverse mode: gradient of an arrow over the whole point. */
export function reverse(f: F, p: number[], _s: number): number[] {
  return gradient((q: number[]) => f(q))(p);
}

/** [value, ...gradient] of s·f. */
export function withGradient(f: F, p: number[], s: number): number[] {
  const r = valueWithGradient((q: number[]) => s * f(q))(p);
  return [r.value, ...r.gradient];
}

/** [value, derivative] along each coordinate in turn. */
export function withDerivative(f: F, p: number[], _s: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < p.length; i++) {
    const r = valueWithDerivative((t: number) => {
      const q = p.slice();
      q[i] = t;
      return f(q);
    })(p[i]);
    out.push(r.value, r.derivative);
  }
  return out;
}

/** The differential along each basis vector. */
export function jvp(f: F, p: number[], _s: number): number[] {
  const df = differential((q: number[]) => f(q))(p);
  const out: number[] = [];
  for (let i = 0; i < p.length; i++) {
    const e = p.map(() => 0);
    e[i] = 1;
    out.push(df(e));
  }
  return out;
}

/** The pullback of the seed s. */
export function vjp(f: F, p: number[], s: number): number[] {
  return pullback((q: number[]) => f(q))(p)(s);
}

/**
 * '{ wrt }' on lambdas of (u, q) calling f, u·f(q) + u²: [∂/∂u, ...∂/∂q, the same from
 * wrt [0, 1], ∂/∂u in forward mode]. One lambda per option: see the todo test at the end.
 */
export function wrtOptions(f: F, p: number[], s: number): number[] {
  const da = gradient((u: number, q: number[]) => u * f(q) + u * u, { wrt: 0 })(s, p);
  const dq = gradient((u: number, q: number[]) => u * f(q) + u * u, { wrt: 1 })(s, p);
  const both = gradient((u: number, q: number[]) => u * f(q) + u * u, { wrt: [0, 1] })(s, p);
  const forward = differential((u: number, q: number[]) => u * f(q) + u * u, { wrt: 0 })(s, p)(1);
  return [da, ...dq, both[0], ...both[1], forward];
}

/**
 * A closure capturing the loop index, two arrays and a number besides f: mode 0 gives its
 * values at p[i] + h, 1 its derivatives, 2 its gradients (reverse).
 */
export function weighted(f: F, p: number[], w: number[], mode: number, h: number): number[] {
  const out: number[] = [];
  const n: number = p.length;
  for (let i = 0; i < n; i++) {
    const along = (t: number): number => {
      const q = p.slice();
      q[i] = t * (1 + w[i]);
      return n * f(q) + w[i] * t * t + i * t;
    };
    if (mode === 0) out.push(along(p[i] + h));
    else if (mode === 1) out.push(derivative(along)(p[i]));
    else out.push(gradient(along)(p[i]));
  }
  return out;
}
`;

const OPERATOR_SOLVERS = [
  "value",
  "forwardLocal",
  "forwardInline",
  "reverseAlong",
  "reverse",
  "withGradient",
  "withDerivative",
  "jvp",
  "vjp",
  "wrtOptions",
] as const;

const INLINE = "Math.sin(a * x[0]) * x[1] + a * x[1] ** 3 + x[0] * x[0]";

/** How each kind of function is written at the call: parameters, statements, argument. */
const KINDS = {
  named: { params: "_a: number, ", pre: "", arg: "rosen" },
  inline: { params: "a: number, ", pre: "", arg: `(x) => ${INLINE}` },
  local: {
    params: "a: number, ",
    pre: `const c = [a, 2 * a];
  const h = (x: number[]): number => c[0] * x[0] * x[0] + c[1] * Math.exp(x[1] * x[0]) + Math.sin(a * x[1]);
  `,
    arg: "h",
  },
};
type Kind = keyof typeof KINDS;

const MAIN = `import { ${OPERATOR_SOLVERS.join(", ")}, weighted } from "./solvers.js";

function rosen(x: number[]): number {
  return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] * x[0]) ** 2;
}
${Object.entries(KINDS)
  .flatMap(([kind, { params, pre, arg }]) => [
    ...OPERATOR_SOLVERS.map(
      (solver) => `
export function ${kind}_${solver}(${params}p: number[], s: number): number[] {
  ${pre}return ${solver}(${arg}, p, s);
}`,
    ),
    `
export function ${kind}_weighted(${params}p: number[], w: number[], mode: number, step: number): number[] {
  ${pre}return weighted(${arg}, p, w, mode, step);
}`,
  ])
  .join("\n")}
`;

type Main = Record<string, Vector>;

let mainProgram: Promise<Main> | undefined;
function main(): Promise<Main> {
  mainProgram ??= loadProgram<Main>({ "solvers.ts": SOLVERS, "main.ts": MAIN });
  return mainProgram;
}

/** Points (a, p) each kind is checked at. */
const POINTS: [number, number[]][] = [
  [1.3, [0.3, 0.7]],
  [-0.6, [1.1, -0.4]],
];

for (const kind of Object.keys(KINDS) as Kind[]) {
  test(`derivative(along) of a lambda calling a function parameter, given ${kind === "named" ? "a top-level function" : kind === "inline" ? "an arrow capturing a local" : "a local closure capturing an array"}: every operator`, async () => {
    const m = await main();
    const call = (solver: string, a: number, p: number[], s = 1) =>
      m[`${kind}_${solver}`]!(a, p, s);
    for (const [a, p] of POINTS) {
      const at = `${kind} at a = ${a}, p = [${p}]`;
      const [f] = call("value", a, p);
      const finite = finiteGradient((q) => call("value", a, q)[0]!, p);
      const forward = call("forwardLocal", a, p);
      // Forward mode against finite differences of the compiled primal; everything else
      // against forward mode, to rounding.
      assertAllClose(forward, finite, 1e-6, `${at}: forwardLocal vs finite differences`);
      const reverse = call("reverse", a, p);
      assertAllClose(reverse, finite, 1e-6, `${at}: reverse vs finite differences`);
      assertAllClose(reverse, forward, 1e-11, `${at}: reverse vs forward`);
      assertAllClose(call("forwardInline", a, p), forward, 1e-11, `${at}: forwardInline`);
      assertAllClose(call("reverseAlong", a, p), forward, 1e-11, `${at}: reverseAlong`);
      assertAllClose(call("jvp", a, p), forward, 1e-11, `${at}: differential`);
      const s = 2.5;
      const scaled = forward.map((g) => s * g);
      assertAllClose(call("vjp", a, p, s), scaled, 1e-11, `${at}: pullback of ${s}`);
      assertAllClose(call("withGradient", a, p, s), [s * f!, ...scaled], 1e-11, `${at}: vwg`);
      assertAllClose(
        call("withDerivative", a, p),
        forward.flatMap((g) => [f!, g]),
        1e-11,
        `${at}: valueWithDerivative`,
      );
      // h(a, q) = a·f(q) + a²: ∂/∂a = f + 2a (also by finite differences of the primal),
      // ∂/∂q = a·∇f.
      const da = centralDifference((t) => t * call("value", a, p)[0]! + t * t, s);
      assertClose(da, f! + 2 * s, 1e-6, `${at}: ∂h/∂a by finite differences`);
      assertAllClose(
        call("wrtOptions", a, p, s),
        [f! + 2 * s, ...scaled, f! + 2 * s, ...scaled, f! + 2 * s],
        1e-11,
        `${at}: { wrt }`,
      );
    }
  });
}

test("a lambda capturing the loop index and arrays besides the function parameter", async () => {
  const m = await main();
  const w = [0.5, -0.25];
  for (const kind of Object.keys(KINDS) as Kind[]) {
    const run = (a: number, p: number[], mode: number, step = 0) =>
      m[`${kind}_weighted`]!(a, p, w, mode, step);
    for (const [a, p] of POINTS) {
      const at = `${kind} at a = ${a}, p = [${p}]`;
      const h = 1e-6;
      const plus = run(a, p, 0, h);
      const minus = run(a, p, 0, -h);
      const finite = plus.map((v, i) => (v - minus[i]!) / (2 * h));
      const forward = run(a, p, 1);
      assertAllClose(forward, finite, 1e-6, `${at}: derivative vs finite differences`);
      assertAllClose(run(a, p, 2), forward, 1e-11, `${at}: gradient vs derivative`);
      // The chain rule by hand, from the gradient of f at the scaled point (named: Rosenbrock).
      if (kind === "named") {
        p.forEach((pi, i) => {
          const q = p.slice();
          q[i] = pi * (1 + w[i]!);
          const df =
            i === 0
              ? -2 * (1 - q[0]!) - 400 * q[0]! * (q[1]! - q[0]! ** 2)
              : 200 * (q[1]! - q[0]! ** 2);
          const expected = 2 * (1 + w[i]!) * df + 2 * w[i]! * pi + i;
          assertClose(forward[i]!, expected, 1e-11, `${at}: chain rule [${i}]`);
        });
      }
    }
  }
});

// ---------------------------------------------------------------------------------------------
// Forwarding: functions passing their own function parameter on inside a lambda, one and two
// levels deep, through a local closure, and mixed with plain pass-through. `solve(f, p, mode)`
// gives f's value (mode 0), its gradient in forward mode (1) or in reverse mode (2), so the
// value goes through the very lambdas the derivatives do.

const FORWARDING = `import { derivative, gradient } from "nabla";

type F = (x: number[]) => number;

function solve(f: F, p: number[], mode: number): number[] {
  if (mode === 0) return [f(p)];
  if (mode === 2) return gradient((q: number[]) => f(q))(p);
  const g: number[] = [];
  for (let i = 0; i < p.length; i++) {
    const along = (t: number): number => {
      const q = p.slice();
      q[i] = t;
      return f(q);
    };
    g.push(derivative(along)(p[i]));
  }
  return g;
}

/** One level: -s·f. */
function negGrad(f: F, p: number[], s: number, mode: number): number[] {
  return solve((x) => -s * f(x), p, mode);
}

/** One level through a local closure: s·f(x)² + s. */
function squared(f: F, p: number[], s: number, mode: number): number[] {
  const sq = (x: number[]): number => s * f(x) ** 2 + s;
  return solve(sq, p, mode);
}

/** Two levels, each lambda with captures of its own: (m·f(y + shift) + k₁·(y₀ + shift₀))². */
function outerA(f: F, p: number[], k: number[], mode: number): number[] {
  const m: number = k[0];
  return middleB((x) => m * f(x) + k[1] * x[0], p, mode);
}
function middleB(g: F, p: number[], mode: number): number[] {
  const shift = [0.5, -0.25];
  return solve((y) => g([y[0] + shift[0], y[1] + shift[1]]) ** 2, p, mode);
}

/** Plain pass-through, then forwarding: as gd.ts's multivariateMax → Argmax → Argmin. */
function passThenForward(f: F, p: number[], mode: number): number[] {
  return negGrad(f, p, 1, mode);
}
function forwardThenPass(f: F, p: number[], mode: number): number[] {
  return relay((x) => 3 * f(x), p, mode);
}
function relay(f: F, p: number[], mode: number): number[] {
  return solve(f, p, mode);
}

function rosen(x: number[]): number {
  return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] * x[0]) ** 2;
}

/** Every case at once, for each function passed (named, an arrow capturing a, a local closure). */
export function cases(a: number, p: number[], mode: number): number[][] {
  const c = [a, 1 - a];
  const local = (x: number[]): number => c[0] * Math.exp(x[0] * x[1]) + c[1] * x[1];
  return [
    negGrad(rosen, p, 2, mode),
    negGrad((x) => a * x[0] * x[1] ** 3 + Math.cos(x[0]), p, 3, mode),
    negGrad(local, p, 0.5, mode),
    squared(rosen, p, 0.1, mode),
    squared((x) => Math.sin(a * x[0]) + x[1], p, 2, mode),
    outerA(rosen, p, [a, 2], mode),
    outerA((x) => Math.exp(a * x[0]) + x[1] * x[0], p, [a, -1], mode),
    outerA(local, p, [2, a], mode),
    passThenForward(rosen, p, mode),
    passThenForward((x) => a * x[0] ** 2 * x[1], p, mode),
    forwardThenPass(local, p, mode),
    forwardThenPass((x) => a * x[1] ** 2 - x[0], p, mode),
  ];
}
`;

test("forwarding: a function passing its parameter on inside a lambda, one and two levels deep", async () => {
  const m = await loadProgram<{ cases: (a: number, p: number[], mode: number) => number[][] }>({
    "main.ts": FORWARDING,
  });
  for (const [a, p] of POINTS) {
    const forward = m.cases(a, p, 1);
    const reverse = m.cases(a, p, 2);
    assert.equal(forward.length, 12);
    forward.forEach((g, k) => {
      const at = `case ${k} at a = ${a}, p = [${p}]`;
      const finite = finiteGradient((q) => m.cases(a, q, 0)[k]![0]!, p);
      assertAllClose(g, finite, 1e-6, `${at}: forward vs finite differences`);
      assertAllClose(reverse[k]!, g, 1e-11, `${at}: reverse vs forward`);
    });
    // Closed forms for the named function: -2∇rosen, and 2·0.1·rosen·∇rosen.
    const [x, y] = p as [number, number];
    const rosen = (1 - x) ** 2 + 100 * (y - x * x) ** 2;
    const grad = [-2 * (1 - x) - 400 * x * (y - x * x), 200 * (y - x * x)];
    assertAllClose(forward[0]!, [-2 * grad[0]!, -2 * grad[1]!], 1e-11, "-2∇rosen");
    assertAllClose(forward[3]!, [0.2 * rosen * grad[0]!, 0.2 * rosen * grad[1]!], 1e-11, "sq");
    assertAllClose(forward[8]!, [-grad[0]!, -grad[1]!], 1e-11, "-∇rosen");
  }
});

// ---------------------------------------------------------------------------------------------
// The GradBench gradient-descent solver (a copy of gradbench/evals/gd.ts): the forward branch
// differentiates a local closure calling f, the reverse branch takes gradient(f), and
// multivariateMax → multivariateArgmax → multivariateArgmin((x) => -f(x)) mixes pass-through
// and forwarding. A saddle point (min over p1 of max over p2) differentiates through the inner
// descent from the outside: derivative(along) inside specialized code, nested.

const GD = `import { derivative, gradient } from "nabla";

export type Mode = "forward" | "reverse";

function magnitude(v: number[]): number {
  let sum = 0;
  for (const x of v) sum += x * x;
  return Math.sqrt(sum);
}

function distance(u: number[], v: number[]): number {
  let sum = 0;
  for (let i = 0; i < u.length; i++) sum += (u[i] - v[i]) * (u[i] - v[i]);
  return Math.sqrt(sum);
}

export function multivariateArgmin(f: (x: number[]) => number, start: number[], mode: Mode): number[] {
  const grad = (p: number[]): number[] => {
    if (mode === "reverse") return gradient(f)(p);
    const g: number[] = [];
    for (let i = 0; i < p.length; i++) {
      const along = (t: number): number => {
        const q = p.slice();
        q[i] = t;
        return f(q);
      };
      g.push(derivative(along)(p[i]));
    }
    return g;
  };
  let x = start.slice();
  let fx = f(x);
  let gx = grad(x);
  let i = 0;
  let eta = 1e-5;
  while (true) {
    if (magnitude(gx) <= 1e-5) return x;
    if (i === 10) {
      eta *= 2;
      i = 0;
      continue;
    }
    const xPrime = x.map((xj, j) => xj - eta * gx[j]);
    if (distance(x, xPrime) <= 1e-5) return x;
    const fxPrime = f(xPrime);
    if (fxPrime < fx) {
      x = xPrime;
      fx = fxPrime;
      gx = grad(x);
      i++;
    } else {
      eta /= 2;
      i = 0;
    }
  }
}

export function multivariateArgmax(f: (x: number[]) => number, start: number[], mode: Mode): number[] {
  return multivariateArgmin((x) => -f(x), start, mode);
}

export function multivariateMax(f: (x: number[]) => number, start: number[], mode: Mode): number {
  return f(multivariateArgmax(f, start, mode));
}
`;

const SADDLE = `import { gradient, differential } from "nabla";
import { multivariateArgmax, multivariateArgmin, multivariateMax, type Mode } from "./gd.js";

/** 10·((p1₀ - 1)² + (p1₁ + ½)² - (p2₀ - c)² - p2₁² + 0.4·p1₀·p2₁) */
function objective(p1: number[], p2: number[], c: number): number {
  return 10 * ((p1[0] - 1) ** 2 + (p1[1] + 0.5) ** 2 - (p2[0] - c) ** 2 - p2[1] ** 2 + 0.4 * p1[0] * p2[1]);
}

export function saddlePoint(start: number[], c: number, outer: Mode, inner: Mode): number[] {
  const worstCase = (p1: number[]): number => multivariateMax((p2) => objective(p1, p2, c), start, inner);
  const p1 = multivariateArgmin(worstCase, start, outer);
  const p2 = multivariateArgmax((q) => objective(p1, q, c), start, inner);
  return [...p1, ...p2];
}

/** The inner maximum, differentiated from the outside with respect to p1₀ and c. */
export function worst(u: number, c: number, forwardInner: boolean): number {
  return multivariateMax((p2) => objective([u, 0.2], p2, c), [1, 1], forwardInner ? "forward" : "reverse");
}
export const g = gradient(worst, { wrt: [0, 1] });
export const d = differential(worst, { wrt: [0, 1] });
`;

interface SaddleModule {
  saddlePoint: (start: number[], c: number, outer: string, inner: string) => number[];
  worst: (x: number, c: number, forwardInner: boolean) => number;
  g: (x: number, c: number, forwardInner: boolean) => number[];
  d: (x: number, c: number, forwardInner: boolean) => (dx: number, dc: number) => number;
}

test("gd.ts: argmax → argmin((x) => -f(x)) in both modes, and a saddle point through nested descents", async () => {
  const m = await loadProgram<SaddleModule>({ "gd.ts": GD, "main.ts": SADDLE });
  const c = 0.3;
  // worstCase(p1) = 10((p1₀-1)² + (p1₁+½)² + (0.2·p1₀)²): p1* = (1/1.04, -½), p2* = (c, 0.2·p1₀*).
  const x0 = 1 / 1.04;
  const expected = [x0, -0.5, c, 0.2 * x0];
  const results = [];
  for (const outer of ["forward", "reverse"])
    for (const inner of ["forward", "reverse"]) {
      const point = m.saddlePoint([0.5, 0.5], c, outer, inner);
      assertAllClose(point, expected, 1e-4, `saddle point, ${outer}/${inner}`);
      results.push(point);
    }
  // The four modes take the same steps: their gradients agree to rounding.
  for (const point of results.slice(1)) assertAllClose(point, results[0]!, 1e-9, "modes agree");

  // d/dx, d/dc of the inner maximum: finite differences, forward outer mode, and the envelope
  // theorem (∂objective/∂p1₀ and ∂/∂c at the maximizer p2 = (c, 0.2x)), to its tolerance.
  for (const forwardInner of [true, false]) {
    for (const [x, cc] of [
      [0.8, 0.3],
      [1.5, -0.2],
    ] as const) {
      const at = `worst(${x}, ${cc}), inner ${forwardInner ? "forward" : "reverse"}`;
      const gradient = m.g(x, cc, forwardInner);
      const finite = [
        centralDifference((t) => m.worst(t, cc, forwardInner), x),
        centralDifference((t) => m.worst(x, t, forwardInner), cc),
      ];
      assertAllClose(gradient, finite, 1e-5, `${at}: gradient vs finite differences`);
      const df = m.d(x, cc, forwardInner);
      assertAllClose([df(1, 0), df(0, 1)], gradient, 1e-9, `${at}: forward vs reverse`);
      const p2 = [cc, 0.2 * x];
      const envelope = [10 * (2 * (x - 1) + 0.4 * p2[1]!), 10 * 2 * (p2[0]! - cc)];
      assertAllClose(gradient, envelope, 1e-3, `${at}: envelope theorem`);
    }
  }
});

// ---------------------------------------------------------------------------------------------
// Differentiated from the outside: the hyperparameter of a loss given to fixed-step gradient
// descent, whose gradient comes from derivative(along) (forward), gradient of a lambda
// (reverse), or a forwarding wrapper. Outer reverse and outer forward mode, against finite
// differences of the compiled primal.

const OUTER = `import { derivative, gradient, differential } from "nabla";

type F = (x: number[]) => number;

function grad(f: F, p: number[], mode: number): number[] {
  if (mode === 2) return gradient((q: number[]) => f(q))(p);
  const g: number[] = [];
  for (let i = 0; i < p.length; i++) {
    const along = (t: number): number => {
      const q = p.slice();
      q[i] = t;
      return f(q);
    };
    g.push(derivative(along)(p[i]));
  }
  return g;
}

function descend(f: F, p0: number[], steps: number, rate: number, mode: number): number[] {
  let p = p0.slice();
  for (let s = 0; s < steps; s++) {
    const g = grad(f, p, mode);
    p = p.map((v, i) => v - rate * g[i]);
  }
  return p;
}

/** Descent on -f, through a lambda passed on. */
function ascend(f: F, p0: number[], steps: number, rate: number, mode: number): number[] {
  return descend((x) => -f(x), p0, steps, rate, mode);
}

/** mode 1: inner forward, 2: inner reverse; 3, 4: the same through ascend. */
export function tuned(c: number, k: number, mode: number): number {
  const w = [c, 1 - c];
  const p =
    mode <= 2
      ? descend((q) => (q[0] - c) ** 2 + w[1] * q[1] ** 2 + Math.sin(k * q[0] * q[1]), [1, -0.5], 20, 0.05, mode)
      : ascend((q) => -((q[0] - k) ** 2) - c * q[1] ** 2 + 0.3 * q[0] * q[1], [1, -0.5], 20, 0.1, mode - 2);
  return p[0] * p[0] + 2 * p[1];
}

export const g = gradient(tuned, { wrt: [0, 1] });
export const d = differential(tuned, { wrt: [0, 1] });
`;

test("descent differentiated w.r.t. its loss's hyperparameters: nested through derivative(along)", async () => {
  const m = await loadProgram<{
    tuned: (c: number, k: number, mode: number) => number;
    g: (c: number, k: number, mode: number) => number[];
    d: (c: number, k: number, mode: number) => (dc: number, dk: number) => number;
  }>({ "main.ts": OUTER });
  for (const [c, k] of [
    [0.8, 1.2],
    [0.4, -0.7],
  ] as const) {
    for (const [forward, reverse] of [
      [1, 2],
      [3, 4],
    ] as const) {
      const at = `tuned(${c}, ${k}) modes ${forward}/${reverse}`;
      assertClose(m.tuned(c, k, forward), m.tuned(c, k, reverse), 1e-12, `${at}: primal`);
      const finite = finiteGradient(([cc, kk]) => m.tuned(cc!, kk!, forward), [c, k]);
      for (const mode of [forward, reverse]) {
        const gradient = m.g(c, k, mode);
        assertAllClose(gradient, finite, 1e-6, `${at}: mode ${mode} vs finite differences`);
        const df = m.d(c, k, mode);
        assertAllClose([df(1, 0), df(0, 1)], gradient, 1e-11, `${at}: outer forward vs reverse`);
      }
      assertAllClose(m.g(c, k, reverse), m.g(c, k, forward), 1e-11, `${at}: inner modes`);
    }
  }
});

// ---------------------------------------------------------------------------------------------
// A lambda capturing `const force = c ? spring : swirl` (top-level functions returning a Point)
// passed to a solver that differentiates it, and the same choice differentiated directly.

const FORCES = `import { derivative, gradient, differential } from "nabla";

type F = (x: number[]) => number;

export interface Point {
  x: number;
  y: number;
}

function solve(f: F, p: number[], mode: number): number[] {
  if (mode === 0) return [f(p)];
  if (mode === 2) return gradient((q: number[]) => f(q))(p);
  const g: number[] = [];
  for (let i = 0; i < p.length; i++) {
    const along = (t: number): number => {
      const q = p.slice();
      q[i] = t;
      return f(q);
    };
    g.push(derivative(along)(p[i]));
  }
  return g;
}

function spring(p: Point, k: number): Point {
  return { x: -k * p.x, y: -k * p.y - 0.3 * p.x * p.y };
}
function swirl(p: Point, k: number): Point {
  return { x: k * Math.sin(p.y), y: -k * Math.cos(p.x) * p.x };
}

function simulate(w: number, k: number, force: (p: Point, k: number) => Point): number {
  let x: Point = { x: 1, y: w };
  let v: Point = { x: 0, y: 0.5 };
  for (let i = 0; i < 8; i++) {
    const a = force(x, k);
    x = { x: x.x + 0.1 * v.x, y: x.y + 0.1 * v.y };
    v = { x: v.x + 0.1 * a.x, y: v.y + 0.1 * a.y };
  }
  return x.x * x.x + x.y;
}

export function landing(p: number[], useSpring: boolean, mode: number): number[] {
  const force = useSpring ? spring : swirl;
  return solve((q) => simulate(q[0], q[1], force), p, mode);
}

export function direct(w: number, k: number, useSpring: boolean): number {
  const force = useSpring ? spring : swirl;
  return simulate(w, k, force);
}
export const g = gradient(direct, { wrt: [0, 1] });
export const d = differential(direct, { wrt: [0, 1] });
`;

test("a lambda capturing a const choice of top-level functions returning objects", async () => {
  const m = await loadProgram<{
    landing: (p: number[], useSpring: boolean, mode: number) => number[];
    direct: (w: number, k: number, useSpring: boolean) => number;
    g: (w: number, k: number, useSpring: boolean) => number[];
    d: (w: number, k: number, useSpring: boolean) => (dw: number, dk: number) => number;
  }>({ "main.ts": FORCES });
  for (const p of [
    [0.4, 1.3],
    [-0.2, 0.6],
  ]) {
    const gradients: number[][] = [];
    for (const useSpring of [true, false]) {
      const at = `${useSpring ? "spring" : "swirl"} at [${p}]`;
      const [value] = m.landing(p, useSpring, 0);
      assertClose(value!, m.direct(p[0]!, p[1]!, useSpring), 1e-14, `${at}: primal`);
      const finite = finiteGradient((q) => m.landing(q, useSpring, 0)[0]!, p);
      const forward = m.landing(p, useSpring, 1);
      assertAllClose(forward, finite, 1e-6, `${at}: solver forward vs finite differences`);
      assertAllClose(m.landing(p, useSpring, 2), forward, 1e-11, `${at}: solver reverse`);
      const gradient = m.g(p[0]!, p[1]!, useSpring);
      assertAllClose(gradient, forward, 1e-11, `${at}: gradient(direct)`);
      const df = m.d(p[0]!, p[1]!, useSpring);
      assertAllClose([df(1, 0), df(0, 1)], forward, 1e-11, `${at}: differential(direct)`);
      gradients.push(forward);
    }
    // Each choice has its own derivative.
    assert.notDeepEqual(gradients[0], gradients[1]);
  }
});

// ---------------------------------------------------------------------------------------------
// Inner gradient with respect to an object of numbers inside differentiated code (GradBench
// particle's force), with gradient and valueWithGradient, and the diagnostic for an object
// with a field that is not a number.

const POTENTIAL = `import { derivative, gradient, valueWithGradient, differential } from "nabla";

export interface Point {
  x: number;
  y: number;
}

function potential(charges: Point[], p: Point): number {
  let sum = 0;
  for (const c of charges) sum += 1 / Math.sqrt((c.x - p.x) ** 2 + (c.y - p.y) ** 2);
  return sum;
}

/** -∇p with respect to the point, reverse inside. */
function forceReverse(charges: Point[], p: Point): Point {
  const g = gradient(potential, { wrt: 1 })(charges, p);
  return { x: -g.x, y: -g.y };
}

/** -p·∇p, from valueWithGradient. */
function forceScaled(charges: Point[], p: Point): Point {
  const r = valueWithGradient(potential, { wrt: 1 })(charges, p);
  return { x: -r.gradient.x * r.value, y: -r.gradient.y * r.value };
}

/** -∇p one coordinate at a time, forward inside. */
function forceForward(charges: Point[], p: Point): Point {
  const dx = derivative((t: number) => potential(charges, { x: t, y: p.y }))(p.x);
  const dy = derivative((t: number) => potential(charges, { x: p.x, y: t }))(p.y);
  return { x: -dx, y: -dy };
}

/** which: 0 reverse, 1 forward, 2 scaled. */
export function field(w: number, px: number, py: number, which: number): number {
  const charges: Point[] = [
    { x: 1, y: 2 - w },
    { x: -0.5 * w, y: 0.3 },
  ];
  const p = { x: px, y: py };
  const f =
    which === 0 ? forceReverse(charges, p) : which === 1 ? forceForward(charges, p) : forceScaled(charges, p);
  return f.x + 2 * f.y;
}

/** A few Euler steps of a particle in the field, as GradBench particle. */
export function flight(w: number): number {
  const charges: Point[] = [
    { x: 3, y: 2 - w },
    { x: 2, y: -1 },
  ];
  let x: Point = { x: 0, y: 1 };
  let v: Point = { x: 0.5, y: 0 };
  for (let i = 0; i < 10; i++) {
    const a = forceReverse(charges, x);
    x = { x: x.x + 0.1 * v.x, y: x.y + 0.1 * v.y };
    v = { x: v.x + 0.1 * a.x, y: v.y + 0.1 * a.y };
  }
  return x.x * x.y;
}

export const g = gradient(field, { wrt: [0, 1, 2] });
export const d = differential(field, { wrt: [0, 1, 2] });
export const gFlight = gradient(flight);
export const dFlight = differential(flight);
`;

test("inner gradient with respect to an object of numbers, inside differentiated code", async () => {
  type Field = (w: number, px: number, py: number, which: number) => number;
  const m = await loadProgram<{
    field: Field;
    g: (...args: number[]) => number[];
    d: (...args: number[]) => (...t: number[]) => number;
    flight: (w: number) => number;
    gFlight: (w: number) => number;
    dFlight: (w: number) => (dw: number) => number;
  }>({ "main.ts": POTENTIAL });
  for (const args of [
    [0.7, 0.2, -0.4],
    [-0.3, 1.5, 0.9],
  ]) {
    const [w, px, py] = args as [number, number, number];
    // The inner gradients agree in plain code (reverse, forward, scaled by the value).
    assertClose(m.field(w, px, py, 0), m.field(w, px, py, 1), 1e-12, "plain forces agree");
    for (const which of [0, 1, 2]) {
      const at = `field at [${args}], force ${which}`;
      const gradient = m.g(w, px, py, which);
      const finite = finiteGradient(([a, b, c]) => m.field(a!, b!, c!, which), args);
      assertAllClose(gradient, finite, 1e-6, `${at}: gradient vs finite differences`);
      const df = m.d(w, px, py, which);
      assertAllClose([df(1, 0, 0), df(0, 1, 0), df(0, 0, 1)], gradient, 1e-11, `${at}: forward`);
    }
    // The object inner gradient and the one derivative per coordinate agree.
    assertAllClose(m.g(w, px, py, 0), m.g(w, px, py, 1), 1e-11, "reverse vs forward inside");
  }
  for (const w of [0.3, -0.5]) {
    const finite = centralDifference(m.flight, w);
    assertClose(m.gFlight(w), finite, 1e-6, `flight'(${w}) vs finite differences`);
    assertClose(m.dFlight(w)(1), m.gFlight(w), 1e-11, `flight'(${w}) forward vs reverse`);
  }
});

test("inner gradient with respect to an object with a field that is not a number is NABLA116", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { gradient } from "nabla";

interface Body {
  x: number;
  y: number;
  m: number[];
}
function energy(b: Body): number {
  return b.x * b.y + b.m[0] * b.x;
}
export function pull(a: number): number {
  const g = gradient(energy)({ x: a, y: 1, m: [2] });
  return g.x;
}
export const g = gradient(pull);
`,
    }),
  );
  assert.equal(
    text,
    `main.ts:8:17: error NABLA116: inside differentiable code, 'gradient' differentiates with respect to numbers, one array of numbers or one object of numbers (parameter 'b' is none of these): nabla computes it in forward mode, one direction per number
  7 | }
> 8 | function energy(b: Body): number {
    |                 ^^^^^^^
main.ts:15:18: note: when differentiating 'pull' for 'gradient'
> 15 | export const g = gradient(pull);
     |                  ^^^^^^^^^^^^^^

1 error`,
  );
});

// ---------------------------------------------------------------------------------------------
// A function value without attached derivatives reaching the solver: from code nabla did not
// compile (the test's own arrow), or built in a way nabla does not see as a function
// (`[fn][0]`, `fns[k]`), directly or through a forwarding function.

const UNKNOWN = `import { derivative, gradient } from "nabla";

type F = (x: number[]) => number;

export function fgrad(f: F, p: number[]): number[] {
  const g: number[] = [];
  for (let i = 0; i < p.length; i++) {
    const along = (t: number): number => {
      const q = p.slice();
      q[i] = t;
      return f(q);
    };
    g.push(derivative(along)(p[i]));
  }
  return g;
}
export function rgrad(loss: F, p: number[]): number[] {
  return gradient(loss)(p);
}
export function doubled(h: F, p: number[]): number[] {
  return fgrad((x) => 2 * h(x), p);
}

function bowl(x: number[]): number {
  return x[0] * x[0] + 3 * x[1] * x[1];
}
function cup(x: number[]): number {
  return x[0] * x[1];
}

export function viaArray(p: number[]): number[] {
  return fgrad([bowl][0], p);
}
export function viaTable(p: number[], k: number): number[] {
  const fns = [bowl, cup];
  return rgrad(fns[k], p);
}
export function viaForwarding(p: number[]): number[] {
  const fns = [cup];
  return doubled(fns[0], p);
}
`;

test("a function value without attached derivatives: the TypeError names the parameter and the key", async () => {
  const files = { "main.ts": UNKNOWN };
  const warnings = diagnosticsText(compileFiles(files));
  // Where the function passed cannot be seen, compiling warns (the derivative is optional).
  assert.match(
    warnings,
    /main\.ts:32:16: warning NABLA108: 'derivative' needs a function whose source nabla can see/,
  );
  assert.match(warnings, /main\.ts:36:16: warning NABLA108: 'gradient' needs a function/);
  assert.doesNotMatch(warnings, /error/);

  type Solver = (f: (x: number[]) => number, p: number[]) => number[];
  const m = await loadProgram<{
    fgrad: Solver;
    rgrad: Solver;
    doubled: Solver;
    viaArray: (p: number[]) => number[];
    viaTable: (p: number[], k: number) => number[];
    viaForwarding: (p: number[]) => number[];
  }>(files);
  const lambdaKey =
    /a derivative of a function calling 'f' \(derivative\(main\.ts:8:19, wrt 0\)\) is needed, and this function value has none/;
  const valueKey =
    /'gradient\(loss\)' needs the derivative of the function passed as 'loss', and this function value has none/;
  const bowl = (x: number[]) => x[0]! * x[0]! + 3 * x[1]! * x[1]!;
  assert.throws(() => m.fgrad(bowl, [1, 2]), { name: "TypeError", message: lambdaKey });
  assert.throws(() => m.rgrad(bowl, [1, 2]), { name: "TypeError", message: valueKey });
  assert.throws(() => m.doubled(bowl, [1, 2]), { name: "TypeError", message: lambdaKey });
  assert.throws(() => m.viaArray([1, 2]), { name: "TypeError", message: lambdaKey });
  assert.throws(() => m.viaTable([1, 2], 1), { name: "TypeError", message: valueKey });
  assert.throws(() => m.viaForwarding([1, 2]), { name: "TypeError", message: lambdaKey });
});

// ---------------------------------------------------------------------------------------------
// The loader: two programs started in one process by dynamic imports, sharing a solver module
// (and a module between them and it) where each needs derivatives of its own, as GradBench's
// particle and saddle share gd.ts; in either order, and again from the disk cache.

const REGISTER = join(REPO_ROOT, "dist/src/register/index.js");

const LOADER_FILES = {
  "package.json": '{ "type": "module" }\n',
  "shared.ts": `import { derivative, gradient } from "nabla";

export type F = (x: number[]) => number;

export function fgrad(f: F, p: number[], forward: boolean): number[] {
  if (!forward) return gradient((q: number[]) => f(q))(p);
  const g: number[] = [];
  for (let i = 0; i < p.length; i++) {
    const along = (t: number): number => {
      const q = p.slice();
      q[i] = t;
      return f(q);
    };
    g.push(derivative(along)(p[i]));
  }
  return g;
}

export function descend(f: F, p0: number[], steps: number, forward: boolean): number[] {
  let p = p0.slice();
  for (let s = 0; s < steps; s++) {
    const g = fgrad(f, p, forward);
    p = p.map((v, i) => v - 0.1 * g[i]);
  }
  return p;
}
`,
  "middle.ts": `import { descend, type F } from "./shared.js";

export function ascend(f: F, p0: number[], steps: number, forward: boolean): number[] {
  return descend((x) => -f(x), p0, steps, forward);
}
`,
  // Plain runs: derivatives attached to a top-level function and to an arrow.
  "a.ts": `import { fgrad } from "./shared.js";
import { ascend } from "./middle.js";

function bowl(x: number[]): number {
  return x[0] * x[0] + 3 * x[1] * x[1];
}

export function run(): number[] {
  const a = 3;
  return [
    ...fgrad(bowl, [1, 2], true),
    ...fgrad((x) => Math.sin(a * x[0]) * x[1], [0.5, 2], false),
    ...ascend((x) => -bowl(x), [1, 1], 5, true),
  ];
}
`,
  // Differentiated from the outside: specializations emitted in shared.ts and middle.ts.
  "b.ts": `import { gradient, differential } from "nabla";
import { descend } from "./shared.js";
import { ascend } from "./middle.js";

export function tuned(c: number, forward: boolean): number {
  const p = descend((q) => (q[0] - c) ** 2 + c * q[1] ** 2, [1, 1], 5, forward);
  const r = ascend((q) => -c * q[0] ** 2, [1, 1], 3, forward);
  return p[0] * p[1] + r[0];
}
const g = gradient(tuned, { wrt: 0 });
const d = differential(tuned, { wrt: 0 });

export function run(): number[] {
  const out: number[] = [];
  for (const forward of [true, false]) {
    const h = 1e-6;
    out.push(tuned(0.7, forward), g(0.7, forward), d(0.7, forward)(1));
    out.push((tuned(0.7 + h, forward) - tuned(0.7 - h, forward)) / (2 * h));
  }
  return out;
}
`,
  "launch.mjs": `for (const name of process.argv.slice(2)) {
  const m = await import("./" + name + ".ts");
  console.log(name + " " + JSON.stringify(m.run()));
}
`,
};

/** What a.ts computes, by hand. */
function expectedA(): number[] {
  // descend on bowl, 0.1·∇bowl = (0.2x, 0.6y) per step: x·0.8⁵, y·0.4⁵.
  return [2, 12, 3 * Math.cos(1.5) * 2, Math.sin(1.5), 0.8 ** 5, 0.4 ** 5];
}

/** Checks b.ts's output: [tuned, g, d, finite] for forward, then for reverse. */
function checkB(values: number[], what: string): void {
  assert.equal(values.length, 8, what);
  for (const k of [0, 4]) {
    const [value, g, d, finite] = values.slice(k, k + 4) as [number, number, number, number];
    assertClose(value, values[0]!, 1e-12, `${what}: tuned`);
    assertClose(g, finite, 1e-6, `${what}: gradient vs finite differences`);
    assertClose(d, g, 1e-11, `${what}: differential vs gradient`);
    assertClose(g, values[1]!, 1e-11, `${what}: inner forward vs reverse`);
  }
}

function launch(dir: string, order: string[], env: Record<string, string>) {
  const run = spawnSync(process.execPath, ["--import", REGISTER, "launch.mjs", ...order], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  assert.equal(run.stderr, "", `${order}: stderr`);
  assert.equal(run.status, 0);
  const lines = run.stdout.trim().split("\n");
  assert.deepEqual(
    lines.map((l) => l.split(" ")[0]),
    order,
  );
  return Object.fromEntries(
    lines.map((l) => [l.split(" ")[0]!, JSON.parse(l.slice(l.indexOf(" ") + 1)) as number[]]),
  );
}

test("the loader: two programs sharing a module that needs different derivatives, in either order", () => {
  const dir = writeProgram(LOADER_FILES);
  const cache = writeProgram({});
  const expected = expectedA();
  const runs = [];
  const envs: Record<string, string>[] = [
    { NABLA_CACHE: "0" },
    { NABLA_CACHE_DIR: cache },
    { NABLA_CACHE_DIR: cache },
  ];
  for (const env of envs) {
    for (const order of [
      ["a", "b"],
      ["b", "a"],
    ]) {
      const out = launch(dir, order, env);
      const what = `${order.join(" then ")} (${JSON.stringify(env)})`;
      assertAllClose(out.a!, expected, 1e-12, `${what}: a`);
      checkB(out.b!, `${what}: b`);
      runs.push(out);
    }
  }
  // Every run, compiled or cached, in either order, computes the same.
  for (const out of runs.slice(1)) {
    assertAllClose(out.a!, runs[0]!.a!, 0, "a across runs");
    assertAllClose(out.b!, runs[0]!.b!, 0, "b across runs");
  }
});

// ---------------------------------------------------------------------------------------------
// Bugs found by these tests, fixed since.

test("one lambda given to the same operator with different '{ wrt }' options", async () => {
  const m = await loadProgram<{ run: (s: number, x: number) => number[] }>({
    "main.ts": `import { gradient } from "nabla";
function solver(f: (x: number) => number, s: number, x: number): number[] {
  const h = (a: number, t: number): number => a * f(t);
  const da = gradient(h, { wrt: 0 })(s, x);
  const dt = gradient(h, { wrt: 1 })(s, x);
  return [da, dt];
}
function sq(x: number): number {
  return x * x;
}
export function run(s: number, x: number): number[] {
  return solver(sq, s, x);
}
`,
  });
  // h(a, t) = a·t²: ∂/∂a = t² = 9, ∂/∂t = 2at = 12.
  assert.deepEqual(m.run(2, 3), [9, 12]);
});

test("a capture at the call named like the parameter of the solver's lambda", async () => {
  const m = await loadProgram<{ k: (q: number) => number[] }>({
    "main.ts": `import { gradient } from "nabla";
function g2(f: (x: number[]) => number, p: number[]): number[] {
  return gradient((q: number[]) => f(q))(p);
}
export function k(q: number): number[] {
  return g2((p) => q * p[0] * p[0], [3]);
}
`,
  });
  assert.deepEqual(m.k(2), [12]);
});

test("forwarding through a conditional: solve(flip ? (x) => -f(x) : f, p)", async () => {
  const m = await loadProgram<{ run: (p: number[], flip: boolean) => number[] }>({
    "main.ts": `import { derivative } from "nabla";
type F = (x: number[]) => number;
function fgrad(f: F, p: number[]): number[] {
  const g: number[] = [];
  for (let i = 0; i < p.length; i++) {
    const along = (t: number): number => {
      const q = p.slice();
      q[i] = t;
      return f(q);
    };
    g.push(derivative(along)(p[i]));
  }
  return g;
}
function maybeNeg(f: F, p: number[], flip: boolean): number[] {
  return fgrad(flip ? (x) => -f(x) : f, p);
}
function cup(x: number[]): number {
  return x[0] * x[1];
}
export function run(p: number[], flip: boolean): number[] {
  return maybeNeg(cup, p, flip);
}
`,
  });
  assert.deepEqual(m.run([1, 2], false), [2, 1]);
  assert.deepEqual(m.run([1, 2], true), [-2, -1]);
});

test("a capture of unknown type in a forwarded lambda is NABLA103, as in any lambda", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { derivative } from "nabla";
function d(f: (x: number) => number, x: number): number {
  return derivative((t: number) => f(t))(x);
}
function fwd(f: (x: number) => number, k: number[], x: number): number {
  const m = JSON.parse(String(k[0]));
  return d((y) => m * f(y), x);
}
function sq(x: number): number {
  return x * x;
}
export const r = fwd(sq, [2], 3);
`,
    }),
  );
  assert.match(text, /main\.ts:6:9: warning NABLA103: cannot determine the type of 'm'/);
});
