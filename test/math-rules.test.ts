import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  assertClose,
  compileFiles,
  diagnosticsText,
  loadProgram,
  type Differential,
  type Fn,
  type ValueWithDerivative,
  type ValueWithDifferential,
} from "./support/harness.js";

// The derivative rule of every Math function, checked against central finite differences at
// random points (fast-check), near the edges of each domain, and against the conventions of
// src/compiler/rules/math.ts where the derivative does not exist. One program holds every
// derivative, so it is compiled once.

// Show the failing assertion's message along with the counterexample.
fc.configureGlobal({ includeErrorInReport: true });

const RUNS = 300;

// ---------------------------------------------------------------------------------------------
// Finite differences

/** A finite-difference estimate and a bound on its rounding error. */
interface Estimate {
  value: number;
  noise: number;
}

/**
 * Central difference of f at x with step about h. The step actually taken is the distance
 * between the two evaluation points as stored, so the rounding of x ± h does not bias it.
 */
function centralDiff(f: (x: number) => number, x: number, h: number): Estimate {
  const hi = x + h;
  const lo = x - h;
  const [fHi, fLo] = [f(hi), f(lo)];
  // Each value is off by a few ulps; divided by the step, that is the estimate's noise.
  return {
    value: (fHi - fLo) / (hi - lo),
    noise: (8 * Number.EPSILON * Math.max(Math.abs(fHi), Math.abs(fLo))) / (hi - lo),
  };
}

/** Throws unless actual matches the estimate to a relative tolerance, beyond its noise. */
function assertMatchesFd(actual: number, fd: Estimate, tolerance: number, what: string): void {
  const allowed = tolerance * Math.max(1, Math.abs(actual), Math.abs(fd.value)) + fd.noise;
  if (!(Math.abs(actual - fd.value) <= allowed)) {
    throw new Error(`${what}: finite differences give ${fd.value} (±${fd.noise}), got ${actual}`);
  }
}

/**
 * A step for a central difference at x: small relative to x, and a thousandth of the
 * distance to the nearest point where f stops being smooth, so both evaluation points stay
 * inside the domain and truncation error stays about 1e-6 relative.
 */
function stepAt(x: number, margin = Infinity): number {
  return Math.min(1e-5 * Math.max(1, Math.abs(x)), margin * 1e-3);
}

/** Directional finite difference of f at xs along v. */
function directionalDiff(f: Fn, xs: number[], v: number[], h: number): Estimate {
  const along = (t: number) => f(...xs.map((x, i) => x + t * v[i]!));
  return centralDiff(along, 0, h);
}

/** Partial finite difference of f at xs in coordinate i. */
function partialDiff(f: Fn, xs: number[], i: number, h: number): Estimate {
  return centralDiff((t) => f(...xs.map((x, j) => (j === i ? t : x))), xs[i]!, h);
}

/** Whether v is zero, either sign (assert.equal would tell -0 from 0). */
function assertZero(v: number, what: string): void {
  assert.ok(v === 0, `${what}: expected 0, got ${v}`);
}

/**
 * Uniform on [min, max]. fc.double alone is uniform over representable doubles, so most of its
 * values are tiny; it is mixed in for its special values (0, -0, bounds, subnormals).
 */
const uniform = (min: number, max: number) =>
  fc.integer({ min: 0, max: 2 ** 30 }).map((k) => min + ((max - min) * k) / 2 ** 30);
const range = (min: number, max: number) =>
  fc.oneof(
    { arbitrary: uniform(min, max), weight: 4 },
    { arbitrary: fc.double({ min, max, noNaN: true }), weight: 1 },
  );

/** 10^-e for e uniform in [minExp, maxExp]: a distance spread over many orders of magnitude. */
const tiny = (minExp: number, maxExp: number) => uniform(minExp, maxExp).map((e) => 10 ** -e);

const sign = fc.constantFrom(-1, 1);

// ---------------------------------------------------------------------------------------------
// One-argument functions

interface UnarySpec {
  name: string;
  /** The derivative in closed form (written to avoid cancellation near the domain edges). */
  exact: (x: number) => number;
  /** Random points inside the domain. */
  interior: fc.Arbitrary<number>;
  /** Random points near a domain edge, pole or jump. */
  edges?: fc.Arbitrary<number>;
  /** Distance from x to the nearest point where the function is not smooth or defined. */
  margin?: (x: number) => number;
}

const HALF_PI = Math.PI / 2;
/** Distance from x to the nearest pole of tan, π/2 + kπ. */
const tanMargin = (x: number) => {
  const k = Math.round((x - HALF_PI) / Math.PI);
  return Math.abs(x - HALF_PI - k * Math.PI);
};
const distanceToInteger = (x: number) => Math.abs(x - Math.round(x));
const distanceToHalfInteger = (x: number) => Math.abs(x - Math.floor(x) - 0.5);
/** 1 - x², computed without cancellation near ±1. */
const oneMinusSquare = (x: number) => (1 - x) * (1 + x);
/** ±(1 - δ), with δ as stored. */
const nearUnit = fc.tuple(sign, tiny(1, 9)).map(([s, d]) => s * (1 - d));

