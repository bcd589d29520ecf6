import { LoopFacts, type Induction, type Recurrence, type TripCount } from "./loop-facts.js";
import { everyOp, forEachOp, someOp } from "../ir/walk.js";
import { ResidualPlan, type Residual, type SharedResidual } from "./residual-plan.js";
import { FrozenMemory, type FrozenOptions } from "./frozen-memory.js";
import { isLinear, returnsSeededNumber } from "./tangent-values.js";
import {
  type FunctionKey,
  type IRFunction,
  type Op,
  type Region,
  type Value,
} from "../ir/types.js";
import { TRANSPOSE_TOUCHES_SHADOWS } from "../ir/ops.js";

// What reverse mode must remember. The linearized function (JVP) mixes primal ops and
// tangent ops ([t]). The backward sweep runs the tangent ops transposed, so it needs the
// primal values they read (coefficients), the branch each `if` took and the trip count of each
// loop. Each residual belongs to the region that defines it: the forward sweep saves it on the
// tape at the end of that region, the backward sweep takes it back at the start of the mirrored
// region, where every nested mirror can read it. So a value defined before a loop is saved
// once, not once per iteration, and the tape stays last-in first-out through any nesting of
// branches, loops and calls. `ReverseInfo` answers the sweeps' questions from the loop facts
// (loop-facts.ts), what stays in memory (frozen-memory.ts) and the plan of residuals
// (residual-plan.ts), which it makes once the sweeps first ask.

export interface ReverseOptions extends FrozenOptions {
  /** Loops whose backward loop must not carry recurrences (see Recurrence). */
  noRecurrences?: ReadonlySet<Op>;
  needsOf?: (call: Op) => readonly number[];
  skippable?: (call: Op) => boolean;
  tapeless?: (call: Op) => boolean;
  primalTapeless?: (callee: FunctionKey) => boolean;
}

export class ReverseInfo {
  private readonly tangentContent = new Map<Op, boolean>();
  private readonly residualLists = new Map<Region, Residual[]>();
  /** Primal values defined by `const`/`global` ops: rebuilt in the backward sweep, not taped. */
  readonly rematerializable = new Map<number, Op>();
  /**
   * Residuals one arithmetic op away from other residuals (`0.5 * ω` when `ω` is saved):
   * recomputed in the backward sweep instead of taped, by their defining op.
   */
  readonly recomputed = new Map<number, Op>();
  /** The region that defines each value. */
  readonly home = new Map<number, Region>();
  /** Per loop, the carried residuals shared between consecutive iterations. */
  readonly shared = new Map<Op, SharedResidual[]>();

  /** Loop counters the backward sweep computes from its own iteration count (see Induction). */
  readonly induced: ReadonlyMap<number, Induction>;
  /** The loop parameters of recurrences (both regions' parameters of the slot). */
  private readonly recurrent: ReadonlyMap<number, Recurrence>;
  /** The ops of the `after` regions that compute recurrences' next values. */
  private readonly recurrenceSteps: ReadonlyMap<number, Op>;
  /** Per loop, the recurrences the backward sweep carries (slots). */
  private readonly neededRecurrences = new Map<Op, Set<number>>();
  /**
   * Loops whose backward loop carries recurrences but could not run in ascending order, which
   * they need: the sweeps built with this information are wrong and must be built again with
   * these loops in `noRecurrences`. Set by the backward sweep.
   */
  readonly failedRecurrences = new Set<Op>();
  private readonly noRecurrences: ReadonlySet<Op>;
  /** Loops whose trip count the backward sweep computes (see TripCount). */
  readonly tripCounts: ReadonlyMap<Op, TripCount>;
  /** Whether the JVP has no loop with tangent work (the plan of residuals then keeps body values in locals, as a fused gradient does). */
  private readonly flat: boolean;
  private readonly definitions = new Map<number, Op>();
  /** What stays in memory until the backward sweep (see frozen-memory.ts). */
  readonly memory: FrozenMemory;

  /** The JVP's parameters other than number tangents (arguments and shadows), by value id. */
  private readonly paramIndex = new Map<number, number>();
  /** Those the backward sweep reads: its inputs (see `inputs`). */
  private readonly usedInputs = new Set<number>();
  /** What the backward sweep of a callee takes after its seed (see `inputs`). */
  readonly needsOf: (call: Op) => readonly number[];
  /**
   * Whether a call's backward sweep may be skipped when its seed is zero (see
   * `skippableAlone`): then it would only add zeros.
   */
  readonly skippable: (call: Op) => boolean;
  /** Whether a call's sweeps leave the tape alone (see `tapelessAlone`): no hand-over needed. */
  readonly tapeless: (call: Op) => boolean;
  /** Whether a primal function (by key) never uses the tape, its callees neither. */
  readonly primalTapeless: (callee: FunctionKey) => boolean;

  /** The op of the JVP that defines `v` (none for parameters). */
  definitionOf(v: Value): Op | undefined {
    return this.definitions.get(v.id);
  }

