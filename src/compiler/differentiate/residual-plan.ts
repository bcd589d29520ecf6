import type { Op, IRFunction, Region, Value } from "../ir/types.js";
import { CHEAP } from "../ir/ops.js";
import { replacedSlot } from "./restore.js";
import { isLinear, isShadowBuilder } from "./tangent-values.js";
import type { FrozenMemory } from "./frozen-memory.js";
import type { Induction, Recurrence, TripCount } from "./loop-facts.js";

// Which values the forward sweep saves for the backward sweep, region by region, and which the
// backward sweep gets otherwise: rebuilt (constants), recomputed from cheap ops of values it
// has, read again from frozen memory, carried by a reversed loop (counters, recurrences),
// passed in by the caller (inputs), or shared between consecutive iterations.

/** A value the forward sweep saves, or the trip count of a loop it counts. */
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

/** What planning reads of the JVP and its analyses (see ReverseInfo). */
export interface PlanContext {
  readonly jvp: IRFunction;
  readonly definitions: ReadonlyMap<number, Op>;
  /** Primal values defined by `const`/`global` ops: rebuilt, never saved. */
  readonly rematerializable: ReadonlyMap<number, Op>;
  /** The JVP's parameters other than number tangents, by value id: possible inputs. */
  readonly paramIndex: ReadonlyMap<number, number>;
  readonly induced: ReadonlyMap<number, Induction>;
  readonly recurrent: ReadonlyMap<number, Recurrence>;
  readonly recurrenceSteps: ReadonlyMap<number, Op>;
  readonly tripCounts: ReadonlyMap<Op, TripCount>;
  readonly memory: FrozenMemory;
  /** What the backward sweep of a callee takes after its seed. */
  readonly needsOf: (call: Op) => readonly number[];
  /** No loop with tangent work: a fused gradient keeps the body's values in locals. */
  readonly flat: boolean;
  hasTangent(op: Op): boolean;
}

/** What planning decides, into ReverseInfo's maps. */
export interface PlanResult {
  readonly residualLists: Map<Region, Residual[]>;
  readonly recomputed: Map<number, Op>;
  readonly home: Map<number, Region>;
  readonly shared: Map<Op, SharedResidual[]>;
  readonly neededInductions: Set<number>;
  readonly neededRecurrences: Map<Op, Set<number>>;
  readonly usedInputs: Set<number>;
}

export class ResidualPlan {
  constructor(
    private readonly ctx: PlanContext,
    private readonly out: PlanResult,
  ) {}

  /** The region enclosing each nested region. */
  private readonly parent = new Map<Region, Region>();

  /** The regions of loops (`before` and `after`). */
  private readonly loopRegions = new Set<Region>();

  /**
   * Whether `v` (defined by the cheap op `def`) is better recomputed than taped: each operand
   * costs nothing (a constant, a loop counter), is already taped, lives in an enclosing region
   * (taped less often than `v` would be), or is itself such a value — `i * n + j` in an inner
   * loop costs no tape at all.
   */
  private cheapFromOuter(def: Op, v: Value, taped: Set<number>, depth: number): boolean {
    if (depth > 3 || v.type !== "number") return false;
    // Operands may be read again from frozen memory (`o * this.nin + i`).
    if (depth > 0 && this.ctx.memory.rereadable(def)) return this.fromOuter(def, v, taped, depth);
    if (def.tangent || !CHEAP.has(def.opcode)) return false;
    // A value a loop iteration yields is had for free from the next iteration (SharedResidual),
    // unless it is the next value of a loop counter, which is recomputed rather than taped.
    const where = this.out.home.get(v.id);
    const end = where?.ops[where.ops.length - 1];
    if (
      depth === 0 &&
      end?.opcode === "yield" &&
      end.operands.some((o, k) => o === v && !this.ctx.induced.has(where!.params[k]?.id ?? -1))
    )
      return false;
    return this.fromOuter(def, v, taped, depth);
  }