const UNARY: UnarySpec[] = [
  { name: "sin", exact: Math.cos, interior: range(-50, 50) },
  { name: "cos", exact: (x) => -Math.sin(x), interior: range(-50, 50) },
  {
    name: "tan",
    exact: (x) => 1 / Math.cos(x) ** 2,
    interior: range(-10, 10),
    edges: fc
      .tuple(fc.integer({ min: -3, max: 3 }), sign, tiny(1, 7))
      .map(([k, s, d]) => HALF_PI + k * Math.PI + s * d),
    margin: tanMargin,
  },
  {
    name: "asin",
    exact: (x) => 1 / Math.sqrt(oneMinusSquare(x)),
    interior: range(-0.999, 0.999),
    edges: nearUnit,
    margin: (x) => 1 - Math.abs(x),
  },
  {
    name: "acos",
    exact: (x) => -1 / Math.sqrt(oneMinusSquare(x)),
    interior: range(-0.999, 0.999),
    edges: nearUnit,
    margin: (x) => 1 - Math.abs(x),
  },
  { name: "atan", exact: (x) => 1 / (1 + x * x), interior: range(-100, 100) },
  { name: "sinh", exact: Math.cosh, interior: range(-20, 20) },
  { name: "cosh", exact: Math.sinh, interior: range(-20, 20) },
  { name: "tanh", exact: (x) => 1 / Math.cosh(x) ** 2, interior: range(-20, 20) },
  { name: "asinh", exact: (x) => 1 / Math.sqrt(x * x + 1), interior: range(-100, 100) },
  {
    name: "acosh",
    exact: (x) => 1 / Math.sqrt((x - 1) * (x + 1)),
    interior: range(1.001, 100),
    edges: tiny(1, 10).map((d) => 1 + d),
    margin: (x) => x - 1,
  },
  {
    name: "atanh",
    exact: (x) => 1 / oneMinusSquare(x),
    interior: range(-0.999, 0.999),
    edges: nearUnit,
    margin: (x) => 1 - Math.abs(x),
  },
  { name: "exp", exact: Math.exp, interior: range(-30, 30) },
  { name: "expm1", exact: Math.exp, interior: range(-30, 30), edges: tiny(3, 12) },
  {
    name: "log",
    exact: (x) => 1 / x,
    interior: range(1e-3, 1e3),
    edges: tiny(1, 12),
    margin: (x) => x,
  },
  {
    name: "log1p",
    exact: (x) => 1 / (1 + x),
    interior: range(-0.999, 1e3),
    edges: tiny(1, 12).map((d) => -1 + d),
    margin: (x) => 1 + x,
  },
  {
    name: "log2",
    exact: (x) => 1 / (x * Math.LN2),
    interior: range(1e-3, 1e3),
    edges: tiny(1, 12),
    margin: (x) => x,
  },
  {
    name: "log10",
    exact: (x) => 1 / (x * Math.LN10),
    interior: range(1e-3, 1e3),
    edges: tiny(1, 12),
    margin: (x) => x,
  },
  {
    name: "sqrt",
    exact: (x) => 0.5 / Math.sqrt(x),
    interior: range(1e-3, 1e3),
    edges: tiny(1, 12),
    margin: (x) => x,
  },
  {
    name: "cbrt",
    exact: (x) => 1 / (3 * Math.cbrt(x) ** 2),
    interior: range(-1e3, 1e3),
    edges: fc.tuple(sign, tiny(1, 12)).map(([s, d]) => s * d),
    margin: (x) => Math.abs(x),
  },
  {
    name: "abs",
    exact: Math.sign,
    interior: range(-100, 100),
    edges: fc.tuple(sign, tiny(1, 12)).map(([s, d]) => s * d),
    margin: (x) => Math.abs(x),
  },
  {
    name: "sign",
    exact: () => 0,
    interior: range(-100, 100),
    edges: fc.tuple(sign, tiny(1, 12)).map(([s, d]) => s * d),
    margin: (x) => Math.abs(x),
  },
  {
    name: "floor",
    exact: () => 0,
    interior: range(-100, 100),
    edges: fc
      .tuple(fc.integer({ min: -5, max: 5 }), sign, tiny(1, 9))
      .map(([k, s, d]) => k + s * d),
    margin: distanceToInteger,
  },
  {
    name: "ceil",
    exact: () => 0,
    interior: range(-100, 100),
    edges: fc
      .tuple(fc.integer({ min: -5, max: 5 }), sign, tiny(1, 9))
      .map(([k, s, d]) => k + s * d),
    margin: distanceToInteger,
  },
  {
    name: "trunc",
    exact: () => 0,
    interior: range(-100, 100),
    edges: fc
      .tuple(fc.integer({ min: -5, max: 5 }), sign, tiny(1, 9))
      .map(([k, s, d]) => k + s * d),
    margin: distanceToInteger,
  },
  {
    name: "round",
    exact: () => 0,
    interior: range(-100, 100),
    edges: fc
      .tuple(fc.integer({ min: -5, max: 5 }), sign, tiny(1, 9))
      .map(([k, s, d]) => k + 0.5 + s * d),
    margin: distanceToHalfInteger,
  },
];

// ---------------------------------------------------------------------------------------------
// Functions of several arguments: each partial (`wrt: [i]`), all of them, and `wrt` reversed.

interface MultiSpec {
  /** Export prefix in the program. */
  id: string;
  name: string;
  arity: number;
  /** The gradient in closed form. */
  exact: (xs: number[]) => number[];
  points: fc.Arbitrary<number[]>;
  /** Distance from xs to the nearest point where the function is not smooth. */
  margin: (xs: number[]) => number;
}

const vector = (n: number, min: number, max: number) =>
  fc.array(range(min, max), { minLength: n, maxLength: n });

/** Gap between the extreme value and the runner-up: where min/max stay smooth. */
function extremumGap(xs: number[], pick: (a: number, b: number) => boolean): number {
  let best = 0;
  xs.forEach((x, i) => {
    if (pick(x, xs[best]!)) best = i;
  });
  return Math.min(...xs.filter((_, i) => i !== best).map((x) => Math.abs(x - xs[best]!)));
}

function extremumGradient(xs: number[], pick: (a: number, b: number) => boolean): number[] {
  let best = 0;
  xs.forEach((x, i) => {
    if (pick(x, xs[best]!)) best = i;
  });
  return xs.map((_, i) => (i === best ? 1 : 0));
}

const hypotSpec = (n: number): MultiSpec => ({
  id: `hypot${n}`,
  name: "hypot",
  arity: n,
  exact: (xs) => xs.map((x) => x / Math.hypot(...xs)),
  points: vector(n, -10, 10),
  margin: (xs) => Math.hypot(...xs),
});

const extremumSpec = (name: "min" | "max", n: number): MultiSpec => {
  const pick = name === "max" ? (a: number, b: number) => a > b : (a: number, b: number) => a < b;
  return {
    id: `${name}${n}`,
    name,
    arity: n,
    exact: (xs) => extremumGradient(xs, pick),
    points: vector(n, -10, 10),
    margin: (xs) => extremumGap(xs, pick),
  };
};

const MULTI: MultiSpec[] = [
  {
    id: "atan2",
    name: "atan2",
    arity: 2,
    exact: ([y, x]) => [x! / (x! * x! + y! * y!), -y! / (x! * x! + y! * y!)],
    points: vector(2, -10, 10),
    // Smooth away from the origin and from the cut along the negative x axis.
    margin: ([y, x]) => (x! < 0 ? Math.min(Math.hypot(x!, y!), Math.abs(y!)) : Math.hypot(x!, y!)),
  },
  {
    id: "atan2_small",
    name: "atan2",
    arity: 2,
    exact: ([y, x]) => [x! / (x! * x! + y! * y!), -y! / (x! * x! + y! * y!)],
    // Close to the origin, and close to the cut from either side.
    points: fc
      .tuple(tiny(1, 8), range(-Math.PI, Math.PI))
      .map(([r, angle]) => [r * Math.sin(angle), r * Math.cos(angle)]),
    margin: ([y, x]) => (x! < 0 ? Math.min(Math.hypot(x!, y!), Math.abs(y!)) : Math.hypot(x!, y!)),
  },
  {
    id: "pow",
    name: "pow",
    arity: 2,
    exact: ([x, y]) => [y! * x! ** (y! - 1), x! ** y! * Math.log(x!)],
    points: fc.tuple(range(0.01, 10), range(-3, 3)),
    margin: ([x]) => x!,
  },
  {
    id: "pow_small",
    name: "pow",
    arity: 2,
    exact: ([x, y]) => [y! * x! ** (y! - 1), x! ** y! * Math.log(x!)],
    // Base close to its lower bound 0.
    points: fc.tuple(tiny(1, 8), range(-2, 3)),
    margin: ([x]) => x!,
  },
  hypotSpec(2),
  hypotSpec(3),
  hypotSpec(4),
  extremumSpec("min", 2),
  extremumSpec("min", 3),
  extremumSpec("min", 4),
  extremumSpec("max", 2),
  extremumSpec("max", 3),
  extremumSpec("max", 4),
];

// ---------------------------------------------------------------------------------------------
// The program

const params = (n: number) => [...Array(n).keys()].map((i) => `x${i}: number`).join(", ");
const args = (n: number) => [...Array(n).keys()].map((i) => `x${i}`).join(", ");

