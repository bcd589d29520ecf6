import type { Effects } from "../analysis/effects.js";
import { isDifferentiable } from "../ir/type-system.js";
import type { Type } from "../ir/types.js";

// An active array or object passed where the callee declares a type with nothing to
// differentiate (a stateless subclass as `this`, an object read only for its text): the callee
// can reach none of its numbers, so it is differentiated without that parameter, as if the
// argument were data. Only when the callee changes nothing of the argument's structure and does
// not return it: otherwise the caller's shadow would have to follow what the callee did with
// fields it does not declare.

/** Types of a callee's parameters, or undefined when not known. */
export type ParamTypesOf = (callee: string) => readonly Type[] | undefined;

/** Whether argument `i` of a call of a callee with `params` and `effects` needs no tangent. */
export function takesNoTangent(
  params: readonly Type[] | undefined,
  effects: Effects | undefined,
  i: number,
): boolean {
  const declared = params?.[i];
  if (declared === undefined || isDifferentiable(declared) || !effects) return false;
  return ![
    effects.replaces,
    effects.grows,
    effects.aliases,
    effects.sharedWithResult,
    effects.sharedWithOthers,
  ].some((set) => set?.has(i));
}
