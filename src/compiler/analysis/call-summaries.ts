import { isAggregate } from "../ir/type-system.js";
import type { FunctionKey, IRFunction } from "../ir/types.js";
import { variedness, type CallVaried, type CallVariedness } from "./activity.js";
import {
  joinEffects,
  NO_EFFECTS,
  sameEffects,
  summarizeEffects,
  type Effects,
  type EffectsOf,
} from "./effects.js";
import { SccSolver } from "./scc-solver.js";

// The cross-function analyses: what a call does to its array and object arguments (effects)
// and what it makes varied (activity), each function summarized from its lowered body and
// recursive functions solved together as least fixed points (scc-solver.ts). The
// differentiator hands in how to get a function's body, since bodies are lowered on demand.

export interface FunctionSource {
  /** The lowered primal of `key`, or undefined if it cannot be lowered (errors come later). */
  lowered(key: FunctionKey): IRFunction | undefined;
  /** A function with a registered derivative: taken not to change its arguments (documented). */
  hasRule(key: FunctionKey): boolean;
  /** Whether lowering `key` has started (it may be under way, reached from its own callee). */
  started(key: FunctionKey): boolean;
}

export class CallSummaries {
  constructor(private readonly source: FunctionSource) {}

  /** Functions whose effects are unknown (they cannot be lowered): the worst is assumed. */
  private readonly effectsUnknown = new Set<FunctionKey>();
  private readonly effectsSolver = new SccSolver<Effects>(
    (key) => summarizeEffects(this.source.lowered(key)!, this.effects),
    // Least: it returns nothing that existed before, until its body says it may.
    () => ({ ...NO_EFFECTS, returnsOld: false }),
    joinEffects,
    sameEffects,
  );

  /**
   * What a callee does to its array and object arguments (see Effects), computed from its
   * lowered body; undefined (assume the worst) when it cannot be lowered — the error is
   * reported when the callee is differentiated. Recursive functions are solved together as a
   * least fixed point (scc-solver.ts): each starts at "no effects" and the summaries are
   * recomputed until none grows (a function that only ever calls itself writes what its body
   * writes, not everything).
   */
  readonly effects: EffectsOf = (key) => {
    if (this.effectsUnknown.has(key)) return undefined;
    // A function with a registered derivative is taken not to change its arguments (documented).
    if (this.source.hasRule(key)) return NO_EFFECTS;
    if (!this.effectsSolver.has(key) && !this.source.lowered(key)) {
      // Being lowered (a callee reached while lowering it), or it cannot be: the worst.
      if (!this.source.started(key)) this.effectsUnknown.add(key);
      return undefined;
    }
    return this.effectsSolver.get(key);
  };

  /** Per (callee, varied arguments) id: the callee and its varied arguments. */
  private readonly variedQuestions = new Map<string, { key: FunctionKey; varied: number[] }>();
  private readonly variedUnknown = new Set<string>();
  private readonly variedSolver = new SccSolver<CallVariedness>(
    (id) => {
      const { key, varied } = this.variedQuestions.get(id)!;
      return variedness(this.source.lowered(key)!, varied, this.effects, this.variedEffects);
    },
    (id) => {
      const { key, varied } = this.variedQuestions.get(id)!;
      const fn = this.source.lowered(key)!;
      return {
        result: false,
        params: new Set(varied.filter((i) => isAggregate(fn.params[i]!.type))),
      };
    },
    (old, next) => ({
      result: old.result || next.result,
      params: new Set([...old.params, ...next.params]),
      keys: new Set([...(old.keys ?? []), ...(next.keys ?? [])]),
    }),
    (a, b) =>
      a.result === b.result &&
      a.params.size === b.params.size &&
      (a.keys?.size ?? 0) === (b.keys?.size ?? 0),
  );

  /**
   * What a call of `key` makes varied when the arguments `varied` are (see activity.ts): the
   * callee's own activity analysis, solved for every (callee, varied arguments) pair it reaches
   * as a least fixed point (scc-solver.ts) — each pair starts at "only the varied arguments"
   * and the analyses rerun until no answer grows, so recursion (`detOfMinor` passing its index
   * lists to itself) keeps what only ever holds integers inactive. Undefined when the callee
   * has no IR (a registered rule, or it cannot be lowered): the caller assumes the worst.
   */
  readonly variedEffects: CallVaried = (key, varied) => {
    const id = `${key}|${varied.join(",")}`;
    if (this.variedUnknown.has(id)) return undefined;
    if (this.source.hasRule(key)) return undefined;
    if (!this.variedSolver.has(id)) {
      if (!this.source.lowered(key)) {
        this.variedUnknown.add(id);
        return undefined;
      }
      this.variedQuestions.set(id, { key, varied });
    }
    return this.variedSolver.get(id);
  };

  /**
   * Runs `work` (a differentiation reached from inside a solve) so that it does not see the
   * unfinished approximations of the solves under way.
   */
  isolated<T>(work: () => T): T {
    return this.variedSolver.isolated(() => this.effectsSolver.isolated(work));
  }
}