function programSource(): string {
  const lines = [
    `import { derivative, valueWithDerivative, differential, valueWithDifferential, gradient } from "nabla";`,
  ];
  for (const { name } of UNARY) {
    lines.push(
      `export const d_${name} = derivative((x: number) => Math.${name}(x));`,
      `export const v_${name} = valueWithDerivative((x: number) => Math.${name}(x));`,
      // Chain rule: ∂/∂x f(x·s) = s·f'(x·s), ∂/∂s f(x·s) = x·f'(x·s).
      `export const c_${name} = differential((x: number, s: number) => Math.${name}(x * s));`,
      // Reverse mode transposes the same rule.
      `export const g_${name} = gradient((x: number) => Math.${name}(x));`,
      `export const gc_${name} = gradient((x: number, s: number) => Math.${name}(x * s));`,
      // Two paths that meet: x·f(x), in both modes (see SPECIAL_INPUTS).
      `export const dx_${name} = derivative((x: number) => x * Math.${name}(x));`,
      `export const gx_${name} = gradient((x: number) => x * Math.${name}(x));`,
    );
  }
  for (const { id, name, arity } of MULTI) {
    const fn = `(${params(arity)}) => Math.${name}(${args(arity)})`;
    const reversed = [...Array(arity).keys()].reverse().join(", ");
    lines.push(
      `export const all_${id} = differential(${fn});`,
      `export const rev_${id} = differential(${fn}, { wrt: [${reversed}] });`,
      `export const vd_${id} = valueWithDifferential(${fn});`,
      `export const g_${id} = gradient(${fn});`,
    );
    for (let i = 0; i < arity; i++) {
      lines.push(`export const w${i}_${id} = differential(${fn}, { wrt: [${i}] });`);
    }
  }
  lines.push(CONVENTIONS);
  return lines.join("\n") + "\n";
}

/** Exact conventions at non-differentiable points, and Math constants in expressions. */
const CONVENTIONS = `
export const fround = derivative((x: number) => Math.fround(x));
export const froundChain = derivative((x: number) => Math.fround(x * x) * 3);
export const maxTwiceSame = derivative((x: number) => Math.max(x, x));
export const minTwiceSame = derivative((x: number) => Math.min(x, x));
export const maxLinear = derivative((x: number) => Math.max(x, 2 * x));
export const minLinear = derivative((x: number) => Math.min(x, 2 * x));
export const maxSingle = derivative((x: number) => Math.max(x));
export const minSingle = derivative((x: number) => Math.min(x));
export const maxOfConstant = derivative((x: number) => Math.max(1, x, 3 * x));
export const hypotSingle = derivative((x: number) => Math.hypot(x));
export const hypotLine = derivative((x: number) => Math.hypot(x, 2 * x, -2 * x));
export const powConstZeroExponent = derivative((x: number) => Math.pow(x, 0));
export const starConstZeroExponent = derivative((x: number) => x ** 0);
export const powZeroBase = derivative((y: number) => Math.pow(0, y));
export const starZeroBase = derivative((y: number) => 0 ** y);
export const cube = derivative((x: number) => x ** 3);
export const square = derivative((x: number) => Math.pow(x, 2));
export const reciprocal = derivative((x: number) => x ** -1);
export const root = derivative((x: number) => x ** 0.5);
export const exponential2 = derivative((x: number) => 2 ** x);
export const starAll = differential((x: number, y: number) => x ** y);
export const starX = differential((x: number, y: number) => x ** y, { wrt: [0] });
export const starY = differential((x: number, y: number) => x ** y, { wrt: [1] });
export const withRandom = derivative((x: number) => x + Math.random());
export const times_PI = derivative((x: number) => Math.PI * x);
export const times_E = derivative((x: number) => x * Math.E);
export const times_LN2 = derivative((x: number) => Math.LN2 * x * x);
export const times_LN10 = derivative((x: number) => x / Math.LN10);
export const times_LOG2E = derivative((x: number) => Math.sin(Math.LOG2E * x));
export const times_LOG10E = derivative((x: number) => Math.LOG10E * x - Math.LOG10E);
export const times_SQRT2 = derivative((x: number) => (Math.SQRT2 * x) ** 2);
export const times_SQRT1_2 = derivative((x: number) => Math.exp(Math.SQRT1_2 * x));
export const eToThe = derivative((x: number) => Math.E ** x);
export const circle = derivative((r: number) => Math.PI * r * r + 2 * Math.PI * r);
export const quotientX = differential((x: number, y: number) => x / y, { wrt: [0] });
export const quotientY = differential((x: number, y: number) => x / y, { wrt: [1] });
export const quotientGradient = gradient((x: number, y: number) => x / y);
`;

let loaded: Promise<Record<string, unknown>> | undefined;
/** The compiled program, loaded once. */
function program(): Promise<Record<string, unknown>> {
  loaded ??= loadProgram({ "main.ts": programSource() });
  return loaded;
}

async function get<T>(name: string): Promise<T> {
  const value = (await program())[name];
  assert.equal(typeof value, "function", `the program exports '${name}'`);
  return value as T;
}

const mathFn = (name: string) => (Math as unknown as Record<string, Fn>)[name]!;

// ---------------------------------------------------------------------------------------------
// Tests

test("the Math rules program compiles", async () => {
  await program();
});

describe("one-argument Math functions match finite differences", () => {
  for (const spec of UNARY) {
    const f = mathFn(spec.name) as (x: number) => number;
    const margin = spec.margin ?? (() => Infinity);

    /** Compiled derivative at x against the closed form and a central difference. */
    const check = async (points: fc.Arbitrary<number>, tolerance: number) => {
      const d = await get<(x: number) => number>(`d_${spec.name}`);
      fc.assert(
        fc.property(points, (x) => {
          fc.pre(margin(x) > 1e-12);
          const actual = d(x);
          const where = `Math.${spec.name}' at ${x}`;
          assertClose(actual, spec.exact(x), tolerance, `${where} (closed form)`);
          assertMatchesFd(
            actual,
            centralDiff(f, x, stepAt(x, margin(x))),
            10 * tolerance,
            `${where} (FD)`,
          );
        }),
        { numRuns: RUNS },
      );
    };

    test(`Math.${spec.name} at random points of its domain`, async () => {
      await check(spec.interior, 1e-7);
    });

    if (spec.edges) {
      test(`Math.${spec.name} near the edges of its domain`, async () => {
        await check(spec.edges!, 1e-6);
      });
    }

    test(`Math.${spec.name}: valueWithDerivative gives the exact value and the same derivative`, async () => {
      const d = await get<(x: number) => number>(`d_${spec.name}`);
      const vd = await get<ValueWithDerivative>(`v_${spec.name}`);
      fc.assert(
        fc.property(spec.interior, (x) => {
          const { value, derivative } = vd(x);
          assert.ok(Object.is(value, f(x)), `value at ${x}: ${value} vs ${f(x)}`);
          assert.ok(Object.is(derivative, d(x)), `derivative at ${x}: ${derivative} vs ${d(x)}`);
        }),
        { numRuns: 50 },
      );
    });

    test(`Math.${spec.name} of a product: chain rule in both arguments`, async () => {
      const c = await get<Differential>(`c_${spec.name}`);
      const scale = range(0.5, 2);
      fc.assert(
        fc.property(spec.interior, scale, (x, s) => {
          // Keep x·s inside the domain: scale the point, not the argument, near the edges.
          const u = x / s;
          fc.pre(margin(u * s) > 1e-9);
          const inner = spec.exact(u * s);
          assertClose(c(u, s)(1, 0), s * inner, 1e-6, `∂x of Math.${spec.name}(x·s) at ${u}, ${s}`);
          assertClose(c(u, s)(0, 1), u * inner, 1e-6, `∂s of Math.${spec.name}(x·s) at ${u}, ${s}`);
          // Along (0.3, -0.7) the inner argument moves at rate |0.3·s - 0.7·u|.
          const rate = Math.max(1, Math.abs(0.3 * s - 0.7 * u));
          const h = stepAt(u * s, margin(u * s)) / rate;
          const fd = directionalDiff((a, b) => f(a! * b!), [u, s], [0.3, -0.7], h);
          assertMatchesFd(c(u, s)(0.3, -0.7), fd, 1e-5, `direction (0.3, -0.7) at ${u}, ${s}`);
        }),
        { numRuns: 100 },
      );
    });
  }
});

