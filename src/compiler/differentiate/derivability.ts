import { notes } from "../diagnostics/messages/index.js";
import type { Message } from "../diagnostics/messages/message.js";
import { nestedDifferentiation } from "../diagnostics/messages/index.js";
import {
  constantResult,
  moduleVariableWrite,
  nonDifferentiableOperation,
  unsupportedType,
} from "../diagnostics/messages/index.js";
import { forEachOp } from "../ir/walk.js";
import {
  analyzeActivity,
  type Activity,
  type ActivityObserver,
  type CallVaried,
} from "../analysis/activity.js";
import { findModuleWrites, type EffectsOf } from "../analysis/effects.js";
import type { Diagnostic, DiagnosticBag } from "../diagnostics/diagnostic.js";
import { functionLabel } from "../ir/names.js";
import {
  isAggregate,
  isDifferentiable,
  isIntegerArray,
  isKeyed,
  isObject,
  typePhrase,
  typeText,
} from "../ir/type-system.js";
import type { FunctionKey, IRFunction, KeyedType, Op, Type } from "../ir/types.js";
import { keyName } from "../ir/function-key.js";
import { parseDerivedPrimalKey } from "../ir/names.js";
import type { DifferentiationTarget } from "../resolve/targets.js";
import type { Demand } from "./demand.js";

// Whether a demand can be differentiated, checked before linearizing: the parameters and the
// result have tangents, nothing writes module-level data, no active value flows through a
// non-differentiable operation. Each failure is a diagnostic at the user's code, with the
// demand's call chain.

export interface DerivabilityContext {
  readonly diagnostics: DiagnosticBag;
  readonly effects: EffectsOf;
  readonly variedEffects: CallVaried;
  readonly observeActivity: ActivityObserver | undefined;
  /** The name of `key` and, if it cannot be lowered, why (its first error). */
  readonly whyUnreadable?: (key: FunctionKey) => { name: string; why?: Diagnostic } | undefined;
}

/** "a number", "an Int32Array": a type named with its article, for messages. */
function aType(t: Type): string {
  const text = typeText(t);
  return /^[aeiou]/i.test(text) ? `an ${text}` : `a ${text}`;
}

/** The activity of `primal` for the demand, or undefined (with diagnostics) if it cannot be differentiated. */
export function checkDerivable(
  primal: IRFunction,
  demand: Demand,
  target: DifferentiationTarget,
  ctx: DerivabilityContext,
): Activity | undefined {
  if (!checkSignature(primal, demand, target, ctx.diagnostics)) return undefined;
  if (!checkInnerGradients(primal, demand, ctx)) return undefined;
  if (!checkModuleWrites(primal, demand, ctx)) return undefined;
  const activity = analyzeActivity(primal, demand.wrt, ctx.effects, ctx.variedEffects);
  ctx.observeActivity?.(primal, demand.wrt, activity, false);
  if (!checkActivity(activity, demand, ctx.diagnostics)) return undefined;
  warnIfConstant(primal, demand, activity, ctx.diagnostics);
  return activity;
}

/** The differentiated parameters and (for a requested function) the result have tangents. */
function checkSignature(
  primal: IRFunction,
  demand: Demand,
  target: DifferentiationTarget,
  diagnostics: DiagnosticBag,
): boolean {
  for (const i of demand.wrt) {
    const param = primal.params[i]!;
    if (!isDifferentiable(param.type)) {
      const node = target.node.params[i - (target.thisType ? 1 : 0)] ?? target.node;
      const loc = { file: target.module.file, start: node.start, end: node.end };
      if (isIntegerArray(param.type)) {
        diagnostics.add({
          severity: "error",
          ...unsupportedType.cannotDifferentiateWithRespectToIntegerArray(
            functionLabel(primal.name),
            param.hint,
            typeText(param.type),
          ),
          loc,
          notes: demand.chain,
        });
        return false;
      }
      const what = isAggregate(param.type)
        ? `${aType(param.type)}, which has no differentiable fields (numbers, arrays of numbers…)`
        : aType(param.type);
      diagnostics.add({
        severity: "error",
        ...unsupportedType.cannotDifferentiateWithRespectTo(
          functionLabel(primal.name),
          param.hint,
          what,
        ),

        loc: { file: target.module.file, start: node.start, end: node.end },
        notes: demand.chain,
      });
      return false;
    }
  }
  const result = primal.resultTypes[0];
  const resultOk =
    result === "number" ||
    (demand.mode !== "gradient" && result !== undefined && isDifferentiable(result));
  if (demand.root && !resultOk) {
    diagnostics.add({
      severity: "error",
      ...unsupportedType.cannotDifferentiateItReturns(
        functionLabel(primal.name),
        result === undefined ? "nothing" : typePhrase(result),
        demand.mode === "gradient"
          ? result !== undefined && isObject(result)
            ? "not a number (a gradient needs a number-valued function; use 'pullback' for others, or 'jacobian' of a function returning the numbers in an array)"
            : "not a number (a gradient needs a number-valued function; use 'pullback' or 'jacobian' for others)"
          : "which has no derivative (numbers, arrays and objects of numbers do)",
      ),

      loc: primal.loc,
      notes: demand.chain,
    });
    return false;
  }
  return true;
}

