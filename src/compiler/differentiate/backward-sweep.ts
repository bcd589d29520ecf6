import type { Builder } from "../ir/builder.js";
import type { IRFunction, Op, Region, Value } from "../ir/types.js";
import { isAggregate, isArray } from "../ir/type-system.js";
import { definedInside } from "../ir/value-ids.js";
import { terminator, forEachOp } from "../ir/walk.js";
import { StoreBounds } from "../ir/store-bounds.js";
import { sweepKey } from "../ir/names.js";
import { TRANSPOSE_RULES } from "../rules/transpose.js";
import { replacedSlot } from "./restore.js";
import { type ReverseInfo } from "./residuals.js";
import type { ForwardSweep } from "./unzip.js";
import { transposeLoop } from "./backward-loop.js";
import { BranchAdjoints, type Adjoints, type SweepState } from "./adjoints.js";
import { findInPlaceUpdates, type InPlaceUpdate } from "./in-place-updates.js";
import { isLinear, isShadow, isShadowBuilder } from "./tangent-values.js";

// The backward sweep of one JVP, emitted into a builder: walks the tangent part of the
// linearized function backwards and accumulates adjoints (seed 004's accumulator map). Each
// linear op has a transpose rule (rules/transpose.ts); memory ops move adjoints in and out of
// shadows; a region is mirrored by a region that first takes back from the tape what the
// forward sweep saved at its end; loops are reversed in backward-loop.ts. Calls of a
// callee's JVP become calls of its backward sweep.

export class BackwardSweep implements SweepState {
  readonly values: Builder["values"];
  /** Residuals taken back from the tape (or given as inputs), by the id of the JVP value they hold. */
  readonly residuals: Map<number, Value>;
  /** The trip counts of loops the forward sweep taped, by loop. */
  readonly trips = new Map<Op, Value>();
  /** Adjoints are named after the value: the adjoint of `dx` (tangent of `x`) is `x_adj`. */
  readonly adjointHints = new Map<number, string>();
  /** Values of the backward sweep that are shadows (whose numbers it reads and changes). */
  readonly shadowRefs = new Set<number>();
  private readonly inPlaceUpdates: Map<Op, InPlaceUpdate>;
  private readonly stores: StoreBounds;
  /**
   * Adjoints that are zero when the value they belong to reached nothing on the path taken
   * (a branch that did not use it, a `?:` that picked the other side). A product or quotient
   * of such an adjoint is guarded: `0 · p` is NaN where `p` is (the square root of a negative
   * number nobody used), and the gradient must be what it is on the path taken — as forward
   * mode and finite differences give it — not NaN. Adjoints read out of the shadow of an
   * array or object the function makes (and does not return) are such adjoints too; those
   * read out of the shadows of arrays it was given are not: that would put a test on most
   * products of array code (gmm's gradient 11% slower, measured), so a NaN kept in an
   * argument's array the path taken never reads still gives NaN (docs/guide.md says so).
   */
  private readonly maybeZero = new Set<number>();

  /**
   * With `forward`, the body's residuals are that sweep's values instead of the tape's.
   */
  constructor(
    readonly b: Builder,
    readonly jvp: IRFunction,
    readonly info: ReverseInfo,
    private readonly forward: ForwardSweep | undefined,
    /** Residuals (JVP arguments and shadows) the caller gives as inputs, by JVP id. */
    given: Map<number, Value> | undefined,
    /** Literal shadows (by JVP id) the caller gives and clears itself: read, not cleared. */
    private readonly uncleared: Set<number> | undefined,
  ) {
    this.values = b.values;
    this.residuals = new Map(given);
    const nameAdjoints = (region: Region) => {
      for (const v of [...region.params, ...region.ops.flatMap((o) => o.results)]) {
        if (isLinear(v)) this.adjointHints.set(v.id, `${v.hint.replace(/^d/, "") || "t"}_adj`);
      }
      region.ops.forEach((o) => o.regions.forEach(nameAdjoints));
    };
    nameAdjoints({ params: jvp.params, ops: jvp.body.ops });
    this.inPlaceUpdates = findInPlaceUpdates(jvp);
    this.stores = new StoreBounds(jvp.body);
  }

