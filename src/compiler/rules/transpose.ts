import type { Builder } from "../ir/builder.js";
import { isArray } from "../ir/type-system.js";
import type { Op, Opcode, Type, Value } from "../ir/types.js";

// Transpose rules of the linear tangent ops, the other half of the JVP rules in
// arithmetic.ts and math.ts: reverse mode runs each linear op backwards, sending the adjoint
// of its result to its tangent operands (differentiate/backward-sweep.ts runs them, and handles the
// ops with regions, calls and shadow writes itself). Each rule: original / adjoint.

/** What a transpose rule is given. */
export interface TransposeContext {
  /** Builds the backward sweep's ops. */
  b: Builder;
  /** The adjoint of the op's result. */
  adjoint: Value;
  /** Adds `contribution` (subtracts it, if `negate`) to the adjoint of a tangent operand. */
  accumulate(target: Value, contribution: Value, negate?: boolean): void;
  /** The backward sweep's copy of a primal operand (a coefficient). */
  primal(v: Value): Value;
  /** Whether an operand is a tangent (has an adjoint to receive). */
  isTangent(v: Value): boolean;
  /** The op of the linearized function that defines `v` (a constant index, say). */
  definitionOf(v: Value): Op | undefined;
}

export type TransposeRule = (ctx: TransposeContext, op: Op) => void;

export const TRANSPOSE_RULES: ReadonlyMap<Opcode, TransposeRule> = new Map<Opcode, TransposeRule>([
  // dy = da + db / da += ȳ, db += ȳ
  [
    "add",
    ({ adjoint, accumulate }, { operands: [a, c] }) => {
      accumulate(a!, adjoint);
      accumulate(c!, adjoint);
    },
  ],
  // dy = da − db / da += ȳ, db −= ȳ
  [
    "sub",
    ({ adjoint, accumulate }, { operands: [a, c] }) => {
      accumulate(a!, adjoint);
      accumulate(c!, adjoint, true);
    },
  ],
  // dy = −da / da −= ȳ
  ["neg", ({ adjoint, accumulate }, { operands: [a] }) => accumulate(a!, adjoint, true)],
  // dy = c ? da : db / da += c ? ȳ : 0, db += c ? 0 : ȳ (the adjoint goes where the pick went)
  [
    "select",
    ({ b, adjoint, accumulate, primal, isTangent }, { operands: [c, ta, tb] }) => {
      const cond = primal(c!);
      if (isTangent(ta!)) accumulate(ta!, b.select(cond, adjoint, b.constant(0)));
      if (isTangent(tb!)) accumulate(tb!, b.select(cond, b.constant(0), adjoint));
    },
  ],
  // dy = f(da) for withDerivative's f / da += f(ȳ): f sees the adjoint in reverse mode
  [
    "adjust",
    ({ b, adjoint, accumulate }, { operands: [a], attrs: { callee, written } }) => {
      const adjusted = b.emit("adjust", [adjoint], ["number"], {
        callee,
        ...(written ? { written } : {}),
      });
      accumulate(a!, adjusted.results[0]!);
    },
  ],
  // dy = da · p (p primal) / da += ȳ · p
  [
    "mul",
    ({ b, adjoint, accumulate, primal }, { operands: [a, c] }) => {
      const [t, p] = a!.tangent ? [a!, c!] : [c!, a!];
      accumulate(t, b.binary("mul", adjoint, primal(p)));
    },
  ],
  // dy = da / p (p primal) / da += ȳ / p
  [
    "div",
    ({ b, adjoint, accumulate, primal }, { operands: [a, c] }) =>
      accumulate(a!, b.binary("div", adjoint, primal(c!))),
  ],
  // dy = c (a constant tangent, zero) / nothing
  ["const", () => {}],
  // dy = da.f (da a shadow) / da.f += ȳ
  [
    "field",
    ({ b, adjoint, primal }, { operands: [a], attrs: { field } }) => {
      b.emit("addField", [primal(a!), adjoint], [], { field: field! });
    },
  ],
  // dy = da[i] (da a shadow, i primal) / da[i] += ȳ, where a plain array has an element i
  [
    "index",
    ({ b, adjoint, primal, definitionOf }, { operands: [a, i] }) => {
      const missing = mayMissElement(a!.type, i!, definitionOf);
      b.emit("addIndex", [primal(a!), primal(i!), adjoint], [], missing ? { ifExists: true } : {});
    },
  ],
]);

/**
 * Whether `a[i]` may read past a plain array (`xs[i - 1]` at i = 0, `xs[xs.length]`): the read
 * gives undefined, which has no derivative, and adding an adjoint there would add a NaN
 * entry or a key such as '-1' to the gradient. Typed arrays ignore writes out of range, and a
 * tuple's constant position exists.
 */
function mayMissElement(
  type: Type,
  index: Value,
  definitionOf: (v: Value) => Op | undefined,
): boolean {
  if (!isArray(type) || type.storage !== "Array") return false;
  const def = definitionOf(index);
  const at = def?.opcode === "const" ? def.attrs.value : undefined;
  return !(
    type.elements &&
    typeof at === "number" &&
    Number.isInteger(at) &&
    at >= 0 &&
    at < type.elements.length
  );
}
