import type { IRFunction } from "../ir/types.js";
import type { ReverseInfo } from "./residuals.js";

// What differentiation asks the backend that will run its output: choices between derivative
// forms that are all correct, whose best answer depends on the engine running them rather than
// on the mathematics. The driver passes the chosen backend's answers (emit/js/choices.ts).

export interface BackendChoices {
  /**
   * Whether `gradient` uses the fused function `f$grad` (one function holding both sweeps,
   * residuals in locals) rather than the forward and backward sweeps called one after the
   * other. `info` says which loops of `jvp` do tangent work.
   */
  fusedGradientPays(jvp: IRFunction, info: ReverseInfo): boolean;
}