  /**
   * Emits the backward sweep into `b`'s current region and returns the adjoints of the
   * differentiated parameters (those of arrays and objects are in their shadows).
   */
  run(seed: Value | undefined): Value[] {
    const { b, jvp } = this;
    const ret = jvp.body.ops[jvp.body.ops.length - 1]!;
    const adjoints: Adjoints = new Map();
    const tangentResult = ret.operands.find(isLinear);
    if (tangentResult && seed) adjoints.set(tangentResult.id, seed);
    this.reverseRegion(jvp.body, adjoints);
    b.loc = jvp.loc;
    return this.yieldAdjoints(
      adjoints,
      jvp.params.filter(isLinear).map((p) => p.id),
    );
  }

  /** A zero constant. */
  zero(hint = ""): Value {
    return this.b.constant(0, hint);
  }

  /** The value the backward sweep has for the primal value (or shadow) `v` of the JVP. */
  primalValue(v: Value): Value {
    const found = this.residualValue(v);
    if (isShadow(v)) this.shadowRefs.add(found.id);
    return found;
  }

  private residualValue(v: Value): Value {
    const taped = this.residuals.get(v.id);
    if (taped) return taped;
    // In the fused gradient, values of the body are still in the forward sweep's locals.
    const local =
      this.forward && this.info.home.get(v.id) === this.jvp.body
        ? this.forward.map.get(v.id)
        : undefined;
    if (local) return local;
    const def = this.info.rematerializable.get(v.id) ?? this.info.recomputed.get(v.id);
    if (!def) throw new Error(`internal: backward sweep has no residual for %${v.id}`);
    const operands = def.operands.map((o) => this.primalValue(o));
    return this.b.emit(def.opcode, operands, [v.type], { ...def.attrs }, [], v.hint).results[0]!;
  }

  /** Adds `contribution` (negated with `negate`) to the adjoint of the tangent `target`. */
  accumulate(
    adjoints: Adjoints,
    target: Value,
    contribution: Value | undefined,
    negate = false,
    /** The contribution is zero on paths where the target reaches nothing (see maybeZero). */
    maybeZero = false,
  ): void {
    if (!contribution || !isLinear(target)) return;
    const current = adjoints.get(target.id);
    const hint = this.adjointHints.get(target.id) ?? "adj";
    let next: Value;
    if (!current) next = negate ? this.b.unary("neg", contribution, hint) : contribution;
    else next = this.b.binary(negate ? "sub" : "add", current, contribution, hint);
    if (maybeZero && (!current || this.maybeZero.has(current.id))) this.maybeZero.add(next.id);
    adjoints.set(target.id, next);
  }

  /** Tangents defined outside `op` and read inside it: their adjoints flow out of it. */
  outerTangents(op: Op): number[] {
    const inside = definedInside(op);
    const found: number[] = [];
    for (const region of op.regions)
      forEachOp(region, (o) => {
        for (const v of o.operands)
          if (isLinear(v) && !inside.has(v.id) && !found.includes(v.id)) found.push(v.id);
      });
    return found;
  }

  /** Emits the mirror of `region`; seeds for its terminator's operands must already be in `adjoints`. */
  reverseRegion(region: Region, adjoints: Adjoints): void {
    if (this.forward && region === this.jvp.body) {
      for (const r of this.info.residuals(region)) {
        if (r.kind === "value") this.residuals.set(r.value.id, this.forward.map.get(r.value.id)!);
        else this.trips.set(r.loop, this.forward.trips.get(r.loop)!);
      }
    } else if (this.forward?.lifted) {
      // A branch's residuals are results of the `if`s around it (see emitForwardSweep).
      for (const r of this.info.residuals(region)) {
        if (r.kind === "value")
          this.residuals.set(r.value.id, this.forward.lifted.get(r.value.id)!);
      }
    } else {
      this.popResiduals(region);
    }
    for (const op of region.ops.slice(0, -1).reverse()) {
      if (this.info.hasTangent(op) && !isShadowBuilder(op)) this.transposeOp(op, adjoints);
      else if (op.opcode === "literal" && op.tangent) this.transposeLiteral(op, adjoints);
      else if ((op.opcode === "alloc" || op.opcode === "zeros") && op.tangent) this.clearShadow(op);
      else if (replacedSlot(op)) this.restoreSlot(op);
    }
  }

