import {
  aliasClasses,
  writesAfter,
  type AliasClasses,
  type EffectsOf,
} from "../analysis/effects.js";
import { isAggregate } from "../ir/type-system.js";
import type { IRFunction, Op, Region, Value } from "../ir/types.js";
import { forEachOp } from "../ir/walk.js";
import { isShadow } from "./tangent-values.js";

// What stays in memory until the backward sweep runs, so the backward sweep may read it again
// instead of the forward sweep taping it: arrays and objects nothing writes after a read,
// unless the caller may change them (the parameters it did not promise to keep frozen, what
// the function returns, module-level arrays unless both sweeps run back to back).

/**
 * In a frozen set: module-level arrays stay unchanged until the backward sweep (true when
 * `gradient` runs both sweeps back to back; differentiable code never writes them).
 */
export const MODULE_DATA = -1;

/**
 * In a frozen set, `STRUCTURE + i`: parameter i may change its numbers, but not which arrays
 * and objects it holds, so shadows read out of its shadow may be read again.
 */
export const STRUCTURE = 1 << 16;

/** How a caller says what it keeps unchanged (see ReverseOptions). */
export interface FrozenOptions {
  /** Parameter positions, `STRUCTURE + i` and `MODULE_DATA` (see above). */
  frozen: number[];
  /** The primal's parameter count: JVP parameters from there on are tangents of `wrt`. */
  arity: number;
  effectsOf: EffectsOf;
  wrt?: number[];
}

export class FrozenMemory {
  private readonly classes: AliasClasses;
  private readonly effectsOf: EffectsOf;
  private readonly moduleDataFrozen: boolean;
  /** Per read and call: the classes written after it (see writesAfter). */
  private readonly later: Map<Op, Set<number>>;
  /** Per read and call: the classes arrays are stored into after it. */
  private readonly replacedLater: Map<Op, Set<number>>;
  /** Alias classes holding an array or object parameter the caller may change later. */
  private readonly unfrozen = new Set<number>();
  /** Those of them whose structure (which arrays sit in which fields) may change too. */
  private readonly unfixed = new Set<number>();

  constructor(jvp: IRFunction, options: FrozenOptions) {
    this.effectsOf = options.effectsOf;
    this.moduleDataFrozen = options.frozen.includes(MODULE_DATA);
    this.classes = aliasClasses(jvp, options.effectsOf);
    this.later = writesAfter(jvp, this.classes, options.effectsOf);
    this.replacedLater = writesAfter(jvp, this.classes, options.effectsOf, true);
    // What the caller may change before the backward sweep: the parameters it did not
    // promise to keep (and their shadows' structure), what this function returns (the caller
    // holds it), and module-level arrays unless the whole computation runs back to back.
    const wrt = options.wrt ?? [];
    const unfreeze = (v: Value, structureToo: boolean) => {
      this.unfrozen.add(this.classes.find(v.id));
      if (structureToo) this.unfixed.add(this.classes.find(v.id));
    };
    jvp.params.forEach((p, i) => {
      if (!isAggregate(p.type)) return;
      const primal = i < options.arity ? i : wrt[i - options.arity];
      if (primal === undefined) return unfreeze(p, true);
      if (!options.frozen.includes(primal))
        unfreeze(p, !options.frozen.includes(STRUCTURE + primal));
    });
    for (const v of jvp.body.ops[jvp.body.ops.length - 1]!.operands)
      if (isAggregate(v.type)) unfreeze(v, true);
    if (!options.frozen.includes(MODULE_DATA)) {
      forEachOp(jvp.body, (op) => {
        if (op.opcode === "global" && isAggregate(op.results[0]!.type))
          unfreeze(op.results[0]!, true);
      });
    }
  }

  /**
   * Whether the contents of a primal array or object `v`, as `op` (a read or a call) sees
   * them, stay unchanged until the backward sweep: nothing writes them after `op`, and they
   * do not come from a parameter the caller may change.
   */
  isFrozenAt(v: Value, op: Op): boolean {
    if (!isAggregate(v.type) || v.tangent) return false;
    const root = this.classes.find(v.id);
    return !this.unfrozen.has(root) && !this.later.get(op)?.has(root);
  }

  /**
   * Whether the structure of `v` (which arrays and objects sit in its fields and elements)
   * stays as `op` sees it until the backward sweep, so shadows read out of its shadow may be
   * read again.
   */
  isFixedAt(v: Value, op: Op): boolean {
    if (!isAggregate(v.type)) return false;
    const root = this.classes.find(v.id);
    return !this.unfixed.has(root) && !this.replacedLater.get(op)?.has(root);
  }

  /** Records on each derivative call which array arguments the callee may read back later. */
  markFrozenArguments(region: Region): void {
    for (const op of region.ops) {
      op.regions.forEach((r) => this.markFrozenArguments(r));
      if (op.opcode !== "call" || !op.attrs.primal) continue;
      const arity = op.operands.length - op.attrs.wrt!.length;
      const args = op.operands.slice(0, arity);
      const writes = this.effectsOf(op.attrs.primal)?.writes;
      // The callee sees its parameters as separate arrays: one it writes may be another it
      // reads (`sq(a, a)`), so an argument shared with a written one is not frozen.
      const sharedWithWritten = (v: Value, i: number) =>
        args.some(
          (w, j) =>
            j !== i && isAggregate(w.type) && (!writes || writes.has(j)) && this.classes.same(v, w),
        );
      const replaces = this.effectsOf(op.attrs.primal)?.replaces;
      const sharedWithReplaced = (v: Value, i: number) =>
        args.some(
          (w, j) =>
            j !== i &&
            isAggregate(w.type) &&
            (!replaces || replaces.has(j)) &&
            this.classes.same(v, w),
        );
      op.attrs.frozen = args.flatMap((v, i) =>
        this.isFrozenAt(v, op) && !sharedWithWritten(v, i)
          ? [i]
          : this.isFixedAt(v, op) && !sharedWithReplaced(v, i)
            ? [STRUCTURE + i]
            : [],
      );
      if (this.moduleDataFrozen && (this.effectsOf(op.attrs.primal)?.readsModule ?? true))
        op.attrs.frozen.push(MODULE_DATA);
    }
  }

  /**
   * A value the backward sweep can read again from memory rather than tape: an element, field
   * or length of a frozen array or object, or a shadow held in a shadow whose structure no
   * store changes.
   */
  rereadable(def: Op): boolean {
    if (def.opcode !== "field" && def.opcode !== "index" && def.opcode !== "length") return false;
    const object = def.operands[0]!;
    if (!def.tangent) return this.isFrozenAt(object, def);
    return def.opcode !== "length" && isShadow(def.results[0]!) && this.isFixedAt(object, def);
  }
}
