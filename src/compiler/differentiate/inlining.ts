import type { EffectsOf } from "../analysis/effects.js";
import { analyzeActivity, type ActivityObserver } from "../analysis/activity.js";
import { keyFile } from "../ir/function-key.js";
import { inlineCalls, opCount } from "../ir/inline.js";
import { parseDerivedPrimalKey } from "../ir/names.js";
import type { FunctionKey, IRFunction, Op } from "../ir/types.js";
import { linearize } from "./linearize.js";
import { runPipeline, type PassObserver } from "./pipeline.js";
import type { ParamTypesOf } from "./tangentless-parameters.js";

// Inlining policy: before a function is linearized, the calls of small functions of its own
// module without loops are inlined (themselves with their calls inlined), so the derivative of
// a chain of tiny helpers is straight-line code instead of a chain of derivative calls.

/** The most ops a function may have to be inlined, and a function may grow to by inlining. */
const INLINE_CALLEE_OPS = 400;
const INLINE_CALLER_OPS = 4000;

export interface InliningSource {
  /** The lowered primal of `key`, or undefined if it cannot be lowered. */
  lowered(key: FunctionKey): IRFunction | undefined;
  /** A function with a registered derivative: its rule is called, never its body inlined. */
  hasRule(key: FunctionKey): boolean;
  effects: EffectsOf;
  /** Parameter types of a callee, for arguments it takes no tangent of (tangentless-parameters.ts). */
  paramTypesOf: ParamTypesOf;
  observe?: PassObserver;
  observeActivity?: ActivityObserver;
}

export class Inlining {
  constructor(private readonly source: InliningSource) {}

  /**
   * The JVP of `primal` with the small functions it calls inlined (see ir/inline.ts), or
   * undefined when nothing is inlined or the inlined copy is not differentiable as it is
   * (the original, whose callees are differentiated on their own, then reports why).
   */
  linearize(primal: IRFunction, wrt: number[]): ReturnType<typeof linearize> | undefined {
    if (parseDerivedPrimalKey(primal.key)) return undefined;
    const inlined = this.withInlinedCallees(primal, [primal.key]);
    if (!inlined) return undefined;
    const activity = analyzeActivity(inlined, wrt, this.source.effects);
    this.source.observeActivity?.(inlined, wrt, activity, true);
    if (
      activity.blocked.length > 0 ||
      activity.blockedStores.length > 0 ||
      activity.blockedKeys.length > 0 ||
      activity.detachedWrites.length > 0
    )
      return undefined;
    try {
      return linearize(inlined, wrt, activity, this.source.paramTypesOf);
    } catch {
      return undefined;
    }
  }

  /** Per function, its body with its calls inlined if it has no call left then (else null). */
  private readonly leafBodies = new Map<FunctionKey, IRFunction | null>();
  /** Whether a `leafBody` under way refused to inline a call back into its stack. */
  private stackDependent = false;

  /**
   * A copy of `fn` with the calls of small functions of the same module without loops
   * inlined, themselves with their calls inlined; undefined if it inlines nothing. `stack`
   * holds the functions being inlined into (recursion is never inlined).
   */
  private withInlinedCallees(fn: IRFunction, stack: FunctionKey[]): IRFunction | undefined {
    const file = keyFile;
    const inlined = inlineCalls(fn, (call) => {
      const key = call.attrs.callee!;
      if (
        call.attrs.checkpoint ||
        call.attrs.via ||
        call.attrs.repeated ||
        call.attrs.method ||
        call.attrs.primal ||
        file(key) !== file(fn.key) ||
        parseDerivedPrimalKey(key) ||
        this.source.hasRule(key)
      )
        return undefined;
      if (stack.includes(key)) {
        this.stackDependent = true;
        return undefined;
      }
      const body = this.leafBody(key, stack);
      if (
        !body ||
        body.params.length !== call.operands.length ||
        body.resultTypes.length !== call.results.length
      )
        return undefined;
      return body;
    });
    if (!inlined) return undefined;
    if (opCount(inlined) > INLINE_CALLER_OPS) return undefined;
    runPipeline("inlined", inlined, this.source.observe);
    return inlined;
  }

  /** `key`'s body if it can be inlined: small, no loop, no call left once its own are inlined. */
  private leafBody(key: FunctionKey, stack: FunctionKey[]): IRFunction | undefined {
    const known = this.leafBodies.get(key);
    if (known !== undefined) return known ?? undefined;
    const fn = this.source.lowered(key);
    let body: IRFunction | null = null;
    const outer = this.stackDependent;
    this.stackDependent = false;
    if (fn && opCount(fn) <= INLINE_CALLEE_OPS) {
      const candidate = this.withInlinedCallees(fn, [...stack, key]) ?? fn;
      const blocked = (ops: Op[]): boolean =>
        ops.some(
          (op) =>
            op.opcode === "call" || op.opcode === "loop" || op.regions.some((r) => blocked(r.ops)),
        );
      if (!blocked(candidate.body.ops) && opCount(candidate) <= INLINE_CALLEE_OPS) body = candidate;
    }
    // What depends on the stack (a call back into it, here or in a callee) is not remembered;
    // the rest is, or a chain of calls would be walked again from every function in it.
    const dependent = this.stackDependent;
    this.stackDependent = outer || dependent;
    if (body || !dependent) this.leafBodies.set(key, body);
    return body ?? undefined;
  }
}
