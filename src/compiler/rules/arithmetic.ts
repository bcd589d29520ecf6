import type { Opcode } from "../ir/types.js";
import type { ForwardRule } from "./context.js";
import { powJvp } from "./math.js";

// Derivative rules of the arithmetic operators.

export const ARITHMETIC_RULES: ReadonlyMap<Opcode, ForwardRule> = new Map<Opcode, ForwardRule>([
  ["add", ({ lin }, _args, [da, db]) => lin.add(da, db)],
  ["sub", ({ lin }, _args, [da, db]) => lin.sub(da, db)],
  ["neg", ({ lin }, _args, [da]) => lin.neg(da)],
  ["mul", ({ lin }, [a, b], [da, db]) => lin.add(lin.scale(da, b!), lin.scale(db, a!))],
  // d(a/b) = (da − db·(a/b)) / b, reusing the primal quotient.
  ["div", ({ lin }, [, b], [da, db], q) => lin.divide(lin.sub(da, lin.scale(db, q)), b!)],
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
