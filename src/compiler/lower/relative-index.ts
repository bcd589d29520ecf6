import type { Value } from "../ir/types.js";
import type { LowerContext } from "./context.js";

// Positions as array methods read their arguments (`at`, `slice`, `fill`, `splice`).

/** `v` truncated toward zero, NaN as 0: an argument read as an integer. */
export function wholeIndex(ctx: LowerContext, v: Value): Value {
  const b = ctx.builder;
  return b.select(b.compare("ne", v, v), b.constant(0), b.math("trunc", [v]));
}

/** A position in an array of length `n`: whole, counted from the end when negative, in [0, n]. */
export function relativePosition(ctx: LowerContext, v: Value, n: Value): Value {
  const b = ctx.builder;
  const whole = wholeIndex(ctx, v);
  const fromEnd = b.select(b.compare("lt", whole, b.constant(0)), b.binary("add", n, whole), whole);
  return b.math("min", [b.math("max", [fromEnd, b.constant(0)]), n]);
}
