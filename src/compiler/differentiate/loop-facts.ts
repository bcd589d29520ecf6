import { COMPARISON_OPCODES, RECOMPUTABLE } from "../ir/ops.js";
import type { Op, Region, Value } from "../ir/types.js";
import { type LoopCounter, loopCounters } from "../ir/loop-counters.js";
import { definedInside } from "../ir/value-ids.js";
import type { FrozenMemory } from "./frozen-memory.js";

// What the backward sweep can know about the loops of a JVP without taping it: counters it
// recomputes from its own iteration count (inductions), trip counts that follow from the
// loop's condition, and recurrences it carries as the forward loop did.

/**
 * A loop-carried counter: in iteration t (from 0) it holds `init + t * step`, so the
 * backward sweep, which counts its iterations, recomputes it instead of taping it.
 */
export interface Induction {
  loop: Op;
  init: Value;
  step: number;
}

/**
 * A loop whose trip count the backward sweep computes instead of taping it: its condition is
 * only `i < bound` (`<=`, or `>`/`>=` counting down) of a counter stepping by ±1 from an
 * integer, with `bound` from outside the loop — `for (let i = 0; i < n; i++)`.
 */
export interface TripCount {
  init: Value;
  bound: Value;
  /**
   * `i < a.length` read in the condition (a `for…of`): the array, unchanged until the backward
   * sweep, whose length it reads there instead of `bound`.
   */
  lengthOf?: Value;
  compare: "lt" | "le" | "gt" | "ge";
  /** Whether `bound` is known to be an integer (a length, a counter…): no rounding needed. */
  integral: boolean;
}

/**
 * A loop-carried primal number whose next value is arithmetic of itself, of the loop's other
 * recurrences and counters, and of values from outside the loop (`power *= t`). If the
 * backward loop runs in ascending order (see `iterationsCommute` in backward-loop.ts), it carries
 * the value too and computes each next one as the forward loop did, instead of reading one per
 * iteration from the tape. Whether it does is only known once the backward loop is built: if
 * not, the loop is listed in `failedRecurrences` and the sweeps are built again without.
 */
export interface Recurrence {
  loop: Op;
  /** The position of the value among the loop's carried values. */
  slot: number;
}

/** What the loop analyses read of the JVP (see ReverseInfo). */
export interface LoopContext {
  /** The op defining each value. */
  readonly definitions: ReadonlyMap<number, Op>;
  /** Whether an op takes part in the tangent computation. */
  hasTangent(op: Op): boolean;
  readonly memory: FrozenMemory;
  /** Loops whose backward loop must not carry recurrences. */
  readonly noRecurrences: ReadonlySet<Op>;
}

export class LoopFacts {
  /** Loop counters the backward sweep computes from its own iteration count (see Induction). */
  readonly induced = new Map<number, Induction>();
  /** Loops whose trip count the backward sweep computes (see TripCount). */
  readonly tripCounts = new Map<Op, TripCount>();
  /** The loop parameters of recurrences (both regions' parameters of the slot). */
  readonly recurrent = new Map<number, Recurrence>();
  /** The ops of the `after` regions that compute recurrences' next values. */
  readonly recurrenceSteps = new Map<number, Op>();

  constructor(
    body: Region,
    private readonly ctx: LoopContext,
  ) {
    this.findInductions(body);
    this.findTripCounts(body);
    this.findRecurrences(body);
  }

  /** Finds the loops whose trip count follows from their condition (see TripCount). */
  private findTripCounts(region: Region): void {
    for (const op of region.ops) {
      op.regions.forEach((r) => this.findTripCounts(r));
      if (op.opcode !== "loop") continue;
      const [before] = op.regions as [Region, Region];
      const cond = before.ops[before.ops.length - 1]!.operands[0]!;
      const def = this.ctx.definitions.get(cond.id);
      if (!def || !COMPARISON_OPCODES.has(def.opcode) || def.opcode === "eq" || def.opcode === "ne")
        continue;
      let [x, y] = def.operands as [Value, Value];
      let compare = def.opcode as TripCount["compare"];
      if (!before.params.includes(x)) {
        // `bound > i` is `i < bound`.
        [x, y] = [y, x];
        compare = ({ lt: "gt", le: "ge", gt: "lt", ge: "le" } as const)[compare];
      }
      const induction = this.induced.get(x.id);
      if (!before.params.includes(x) || !induction || induction.loop !== op) continue;
      const up = compare === "lt" || compare === "le";
      if (induction.step !== (up ? 1 : -1)) continue;
      if (y.type !== "number" || !this.isIntegral(induction.init, 0)) continue;
      let lengthOf: Value | undefined;
      if (this.definedIn(op).has(y.id)) {
        // The length of an array from outside the loop that stays as it is until the backward
        // sweep (so the loop does not change it either). Not a bound the loop carries and
        // changes (`while (lo < hi) { lo++; hi--; }`): a region parameter, no op defines it.
        const read = this.ctx.definitions.get(y.id);
        if (read?.opcode !== "length" || !before.ops.includes(read)) continue;
        const array = read.operands[0];
        if (this.definedIn(op).has(array!.id) || !this.ctx.memory.isFrozenAt(array!, read))
          continue;
        lengthOf = array;
      }
      this.tripCounts.set(op, {
        init: induction.init,
        bound: y,
        ...(lengthOf ? { lengthOf } : {}),
        compare,
        integral: lengthOf !== undefined || this.isIntegral(y, 0),
      });
    }
  }

