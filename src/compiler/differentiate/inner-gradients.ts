import type { EffectsOf } from "../analysis/effects.js";
import { ValueFactory } from "../ir/builder.js";
import { derivativeKey } from "../ir/names.js";
import { isAggregate } from "../ir/type-system.js";
import type { FunctionKey, IRFunction, Op, Region, Value } from "../ir/types.js";
import { highestValueId } from "../ir/value-ids.js";
import { forEachOp } from "../ir/walk.js";

// A function run as WebAssembly computes an inner `gradient` with respect to arrays or
// objects in reverse mode (lower/nested.ts marks the call `reverseGradient`), as the
// operator's JavaScript wrapper does (emit/js/operators.ts): fresh zero shadows for the
// differentiated arrays and objects, then the fused gradient `f$grad(args…, shadows…, 1)`
// where it was built, else the forward sweep `f$fwd(args…, shadows…)` and the backward sweep
// `f$bwd(1, inputs…)`. The shadows hold the arrays' adjoints; the sweeps return the numbers'.
// Expanded once every derivative exists, since what a backward sweep takes from its caller is
// known only then (SweepBuilder.inputsOf).

/** One inner gradient to compute in reverse mode: the function and its parameters. */
export interface InnerGradient {
  key: FunctionKey;
  wrt: number[];
}

/** What the expansion reads from the differentiator. */
export interface InnerGradientTable {
  readonly derivatives: ReadonlyMap<FunctionKey, IRFunction | undefined>;
  rootFrozen(key: FunctionKey): number[];
  inputsOf(key: FunctionKey): readonly number[];
  readonly effects: EffectsOf;
}

/** The inner gradients `fn` computes in reverse mode (what to request before building). */
export function innerGradients(fn: IRFunction): InnerGradient[] {
  const found: InnerGradient[] = [];
  forEachOp(fn.body, (op) => {
    if (op.opcode === "call" && op.attrs.reverseGradient)
      found.push({ key: op.attrs.callee!, wrt: op.attrs.reverseGradient });
  });
  return found;
}

/**
 * `fn` with its inner reverse gradients expanded in place; or why one cannot run that way (a
 * sweep not built, a function that changes its arguments), leaving `fn` as it was. `helper`:
 * `fn` is called by the tagged function, whose warning the reason completes.
 */
export function expandInnerGradients(
  fn: IRFunction,
  table: InnerGradientTable,
  helper = false,
): { ok: true } | { ok: false; reason: string } {
  const calls: Op[] = [];
  forEachOp(fn.body, (op) => {
    if (op.opcode === "call" && op.attrs.reverseGradient) calls.push(op);
  });
  const plans = new Map<Op, Plan>();
  for (const op of calls) {
    const plan = planOf(op, table, helper ? fn.name : undefined);
    if (typeof plan === "string") return { ok: false, reason: plan };
    plans.set(op, plan);
  }
  if (plans.size === 0) return { ok: true };
  const values = new ValueFactory(highestValueId(fn) + 1);
  const rewrite = (region: Region): void => {
    region.ops = region.ops.flatMap((op) => {
      op.regions.forEach(rewrite);
      const plan = plans.get(op);
      return plan ? expand(op, plan, values) : [op];
    });
  };
  rewrite(fn.body);
  return { ok: true };
}

/** The sweeps an inner gradient calls, by key. */
interface Plan {
  wrt: number[];
  grad?: IRFunction;
  fwd: IRFunction;
  bwd: IRFunction;
  bwdInputs: readonly number[];
}

function planOf(op: Op, table: InnerGradientTable, helper: string | undefined): Plan | string {
  const primal = op.attrs.callee!;
  const wrt = op.attrs.reverseGradient!;
  const name = op.attrs.calleeName ?? "the function";
  const effects = table.effects(primal);
  // A function that changes its arguments would change them again in each sweep that reruns it.
  if (effects && effects.writes.size > 0)
    return helper === undefined
      ? `its inner 'gradient' of '${name}', which may change its arguments, cannot run in reverse mode there`
      : `the inner 'gradient' of '${name}' in '${helper}', which it calls, cannot run in reverse mode there: '${name}' may change its arguments`;
  const frozen = table.rootFrozen(primal);
  const key = (kind: "fwd" | "bwd" | "grad") => derivativeKey(kind, primal, wrt, frozen);
  const fwd = table.derivatives.get(key("fwd"));
  const bwd = table.derivatives.get(key("bwd"));
  if (!fwd || !bwd || fwd.stub || bwd.stub)
    return helper === undefined
      ? `the reverse mode of its inner 'gradient' of '${name}' could not be built`
      : `the reverse mode of the inner 'gradient' of '${name}' in '${helper}', which it calls, could not be built`;
  const grad = table.derivatives.get(key("grad"));
  return {
    wrt,
    fwd,
    bwd,
    bwdInputs: table.inputsOf(key("bwd")),
    ...(grad && !grad.stub ? { grad } : {}),
  };
}

/** The ops that compute `op`'s results: its adjoints (in `wrt` order), then the value. */
function expand(op: Op, plan: Plan, values: ValueFactory): Op[] {
  const ops: Op[] = [];
  const emit = (opcode: Op["opcode"], operands: Value[], results: Value[], attrs = {}) =>
    ops.push({ opcode, operands, results, regions: [], attrs, loc: op.loc });
  const args = op.operands;
  const adjoints = op.results.slice(0, plan.wrt.length);
  const value = op.results[plan.wrt.length]!;
  // The adjoints of arrays and objects accumulate into fresh zero shadows, which are the
  // results; those of numbers come back from the sweep, in ascending order.
  const shadows = new Map<number, Value>();
  const numbers: Value[] = [];
  plan.wrt.forEach((i, k) => {
    if (isAggregate(args[i]!.type)) {
      emit("zeros", [args[i]!], [adjoints[k]!]);
      shadows.set(i, adjoints[k]!);
    } else numbers.push(adjoints[k]!);
  });
  const seed = values.make("number", "seed");
  emit("const", [], [seed], { value: 1 });
  const shadowArgs = [...shadows.values()];
  if (plan.grad) {
    emit("call", [...args, ...shadowArgs, seed], [...numbers, value], {
      callee: plan.grad.key,
      calleeName: op.attrs.calleeName,
      innerGradient: true,
    });
    return ops;
  }
  emit("call", [...args, ...shadowArgs], [value], {
    callee: plan.fwd.key,
    calleeName: op.attrs.calleeName,
    innerGradient: true,
  });
  // The backward sweep's inputs index the arguments, then the shadows in `wrt` order.
  const inputs = plan.bwdInputs.map((k) => {
    if (k < args.length) return args[k]!;
    const shadow = shadows.get(plan.wrt[k - args.length]!);
    if (!shadow) throw new Error(`internal: no shadow for input ${k} of ${plan.bwd.name}`);
    return shadow;
  });
  emit("call", [seed, ...inputs], numbers, {
    callee: plan.bwd.key,
    calleeName: op.attrs.calleeName,
    innerGradient: true,
  });
  return ops;
}