  private popResiduals(region: Region): void {
    for (const r of [...this.info.residuals(region)].reverse()) {
      this.b.loc = region.ops[region.ops.length - 1]!.loc;
      if (r.kind === "value")
        this.residuals.set(
          r.value.id,
          this.b.emit("pop", [], [r.value.type], {}, [], r.value.hint).results[0]!,
        );
      // Trip counts are integers: saying so keeps the loop counters and indices int32.
      else
        this.trips.set(
          r.loop,
          this.b.emit("pop", [], ["number"], { value: "int" }, [], "trips").results[0]!,
        );
    }
  }

  private transposeOp(op: Op, adjoints: Adjoints): void {
    this.b.loc = op.loc;
    switch (op.opcode) {
      case "if":
        return this.transposeIf(op, adjoints);
      case "loop":
        return transposeLoop(this, op, adjoints);
      case "call":
        return this.transposeCall(op, adjoints);
      case "setField":
      case "setIndex":
        return this.transposeWrite(op, adjoints);
      case "truncate":
        // The forward sweep leaves the shadow its length (unzip drops this op), and nothing
        // after `xs.pop()` adds into the dropped slots: each holds a zero adjoint here, and
        // whatever a later push wrote there, its transpose moved out and cleared.
        return;
    }
    const adjoint = adjoints.get(op.results[0]!.id);
    if (!adjoint) return;
    const rule = TRANSPOSE_RULES.get(op.opcode);
    if (!rule) throw new Error(`internal: no transpose rule for tangent op '${op.opcode}'`);
    const maybeZero = this.maybeZero.has(adjoint.id) || op.opcode === "select";
    // A product or quotient by a primal coefficient, unless that is a finite constant (`0.5`).
    const coefficient =
      op.opcode === "mul" || op.opcode === "div"
        ? op.operands.find((o) => !isLinear(o))
        : undefined;
    const defined = coefficient && this.info.definitionOf(coefficient);
    const constant = defined?.opcode === "const" ? defined.attrs.value : undefined;
    const scales =
      coefficient !== undefined && !(typeof constant === "number" && Number.isFinite(constant));
    let nonzero: Value | undefined;
    rule(
      {
        b: this.b,
        adjoint,
        accumulate: (target, contribution, negate) => {
          if (contribution && scales && this.maybeZero.has(adjoint.id)) {
            nonzero ??= this.b.compare("ne", adjoint, this.zero());
            contribution = this.b.select(nonzero, contribution, this.zero(), contribution.hint);
          }
          this.accumulate(adjoints, target, contribution, negate, maybeZero);
        },
        primal: (v) => this.primalValue(v),
        isTangent: isLinear,
        definitionOf: (v) => this.info.definitionOf(v),
      },
      op,
    );
  }

  /**
   * `da[i] = dv` overwrites the shadow; its transpose moves the adjoint found there to `dv`
   * and clears it, since the value written before no longer reaches anything through `a[i]`.
   */
  private transposeWrite(op: Op, adjoints: Adjoints): void {
    const shadow = this.primalValue(op.operands[0]!);
    const value = op.operands[op.operands.length - 1]!;
    const update = this.inPlaceUpdates.get(op);
    if (update) {
      // `da[i] = da[i] + dv`: the adjoint in da[i] stays where it is and also flows to dv —
      // no clearing it and adding it back.
      if (!update.other) return;
      const found =
        op.opcode === "setField"
          ? this.b.emit("field", [shadow], ["number"], { field: op.attrs.field! }).results[0]!
          : this.b.emit("index", [shadow, this.primalValue(op.operands[1]!)], ["number"])
              .results[0]!;
      this.accumulate(adjoints, update.other, this.ignoredAsZero(op, found));
      return;
    }
    let found: Value;
    if (op.opcode === "setField") {
      const field = op.attrs.field!;
      found = this.b.emit(
        "field",
        [shadow],
        ["number"],
        { field },
        [],
        this.adjointHints.get(value.id) ?? "adj",
      ).results[0]!;
      this.b.emit("setField", [shadow, this.zero()], [], { field });
    } else {
      const index = this.primalValue(op.operands[1]!);
      found = this.b.emit(
        "index",
        [shadow, index],
        ["number"],
        {},
        [],
        this.adjointHints.get(value.id) ?? "adj",
      ).results[0]!;
      this.b.emit("setIndex", [shadow, index, this.zero()], []);
      found = this.ignoredAsZero(op, found);
    }
    this.accumulate(adjoints, value, found, false, this.keptShadows().has(op.operands[0]!));
  }