  private readonly definedInside = new Map<Op, Set<number>>();

  /** The ids of the values defined inside an op's regions. */
  private definedIn(op: Op): Set<number> {
    let ids = this.definedInside.get(op);
    if (ids) return ids;
    ids = definedInside(op);
    this.definedInside.set(op, ids);
    return ids;
  }

  /** Whether `v` always holds an integer: an integer constant, a length, a counter from one… */
  private isIntegral(v: Value, depth: number): boolean {
    if (depth > 4 || v.type !== "number") return false;
    const induction = this.induced.get(v.id);
    if (induction)
      return Number.isInteger(induction.step) && this.isIntegral(induction.init, depth + 1);
    const def = this.ctx.definitions.get(v.id);
    if (!def || def.tangent) return false;
    if (def.opcode === "const") return Number.isInteger(def.attrs.value);
    if (def.opcode === "length") return true;
    if (
      def.opcode === "add" ||
      def.opcode === "sub" ||
      def.opcode === "mul" ||
      def.opcode === "neg"
    )
      return def.operands.every((o) => this.isIntegral(o, depth + 1));
    return false;
  }

  /** Finds loop counters: `j` carried with `j + c` each iteration from an initial value. */
  private findInductions(region: Region): void {
    for (const op of region.ops) {
      op.regions.forEach((r) => this.findInductions(r));
      if (op.opcode !== "loop") continue;
      const inductions = new Map<LoopCounter, Induction>();
      for (const [id, counter] of loopCounters(op, (id) => this.ctx.definitions.get(id))) {
        if (!inductions.has(counter)) inductions.set(counter, { loop: op, ...counter });
        this.induced.set(id, inductions.get(counter)!);
      }
    }
  }

  /**
   * Finds recurrences (see Recurrence) in loops with tangent work whose `before` region has
   * none (a `for` or `while` test), so the backward sweep never needs the values there.
   */
  private findRecurrences(region: Region): void {
    for (const op of region.ops) {
      op.regions.forEach((r) => this.findRecurrences(r));
      if (op.opcode !== "loop" || this.ctx.noRecurrences.has(op) || !this.ctx.hasTangent(op))
        continue;
      const [before, after] = op.regions as [Region, Region];
      if (before.ops.some((o) => this.ctx.hasTangent(o))) continue;
      const forwarded = before.ops[before.ops.length - 1]!.operands.slice(1);
      const yielded = after.ops[after.ops.length - 1]!.operands;
      const inside = this.definedIn(op);
      const topLevel = new Set(after.ops);
      const candidates = new Set(
        before.params.flatMap((p, k) =>
          p.type === "number" &&
          !p.tangent &&
          forwarded[k] === p &&
          !after.params[k]!.tangent &&
          !this.induced.has(p.id)
            ? [k]
            : [],
        ),
      );
      // Whether `v` can be computed in the backward loop's iteration from the candidates'
      // current values, the loop's counters and values from outside the loop.
      const computable = (v: Value, depth: number): boolean => {
        if (!inside.has(v.id)) return true;
        const k = after.params.indexOf(v);
        if (k >= 0) return candidates.has(k) || this.induced.has(v.id);
        const def = this.ctx.definitions.get(v.id);
        if (!def || def.tangent || depth > 6 || !topLevel.has(def)) return false;
        const random = def.opcode === "math" && def.attrs.callee === "random";
        if (!(RECOMPUTABLE.has(def.opcode) && !random) && !this.ctx.memory.rereadable(def))
          return false;
        return def.operands.every((o) => computable(o, depth + 1));
      };
      for (let changed = true; changed;) {
        changed = false;
        for (const k of candidates) {
          if (computable(yielded[k]!, 0)) continue;
          candidates.delete(k);
          changed = true;
        }
      }
      for (const k of candidates) {
        const recurrence: Recurrence = { loop: op, slot: k };
        this.recurrent.set(before.params[k]!.id, recurrence);
        this.recurrent.set(after.params[k]!.id, recurrence);
        const mark = (v: Value) => {
          const def = this.ctx.definitions.get(v.id);
          if (!inside.has(v.id) || !def || !topLevel.has(def)) return;
          this.recurrenceSteps.set(v.id, def);
          def.operands.forEach(mark);
        };
        mark(yielded[k]!);
      }
    }
  }
}