describe("Math functions of several arguments match finite differences", () => {
  for (const spec of MULTI) {
    const f = mathFn(spec.name);
    const label = `Math.${spec.name} (${spec.id}, ${spec.arity} arguments)`;
    const tangents = vector(spec.arity, -2, 2);

    test(`${label}: each partial with differential({ wrt: [i] })`, async () => {
      const partials: Differential[] = [];
      for (let i = 0; i < spec.arity; i++)
        partials.push(await get<Differential>(`w${i}_${spec.id}`));
      fc.assert(
        fc.property(spec.points, (xs) => {
          const margin = spec.margin(xs);
          fc.pre(margin > 1e-9);
          const exact = spec.exact(xs);
          partials.forEach((partial, i) => {
            const actual = partial(...xs)(1);
            const where = `∂${i} at (${xs.join(", ")})`;
            assertClose(actual, exact[i]!, 1e-7, `${where} (closed form)`);
            const h = stepAt(xs[i]!, margin);
            assertMatchesFd(actual, partialDiff(f, xs, i, h), 1e-5, `${where} (FD)`);
            assertClose(
              partial(...xs)(2.5),
              2.5 * actual,
              1e-12,
              `${where} is linear in its tangent`,
            );
          });
        }),
        { numRuns: RUNS },
      );
    });

    test(`${label}: directional derivative along random tangents`, async () => {
      const all = await get<Differential>(`all_${spec.id}`);
      const reversed = await get<Differential>(`rev_${spec.id}`);
      const withValue = await get<ValueWithDifferential>(`vd_${spec.id}`);
      fc.assert(
        fc.property(spec.points, tangents, (xs, v) => {
          const margin = spec.margin(xs);
          fc.pre(margin > 1e-9);
          const exact = spec.exact(xs).reduce((sum, g, i) => sum + g * v[i]!, 0);
          const actual = all(...xs)(...v);
          const where = `at (${xs.join(", ")}) along (${v.join(", ")})`;
          assertClose(actual, exact, 1e-7, `${where} (closed form)`);
          const scale = Math.max(1, ...xs.map(Math.abs));
          // A step that moves the point by a small multiple of its scale, whatever |v|.
          const norm = Math.hypot(...v);
          if (norm > 1e-6) {
            const h = Math.min(1e-5 * scale, margin * 1e-3) / norm;
            assertMatchesFd(actual, directionalDiff(f, xs, v, h), 1e-5, `${where} (FD)`);
          }
          assertClose(
            reversed(...xs)(...[...v].reverse()),
            actual,
            1e-12,
            `${where}, wrt reversed`,
          );
          const vd = withValue(...xs);
          assert.ok(Object.is(vd.value, f(...xs)), `value ${where}`);
          assertClose(vd.differential(...v), actual, 1e-12, `valueWithDifferential ${where}`);
        }),
        { numRuns: RUNS },
      );
    });
  }
});

