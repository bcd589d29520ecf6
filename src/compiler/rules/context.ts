import type { Builder } from "../ir/builder.js";
import type { Value } from "../ir/types.js";
import type { LinearBuilder, Tangent } from "./linear.js";

/** What a derivative rule is given: a builder for primal code and one for tangent code. */
export interface RuleContext {
  /** Builds primal ops (coefficients): they depend on primal values only. */
  b: Builder;
  /** Builds tangent ops, linear in the tangents. */
  lin: LinearBuilder;
  /** The number a value is known to hold at compile time, if it is a literal constant. */
  constantOf(v: Value): number | undefined;
}

/**
 * A forward (JVP) rule: given the primal arguments, their tangents (undefined = zero) and the
 * primal result, returns the tangent of the result. Reverse mode transposes the linear ops
 * this emits, so one rule serves both modes.
 */
export type ForwardRule = (
  ctx: RuleContext,
  args: Value[],
  tangents: Tangent[],
  result: Value,
) => Tangent;
