import { everyOp } from "../ir/walk.js";
import { isArray, isObject } from "../ir/type-system.js";
import type { IRFunction, Type } from "../ir/types.js";
import type { PrimalSignature } from "./derivative-function.js";
import type { DerivativeKind } from "../ir/names.js";
import { ReverseInfo } from "./residuals.js";
import { backwardSweep, fusedGradient, vjpFunction } from "./transpose.js";
import { forwardSweep } from "./unzip.js";
import { isShadow, isShadowBuilder } from "./tangent-values.js";

/**
 * The reverse-mode functions of a JVP of the given kinds: its forward sweep `f$fwd`, its
 * backward sweep `f$bwd` taking `inputs` after its seed (see ReverseInfo.inputs), the fused
 * `f$grad` and the closure form `f$vjp` (the caller decides whether they pay: see
 * BackendChoices.fusedGradientPays and vjpPays).
 *
 * A backward loop that was to carry recurrences (see Recurrence) but cannot run in ascending
 * order leaves the sweeps wrong: they are built again, with those loops taping the values
 * instead. Each round excludes more loops, so this ends.
 */
export function reverseSweeps(
  info: ReverseInfo,
  primal: PrimalSignature,
  wrt: number[],
  kinds: readonly DerivativeKind[],
  inputs: readonly number[],
): IRFunction[] {
  const jvp = info.jvp;
  for (;;) {
    const current = info;
    const sweeps = kinds.map((kind) =>
      kind === "fwd"
        ? forwardSweep(jvp, current, primal, wrt)
        : kind === "bwd"
          ? backwardSweep(jvp, current, primal, wrt, inputs)
          : kind === "grad"
            ? fusedGradient(jvp, current, primal, wrt)
            : vjpFunction(jvp, current, primal, wrt),
    );
    if (info.failedRecurrences.size === 0) return sweeps;
    const noRecurrences = new Set([
      ...(info.options.noRecurrences ?? []),
      ...info.failedRecurrences,
    ]);
    info = new ReverseInfo(jvp, { ...info.options, noRecurrences });
  }
}

/**
 * Whether `pullback` can use the closure form `f$vjp` (see vjpFunction): no loop with tangent
 * work (its residuals would need the tape) and no call of a derivative (its sweeps use the
 * tape). The shadows of the differentiated arrays and objects are the closure's parameters,
 * fresh ones each time it runs, so the forward sweep must not use them (no shadow read out
 * of them), they must have a shape fixed by their type (typed arrays, tuples and objects of
 * numbers: the wrapper builds them from the arguments when the pullback runs), and the
 * function must not return one of them. Nor may it shorten a shadow (`pop`): the wrapper
 * checks a seed against the result's shadow, which must then be as long as the result.
 */
export function vjpPays(jvp: IRFunction, info: ReverseInfo): boolean {
  const shadows = new Set(jvp.params.filter(isShadow).map((p) => p.id));
  const flat = (t: Type): boolean =>
    t === "number" ||
    (isArray(t) &&
      (t.storage !== "Array" || (t.elements?.every((e) => e === "number") ?? false))) ||
    (isObject(t) && t.fields.every((f) => f.type === "number"));
  if (!jvp.params.filter(isShadow).every((p) => flat(p.type))) return false;
  return everyOp(
    jvp.body,
    (op) =>
      !(op.opcode === "loop" && info.hasTangent(op)) &&
      !(op.opcode === "call" && op.tangent) &&
      !(isShadowBuilder(op) && op.operands.some((v) => shadows.has(v.id))) &&
      !(op.opcode === "return" && op.operands.some((v) => shadows.has(v.id))) &&
      !(op.opcode === "truncate" && isShadow(op.operands[0]!)),
  );
}