/**
 * An inner `gradient` of several parameters runs its function once per parameter (see
 * lower/nested.ts), which is only the same as one run if the function changes nothing.
 */
function checkInnerGradients(
  primal: IRFunction,
  demand: Demand,
  ctx: DerivabilityContext,
): boolean {
  const passes = new Map<string, Op[]>();
  forEachOp(primal.body, (op) => {
    const name = op.attrs.calleeName;
    if (
      op.opcode === "call" &&
      (name === "gradient" || name === "valueWithGradient") &&
      parseDerivedPrimalKey(op.attrs.callee!)
    ) {
      const at = `${op.loc.file}:${op.loc.start}`;
      passes.set(at, [...(passes.get(at) ?? []), op]);
    }
  });
  for (const calls of passes.values()) {
    if (calls.length < 2 && !calls[0]!.attrs.repeated) continue;
    const effects = ctx.effects(calls[0]!.attrs.callee!);
    if (effects && effects.writes.size === 0) continue;
    ctx.diagnostics.add({
      severity: "error",
      ...(calls[0]!.attrs.repeated
        ? nestedDifferentiation.innerGradientOfArrayWrites(calls[0]!.attrs.calleeName)
        : nestedDifferentiation.innerGradientOfParametersWrites(
            calls[0]!.attrs.calleeName,
            calls.length,
          )),
      loc: calls[0]!.loc,
      notes: demand.chain,
    });
    return false;
  }
  return true;
}

/** Differentiable code, and what it calls, writes no module-level data. */
function checkModuleWrites(primal: IRFunction, demand: Demand, ctx: DerivabilityContext): boolean {
  const writes = findModuleWrites(primal, ctx.effects);
  for (const { name, loc, calls, passed, unread } of writes) {
    // A callee nabla cannot read is taken to write what it is given: say so, and why.
    const found = unread ? ctx.whyUnreadable?.(unread) : undefined;
    const callee = unread && functionLabel(found?.name ?? keyName(unread));
    const why = found?.why;
    ctx.diagnostics.add({
      severity: "error",
      ...(unread
        ? moduleVariableWrite.cannotTellWhetherCallChanges(name, callee)
        : moduleVariableWrite.differentiableCodeCannotChangeModule(
            name,
            passed ? " (this call writes to it)" : "",
          )),
      loc,
      notes: [
        ...(why
          ? [
              {
                ...notes.cannotRead(callee, why.message),
                loc: why.loc,
              },
            ]
          : []),
        ...calls.map((c) => ({
          ...notes.whenDifferentiatingCall(c.callee),
          loc: c.loc,
        })),
        ...demand.chain,
      ],
    });
  }
  return writes.length === 0;
}

/** No active value flows through what has no derivative. */
function checkActivity(activity: Activity, demand: Demand, diagnostics: DiagnosticBag): boolean {
  const report = (op: Op, message: Message) =>
    diagnostics.add({ severity: "error", ...message, loc: op.loc, notes: demand.chain });
  for (const op of activity.blocked)
    report(
      op,
      op.attrs.callee === "+" && op.results[0]?.type === "string"
        ? nonDifferentiableOperation.textOfDifferentiatedValue()
        : nonDifferentiableOperation.isNotDifferentiableButValue(op.attrs.callee),
    );
  for (const { op, field } of activity.blockedStores)
    report(
      op,
      field.enumChoice
        ? nonDifferentiableOperation.enumFieldGivenDifferentiatedValue(field.name)
        : nonDifferentiableOperation.fieldIsMarkedNoDerivativeBut(field.name),
    );
  for (const op of activity.blockedKeys) {
    const keyed = op.operands.find((v) => isKeyed(v.type))!.type as KeyedType;
    const kind = keyed.storage === "Set" ? "Set" : "Map";
    report(
      op,
      op.opcode === "call"
        ? nonDifferentiableOperation.calleeMayReadKeys(kind)
        : nonDifferentiableOperation.keysReadWithoutDerivative(kind),
    );
  }
  for (const op of activity.detachedWrites)
    report(op, nonDifferentiableOperation.thisWritesIntoArrayOr());
  return (
    activity.blocked.length === 0 &&
    activity.blockedStores.length === 0 &&
    activity.blockedKeys.length === 0 &&
    activity.detachedWrites.length === 0
  );
}

/** A requested function whose result does not depend on its arguments: a warning. */
function warnIfConstant(
  primal: IRFunction,
  demand: Demand,
  activity: Activity,
  diagnostics: DiagnosticBag,
): void {
  const ret = primal.body.ops[primal.body.ops.length - 1]!;
  const returned = ret.operands[0];
  const varied =
    returned === undefined ||
    (isAggregate(returned.type) ? activity.isActive(returned) : activity.varied.has(returned.id));
  if (demand.root && !varied) {
    diagnostics.add({
      severity: "warning",
      ...constantResult.resultOfDoesNotDepend(functionLabel(primal.name)),
      loc: primal.loc,
      notes: demand.chain,
    });
  }
}
