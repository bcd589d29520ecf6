import type { IRFunction } from "../ir/types.js";
import type { PrimalSignature } from "./derivative-function.js";
import { ReverseInfo } from "./residuals.js";
import { backwardSweep, fusedGradient } from "./transpose.js";
import { forwardSweep } from "./unzip.js";

/**
 * The reverse-mode functions of a JVP: its forward sweep `f$fwd`, its backward sweep `f$bwd`,
 * and with `gradient` the fused `f$grad` when it pays (see fusedGradientPays).
 *
 * A backward loop that was to carry recurrences (see Recurrence) but cannot run in ascending
 * order leaves the sweeps wrong: they are built again, with those loops taping the values
 * instead. Each round excludes more loops, so this ends.
 */
export function reverseSweeps(
  info: ReverseInfo,
  primal: PrimalSignature,
  wrt: number[],
  gradient: boolean,
): IRFunction[] {
  const jvp = info.jvp;
  for (;;) {
    const sweeps = [
      forwardSweep(jvp, info, primal, wrt),
      backwardSweep(jvp, info, primal, wrt),
      ...(gradient && fusedGradientPays(jvp, info) ? [fusedGradient(jvp, info, primal, wrt)] : []),
    ];
    if (info.failedRecurrences.size === 0) return sweeps;
    const noRecurrences = new Set([
      ...(info.options.noRecurrences ?? []),
      ...info.failedRecurrences,
    ]);
    info = new ReverseInfo(jvp, { ...info.options, noRecurrences });
  }
}

/**
 * Whether `gradient` should use the fused function: it keeps the body's residuals in locals,
 * which wins for straight-line code, but V8 optimizes a function holding both a hot forward
 * loop and a hot backward loop worse than the two sweeps as separate functions (measured
 * 10–15% slower on the 10⁶-step benchmark), so functions with tangent loops use the pair.
 */
function fusedGradientPays(jvp: IRFunction, info: ReverseInfo): boolean {
  const hasLoop = (ops: IRFunction["body"]["ops"]): boolean =>
    ops.some(
      (op) =>
        (op.opcode === "loop" && info.hasTangent(op)) || op.regions.some((r) => hasLoop(r.ops)),
    );
  return !hasLoop(jvp.body.ops);
}