  private fromOuter(def: Op, v: Value, taped: Set<number>, depth: number): boolean {
    const where = this.out.home.get(v.id);
    return def.operands.every((o) => {
      if (this.ctx.rematerializable.has(o.id) || this.ctx.induced.has(o.id) || taped.has(o.id))
        return true;
      if (this.out.recomputed.has(o.id) || this.isInput(o)) return true;
      const home = this.out.home.get(o.id);
      // Taped less often than `v` would be: outside a loop around `v`. (Outside only `if`s it
      // is taped as often, and for more values than one; but a fused gradient keeps the
      // body's values in locals.)
      if (
        home !== where &&
        this.encloses(home, where) &&
        (this.loopBetween(home, where) || (this.ctx.flat && home === this.ctx.jvp.body))
      )
        return true;
      const inner = this.ctx.definitions.get(o.id);
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

  /** Whether `v` is a parameter of the JVP the backward sweep can take as an input. */
  private isInput(v: Value): boolean {
    return this.ctx.paramIndex.has(v.id);
  }

  /** Decides every residual, filling `out`. */
  run(): void {
    const home = this.out.home;
    const seen = new Set<number>();
    const listOf = (region: Region) => {
      let list = this.out.residualLists.get(region);
      if (!list) this.out.residualLists.set(region, (list = []));
      return list;
    };
    const addValue = (v: Value): void => {
      const input = this.ctx.paramIndex.get(v.id);
      if (input !== undefined) {
        this.out.usedInputs.add(input);
        return;
      }
      if (isLinear(v) || seen.has(v.id) || this.ctx.rematerializable.has(v.id)) return;
      if (this.out.recomputed.has(v.id)) return;
      const recurrence = this.ctx.recurrent.get(v.id);
      if (recurrence) {
        // Carried by the backward loop: it needs the initial value and what the next ones
        // are computed from.
        const { loop, slot } = recurrence;
        let slots = this.out.neededRecurrences.get(loop);
        if (!slots) this.out.neededRecurrences.set(loop, (slots = new Set()));
        if (slots.has(slot)) return;
        slots.add(slot);
        addValue(loop.operands[slot]!);
        const after = loop.regions[1]!;
        return addValue(after.ops[after.ops.length - 1]!.operands[slot]!);
      }
      const step = this.ctx.recurrenceSteps.get(v.id);
      if (step) {
        this.out.recomputed.set(v.id, step);
        return step.operands.forEach(addValue);
      }
      const induction = this.ctx.induced.get(v.id);
      if (induction) {
        this.out.neededInductions.add(v.id);
        return addValue(induction.init);
      }
      const def = this.ctx.definitions.get(v.id);
      if (def && (this.ctx.memory.rereadable(def) || this.cheapFromOuter(def, v, seen, 0))) {
        this.out.recomputed.set(v.id, def);
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
        if (!this.ctx.hasTangent(op)) continue;
        if (op.opcode === "if") addValue(op.operands[0]!);
        else if (op.opcode === "loop") {
          const count = this.ctx.tripCounts.get(op);
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
          if (op.tangent) for (const k of this.ctx.needsOf(op)) addValue(op.operands[k]!);
        } else if (op.opcode !== "yield" && op.opcode !== "condition" && op.opcode !== "return") {
          op.operands.forEach(addValue);
        }
        op.regions.forEach(visit);
      }
    };
    for (const p of this.ctx.jvp.params) home.set(p.id, this.ctx.jvp.body);
    visit(this.ctx.jvp.body);
    listOf(this.ctx.jvp.body);
    this.tapeCommonOperands(seen);
    this.chooseRecomputed(seen);
    this.shareCarried(this.ctx.jvp.body, seen);
    // Parameters that values recomputed in the backward sweep are computed from.
    for (const def of this.out.recomputed.values())
      for (const o of def.operands) {
        const input = this.ctx.paramIndex.get(o.id);
        if (input !== undefined) this.out.usedInputs.add(input);
      }
  }

  /**
   * Residuals that are cheap ops of one common value (`2 * speed` and `DRAG * speed`) are
   * recomputed from that value, which is taped once instead.
   */
  private tapeCommonOperands(taped: Set<number>): void {
    for (const [region, list] of this.out.residualLists) {
      const groups = new Map<number, { operand: Value; members: Value[] }>();
      for (const r of list) {
        if (r.kind !== "value" || r.value.type !== "number") continue;
        const def = this.ctx.definitions.get(r.value.id);
        if (!def || def.tangent || !CHEAP.has(def.opcode)) continue;
        // The operands that would have to be taped to recompute it.
        const costly = def.operands.filter(
          (o) =>
            !this.ctx.rematerializable.has(o.id) &&
            !this.ctx.induced.has(o.id) &&
            !taped.has(o.id) &&
            !this.isInput(o),
        );
        const operand = costly[0];
        if (costly.length !== 1 || this.out.home.get(operand!.id) !== region) continue;
        if (operand!.type !== "number" || operand!.tangent) continue;
        const group = groups.get(operand!.id) ?? { operand: operand!, members: [] };
        group.members.push(r.value);
        groups.set(operand!.id, group);
      }
      let kept = list;
      for (const { operand, members } of groups.values()) {
        if (members.length < 2) continue;
        for (const m of members) this.out.recomputed.set(m.id, this.ctx.definitions.get(m.id)!);
        kept = kept.filter((x) => x.kind !== "value" || !members.includes(x.value));
        if (!taped.has(operand.id)) {
          taped.add(operand.id);
          kept.push({ kind: "value", value: operand });
        }
      }
      this.out.residualLists.set(region, kept);
    }
  }

  /** Finds the loop-carried residuals consecutive iterations can share (see SharedResidual). */
  private shareCarried(region: Region, taped: Set<number>): void {
    for (const op of region.ops) {
      op.regions.forEach((r) => this.shareCarried(r, taped));
      if (op.opcode !== "loop" || !this.ctx.hasTangent(op)) continue;
      const [before, after] = op.regions as [Region, Region];
      const forwarded = before.ops[before.ops.length - 1]!.operands.slice(1);
      const yielded = after.ops[after.ops.length - 1]!.operands;
      const afterList = this.out.residualLists.get(after) ?? [];
      const savedIn = (list: Residual[], v: Value) =>
        list.some((r) => r.kind === "value" && r.value.id === v.id);
      const entries: SharedResidual[] = [];
      before.params.forEach((param, k) => {
        const y = yielded[k]!;
        const p = after.params[k]!;
        if (isLinear(param) || forwarded[k] !== param || y === p) return;
        if (!savedIn(afterList, y) || !savedIn(afterList, p) || this.out.home.get(y.id) !== after)
          return;
        entries.push({ yielded: y, param: p, result: op.results[k]! });
      });
      if (entries.length === 0) continue;
      this.out.shared.set(op, entries);
      this.out.residualLists.set(
        after,
        afterList.filter((r) => !entries.some((e) => r.kind === "value" && r.value === e.yielded)),
      );
      const home = this.out.residualLists.get(region) ?? [];
      for (const e of entries) {
        if (!taped.has(e.result.id)) {
          taped.add(e.result.id);
          home.push({ kind: "value", value: e.result });
        }
      }
      this.out.residualLists.set(region, home);
    }
  }

  /** Moves cheap residuals whose operands are all available anyway from the tape to `recomputed`. */
  private chooseRecomputed(taped: Set<number>): void {
    const definitions = this.ctx.definitions;
    const available = (v: Value): boolean =>
      this.ctx.rematerializable.has(v.id) || taped.has(v.id) || this.isInput(v);
    for (const [region, list] of this.out.residualLists) {
      const kept = list.filter((r) => {
        if (r.kind !== "value") return true;
        const def = definitions.get(r.value.id);
        if (!def || !CHEAP.has(def.opcode) || def.tangent) return true;
        const others = def.operands.filter((o) => o.id !== r.value.id);
        if (!others.every((o) => available(o) && !this.recomputedVia(o, r.value.id))) return true;
        this.out.recomputed.set(r.value.id, def);
        return false;
      });
      this.out.residualLists.set(region, kept);
    }
  }

  /** Whether recomputing `v` would need `target` itself (a cycle), following recomputed ops. */
  private recomputedVia(v: Value, target: number): boolean {
    const def = this.out.recomputed.get(v.id);
    if (!def) return false;
    return def.operands.some((o) => o.id === target || this.recomputedVia(o, target));
  }
}
