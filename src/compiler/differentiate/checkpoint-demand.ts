import { unsupportedType } from "../diagnostics/messages/index.js";
import type { EffectsOf } from "../analysis/effects.js";
import type { DiagnosticBag } from "../diagnostics/diagnostic.js";
import { checkpointKey, derivativeKey, derivativeName, functionLabel } from "../ir/names.js";
import { isAggregate, sameType, typeText } from "../ir/type-system.js";
import type { FunctionKey, IRFunction, Type } from "../ir/types.js";
import type { DifferentiationTarget } from "../resolve/targets.js";
import { bodiless, demandLoc, type Demand } from "./demand.js";
import { STRUCTURE } from "./frozen-memory.js";

// The sweeps of a checkpointed call (`checkpoint(f)(…)` in reverse mode): the forward sweep
// saves the arguments and runs the primal; the backward sweep reruns the function's own
// forward sweep on the saved arguments, then its backward sweep (emit/js/checkpoint.ts emits
// both from the description made here).

export interface CheckpointContext {
  readonly diagnostics: DiagnosticBag;
  readonly derivatives: Map<FunctionKey, IRFunction | undefined>;
  readonly targets: ReadonlyMap<FunctionKey, DifferentiationTarget>;
  readonly effects: EffectsOf;
  signatureOf(key: FunctionKey): { params: Type[]; result: Type | undefined } | undefined;
  rootFrozen(key: FunctionKey): number[];
  /** Processes a demand now (the function's own sweeps, which the checkpoint's rerun). */
  process(demand: Demand): void;
}

/**
 * Makes the checkpoint's two sweeps for `demand`. The rerun's two sweeps run back to back,
 * so they treat every argument the function does not write as frozen.
 */
export function checkpointSweeps(demand: Demand, ctx: CheckpointContext): void {
  const fwdKey = checkpointKey("fwd", demand.key, demand.wrt);
  if (ctx.derivatives.has(fwdKey)) return;
  const bwdKey = checkpointKey("bwd", demand.key, demand.wrt);
  ctx.derivatives.set(fwdKey, undefined);
  ctx.derivatives.set(bwdKey, undefined);
  const signature = ctx.signatureOf(demand.key);
  if (!signature) {
    // Lowering failed: the demand for its own sweeps reports why.
    ctx.process({ ...demand, checkpoint: false });
    return;
  }
  const { params, result } = signature;
  const target = ctx.targets.get(demand.key);
  const label = target ? functionLabel(target.name) : "this function";
  if (result !== undefined && isAggregate(result)) {
    ctx.diagnostics.add({
      severity: "error",
      ...unsupportedType.checkpointedFunctionMustReturnNumber(label, typeText(result)),
      loc: demandLoc(demand),
      notes: demand.chain.slice(1),
    });
    return;
  }
  const effects = ctx.effects(demand.key);
  if (!effects || effects.replaces.size > 0 || effects.grows.size > 0) {
    // The checkpoint's forward sweep runs the primal, which would change the structure of
    // the arguments without their shadows following.
    const offset = target?.thisType ? 1 : 0;
    const nameOf = (i: number) => {
      const p = target?.node.params[i - offset];
      return i < offset ? "'this'" : p?.type === "Identifier" ? `'${p.name}'` : "an argument";
    };
    const what = !effects
      ? "may change the structure of its arguments"
      : effects.grows.size > 0
        ? `changes the length of its argument ${nameOf([...effects.grows][0]!)}`
        : `stores arrays or objects into its argument ${nameOf([...effects.replaces][0]!)}`;
    ctx.diagnostics.add({
      severity: "error",
      ...unsupportedType.cannotBeCheckpointedItAnd(label, what),
      loc: demandLoc(demand),
      notes: demand.chain.slice(1),
    });
    return;
  }
  // What f does not write stays as it was between the rerun's two sweeps — unless the call
  // passed it as, or inside, an array f writes (`f(u, u)`), which nabla cannot rule out for
  // arguments whose types could hold the same array.
  const written = [...effects.writes];
  const frozen = ctx
    .rootFrozen(demand.key)
    .filter(
      (i) => i < 0 || i >= STRUCTURE || !written.some((w) => mayShare(params[i]!, params[w]!)),
    );
  ctx.process({ ...demand, frozen, checkpoint: false });
  const name = ctx.targets.get(demand.key)?.name ?? "f";
  for (const kind of ["fwd", "bwd"] as const) {
    const key = kind === "fwd" ? fwdKey : bwdKey;
    ctx.derivatives.set(
      key,
      bodiless(
        key,
        `${derivativeName(kind, name, demand.wrt, params.length)}$checkpoint`,
        demandLoc(demand),
        {
          checkpoint: {
            kind,
            primal: demand.key,
            wrt: demand.wrt,
            fwd: derivativeKey("fwd", demand.key, demand.wrt, frozen),
            bwd: derivativeKey("bwd", demand.key, demand.wrt, frozen),
            params,
            result,
          },
        },
      ),
    );
  }
}

/** Whether values of types `a` and `b` could be, or hold, the same array or object. */
function mayShare(a: Type, b: Type): boolean {
  const parts = (t: Type, into: Type[] = []): Type[] => {
    if (!isAggregate(t) || into.includes(t)) return into;
    into.push(t);
    if (t.kind === "array") (t.elements ?? [t.element]).forEach((e) => parts(e, into));
    else if (t.kind === "keyed") parts(t.value, into);
    else t.fields.forEach((f) => parts(f.type, into));
    return into;
  };
  const inB = parts(b);
  return parts(a).some((x) => inB.some((y) => sameType(x, y)));
}