describe("conventions where the derivative does not exist", () => {
  test("abs'(0) is 0, and ±1 on either side", async () => {
    const d = await get<(x: number) => number>("d_abs");
    assertZero(d(0), "abs'(0)");
    assertZero(d(-0), "abs'(-0)");
    assert.equal(d(1e-300), 1);
    assert.equal(d(-1e-300), -1);
    assert.equal(d(7), 1);
    assert.equal(d(-7), -1);
  });

  test("max: the whole tangent goes to the first argument attaining the maximum", async () => {
    const max2 = await get<Differential>("all_max2");
    const max3 = await get<Differential>("all_max3");
    const max4 = await get<Differential>("all_max4");
    assert.equal(max2(2, 2)(1, 0), 1);
    assert.equal(max2(2, 2)(0, 1), 0);
    assert.equal(max2(2, 2)(3, 5), 3);
    assert.equal(max3(1, 5, 5)(7, 11, 13), 11);
    assert.equal(max3(5, 1, 5)(7, 11, 13), 7);
    assert.equal(max3(-1, -1, -1)(7, 11, 13), 7);
    assert.equal(max4(0, 4, 2, 4)(1, 2, 3, 4), 2);
    assert.equal(max4(4, 4, 4, 4)(1, 2, 3, 4), 1);
    assert.equal(max4(0, 1, 2, 3)(1, 2, 3, 4), 4);
    // A partial that is not the first to attain it is 0; the one that is gets 1.
    assert.equal((await get<Differential>("w1_max3"))(1, 5, 5)(1), 1);
    assertZero((await get<Differential>("w2_max3"))(1, 5, 5)(1), "∂2 max(1, 5, 5)");
    assertZero((await get<Differential>("w0_max3"))(1, 5, 5)(1), "∂0 max(1, 5, 5)");
    // The same variable twice: the first occurrence only.
    assert.equal((await get<(x: number) => number>("maxTwiceSame"))(3), 1);
    const maxLinear = await get<(x: number) => number>("maxLinear");
    assert.equal(maxLinear(0), 1);
    assert.equal(maxLinear(1), 2);
    assert.equal(maxLinear(-1), 1);
    assert.equal((await get<(x: number) => number>("maxSingle"))(-4), 1);
    const maxOfConstant = await get<(x: number) => number>("maxOfConstant");
    assertZero(maxOfConstant(0.1), "max(1, x, 3x) where 1 wins");
    assertZero(maxOfConstant(1 / 3), "max(1, x, 3x) where 1 and 3x tie");
    assert.equal(maxOfConstant(1), 3);
  });

  test("min: the whole tangent goes to the first argument attaining the minimum", async () => {
    const min2 = await get<Differential>("all_min2");
    const min3 = await get<Differential>("all_min3");
    const min4 = await get<Differential>("all_min4");
    assert.equal(min2(-3, -3)(1, 0), 1);
    assert.equal(min2(-3, -3)(0, 1), 0);
    assert.equal(min2(-3, -3)(3, 5), 3);
    assert.equal(min3(5, 1, 1)(7, 11, 13), 11);
    assert.equal(min3(1, 5, 1)(7, 11, 13), 7);
    assert.equal(min4(2, 0, 1, 0)(1, 2, 3, 4), 2);
    assert.equal(min4(0, 0, 0, 0)(1, 2, 3, 4), 1);
    assert.equal(min4(3, 2, 1, 0)(1, 2, 3, 4), 4);
    assert.equal((await get<Differential>("w2_min4"))(5, 3, 0, 0)(1), 1);
    assertZero((await get<Differential>("w3_min4"))(5, 3, 0, 0)(1), "∂3 min(5, 3, 0, 0)");
    assert.equal((await get<(x: number) => number>("minTwiceSame"))(3), 1);
    const minLinear = await get<(x: number) => number>("minLinear");
    assert.equal(minLinear(0), 1);
    assert.equal(minLinear(1), 1);
    assert.equal(minLinear(-1), 2);
    assert.equal((await get<(x: number) => number>("minSingle"))(-4), 1);
  });

  test("hypot has derivative 0 when every argument is 0", async () => {
    for (const n of [2, 3, 4]) {
      const zeros = Array<number>(n).fill(0);
      const ones = Array<number>(n).fill(1);
      assertZero(
        (await get<Differential>(`all_hypot${n}`))(...zeros)(...ones),
        `hypot${n} at origin`,
      );
      for (let i = 0; i < n; i++) {
        assertZero(
          (await get<Differential>(`w${i}_hypot${n}`))(...zeros)(1),
          `∂${i} hypot${n} at origin`,
        );
      }
    }
    assertZero((await get<(x: number) => number>("hypotSingle"))(0), "hypot(x)' at 0");
    assertZero((await get<(x: number) => number>("hypotLine"))(0), "hypot(x, 2x, -2x)' at 0");
    // Away from the origin the usual rule: hypot(x) = |x| and hypot(x, 2x, -2x) = 3|x|.
    assert.equal((await get<(x: number) => number>("hypotSingle"))(-2), -1);
    assertClose((await get<(x: number) => number>("hypotLine"))(-2), -3, 1e-15);
    assertClose((await get<(x: number) => number>("hypotLine"))(1e-200), 3, 1e-15);
  });

  test("pow: the base partial is 0 when the exponent is 0", async () => {
    const powX = await get<Differential>("w0_pow");
    assertZero(powX(0, 0)(1), "∂x pow(0, 0)");
    assertZero(powX(3, 0)(1), "∂x pow(3, 0)");
    assertZero(powX(-2, 0)(1), "∂x pow(-2, 0)");
    assertZero((await get<Differential>("starX"))(0, 0)(1), "∂x 0 ** 0");
    assertZero(
      (await get<(x: number) => number>("powConstZeroExponent"))(0),
      "d/dx pow(x, 0) at 0",
    );
    assertZero((await get<(x: number) => number>("starConstZeroExponent"))(0), "d/dx x ** 0 at 0");
    assertZero(
      (await get<(x: number) => number>("powConstZeroExponent"))(5),
      "d/dx pow(x, 0) at 5",
    );
    // Not zero exponents: the usual rule, also at base 0 and with negative bases.
    assertZero(powX(0, 2)(1), "∂x pow(0, 2)");
    assert.equal(powX(0, 1)(1), 1);
    assert.equal(powX(-2, 3)(1), 12);
    assert.equal((await get<Differential>("starX"))(-2, 3)(1), 12);
  });

  test("pow: the exponent partial is 0 when the result is 0", async () => {
    const powY = await get<Differential>("w1_pow");
    assertZero(powY(0, 2)(1), "∂y pow(0, 2)");
    assertZero(powY(0, 0.5)(1), "∂y pow(0, 0.5)");
    // x^y underflows to 0: 0 too, rather than 0 · log x.
    assert.equal(Math.pow(1e-200, 2), 0);
    assertZero(powY(1e-200, 2)(1), "∂y pow(1e-200, 2)");
    assertZero((await get<Differential>("starY"))(0, 3)(1), "∂y 0 ** 3");
    assertZero((await get<(x: number) => number>("powZeroBase"))(3), "d/dy pow(0, y) at 3");
    assertZero((await get<(x: number) => number>("starZeroBase"))(2), "d/dy 0 ** y at 2");
    // Full differential at base 0: only the base partial remains.
    assert.equal((await get<Differential>("all_pow"))(0, 1)(5, 7), 5);
    // Otherwise x^y · ln x.
    assertClose(powY(2, 3)(1), 8 * Math.LN2, 1e-15);
    assertClose((await get<(x: number) => number>("exponential2"))(3), 8 * Math.LN2, 1e-15);
  });

  test("pow: the exponent partial is 0 for negative bases (docs/derivatives.md)", async () => {
    const powY = await get<Differential>("w1_pow");
    assertZero(powY(-2, 3)(1), "∂y pow(-2, 3)");
    assertZero((await get<Differential>("starY"))(-0.5, 2)(1), "∂y (-0.5) ** 2");
    // So a zero exponent tangent does not turn the full differential into NaN.
    assert.equal((await get<Differential>("all_pow"))(-2, 3)(1, 0), 12);
    assert.equal((await get<Differential>("starAll"))(-2, 3)(1, 0), 12);
  });

  test("pow with constant exponents and ** agree with the power rule", async () => {
    const cube = await get<(x: number) => number>("cube");
    const square = await get<(x: number) => number>("square");
    const reciprocal = await get<(x: number) => number>("reciprocal");
    const root = await get<(x: number) => number>("root");
    assert.equal(cube(4), 48);
    assert.equal(cube(-2), 12);
    assertZero(cube(0), "(x³)' at 0");
    assert.equal(square(-3), -6);
    assert.equal(reciprocal(2), -0.25);
    assert.equal(root(4), 0.25);
    const starAll = await get<Differential>("starAll");
    fc.assert(
      fc.property(range(0.01, 10), range(-3, 3), (x, y) => {
        assertClose(starAll(x, y)(1, 0), y * x ** (y - 1), 1e-12, `∂x x ** y at ${x}, ${y}`);
        assertClose(starAll(x, y)(0, 1), x ** y * Math.log(x), 1e-12, `∂y x ** y at ${x}, ${y}`);
      }),
      { numRuns: RUNS },
    );
  });

  test("sign, floor, ceil, round and trunc have derivative 0, also at their jumps", async () => {
    const jumps: Record<string, number[]> = {
      sign: [0, -0, 1e-300],
      floor: [-3, 0, 2, 1e15],
      ceil: [-3, 0, 2, 0.5],
      trunc: [-3, 0, 2, -0.5],
      round: [-2.5, -0.5, 0.5, 1.5, 3],
    };
    for (const [name, points] of Object.entries(jumps)) {
      const d = await get<(x: number) => number>(`d_${name}`);
      for (const x of points) assertZero(d(x), `Math.${name}' at ${x}`);
      fc.assert(
        fc.property(range(-1e6, 1e6), (x) => assertZero(d(x), `Math.${name}' at ${x}`)),
        { numRuns: 100 },
      );
    }
  });

  test("fround has derivative exactly 1 (a precision cast)", async () => {
    const d = await get<(x: number) => number>("fround");
    const chain = await get<(x: number) => number>("froundChain");
    for (const x of [0, 1 / 3, -1e-40, 3.4e38, 1e300, Math.PI]) assert.equal(d(x), 1, `at ${x}`);
    fc.assert(
      fc.property(range(-1e6, 1e6), (x) => {
        assert.equal(d(x), 1);
        assertClose(chain(x), 6 * x, 1e-15, `(3·fround(x²))' at ${x}`);
        // Finite differences with a step well above single precision see slope 1 too.
        const h = 1e-3 * Math.max(1, Math.abs(x));
        assertClose(centralDiff(Math.fround, x, h).value, 1, 1e-3, `FD of fround at ${x}`);
      }),
      { numRuns: RUNS },
    );
  });

  test("Math.random contributes no derivative", async () => {
    const d = await get<(x: number) => number>("withRandom");
    for (let i = 0; i < 10; i++) assert.equal(d(i), 1);
  });
});

