import type { Value } from "../ir/types.js";
import type { ForwardRule, RuleContext } from "./context.js";

// Derivative rules for every function and constant of `Math`. Conventions at points where the
// derivative does not exist (documented in docs/derivatives.md):
// - abs: sign(x), so 0 at 0.
// - min/max: the whole tangent goes to the first argument that attains the result.
// - hypot: 0 when every argument is 0.
// - pow(x, y): the x-partial is 0 when y = 0; the y-partial is 0 when x ≤ 0.
// - sign, floor, ceil, round, trunc: 0 everywhere (piecewise constant).
// - fround: 1 — it is a precision cast, as dtype casts are in JAX and PyTorch.
// - random: no inputs, no derivative.

export interface MathFunction {
  /** Number of arguments, or "variadic". */
  arity: number | "variadic";
  jvp: ForwardRule;
}

/** d result = dx · coefficient(x, result) for a one-argument function. */
function unary(coefficient: (ctx: RuleContext, x: Value, y: Value) => Value): MathFunction {
  return {
    arity: 1,
    jvp: (ctx, [x], [dx], y) => (dx ? ctx.lin.scale(dx, coefficient(ctx, x!, y)) : undefined),
  };
}

/**
 * d result = dx · (1 / divisor(x, result)). A coefficient rather than a division, so reverse
 * mode, which applies a chain's coefficients in the opposite order, multiplies the same
 * numbers: d(x·log x) at 5e-324 is (1/x)·x in one mode and x·(1/x) in the other, both
 * Infinity, where dividing gave Infinity forward and −743.44 reverse.
 */
function unaryQuotient(divisor: (ctx: RuleContext, x: Value, y: Value) => Value): MathFunction {
  return unary((ctx, x, y) => reciprocal(ctx, divisor(ctx, x, y)));
}

/** 1 / v, a primal coefficient (see unaryQuotient); folded when v is a literal. */
export function reciprocal(ctx: RuleContext, v: Value): Value {
  const k = ctx.constantOf(v);
  if (k !== undefined) return ctx.b.constant(1 / k);
  return ctx.b.binary("div", ctx.b.constant(1), v);
}

const piecewiseConstant: MathFunction = { arity: 1, jvp: () => undefined };

const num = (ctx: RuleContext, n: number) => ctx.b.constant(n);
const square = (ctx: RuleContext, v: Value) => ctx.b.binary("mul", v, v);
/** 1 − x² as (1 − x)(1 + x): no cancellation near x = ±1. */
const oneMinusSquare = (ctx: RuleContext, x: Value) =>
  ctx.b.binary("mul", ctx.b.binary("sub", num(ctx, 1), x), ctx.b.binary("add", num(ctx, 1), x));

/** Coefficients of min/max: 1 for the first argument equal to the result, 0 for the others. */
function extremum(): MathFunction {
  return {
    arity: "variadic",
    jvp: (ctx, args, tangents, result) => {
      const { b } = ctx;
      if (!tangents.some(Boolean)) return undefined;
      if (args.length === 1) return tangents[0];
      const zero = num(ctx, 0);
      const one = num(ctx, 1);
      let taken: Value | undefined;
      const terms: [Value | undefined, Value][] = [];
      args.forEach((a, i) => {
        const hit = b.compare("eq", a, result);
        const first = taken ? b.logical("and", hit, b.unary("not", taken)) : hit;
        if (tangents[i]) terms.push([tangents[i], b.select(first, one, zero)]);
        taken = taken ? b.logical("or", taken, hit) : hit;
      });
      return ctx.lin.combine(terms);
    },
  };
}

export const MATH_FUNCTIONS: ReadonlyMap<string, MathFunction> = new Map<string, MathFunction>([
  ["sin", unary((c, x) => c.b.math("cos", [x]))],
  ["cos", unary((c, x) => c.b.unary("neg", c.b.math("sin", [x])))],
  ["tan", unary((c, _x, y) => c.b.binary("add", num(c, 1), square(c, y)))],
  ["asin", unaryQuotient((c, x) => c.b.math("sqrt", [oneMinusSquare(c, x)]))],
  [
    "acos",
    unary((c, x) => c.b.binary("div", num(c, -1), c.b.math("sqrt", [oneMinusSquare(c, x)]))),
  ],
  ["atan", unaryQuotient((c, x) => c.b.binary("add", num(c, 1), square(c, x)))],
  ["sinh", unary((c, x) => c.b.math("cosh", [x]))],
  ["cosh", unary((c, x) => c.b.math("sinh", [x]))],
  ["tanh", unary((c, _x, y) => c.b.binary("sub", num(c, 1), square(c, y)))],
  [
    "asinh",
    unaryQuotient((c, x) => c.b.math("sqrt", [c.b.binary("add", square(c, x), num(c, 1))])),
  ],
  [
    "acosh",
    // sqrt(x-1)·sqrt(x+1) rather than sqrt(x²-1): no cancellation near x = 1.
    unaryQuotient((c, x) =>
      c.b.binary(
        "mul",
        c.b.math("sqrt", [c.b.binary("sub", x, num(c, 1))]),
        c.b.math("sqrt", [c.b.binary("add", x, num(c, 1))]),
      ),
    ),
  ],
  ["atanh", unaryQuotient((c, x) => oneMinusSquare(c, x))],
  ["exp", unary((_c, _x, y) => y)],
  ["expm1", unary((c, _x, y) => c.b.binary("add", y, num(c, 1)))],
  ["log", unaryQuotient((_c, x) => x)],
  ["log1p", unaryQuotient((c, x) => c.b.binary("add", num(c, 1), x))],
  ["log2", unaryQuotient((c, x) => c.b.binary("mul", x, num(c, Math.LN2)))],
  ["log10", unaryQuotient((c, x) => c.b.binary("mul", x, num(c, Math.LN10)))],
  ["sqrt", unaryQuotient((c, _x, y) => c.b.binary("mul", num(c, 2), y))],
  ["cbrt", unaryQuotient((c, _x, y) => c.b.binary("mul", num(c, 3), square(c, y)))],
  ["abs", unary((c, x) => c.b.math("sign", [x]))],
  ["sign", piecewiseConstant],
  ["floor", piecewiseConstant],
  ["ceil", piecewiseConstant],
  ["round", piecewiseConstant],
  ["trunc", piecewiseConstant],
  ["fround", { arity: 1, jvp: (_c, _args, [dx]) => dx }],
  ["random", { arity: 0, jvp: () => undefined }],
  [
    "atan2",
    {
      arity: 2,
      jvp: (ctx, [y, x], [dy, dx]) => {
        if (!dy && !dx) return undefined;
        const { b, lin } = ctx;
        const inverse = reciprocal(ctx, b.binary("add", square(ctx, x!), square(ctx, y!)));
        // Coefficients, so both modes multiply the same numbers (see unaryQuotient).
        return lin.combine([
          [dy, b.binary("mul", x!, inverse)],
          [dx, b.unary("neg", b.binary("mul", y!, inverse))],
        ]);
      },
    },
  ],
  ["pow", { arity: 2, jvp: powJvp }],
  [
    "hypot",
    {
      arity: "variadic",
      jvp: (ctx, args, tangents, result) => {
        if (!tangents.some(Boolean)) return undefined;
        const { b } = ctx;
        const zero = num(ctx, 0);
        const inverse = b.select(
          b.compare("eq", result, zero),
          zero,
          b.binary("div", num(ctx, 1), result),
        );
        return ctx.lin.combine(args.map((a, i) => [tangents[i], b.binary("mul", a, inverse)]));
      },
    },
  ],
  ["min", extremum()],
  ["max", extremum()],
]);

