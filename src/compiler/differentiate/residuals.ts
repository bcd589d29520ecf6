import { LoopFacts, type Induction, type Recurrence, type TripCount } from "./loop-facts.js";
import { everyOp, forEachOp, someOp } from "../ir/walk.js";
import { FrozenMemory, type FrozenOptions } from "./frozen-memory.js";
import { isLinear, isShadowBuilder, returnsSeededNumber } from "./tangent-values.js";
import { replacedSlot } from "./restore.js";
import {
  type FunctionKey,
  type IRFunction,
  type Op,
  type Region,
  type Value,
} from "../ir/types.js";
import { CHEAP, TRANSPOSE_TOUCHES_SHADOWS } from "../ir/ops.js";

// What reverse mode must remember. The linearized function (JVP) mixes primal ops and
// tangent ops ([t]). The backward sweep runs the tangent ops transposed, so it needs the
// primal values they read (coefficients), the branch each `if` took and the trip count of each
// loop. Each residual belongs to the region that defines it: the forward sweep saves it on the
// tape at the end of that region, the backward sweep takes it back at the start of the mirrored
// region, where every nested mirror can read it. So a value defined before a loop is saved
// once, not once per iteration, and the tape stays last-in first-out through any nesting of
// branches, loops and calls.

export type Residual = { kind: "value"; value: Value } | { kind: "trips"; loop: Op };

/**
 * A loop-carried value the backward sweep gets from the next iteration instead of the tape:
 * what iteration i yields for a carried slot is what iteration i+1 receives as its parameter
 * (which is saved anyway), and for the last iteration it is the loop's result.
 */