  /**
   * `frozen` lists the array and object parameters whose contents stay unchanged until the
   * backward sweep runs (the caller guarantees it, see `frozenArguments`): values read from
   * them are read again in the backward sweep instead of being taped. `needsOf` says, for a
   * call of a derivative, which of its operands (the callee JVP's parameters) the callee's
   * backward sweep takes as inputs.
   */
  constructor(
    readonly jvp: IRFunction,
    readonly options: ReverseOptions = {
      frozen: [],
      arity: jvp.params.length,
      effectsOf: () => undefined,
    },
  ) {
    this.needsOf = options.needsOf ?? (() => []);
    this.skippable = options.skippable ?? (() => false);
    this.tapeless = options.tapeless ?? (() => false);
    this.primalTapeless = options.primalTapeless ?? (() => false);
    jvp.params.forEach((p, i) => {
      if (!isLinear(p)) this.paramIndex.set(p.id, i);
    });
    forEachOp(jvp.body, (op) => {
      for (const r of op.results) this.definitions.set(r.id, op);
      if (op.opcode === "const" || op.opcode === "global")
        this.rematerializable.set(op.results[0]!.id, op);
    });
    this.memory = new FrozenMemory(jvp, options);
    this.noRecurrences = options.noRecurrences ?? new Set();
    const loops = new LoopFacts(jvp.body, {
      definitions: this.definitions,
      hasTangent: (op) => this.hasTangent(op),
      memory: this.memory,
      noRecurrences: this.noRecurrences,
    });
    this.induced = loops.induced;
    this.tripCounts = loops.tripCounts;
    this.recurrent = loops.recurrent;
    this.recurrenceSteps = loops.recurrenceSteps;
    this.flat = !someOp(jvp.body, (op) => op.opcode === "loop" && this.hasTangent(op));
    this.memory.markFrozenArguments(jvp.body);
  }

  /** Loop counters the backward sweep uses. */
  private readonly neededInductions = new Set<number>();

  /** Whether the backward sweep needs the loop counter held by `p` (a loop's parameter). */
  needsInduction(...values: Value[]): boolean {
    if (this.residualLists.size === 0) this.planResiduals();
    return values.some((v) => this.neededInductions.has(v.id));
  }

  /** The recurrences of `loop` its backward loop carries, by slot (see Recurrence). */
  recurrencesOf(loop: Op): number[] {
    if (this.residualLists.size === 0) this.planResiduals();
    return [...(this.neededRecurrences.get(loop) ?? [])].sort((a, b) => a - b);
  }

  /** Whether an op takes part in the tangent computation (so the backward sweep mirrors it). */
  hasTangent(op: Op): boolean {
    let known = this.tangentContent.get(op);
    if (known === undefined) {
      known =
        op.tangent === true ||
        op.results.some((r) => r.tangent) ||
        op.regions.some(
          (r) => r.params.some((p) => p.tangent) || r.ops.some((o) => this.hasTangent(o)),
        );
      this.tangentContent.set(op, known);
    }
    return known;
  }

  /**
   * The parameters of the JVP (primal arguments and shadows, by position) the backward sweep
   * reads. They are not taped: the backward sweep takes them as arguments after its seed, from
   * its caller, which has them anyway in most programs — its own inputs passed on (a recursive
   * call, a helper handed the caller's arrays), constants, arrays it reads again — and tapes
   * them itself otherwise, which costs what taping them here would.
   */
  inputs(): number[] {
    if (this.residualLists.size === 0) this.planResiduals();
    return [...this.usedInputs].sort((a, b) => a - b);
  }

  /**
   * Whether this function's backward sweep, given a zero seed, does nothing but add zeros —
   * as far as the function itself goes (its calls' backward sweeps must be too): its forward
   * sweep saves nothing (so skipping it leaves the tape as it is), and its backward sweep only
   * adds into shadows, never reads an adjoint out of one (a shadow write's transpose moves the
   * adjoint found there whatever the seed), nor calls a `withDerivative` function.
   */
  skippableAlone(): boolean {
    if (!this.tapelessAlone() || !returnsSeededNumber(this.jvp)) return false;
    return everyOp(
      this.jvp.body,
      (op) => !(op.tangent && TRANSPOSE_TOUCHES_SHADOWS.has(op.opcode)),
    );
  }

  /**
   * Whether this function's sweeps leave the tape alone, as far as the function itself goes
   * (its calls' sweeps must too): nothing saved, no checkpoint (which saves its arguments), no
   * outside function, and no plain call of a function that may use the tape.
   */
  tapelessAlone(): boolean {
    if (this.residualLists.size === 0) this.planResiduals();
    for (const list of this.residualLists.values()) if (list.length > 0) return false;
    return everyOp(
      this.jvp.body,
      (op) =>
        op.opcode !== "extern" &&
        !(op.opcode === "call" && op.attrs.checkpoint) &&
        !(op.opcode === "call" && !op.tangent && !this.primalTapeless(op.attrs.callee!)),
    );
  }

  /** The calls of derivatives whose backward sweeps this one calls. */
  derivativeCalls(): Op[] {
    const calls: Op[] = [];
    forEachOp(this.jvp.body, (op) => {
      if (op.opcode === "call" && op.tangent) calls.push(op);
    });
    return calls;
  }

  /**
   * Decides every residual (see residual-plan.ts) once the sweeps ask: what a call's backward
   * sweep takes (`needsOf`) is only known then.
   */
  private planResiduals(): void {
    new ResidualPlan(
      {
        jvp: this.jvp,
        definitions: this.definitions,
        rematerializable: this.rematerializable,
        paramIndex: this.paramIndex,
        induced: this.induced,
        recurrent: this.recurrent,
        recurrenceSteps: this.recurrenceSteps,
        tripCounts: this.tripCounts,
        memory: this.memory,
        needsOf: this.needsOf,
        flat: this.flat,
        hasTangent: (op) => this.hasTangent(op),
      },
      {
        residualLists: this.residualLists,
        recomputed: this.recomputed,
        home: this.home,
        shared: this.shared,
        neededInductions: this.neededInductions,
        neededRecurrences: this.neededRecurrences,
        usedInputs: this.usedInputs,
      },
    ).run();
  }

  /** The residuals of one region, in the order the forward sweep saves them. */
  residuals(region: Region): Residual[] {
    if (this.residualLists.size === 0) this.planResiduals();
    return this.residualLists.get(region) ?? [];
  }
}
