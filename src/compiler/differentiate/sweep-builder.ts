import type { EffectsOf } from "../analysis/effects.js";
import type { DiagnosticNote } from "../diagnostics/diagnostic.js";
import type { FunctionKey, IRFunction, Op } from "../ir/types.js";
import {
  derivativeKey,
  parseDerivedPrimalKey,
  sweepKey,
  type DerivativeKind,
} from "../ir/names.js";
import type { PrimalSignature } from "./derivative-function.js";
import { ReverseInfo } from "./residuals.js";
import { reverseSweeps } from "./sweeps.js";
import { backwardSweep } from "./transpose.js";
import { runPipeline, type PassObserver } from "./pipeline.js";

// Reverse mode's sweeps, built once every demand is known: what a backward sweep takes from
// its callers depends on what its callees' sweeps take from theirs, so the inputs of all
// backward sweeps are solved together first; then each JVP is unzipped into its forward sweep
// and transposed into its backward sweep, and the placeholders the differentiator handed out
// are replaced.

export interface SweepSource {
  /** The generated functions by key: placeholders until built, then the sweeps. */
  readonly derivatives: Map<FunctionKey, IRFunction | undefined>;
  lowered(key: FunctionKey): IRFunction | undefined;
  hasRule(key: FunctionKey): boolean;
  effects: EffectsOf;
  /** Reports an error while building a demand's sweeps, with its call chain. */
  fail(error: unknown, chain: DiagnosticNote[], key?: FunctionKey): void;
  observe?: PassObserver;
}

/** A reverse-mode demand whose sweeps `SweepBuilder.build` makes once every demand is known. */
export interface PendingSweeps {
  jvp: IRFunction;
  options: { frozen: number[]; arity: number; wrt: number[]; noRecurrences?: ReadonlySet<Op> };
  signature: PrimalSignature;
  wrt: number[];
  kinds: DerivativeKind[];
  chain: DiagnosticNote[];
  key: FunctionKey;
  /** What `derive` returned for each kind, until the sweep replaces it. */
  placeholders: Map<DerivativeKind, IRFunction>;
}

export class SweepBuilder {
  constructor(private readonly source: SweepSource) {}

  private readonly pendingSweeps: PendingSweeps[] = [];

  /** A reverse-mode demand whose sweeps are built once every demand is known. */
  add(pending: PendingSweeps): void {
    this.pendingSweeps.push(pending);
  }
  private readonly primalTapelessCache = new Map<FunctionKey, boolean>();

  /**
   * Whether a primal function never uses the tape: its body has no outside calls (which might
   * run an operator), no operators (lowered to calls of derived functions, they run as the
   * operators' wrappers in the user's code, `gradient` on the tape), and calls only functions
   * that never use it either (a call of a registered rule, or recursion, counts as using it).
   */
  readonly primalTapeless = (key: FunctionKey): boolean => {
    const known = this.primalTapelessCache.get(key);
    if (known !== undefined) return known;
    if (this.source.hasRule(key)) return false;
    this.primalTapelessCache.set(key, false);
    const fn = this.source.lowered(key);
    const clean = (ops: Op[]): boolean =>
      ops.every(
        (op) =>
          op.opcode !== "extern" &&
          (op.opcode !== "call" ||
            (!parseDerivedPrimalKey(op.attrs.callee!) && this.primalTapeless(op.attrs.callee!))) &&
          op.regions.every((r) => clean(r.ops)),
      );
    const result = fn !== undefined && clean(fn.body.ops);
    this.primalTapelessCache.set(key, result);
    return result;
  };
  /** Backward sweeps whose callers skip them when the seed is zero (see ReverseInfo.skippableAlone). */
  private readonly skippableSweeps = new Set<FunctionKey>();
  /** Derivative configurations (by backward sweep key) whose sweeps leave the tape alone. */
  private readonly tapelessSweeps = new Set<FunctionKey>();
  /** Per backward sweep (by key): the JVP parameters it takes after its seed (see ReverseInfo.inputs). */
  private readonly sweepInputs = new Map<FunctionKey, number[]>();

  /**
   * What the backward sweep with `key` takes after its seed: JVP parameter positions — the
   * primal arguments (captures included) first, then the shadows of differentiated arrays and
   * objects. Empty for sweeps nabla does not generate from a body (rules, checkpoints).
   */
  inputsOf(key: FunctionKey): readonly number[] {
    return this.sweepInputs.get(key) ?? [];
  }