export interface SharedResidual {
  /** The value the `after` region yields for the slot (not saved). */
  yielded: Value;
  /** The `after` region's parameter for the slot (saved every iteration). */
  param: Value;
  /** The loop's result for the slot (saved once, after the loop). */
  result: Value;
}

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
  /** The regions of loops (`before` and `after`). */
  private readonly loopRegions = new Set<Region>();
  /** Whether the JVP has no loop with tangent work (its gradient may be fused: see fusedGradientPays). */
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
    if (this.residualLists.size === 0) this.assignResiduals();
    return values.some((v) => this.neededInductions.has(v.id));
  }

  /** The region enclosing each nested region. */
  private readonly parent = new Map<Region, Region>();

  /**
   * Whether `v` (defined by the cheap op `def`) is better recomputed than taped: each operand
   * costs nothing (a constant, a loop counter), is already taped, lives in an enclosing region
   * (taped less often than `v` would be), or is itself such a value — `i * n + j` in an inner
   * loop costs no tape at all.
   */
  private cheapFromOuter(def: Op, v: Value, taped: Set<number>, depth: number): boolean {
    if (depth > 3 || v.type !== "number") return false;
    // Operands may be read again from frozen memory (`o * this.nin + i`).
    if (depth > 0 && this.memory.rereadable(def)) return this.fromOuter(def, v, taped, depth);
    if (def.tangent || !CHEAP.has(def.opcode)) return false;
    // A value a loop iteration yields is had for free from the next iteration (SharedResidual),
    // unless it is the next value of a loop counter, which is recomputed rather than taped.
    const where = this.home.get(v.id);
    const end = where?.ops[where.ops.length - 1];
    if (
      depth === 0 &&
      end?.opcode === "yield" &&
      end.operands.some((o, k) => o === v && !this.induced.has(where!.params[k]?.id ?? -1))
    )
      return false;
    return this.fromOuter(def, v, taped, depth);
  }

  private fromOuter(def: Op, v: Value, taped: Set<number>, depth: number): boolean {
    const where = this.home.get(v.id);
    return def.operands.every((o) => {
      if (this.rematerializable.has(o.id) || this.induced.has(o.id) || taped.has(o.id)) return true;
      if (this.recomputed.has(o.id) || this.isInput(o)) return true;
      const home = this.home.get(o.id);
      // Taped less often than `v` would be: outside a loop around `v`. (Outside only `if`s it
      // is taped as often, and for more values than one; but a fused gradient keeps the
      // body's values in locals.)
      if (
        home !== where &&
        this.encloses(home, where) &&
        (this.loopBetween(home, where) || (this.flat && home === this.jvp.body))
      )
        return true;
      const inner = this.definitions.get(o.id);
      return inner !== undefined && this.cheapFromOuter(inner, o, taped, depth + 1);
    });
  }

  /** Whether a loop's region lies between `inner` (included) and `outer` (excluded). */
  private loopBetween(outer: Region | undefined, inner: Region | undefined): boolean {
    for (let r = inner; r && r !== outer; r = this.parent.get(r))
      if (this.loopRegions.has(r)) return true;
    return false;
  }

  /** Whether `outer` is `inner` or one of the regions around it. */
  private encloses(outer: Region | undefined, inner: Region | undefined): boolean {
    for (let r = inner; r; r = this.parent.get(r)) if (r === outer) return true;
    return false;
  }

  /** The recurrences of `loop` its backward loop carries, by slot (see Recurrence). */
  recurrencesOf(loop: Op): number[] {
    if (this.residualLists.size === 0) this.assignResiduals();
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
    if (this.residualLists.size === 0) this.assignResiduals();
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
    if (this.residualLists.size === 0) this.assignResiduals();
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

  /** Whether `v` is a parameter of the JVP the backward sweep can take as an input. */
  private isInput(v: Value): boolean {
    return this.paramIndex.has(v.id);
  }

  /** The residuals of one region, in the order the forward sweep saves them. */
  residuals(region: Region): Residual[] {
    if (this.residualLists.size === 0) this.assignResiduals();
    return this.residualLists.get(region) ?? [];
  }

  private assignResiduals(): void {
    const home = this.home;
    const seen = new Set<number>();
    const listOf = (region: Region) => {
      let list = this.residualLists.get(region);
      if (!list) this.residualLists.set(region, (list = []));
      return list;
    };
    const addValue = (v: Value): void => {
      const input = this.paramIndex.get(v.id);
      if (input !== undefined) {
        this.usedInputs.add(input);
        return;
      }
      if (isLinear(v) || seen.has(v.id) || this.rematerializable.has(v.id)) return;
      if (this.recomputed.has(v.id)) return;
      const recurrence = this.recurrent.get(v.id);
      if (recurrence) {
        // Carried by the backward loop: it needs the initial value and what the next ones
        // are computed from.
        const { loop, slot } = recurrence;
        let slots = this.neededRecurrences.get(loop);
        if (!slots) this.neededRecurrences.set(loop, (slots = new Set()));
        if (slots.has(slot)) return;
        slots.add(slot);
        addValue(loop.operands[slot]!);
        const after = loop.regions[1]!;
        return addValue(after.ops[after.ops.length - 1]!.operands[slot]!);
      }
      const step = this.recurrenceSteps.get(v.id);
      if (step) {
        this.recomputed.set(v.id, step);
        return step.operands.forEach(addValue);
      }
      const induction = this.induced.get(v.id);
      if (induction) {
        this.neededInductions.add(v.id);
        return addValue(induction.init);
      }
      const def = this.definitions.get(v.id);
      if (def && (this.memory.rereadable(def) || this.cheapFromOuter(def, v, seen, 0))) {
        this.recomputed.set(v.id, def);
        return def.operands.forEach(addValue);
      }
      seen.add(v.id);
      listOf(home.get(v.id)!).push({ kind: "value", value: v });
    };
    const visit = (region: Region) => {
      for (const p of region.params) home.set(p.id, region);
      for (const op of region.ops)
        for (const r of op.regions) {
          this.parent.set(r, region);
          if (op.opcode === "loop") this.loopRegions.add(r);
        }
      for (const op of region.ops) {
        for (const r of op.results) home.set(r.id, region);
        if (!this.hasTangent(op)) continue;
        if (op.opcode === "if") addValue(op.operands[0]!);
        else if (op.opcode === "loop") {
          const count = this.tripCounts.get(op);
          if (count) {
            addValue(count.init);
            addValue(count.lengthOf ?? count.bound);
          } else listOf(region).push({ kind: "trips", loop: op });
        } else if (isShadowBuilder(op)) {
          // Built by the forward sweep; the backward sweep reads a literal's shadow back, and
          // clears the shadows created here (adjoints may have reached them through any path).
          if (op.opcode === "literal" || op.opcode === "alloc" || op.opcode === "zeros")
            addValue(op.results[0]!);
          // A store the backward sweep undoes: the slot and what it held (see restore.ts).
          const replaced = replacedSlot(op);
          if (replaced) [...op.operands.slice(0, -1), replaced].forEach(addValue);
        } else if (op.opcode === "call") {
          // What the callee's backward sweep takes from this one.
          if (op.tangent) for (const k of this.needsOf(op)) addValue(op.operands[k]!);
        } else if (op.opcode !== "yield" && op.opcode !== "condition" && op.opcode !== "return") {
          op.operands.forEach(addValue);
        }
        op.regions.forEach(visit);
      }
    };
    for (const p of this.jvp.params) home.set(p.id, this.jvp.body);
    visit(this.jvp.body);
    listOf(this.jvp.body);
    this.tapeCommonOperands(seen);
    this.chooseRecomputed(seen);
    this.shareCarried(this.jvp.body, seen);
    // Parameters that values recomputed in the backward sweep are computed from.
    for (const def of this.recomputed.values())
      for (const o of def.operands) {
        const input = this.paramIndex.get(o.id);
        if (input !== undefined) this.usedInputs.add(input);
      }
  }

  /**
   * Residuals that are cheap ops of one common value (`2 * speed` and `DRAG * speed`) are
   * recomputed from that value, which is taped once instead.
   */
  private tapeCommonOperands(taped: Set<number>): void {
    for (const [region, list] of this.residualLists) {
      const groups = new Map<number, { operand: Value; members: Value[] }>();
      for (const r of list) {
        if (r.kind !== "value" || r.value.type !== "number") continue;
        const def = this.definitions.get(r.value.id);
        if (!def || def.tangent || !CHEAP.has(def.opcode)) continue;
        // The operands that would have to be taped to recompute it.
        const costly = def.operands.filter(
          (o) =>
            !this.rematerializable.has(o.id) &&
            !this.induced.has(o.id) &&
            !taped.has(o.id) &&
            !this.isInput(o),
        );
        const operand = costly[0];
        if (costly.length !== 1 || this.home.get(operand!.id) !== region) continue;
        if (operand!.type !== "number" || operand!.tangent) continue;
        const group = groups.get(operand!.id) ?? { operand: operand!, members: [] };
        group.members.push(r.value);
        groups.set(operand!.id, group);
      }
      let kept = list;
      for (const { operand, members } of groups.values()) {
        if (members.length < 2) continue;
        for (const m of members) this.recomputed.set(m.id, this.definitions.get(m.id)!);
        kept = kept.filter((x) => x.kind !== "value" || !members.includes(x.value));
        if (!taped.has(operand.id)) {
          taped.add(operand.id);
          kept.push({ kind: "value", value: operand });
        }
      }
      this.residualLists.set(region, kept);
    }
  }

  /** Finds the loop-carried residuals consecutive iterations can share (see SharedResidual). */
  private shareCarried(region: Region, taped: Set<number>): void {
    for (const op of region.ops) {
      op.regions.forEach((r) => this.shareCarried(r, taped));
      if (op.opcode !== "loop" || !this.hasTangent(op)) continue;
      const [before, after] = op.regions as [Region, Region];
      const forwarded = before.ops[before.ops.length - 1]!.operands.slice(1);
      const yielded = after.ops[after.ops.length - 1]!.operands;
      const afterList = this.residualLists.get(after) ?? [];
      const savedIn = (list: Residual[], v: Value) =>
        list.some((r) => r.kind === "value" && r.value.id === v.id);
      const entries: SharedResidual[] = [];
      before.params.forEach((param, k) => {
        const y = yielded[k]!;
        const p = after.params[k]!;
        if (isLinear(param) || forwarded[k] !== param || y === p) return;
        if (!savedIn(afterList, y) || !savedIn(afterList, p) || this.home.get(y.id) !== after)
          return;
        entries.push({ yielded: y, param: p, result: op.results[k]! });
      });
      if (entries.length === 0) continue;
      this.shared.set(op, entries);
      this.residualLists.set(
        after,
        afterList.filter((r) => !entries.some((e) => r.kind === "value" && r.value === e.yielded)),
      );
      const home = this.residualLists.get(region) ?? [];
      for (const e of entries) {
        if (!taped.has(e.result.id)) {
          taped.add(e.result.id);
          home.push({ kind: "value", value: e.result });
        }
      }
      this.residualLists.set(region, home);
    }
  }

  /** Moves cheap residuals whose operands are all available anyway from the tape to `recomputed`. */
  private chooseRecomputed(taped: Set<number>): void {
    const definitions = this.definitions;
    const available = (v: Value): boolean =>
      this.rematerializable.has(v.id) || taped.has(v.id) || this.isInput(v);
    for (const [region, list] of this.residualLists) {
      const kept = list.filter((r) => {
        if (r.kind !== "value") return true;
        const def = definitions.get(r.value.id);
        if (!def || !CHEAP.has(def.opcode) || def.tangent) return true;
        const others = def.operands.filter((o) => o.id !== r.value.id);
        if (!others.every((o) => available(o) && !this.recomputedVia(o, r.value.id))) return true;
        this.recomputed.set(r.value.id, def);
        return false;
      });
      this.residualLists.set(region, kept);
    }
  }

  /** Whether recomputing `v` would need `target` itself (a cycle), following recomputed ops. */
  private recomputedVia(v: Value, target: number): boolean {
    const def = this.recomputed.get(v.id);
    if (!def) return false;
    return def.operands.some((o) => o.id === target || this.recomputedVia(o, target));
  }
}