describe("Math constants in expressions", () => {
  const cases: [string, (x: number) => number, (x: number) => number][] = [
    ["times_PI", (x) => Math.PI * x, () => Math.PI],
    ["times_E", (x) => x * Math.E, () => Math.E],
    ["times_LN2", (x) => Math.LN2 * x * x, (x) => 2 * Math.LN2 * x],
    ["times_LN10", (x) => x / Math.LN10, () => 1 / Math.LN10],
    ["times_LOG2E", (x) => Math.sin(Math.LOG2E * x), (x) => Math.LOG2E * Math.cos(Math.LOG2E * x)],
    ["times_LOG10E", (x) => Math.LOG10E * x - Math.LOG10E, () => Math.LOG10E],
    ["times_SQRT2", (x) => (Math.SQRT2 * x) ** 2, (x) => 4 * x],
    [
      "times_SQRT1_2",
      (x) => Math.exp(Math.SQRT1_2 * x),
      (x) => Math.SQRT1_2 * Math.exp(Math.SQRT1_2 * x),
    ],
    ["eToThe", (x) => Math.E ** x, (x) => Math.E ** x],
    ["circle", (r) => Math.PI * r * r + 2 * Math.PI * r, (r) => 2 * Math.PI * r + 2 * Math.PI],
  ];
  for (const [name, f, exact] of cases) {
    test(`${name}: closed form and finite differences`, async () => {
      const d = await get<(x: number) => number>(name);
      fc.assert(
        fc.property(range(-10, 10), (x) => {
          assertClose(d(x), exact(x), 1e-12, `${name}' at ${x}`);
          assertMatchesFd(d(x), centralDiff(f, x, stepAt(x)), 1e-6, `${name}' at ${x} (FD)`);
        }),
        { numRuns: 100 },
      );
    });
  }

  test("Math.PI * x has derivative exactly Math.PI", async () => {
    assert.equal((await get<(x: number) => number>("times_PI"))(123), Math.PI);
    assert.equal((await get<(x: number) => number>("times_E"))(-5), Math.E);
  });
});

// ---------------------------------------------------------------------------------------------
// Reverse mode: the same rules, transposed. Forward and reverse must agree: for a unary f,
// gradient = derivative; for several arguments, ⟨∇f, v⟩ = df(v) for every direction v.

describe("reverse mode agrees with forward mode on every Math rule", () => {
  for (const spec of UNARY) {
    test(`Math.${spec.name}: gradient = derivative, also through a product`, async () => {
      const d = await get<(x: number) => number>(`d_${spec.name}`);
      const g = await get<(x: number) => number>(`g_${spec.name}`);
      const c = await get<Differential>(`c_${spec.name}`);
      const gc = await get<(x: number, s: number) => number[]>(`gc_${spec.name}`);
      fc.assert(
        fc.property(spec.interior, fc.double({ min: 0.5, max: 1.5, noNaN: true }), (x, s) => {
          assertClose(g(x), d(x), 1e-12, `gradient of Math.${spec.name} at ${x}`);
          const [gx, gs] = gc(x / s, s);
          const forward = c(x / s, s);
          assertClose(gx!, forward(1, 0), 1e-12, `∂/∂x Math.${spec.name}(x·s)`);
          assertClose(gs!, forward(0, 1), 1e-12, `∂/∂s Math.${spec.name}(x·s)`);
        }),
        { numRuns: 100 },
      );
    });
  }
  for (const spec of MULTI) {
    test(`Math.${spec.name} (${spec.id}): ⟨gradient, v⟩ = differential(v)`, async () => {
      const all = await get<Differential>(`all_${spec.id}`);
      const g = await get<(...xs: number[]) => number[]>(`g_${spec.id}`);
      fc.assert(
        fc.property(spec.points, vector(spec.arity, -1, 1), (xs, v) => {
          const forward = all(...xs)(...v);
          // At a singular point (atan2 at the origin) ∞ − ∞ may differ by mode: not compared.
          fc.pre(Number.isFinite(forward) && spec.margin(xs) > 1e-100);
          const gradient = g(...xs);
          const reverse = gradient.reduce((sum, gi, i) => sum + gi * v[i]!, 0);
          assertClose(reverse, forward, 1e-10, `Math.${spec.name} at ${xs} along ${v}`);
        }),
        { numRuns: 100 },
      );
    });
  }
});

// At special inputs — zeros, subnormals, the largest numbers, infinities, NaN — forward and
// reverse mode evaluate the same products in the same order, so they agree exactly (NaN with
// NaN): d(x·log x) at 5e-324 was Infinity forward and −743.44 reverse, since forward divided
// before multiplying by x and reverse after.

const SPECIAL_INPUTS = [
  0,
  -0,
  5e-324,
  -5e-324,
  2.2250738585072014e-308,
  -2.2250738585072014e-308,
  1e-300,
  1e-160,
  0.5,
  1,
  -1,
  1 - 2 ** -53,
  -1 + 2 ** -53,
  1.5,
  100,
  1e154,
  1e300,
  -1e300,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Infinity,
  -Infinity,
  NaN,
];

/** Equal, or both NaN (0 and -0 count as equal). */
function sameNumber(a: number, b: number): boolean {
  return a === b || (Number.isNaN(a) && Number.isNaN(b));
}

describe("forward and reverse mode agree exactly at special inputs", () => {
  for (const spec of UNARY) {
    test(`Math.${spec.name}: f(x), x·f(x) and f(x·s)`, async () => {
      const d = await get<(x: number) => number>(`d_${spec.name}`);
      const g = await get<(x: number) => number>(`g_${spec.name}`);
      const dx = await get<(x: number) => number>(`dx_${spec.name}`);
      const gx = await get<(x: number) => number>(`gx_${spec.name}`);
      const c = await get<Differential>(`c_${spec.name}`);
      const gc = await get<(x: number, s: number) => number[]>(`gc_${spec.name}`);
      const disagreements: string[] = [];
      const check = (what: string, forward: number, reverse: number) => {
        if (!sameNumber(forward, reverse))
          disagreements.push(`${what}: forward ${forward}, reverse ${reverse}`);
      };
      for (const x of SPECIAL_INPUTS) {
        check(`f'(${x})`, d(x), g(x));
        check(`(x·f)'(${x})`, dx(x), gx(x));
        // At x = ±∞ the differential's zero tangent meets ∞ in d(x·s) (0·∞, NaN), which
        // reverse mode, adding no zero, never computes: not compared there.
        if (!Number.isFinite(x)) continue;
        for (const s of [1, 2, 5e-324]) {
          const [gxs, gss] = gc(x, s);
          check(`∂x f(x·s) at ${x}, ${s}`, c(x, s)(1, 0), gxs!);
          check(`∂s f(x·s) at ${x}, ${s}`, c(x, s)(0, 1), gss!);
        }
      }
      assert.deepEqual(disagreements, []);
    });
  }
  for (const spec of MULTI) {
    test(`Math.${spec.name} (${spec.id}): each partial`, async () => {
      // One differential per argument: a zero tangent at run time would meet the infinite
      // partials of the others (0·∞), which reverse mode never computes.
      const partials = await Promise.all(
        [...Array(spec.arity).keys()].map((i) => get<Differential>(`w${i}_${spec.id}`)),
      );
      const g = await get<(...xs: number[]) => number[]>(`g_${spec.id}`);
      const disagreements: string[] = [];
      const points = SPECIAL_INPUTS.flatMap((a) =>
        SPECIAL_INPUTS.filter((_, k) => k % 3 === 0).map((b) =>
          [a, b, 0.5, -2].slice(0, spec.arity),
        ),
      );
      for (const xs of points) {
        const gradient = g(...xs);
        for (let i = 0; i < spec.arity; i++) {
          const forward = partials[i]!(...xs)(1);
          if (!sameNumber(forward, gradient[i]!))
            disagreements.push(`∂${i} at ${xs}: forward ${forward}, reverse ${gradient[i]}`);
        }
      }
      assert.deepEqual(disagreements, []);
    });
  }
});

