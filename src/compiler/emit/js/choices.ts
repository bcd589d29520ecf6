import type { BackendChoices } from "../../differentiate/backend-choices.js";
import { someOp } from "../../ir/walk.js";

// The JavaScript backend's answers to differentiation's engine-dependent choices.

export const JS_CHOICES: BackendChoices = {
  /**
   * The fused gradient keeps the body's residuals in locals, which wins for straight-line
   * code, but V8 optimizes a function holding both a hot forward loop and a hot backward loop
   * worse than the two sweeps as separate functions (measured 10–15% slower on the 10⁶-step
   * benchmark), so functions with tangent loops use the pair.
   */
  fusedGradientPays: (jvp, info) =>
    !someOp(jvp.body, (op) => op.opcode === "loop" && info.hasTangent(op)),
};
