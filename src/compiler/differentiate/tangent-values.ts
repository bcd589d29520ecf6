import { isAggregate } from "../ir/type-system.js";
import type { IRFunction, Op, Value } from "../ir/types.js";

// Which values and ops of a JVP are tangent work: the vocabulary reverse mode sorts them by.

/** A tangent number: part of the linear computation the backward sweep transposes. */
export function isLinear(v: Value): boolean {
  return v.tangent === true && !isAggregate(v.type);
}

/** A tangent array or object: a shadow, which reverse mode builds in the forward sweep. */
export function isShadow(v: Value): boolean {
  return v.tangent === true && isAggregate(v.type);
}

/**
 * Tangent ops that build or connect shadows rather than compute linear values: shadow
 * allocation, zero shadows, reading a shadow out of a shadow, storing one into another, and
 * literals (whose number fields start at zero). The forward sweep runs them.
 */
export function isShadowBuilder(op: Op): boolean {
  if (!op.tangent || op.opcode === "call") return false;
  if (op.results.some(isShadow)) return true;
  return (
    (op.opcode === "setIndex" || op.opcode === "setField") &&
    isShadow(op.operands[op.operands.length - 1]!)
  );
}

/** Whether the JVP returns a number tangent, so its backward sweep takes a seed. */
export function returnsSeededNumber(jvp: IRFunction): boolean {
  const ret = jvp.body.ops[jvp.body.ops.length - 1]!;
  return ret.operands.some(isLinear);
}
