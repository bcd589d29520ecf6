import type { Builder } from "../ir/builder.js";
import type { Op, Region, Value } from "../ir/types.js";
import type { ReverseInfo } from "./residuals.js";

// The backward sweep's vocabulary: adjoints by tangent, and the state of one sweep that the
// parts transposing ops (backward-sweep.ts) and loops (backward-loop.ts) share.

/** Adjoints by the id of the tangent value (of the JVP) they belong to; absent = zero. */
export type Adjoints = Map<number, Value>;

/**
 * The adjoints inside a branch or a loop: what it sets, over the adjoints from before it,
 * which are not copied (a copy per `if` is quadratic in a long function). Its keys are only
 * those it set.
 */
export class BranchAdjoints extends Map<number, Value> {
  constructor(private readonly outside: Adjoints) {
    super();
  }

  override get(id: number): Value | undefined {
    return super.has(id) ? super.get(id) : this.outside.get(id);
  }

  override has(id: number): boolean {
    return super.has(id) || this.outside.has(id);
  }
}

/** What transposing a loop reads and extends of the sweep it is part of (see BackwardSweep). */
export interface SweepState {
  readonly b: Builder;
  readonly info: ReverseInfo;
  readonly values: Builder["values"];
  /** Residuals taken back from the tape (or given as inputs), by the id of the JVP value they hold. */
  readonly residuals: Map<number, Value>;
  /** The trip counts of loops the forward sweep taped, by loop. */
  readonly trips: Map<Op, Value>;
  /** Adjoints are named after the value: the adjoint of `dx` is `x_adj`. */
  readonly adjointHints: Map<number, string>;
  /** Values of the backward sweep that are shadows (whose numbers it reads and changes). */
  readonly shadowRefs: Set<number>;
  primalValue(v: Value): Value;
  accumulate(
    adjoints: Adjoints,
    target: Value,
    contribution: Value | undefined,
    negate?: boolean,
  ): void;
  yieldAdjoints(adjoints: Adjoints, ids: number[]): Value[];
  outerTangents(op: Op): number[];
  reverseRegion(region: Region, adjoints: Adjoints): void;
}