// A chain of three or more coefficients is multiplied in a different grouping by each mode
// ((q·r)·x forward, (x·r)·q reverse, in x·(3/x)), so only its rounding may differ.
test("division: forward and reverse mode agree exactly at special inputs", async () => {
  const dx = await get<Differential>("quotientX");
  const dy = await get<Differential>("quotientY");
  const g = await get<(x: number, y: number) => number[]>("quotientGradient");
  const disagreements: string[] = [];
  for (const x of SPECIAL_INPUTS) {
    for (const y of SPECIAL_INPUTS) {
      const [gx, gy] = g(x, y);
      if (!sameNumber(dx(x, y)(1), gx!)) disagreements.push(`∂x x/y at ${x}, ${y}`);
      if (!sameNumber(dy(x, y)(1), gy!)) disagreements.push(`∂y x/y at ${x}, ${y}`);
    }
  }
  assert.deepEqual(disagreements, []);
});

// ---------------------------------------------------------------------------------------------
// Bit operations: `|`, `&`, `^`, `<<`, `>>`, `>>>`, `~`, Math.imul and Math.clz32 turn their
// operands into 32-bit integers first, so their result is constant between two integer values
// of each operand: their derivative is 0 wherever it exists, and 0 at the jumps too, as
// Math.floor's (src/compiler/rules/math.ts, isPiecewiseConstantOp). Each f(x, y) below uses one
// with a derivative that is not 0 around it, checked against its closed form, against central
// differences away from the jumps, and forward mode against reverse mode.

interface BitSpec {
  name: string;
  /** The body of f(x: number, y: number). */
  body: string;
  /** [∂f/∂x, ∂f/∂y] in closed form: the bit operations contribute 0. */
  exact: (x: number, y: number) => [number, number];
  /** A lower bound on the distance from (x, y), along x or y, to a jump of a bit operation. */
  margin: (x: number, y: number) => number;
  /** Points exactly at a jump. */
  jumps: [number, number][];
}

/** Distance from t·scale + offset to the nearest integer, in units of t. */
const integerGap = (t: number, scale: number, offset = 0) =>
  distanceToInteger(t * scale + offset) / scale;

const BIT_OPS: BitSpec[] = [
  {
    name: "|",
    body: `return ((x * 10) | 0) * x + y;`,
    exact: (x) => [(x * 10) | 0, 1],
    margin: (x) => integerGap(x, 10),
    jumps: [
      [0.5, 2],
      [-1.5, 3],
    ],
  },
  {
    name: "&",
    body: `return ((x * 8) & 6) * y + x * y;`,
    exact: (x, y) => [y, ((x * 8) & 6) + x],
    margin: (x) => integerGap(x, 8),
    jumps: [
      [0.375, 1.5],
      [-0.25, 2],
    ],
  },
  {
    name: "^",
    body: `return ((x * 4) ^ 3) * x * y;`,
    exact: (x, y) => [((x * 4) ^ 3) * y, ((x * 4) ^ 3) * x],
    margin: (x) => integerGap(x, 4),
    jumps: [
      [0.25, -1],
      [-0.75, 2],
    ],
  },
  {
    name: "<< and >>",
    body: `return ((x * 4) << 2) * y + ((y * 64) >> 3) * x;`,
    exact: (x, y) => [(y * 64) >> 3, (x * 4) << 2],
    margin: (x, y) => Math.min(integerGap(x, 4), integerGap(y, 64)),
    jumps: [
      [0.5, 0.25],
      [-1.25, 1 / 64],
    ],
  },
  {
    name: ">>> in a @differentiable function",
    body: `return scaledByUnsigned(x, y) - x * x;`,
    // For y < 0, y·1000 >>> 0 is 2³² − |y·1000|, truncated: large, and constant between jumps.
    exact: (x, y) => [((y * 1000) >>> 0) * 1e-3 - 2 * x, 0],
    margin: (_, y) => integerGap(y, 1000),
    jumps: [
      [0.5, 0.125],
      [2, -0.5],
    ],
  },
  {
    name: "~",
    body: `const q = x * 3 + y;
  return ~q * x;`,
    exact: (x, y) => [~(x * 3 + y), 0],
    margin: (x, y) => distanceToInteger(x * 3 + y) / 3,
    jumps: [
      [0.5, 0.5],
      [-1, 0.25 + 0.75],
    ],
  },
  {
    name: "Math.imul",
    body: `return Math.imul(x * 7, y * 5 + 11) * x * 0.01 + y;`,
    exact: (x, y) => [Math.imul(x * 7, y * 5 + 11) * 0.01, 1],
    margin: (x, y) => Math.min(integerGap(x, 7), integerGap(y, 5, 11)),
    jumps: [
      [1, 0.5],
      [-0.5, 0.2],
    ],
  },
  {
    name: "Math.clz32",
    body: `return Math.clz32(x * 1000) * x * y;`,
    exact: (x, y) => [Math.clz32(x * 1000) * y, Math.clz32(x * 1000) * x],
    margin: (x) => integerGap(x, 1000),
    jumps: [
      [0.128, 2],
      [1.024, -1],
    ],
  },
  {
    name: "compound assignments |=, <<= and ^=",
    body: `let n = x * 16;
  n |= 0;
  n <<= 1;
  n ^= 5;
  return n * x + y * y;`,
    exact: (x, y) => [(((x * 16) | 0) << 1) ^ 5, 2 * y],
    margin: (x) => integerGap(x, 16),
    jumps: [
      [0.0625, 1],
      [-2, 3],
    ],
  },
];

const bitId = (i: number) => `bit${i}`;

function bitProgramSource(): string {
  const lines = [
    `import { derivative, differential, gradient, withoutDerivative } from "nabla";`,
    `/** @differentiable */`,
    `export function scaledByUnsigned(x: number, y: number): number {`,
    `  return ((y * 1000) >>> 0) * 1e-3 * x;`,
    `}`,
  ];
  BIT_OPS.forEach(({ body }, i) => {
    const id = bitId(i);
    lines.push(
      `export function f_${id}(x: number, y: number): number {`,
      `  ${body}`,
      `}`,
      `export const g_${id} = gradient(f_${id});`,
      `export const d_${id} = differential(f_${id});`,
    );
  });
  lines.push(
    // Second order: d/dx ((10x | 0)·x²) = 2x·(10x | 0), and its derivative 2·(10x | 0).
    `export const first = derivative((x: number) => ((x * 10) | 0) * x * x);`,
    `export const second = derivative(derivative((x: number) => ((x * 10) | 0) * x * x));`,
    // What the NABLA104 help suggested for 'x | 0' before: it changes nothing now.
    `export const bare = derivative((x: number) => (x | 0) * x + x);`,
    `export const detached = derivative((x: number) => withoutDerivative(x | 0) * x + x);`,
  );
  return lines.join("\n") + "\n";
}

