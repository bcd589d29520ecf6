import { isAggregate } from "../ir/type-system.js";
import type { IRFunction, Op, Region, Value } from "../ir/types.js";

// What reverse mode must remember. The linearized function (JVP) mixes primal ops and
// tangent ops ([t]). The backward sweep runs the tangent ops transposed, so it needs the
// primal values they read (coefficients), the branch each `if` took and the trip count of each
// loop. Each residual belongs to the region that defines it: the forward sweep saves it on the
// tape at the end of that region, the backward sweep takes it back at the start of the mirrored
// region, where every nested mirror can read it. So a value defined before a loop is saved
// once, not once per iteration, and the tape stays last-in first-out through any nesting of
// branches, loops and calls.

/** A tangent number: part of the linear computation the backward sweep transposes. */
export function isLinear(v: Value): boolean {
  return v.tangent === true && !isAggregate(v.type);
}

/** A tangent array or object: a shadow, which reverse mode builds in the forward sweep. */
export function isShadow(v: Value): boolean {
  return v.tangent === true && isAggregate(v.type);
}

/**
 * Tangent ops that build or connect shadows rather than compute linear values: shadow
 * allocation, zero shadows, reading a shadow out of a shadow, storing one into another, and
 * literals (whose number fields start at zero). The forward sweep runs them.
 */
export function isShadowBuilder(op: Op): boolean {
  if (!op.tangent || op.opcode === "call") return false;
  if (op.results.some(isShadow)) return true;
  return (
    (op.opcode === "setIndex" || op.opcode === "setField") &&
    isShadow(op.operands[op.operands.length - 1]!)
  );
}

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

  constructor(readonly jvp: IRFunction) {
    const collect = (region: Region) => {
      for (const op of region.ops) {
        if (op.opcode === "const" || op.opcode === "global")
          this.rematerializable.set(op.results[0]!.id, op);
        op.regions.forEach(collect);
      }
    };
    collect(jvp.body);
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

  /** Whether the backward sweep has `v` (taped, rebuilt or recomputed). */
  isResidual(v: Value): boolean {
    if (this.residualLists.size === 0) this.assignResiduals();
    return this.savedIds.has(v.id) || this.recomputed.has(v.id);
  }

  private readonly savedIds = new Set<number>();

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
    const addValue = (v: Value) => {
      if (isLinear(v) || seen.has(v.id) || this.rematerializable.has(v.id)) return;
      seen.add(v.id);
      listOf(home.get(v.id)!).push({ kind: "value", value: v });
    };
    const visit = (region: Region) => {
      for (const p of region.params) home.set(p.id, region);
      for (const op of region.ops) {
        for (const r of op.results) home.set(r.id, region);
        if (!this.hasTangent(op)) continue;
        if (op.opcode === "if") addValue(op.operands[0]!);
        else if (op.opcode === "loop") listOf(region).push({ kind: "trips", loop: op });
        else if (isShadowBuilder(op)) {
          // Built by the forward sweep; the backward sweep reads a literal's shadow back, and
          // clears allocated shadows that it used.
          if (op.opcode === "literal") addValue(op.results[0]!);
        } else if (
          op.opcode !== "call" &&
          op.opcode !== "yield" &&
          op.opcode !== "condition" &&
          op.opcode !== "return"
        ) {
          op.operands.forEach(addValue);
        }
        op.regions.forEach(visit);
      }
    };
    for (const p of this.jvp.params) home.set(p.id, this.jvp.body);
    visit(this.jvp.body);
    listOf(this.jvp.body);
    for (const id of seen) this.savedIds.add(id);
    this.chooseRecomputed(seen);
    this.shareCarried(this.jvp.body, seen);
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
    const definitions = new Map<number, Op>();
    const collect = (region: Region) => {
      for (const op of region.ops) {
        for (const r of op.results) definitions.set(r.id, op);
        op.regions.forEach(collect);
      }
    };
    collect(this.jvp.body);
    const available = (v: Value): boolean => this.rematerializable.has(v.id) || taped.has(v.id);
    for (const [region, list] of this.residualLists) {
      const kept = list.filter((r) => {
        if (r.kind !== "value") return true;
        const def = definitions.get(r.value.id);
        if (!def || !CHEAP.has(def.opcode) || def.tangent) return true;
        const others = def.operands.filter((o) => o.id !== r.value.id);
        if (!others.every((o) => available(o) && !this.recomputedVia(o, r.value.id, definitions)))
          return true;
        this.recomputed.set(r.value.id, def);
        return false;
      });
      this.residualLists.set(region, kept);
    }
  }

  /** Whether recomputing `v` would need `target` itself (a cycle), following recomputed ops. */
  private recomputedVia(v: Value, target: number, definitions: Map<number, Op>): boolean {
    const def = this.recomputed.get(v.id);
    if (!def) return false;
    return def.operands.some((o) => o.id === target || this.recomputedVia(o, target, definitions));
  }
}

/**
 * Ops cheaper to redo in the backward sweep than a store and a load of the tape — arithmetic,
 * and the comparisons that decide branches (`n === 0` is redone from a saved `n`).
 */
const CHEAP: ReadonlySet<string> = new Set([
  "add",
  "sub",
  "mul",
  "neg",
  "lt",
  "le",
  "gt",
  "ge",
  "eq",
  "ne",
  "not",
  "and",
  "or",
  "truthy",
]);
