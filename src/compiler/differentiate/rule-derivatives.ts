import { derivativeRule } from "../diagnostics/messages/index.js";
import type { DiagnosticBag } from "../diagnostics/diagnostic.js";
import { derivativeKey, derivativeName } from "../ir/names.js";
import type { FunctionKey, IRFunction } from "../ir/types.js";
import type { DerivativeRule } from "../parse/program.js";
import { bodiless, type Demand } from "./demand.js";

// The derivatives of a function with a registered rule (`registerDerivative`): adapters
// calling the rule, emitted where it is registered (emit/js/rule-adapter.ts). nabla does not
// differentiate the function's body.

/**
 * Sets the `missing` derivatives of `demand` to adapters of `rule`. A mode the rule does not
 * provide is an error at the call chain.
 */
export function ruleDerivatives(
  rule: DerivativeRule,
  demand: Demand,
  missing: FunctionKey[],
  derivatives: Map<FunctionKey, IRFunction | undefined>,
  diagnostics: DiagnosticBag,
): void {
  const forward = demand.mode === "forward" || demand.mode === "lanes";
  const registration = rule.registration;
  const loc = {
    file: registration.module.file,
    start: registration.call.start,
    end: registration.call.end,
  };
  if (forward ? !rule.hasForward : !rule.hasReverse) {
    diagnostics.add({
      severity: "error",
      ...derivativeRule.hasRegisteredDerivativeWithoutRule(
        rule.targetName,
        forward ? "forward" : "reverse",
        forward ? "forward mode (derivative, differential)" : "reverse mode (gradient, pullback)",
      ),

      loc,
      notes: demand.chain,
    });
    return;
  }
  for (const key of missing) {
    const kind = (["jvp", "fwd", "bwd", "grad", "jvps", "vjp"] as const).find(
      (k) => derivativeKey(k, demand.key, demand.wrt, demand.frozen) === key,
    )!;
    // No fused gradient or closure form: `gradient` and `pullback` of a rule run the sweeps.
    if (kind === "grad" || kind === "vjp") continue;
    // Named after the registering module's binding, which is unique there.
    const name = derivativeName(
      kind,
      rule.targetName,
      demand.wrt,
      rule.params.length,
      demand.frozen,
    );
    derivatives.set(
      key,
      bodiless(key, name, loc, {
        adapter: { kind, rule: rule.key, wrt: demand.wrt, home: registration.module.file },
      }),
    );
  }
}