let bitLoaded: Promise<Record<string, unknown>> | undefined;
async function bitExport<T>(name: string): Promise<T> {
  bitLoaded ??= loadProgram({ "main.ts": bitProgramSource() });
  const value = (await bitLoaded)[name];
  assert.equal(typeof value, "function", `the bit program exports '${name}'`);
  return value as T;
}

describe("bit operations are piecewise constant: derivative 0, as Math.floor", () => {
  test("bit operations on differentiated values compile with no diagnostic", () => {
    assert.equal(diagnosticsText(compileFiles({ "main.ts": bitProgramSource() })), "");
  });

  BIT_OPS.forEach((spec, i) => {
    test(`${spec.name}: closed form, finite differences away from the jumps, forward = reverse`, async () => {
      const f = await bitExport<Fn>(`f_${bitId(i)}`);
      const g = await bitExport<(x: number, y: number) => number[]>(`g_${bitId(i)}`);
      const d = await bitExport<Differential>(`d_${bitId(i)}`);
      fc.assert(
        fc.property(range(-3, 3), range(-3, 3), vector(2, -1, 1), (x, y, v) => {
          const margin = spec.margin(x, y);
          fc.pre(margin > 1e-6);
          const where = `${spec.name} at (${x}, ${y})`;
          const [gx, gy] = g(x, y) as [number, number];
          const [ex, ey] = spec.exact(x, y);
          assertClose(gx, ex, 1e-12, `∂x ${where}`);
          assertClose(gy, ey, 1e-12, `∂y ${where}`);
          const xs = [x, y];
          const hx = stepAt(x, margin);
          const hy = stepAt(y, margin);
          assertMatchesFd(gx, partialDiff(f, xs, 0, hx), 1e-6, `∂x ${where} (FD)`);
          assertMatchesFd(gy, partialDiff(f, xs, 1, hy), 1e-6, `∂y ${where} (FD)`);
          const forward = d(x, y)(v[0]!, v[1]!);
          assertClose(forward, gx * v[0]! + gy * v[1]!, 1e-12, `${where} along ${v}`);
        }),
        { numRuns: 200 },
      );
    });
  });

  test("at the jumps the bit operations contribute 0 too, in both modes", async () => {
    for (const [i, spec] of BIT_OPS.entries()) {
      const g = await bitExport<(x: number, y: number) => number[]>(`g_${bitId(i)}`);
      const d = await bitExport<Differential>(`d_${bitId(i)}`);
      for (const [x, y] of spec.jumps) {
        const where = `${spec.name} at the jump (${x}, ${y})`;
        assert.equal(spec.margin(x, y), 0, `${where} is a jump`);
        const [gx, gy] = g(x, y) as [number, number];
        const [ex, ey] = spec.exact(x, y);
        assertClose(gx, ex, 1e-12, `∂x ${where}`);
        assertClose(gy, ey, 1e-12, `∂y ${where}`);
        assertClose(d(x, y)(1, 0), gx, 1e-12, `∂x ${where}, forward mode`);
        assertClose(d(x, y)(0, 1), gy, 1e-12, `∂y ${where}, forward mode`);
      }
    }
  });

  test("second order through x | 0: the derivative of the derivative", async () => {
    const first = await bitExport<(x: number) => number>("first");
    const second = await bitExport<(x: number) => number>("second");
    fc.assert(
      fc.property(range(-3, 3), (x) => {
        const margin = integerGap(x, 10);
        fc.pre(margin > 1e-6);
        assertClose(first(x), 2 * x * ((x * 10) | 0), 1e-12, `first at ${x}`);
        assertClose(second(x), 2 * ((x * 10) | 0), 1e-12, `second at ${x}`);
        assertMatchesFd(second(x), centralDiff(first, x, stepAt(x, margin)), 1e-6, `FD at ${x}`);
      }),
      { numRuns: 200 },
    );
  });

  test("withoutDerivative(x | 0) changes nothing: the derivative through x | 0 is 0 already", async () => {
    const bare = await bitExport<(x: number) => number>("bare");
    const detached = await bitExport<(x: number) => number>("detached");
    for (const x of [-2.5, -1, 0, 0.3, 1, 7.75]) {
      assert.equal(bare(x), (x | 0) + 1, `at ${x}`);
      assert.equal(detached(x), bare(x), `at ${x}`);
    }
  });
});

// A Monte Carlo loss seeds its generator with `seed >>> 0` and is differentiated with respect to
// every argument, the seed included (it was NABLA104 while bit operations were errors): the
// gradient with respect to the seed is 0, and the others match central differences.
const MONTE_CARLO = `import { differential, valueWithGradient } from "nabla";
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
/** E[(mu + sigma·Z)²] = mu² + sigma², estimated from Box-Muller normals. */
export function loss(mu: number, sigma: number, seed: number): number {
  const random = mulberry32(seed);
  let sum = 0;
  for (let i = 0; i < 256; i++) {
    const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    const v = mu + sigma * z;
    sum += v * v;
  }
  return sum / 256;
}
export const vg = valueWithGradient(loss);
export const d = differential(loss);
`;

test("a Monte Carlo loss seeded with seed >>> 0: gradient 0 for the seed, two ways for the rest", async () => {
  assert.equal(diagnosticsText(compileFiles({ "main.ts": MONTE_CARLO })), "");
  const m = await loadProgram<{
    loss: Fn;
    vg: (...xs: number[]) => { value: number; gradient: number[] };
    d: Differential;
  }>({ "main.ts": MONTE_CARLO });
  for (const [mu, sigma, seed] of [
    [0.3, 1.2, 42],
    [-1.5, 0.4, 20240611],
    [2, 2.5, 7],
  ] as [number, number, number][]) {
    const where = `at (${mu}, ${sigma}, ${seed})`;
    const { value, gradient } = m.vg(mu, sigma, seed);
    assert.equal(value, m.loss(mu, sigma, seed), `value ${where}`);
    assertZero(gradient[2]!, `∂seed ${where}`);
    // Between two integers the seed gives the same stream: the loss is flat there.
    const half = seed + 0.5;
    assertZero(m.vg(mu, sigma, half).gradient[2]!, `∂seed at ${half}`);
    assertMatchesFd(0, partialDiff(m.loss, [mu, sigma, half], 2, 0.25), 0, `∂seed at ${half} (FD)`);
    const xs = [mu, sigma, seed];
    assertMatchesFd(gradient[0]!, partialDiff(m.loss, xs, 0, stepAt(mu)), 1e-6, `∂mu ${where}`);
    assertMatchesFd(
      gradient[1]!,
      partialDiff(m.loss, xs, 1, stepAt(sigma)),
      1e-6,
      `∂sigma ${where}`,
    );
    // Forward mode, along a direction that moves the seed too.
    for (const v of [
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
      [0.5, -2, 3],
    ]) {
      const reverse = gradient.reduce((s, gi, i) => s + gi * v[i]!, 0);
      assertClose(m.d(mu, sigma, seed)(...v), reverse, 1e-12, `${where} along ${v}`);
    }
  }
});