/** Rule shared by `Math.pow` and the `**` operator. */
export function powJvp(
  ctx: RuleContext,
  [x, y]: Value[],
  [dx, dy]: (Value | undefined)[],
  result: Value,
) {
  const { b, lin } = ctx;
  let dResult: Value | undefined;
  if (dx) {
    const k = ctx.constantOf(y!);
    let coefficient: Value;
    if (k === 1) coefficient = num(ctx, 1);
    else if (k === 2) coefficient = b.binary("mul", num(ctx, 2), x!);
    else if (k !== undefined && k !== 0)
      coefficient = b.binary("mul", y!, b.binary("pow", x!, num(ctx, k - 1)));
    else {
      const general = b.binary("mul", y!, b.binary("pow", x!, b.binary("sub", y!, num(ctx, 1))));
      coefficient =
        k === 0 ? num(ctx, 0) : b.select(b.compare("eq", y!, num(ctx, 0)), num(ctx, 0), general);
    }
    dResult = lin.scale(dx, coefficient);
  }
  if (dy) {
    // x^y is real for x ≤ 0 only at integer y, where it is not differentiable in y.
    const coefficient = b.select(
      b.compare("gt", x!, num(ctx, 0)),
      b.binary("mul", result, b.math("log", [x!])),
      num(ctx, 0),
    );
    dResult = lin.add(dResult, lin.scale(dy, coefficient));
  }
  return dResult;
}

export const MATH_CONSTANTS: ReadonlyMap<string, number> = new Map(
  ["E", "LN10", "LN2", "LOG10E", "LOG2E", "PI", "SQRT1_2", "SQRT2"].map((name) => [
    name,
    Math[name as keyof Math] as number,
  ]),
);

/** `Number.EPSILON` and the other constants of `Number`: numbers, as the platform has them. */
export const NUMBER_CONSTANTS: ReadonlyMap<string, number> = new Map(
  [
    "EPSILON",
    "MAX_SAFE_INTEGER",
    "MIN_SAFE_INTEGER",
    "MAX_VALUE",
    "MIN_VALUE",
    "POSITIVE_INFINITY",
    "NEGATIVE_INFINITY",
    "NaN",
  ].map((name) => [name, Number[name as keyof NumberConstructor] as number]),
);

/** Math functions of integers (32-bit operations), lowered as `nondiff` ops. */
export const NON_DIFFERENTIABLE_MATH: ReadonlySet<string> = new Set(["clz32", "imul"]);

/**
 * `nondiff` ops whose result is piecewise constant in every operand, so their derivative is 0
 * wherever it exists, as `Math.floor`'s is: the bit operators turn their operands into 32-bit
 * integers first (`seed >>> 0`, `(x * n) | 0`). Other `nondiff` ops (`String(x)`, `.toFixed`)
 * lose a derivative that is not 0, and stay errors when one is active.
 */
const PIECEWISE_CONSTANT_OPS: ReadonlySet<string> = new Set([
  "|",
  "&",
  "^",
  "<<",
  ">>",
  ">>>",
  "~",
  "Math.clz32",
  "Math.imul",
]);

/** Whether the Math function `name` has derivative 0 everywhere (`floor`, `round`, `sign`…). */
export function isPiecewiseConstantMath(name: string | undefined): boolean {
  return name !== undefined && MATH_FUNCTIONS.get(name) === piecewiseConstant;
}

/** Whether a `nondiff` op of this callee has derivative 0 (see PIECEWISE_CONSTANT_OPS). */
export function isPiecewiseConstantOp(callee: string | undefined): boolean {
  return callee !== undefined && PIECEWISE_CONSTANT_OPS.has(callee);
}
