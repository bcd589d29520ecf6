import type { Opcode } from "../ir/types.js";
import type { ForwardRule } from "./context.js";
import { powJvp, reciprocal } from "./math.js";

// Derivative rules of the arithmetic operators.

export const ARITHMETIC_RULES: ReadonlyMap<Opcode, ForwardRule> = new Map<Opcode, ForwardRule>([
  ["add", ({ lin }, _args, [da, db]) => lin.add(da, db)],
  ["sub", ({ lin }, _args, [da, db]) => lin.sub(da, db)],
  ["neg", ({ lin }, _args, [da]) => lin.neg(da)],
  ["mul", ({ lin }, [a, b], [da, db]) => lin.add(lin.scale(da, b!), lin.scale(db, a!))],
  // d(a/b) = (da − db·(a/b)) · (1/b), reusing the primal quotient; a coefficient rather than
  // a division, so both modes multiply the same numbers (see unaryQuotient in math.ts).
  [
    "div",
    (ctx, [, b], [da, db], q) =>
      da || db
        ? ctx.lin.scale(ctx.lin.sub(da, ctx.lin.scale(db, q)), reciprocal(ctx, b!))
        : undefined,
  ],
  // a % b = a − trunc(a/b)·b, with trunc piecewise constant.
  [
    "rem",
    ({ b: builder, lin }, [a, b], [da, db]) =>
      lin.sub(da, db && lin.scale(db, builder.math("trunc", [builder.binary("div", a!, b!)]))),
  ],
  ["pow", powJvp],
  // The math rules pick coefficients with `select`; differentiated again, the pick is linear.
  [
    "select",
    ({ b: builder }, [c], [, da, db]) =>
      da || db
        ? builder.asTangent(true, () =>
            builder.select(c!, da ?? builder.constant(0), db ?? builder.constant(0)),
          )
        : undefined,
  ],
]);