  /**
   * Builds the forward and backward sweeps of every reverse-mode demand. The inputs of each
   * backward sweep are solved first, together, as a least fixed point: a sweep's inputs grow
   * with what its callees' sweeps need from their arguments, recursion included.
   */
  build(): void {
    const pending = this.pendingSweeps.splice(0);
    if (pending.length === 0) return;
    const bwdKey = (p: PendingSweeps) =>
      derivativeKey("bwd", p.signature.key, p.wrt, p.signature.frozen);
    for (const p of pending)
      if (!this.sweepInputs.has(bwdKey(p))) this.sweepInputs.set(bwdKey(p), []);
    const needsOf = (op: Op) => this.inputsOf(sweepKey("bwd", op.attrs));
    const skippable = (op: Op) =>
      !op.attrs.checkpoint && this.skippableSweeps.has(sweepKey("bwd", op.attrs));
    const tapeless = (op: Op) =>
      !op.attrs.checkpoint && this.tapelessSweeps.has(sweepKey("bwd", op.attrs));
    const infoOf = (p: PendingSweeps) =>
      new ReverseInfo(p.jvp, {
        ...p.options,
        effectsOf: this.source.effects,
        needsOf,
        skippable,
        tapeless,
        primalTapeless: this.primalTapeless,
      });
    // Loops whose backward loop cannot carry their recurrences (see Recurrence) tape them
    // instead: known before the fixed points below, since they change what a sweep takes
    // from its caller and whether it uses the tape.
    for (const p of pending) {
      try {
        for (;;) {
          const info = infoOf(p);
          backwardSweep(p.jvp, info, p.signature, p.wrt, info.inputs());
          if (info.failedRecurrences.size === 0) break;
          p.options.noRecurrences = new Set([
            ...(p.options.noRecurrences ?? []),
            ...info.failedRecurrences,
          ]);
        }
      } catch {
        // Reported when its sweeps are built.
      }
    }
    const failed = new Set<PendingSweeps>();
    for (let changed = true; changed;) {
      changed = false;
      for (const p of pending) {
        if (failed.has(p)) continue;
        let inputs: number[];
        try {
          inputs = infoOf(p).inputs();
        } catch (error) {
          failed.add(p);
          this.source.fail(error, p.chain, p.key);
          continue;
        }
        const known = this.sweepInputs.get(bwdKey(p))!;
        if (inputs.every((k) => known.includes(k))) continue;
        this.sweepInputs.set(
          bwdKey(p),
          [...new Set([...known, ...inputs])].sort((a, b) => a - b),
        );
        changed = true;
      }
    }
    // Sweeps that leave the tape alone, and backward sweeps a caller may skip when their seed
    // is zero: greatest fixed points (a function calling only itself qualifies if it does by
    // itself).
    const alone = new Map<PendingSweeps, { tapeless: boolean; skippable: boolean; calls: Op[] }>();
    for (const p of pending) {
      if (failed.has(p)) continue;
      try {
        const info = infoOf(p);
        alone.set(p, {
          tapeless: info.tapelessAlone(),
          skippable: info.skippableAlone(),
          calls: info.derivativeCalls(),
        });
      } catch {
        // Reported when its sweeps are built.
      }
    }
    for (const [set, which, test] of [
      [this.tapelessSweeps, "tapeless", tapeless],
      [this.skippableSweeps, "skippable", skippable],
    ] as const) {
      const members = [...alone].filter(([, a]) => a[which]);
      for (const [p] of members) set.add(bwdKey(p));
      for (let changed = true; changed;) {
        changed = false;
        for (const [p, a] of members) {
          if (!set.has(bwdKey(p)) || a.calls.every(test)) continue;
          set.delete(bwdKey(p));
          changed = true;
        }
      }
    }
    for (const p of pending) {
      // The sweeps this demand stands in for (another demand may have made the same ones).
      const kinds = p.kinds.filter((kind) => {
        const placeholder = p.placeholders.get(kind);
        return placeholder && this.source.derivatives.get(placeholder.key) === placeholder;
      });
      const keys = kinds.map((kind) =>
        derivativeKey(kind, p.signature.key, p.wrt, p.signature.frozen),
      );
      if (failed.has(p)) {
        for (const key of keys) this.source.derivatives.set(key, undefined);
        continue;
      }
      try {
        const sweeps = reverseSweeps(
          infoOf(p),
          p.signature,
          p.wrt,
          kinds,
          this.inputsOf(bwdKey(p)),
        );
        for (const sweep of sweeps) {
          runPipeline("sweep", sweep, this.source.observe);
          this.source.derivatives.set(sweep.key, sweep);
        }
      } catch (error) {
        for (const key of keys) this.source.derivatives.set(key, undefined);
        this.source.fail(error, p.chain, p.key);
      }
    }
  }
}