  /**
   * The adjoint a typed array's shadow holds for `a[i] = v`, or 0 where i may lie outside the
   * array: JavaScript ignored that write, and the read finds nothing. Where the index is known
   * in range (ir/store-bounds.ts), the read as it was.
   */
  private ignoredAsZero(store: Op, found: Value): Value {
    const [array, index] = store.operands as [Value, Value];
    if (store.opcode !== "setIndex" || !isArray(array.type) || array.type.storage === "Array")
      return found;
    if (this.stores.within(array, index)) return found;
    return this.b.select(this.b.unary("nullish", found), this.zero(), found, found.hint);
  }

  /**
   * A literal's shadow starts as zeros; what accumulated in it flows to its number parts, and
   * the shadow is left zero again, so a pullback can run its backward sweep more than once.
   */
  private transposeLiteral(op: Op, adjoints: Adjoints): void {
    this.b.loc = op.loc;
    const shadow = this.primalValue(op.results[0]!);
    const type = op.results[0]!.type;
    const clear = !this.uncleared?.has(op.results[0]!.id);
    // A literal the function keeps (not the one it returns, whose adjoints the caller's seed
    // gives): an element the path taken never read back has a zero adjoint (see maybeZero).
    const kept = clear && this.keptShadows().has(op.results[0]!);
    op.operands.forEach((v, i) => {
      if (!isLinear(v)) return;
      if (isAggregate(type) && type.kind === "object") {
        const field = type.fields[i]!.name;
        this.accumulate(
          adjoints,
          v,
          this.b.emit("field", [shadow], ["number"], { field }).results[0]!,
          false,
          kept,
        );
        if (clear) this.b.emit("setField", [shadow, this.zero()], [], { field });
      } else {
        const at = this.b.constant(i);
        const found = this.b.emit("index", [shadow, at], ["number"]).results[0]!;
        this.accumulate(adjoints, v, found, false, kept);
        if (clear) this.b.emit("setIndex", [shadow, at, this.zero()], []);
      }
    });
  }

  /**
   * The shadows of the arrays and objects the function makes (literals, allocations) and does
   * not return — neither as its result nor inside it (`[[a, b], [c, d]]`'s rows) — whose
   * elements the path taken may never read back: adjoints read out of them may be zero.
   */
  private keptShadows(): Set<Value> {
    if (this.kept) return this.kept;
    const made = new Map<Value, Op>();
    forEachOp(this.jvp.body, (o) => {
      if ((o.opcode === "literal" || o.opcode === "alloc") && o.tangent) made.set(o.results[0]!, o);
    });
    const visit = (v: Value) => {
      const op = made.get(v);
      if (!op) return;
      made.delete(v);
      if (op.opcode === "literal") op.operands.forEach(visit);
    };
    terminator(this.jvp.body).operands.forEach(visit);
    return (this.kept = new Set(made.keys()));
  }
  private kept: Set<Value> | undefined;

  /**
   * A shadow created in the forward sweep is zeroed where its creation is undone (see reverseRegion).
   * An allocation's shadow owns only its own numbers: the arrays and objects in its slots are
   * shadows made elsewhere (a copy's elements are the original's), still holding adjoints.
   */
  private clearShadow(op: Op): void {
    const type = op.results[0]!.type;
    if (op.opcode === "alloc" && isArray(type) && type.element !== "number") return;
    this.b.loc = op.loc;
    this.b.emit("clear", [this.primalValue(op.results[0]!)], []);
  }

  /** Puts back the shadow a shadow store replaced (see restore.ts). */
  private restoreSlot(op: Op): void {
    this.b.loc = op.loc;
    const slot = op.operands.slice(0, -1).map((v) => this.primalValue(v));
    this.b.emit(op.opcode, [...slot, this.primalValue(replacedSlot(op)!)], [], {
      ...op.attrs,
      undoesStore: true,
    });
  }

  private transposeCall(op: Op, adjoints: Adjoints): void {
    const tangentResult = op.results.find(isLinear);
    const seed = tangentResult ? [adjoints.get(tangentResult.id) ?? this.zero()] : [];
    const tangentArgs = op.operands.filter(isLinear);
    const hints = tangentArgs.map((t) => this.adjointHints.get(t.id) ?? "adj");
    const emitCall = () => {
      // The arguments and shadows the callee's backward sweep takes as inputs.
      const inputs = this.info.needsOf(op).map((k) => this.primalValue(op.operands[k]!));
      return this.b.emit(
        "call",
        [...seed, ...inputs],
        tangentArgs.map(() => "number" as const),
        {
          callee: sweepKey("bwd", op.attrs),
          primal: op.attrs.primal,
          wrt: op.attrs.wrt,
          ...(this.info.tapeless(op) ? { tapeless: true } : {}),
        },
        [],
        hints,
      ).results;
    };
    const zeroSeed = seed.length > 0 && this.b.constantOf(seed[0]!) === 0;
    if (zeroSeed && this.info.skippable(op)) return;
    if (seed.length === 0 || !this.info.skippable(op)) {
      const results = emitCall();
      tangentArgs.forEach((t, i) => this.accumulate(adjoints, t, results[i]));
      return;
    }
    // A zero seed would only add zeros (a branch not taken, `min` of many): skip the call.
    const nonzero = this.b.compare("ne", seed[0]!, this.zero());
    const taken: Region = { params: [], ops: [] };
    const skipped: Region = { params: [], ops: [] };
    this.b.inRegion(taken, () => this.b.emit("yield", emitCall(), []));
    this.b.inRegion(skipped, () =>
      this.b.emit(
        "yield",
        tangentArgs.map(() => this.zero()),
        [],
      ),
    );
    this.b.loc = op.loc;
    const merged = this.b.emit(
      "if",
      [nonzero],
      tangentArgs.map(() => "number" as const),
      {},
      [taken, skipped],
      hints,
    );
    tangentArgs.forEach((t, i) => this.accumulate(adjoints, t, merged.results[i]));
  }

  /** Yields, for each of `ids`, its adjoint in `adjoints` (zero when there is none). */
  yieldAdjoints(adjoints: Adjoints, ids: number[]): Value[] {
    return ids.map((id) => adjoints.get(id) ?? this.zero(this.adjointHints.get(id)));
  }

  private transposeIf(op: Op, adjoints: Adjoints): void {
    const cond = this.primalValue(op.operands[0]!);
    const tangentPositions = op.results.flatMap((r, i) => (isLinear(r) ? [i] : []));
    const inside = definedInside(op);
    const outcomes = op.regions.map((region) => {
      const branch: Adjoints = new BranchAdjoints(adjoints);
      const into: Region = { params: [], ops: [] };
      this.b.inRegion(into, () => {
        const y = region.ops[region.ops.length - 1]!;
        for (const i of tangentPositions)
          this.accumulate(branch, y.operands[i]!, adjoints.get(op.results[i]!.id));
        this.reverseRegion(region, branch);
      });
      return { into, branch };
    });
    const touched = [...new Set(outcomes.flatMap((o) => [...o.branch.keys()]))].filter(
      (id) => !inside.has(id) && outcomes.some((o) => o.branch.get(id) !== adjoints.get(id)),
    );
    // An adjoint both branches leave equal to one value from outside needs no merging.
    const changed = touched.filter((id) => {
      const first = outcomes[0]!.branch.get(id);
      if (first && outcomes.every((o) => o.branch.get(id) === first)) {
        adjoints.set(id, first);
        return false;
      }
      return true;
    });
    for (const o of outcomes)
      this.b.inRegion(o.into, () =>
        this.b.emit("yield", this.yieldAdjoints(o.branch, changed), []),
      );
    this.b.loc = op.loc;
    const merged = this.b.emit(
      "if",
      [cond],
      changed.map(() => "number" as const),
      {},
      outcomes.map((o) => o.into),
      changed.map((id) => this.adjointHints.get(id) ?? "adj"),
    );
    // Zero where a branch adds nothing to it (read before the merged values are set: a
    // branch's adjoints fall back to the outer ones).
    const zeroSomewhere = changed.map((id) =>
      outcomes.some((o) => {
        const got = o.branch.get(id);
        return got === undefined || this.maybeZero.has(got.id) || this.b.constantOf(got) === 0;
      }),
    );
    changed.forEach((id, i) => {
      adjoints.set(id, merged.results[i]!);
      if (zeroSomewhere[i]) this.maybeZero.add(merged.results[i]!.id);
    });
  }
}
