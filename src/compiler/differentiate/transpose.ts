import type { Builder } from "../ir/builder.js";
import { type IRFunction, type Op, type Region, type Type, type Value } from "../ir/types.js";
import { buildDerivative, type PrimalSignature } from "./derivative-function.js";
import { sweepKey } from "../ir/names.js";
import { replacedSlot } from "./restore.js";
import {
  isLinear,
  isShadow,
  isShadowBuilder,
  returnsSeededNumber,
  type ReverseInfo,
} from "./residuals.js";
import { isAggregate, isArray } from "../ir/type-system.js";
import { definedInside } from "../ir/value-ids.js";
import { computeTripCount, emitForwardSweep, type ForwardSweep } from "./unzip.js";
import { ORDERED, WRITES_MEMORY } from "../ir/ops.js";
import { TRANSPOSE_RULES } from "../rules/transpose.js";
import { forEachOp } from "../ir/walk.js";

// Transpose, the backward sweep of reverse mode: walks the tangent part of the linearized
// function backwards and accumulates adjoints (seed 004's accumulator map). Each linear op
// has a transpose rule; a region is mirrored by a region that first takes back from the tape
// what the forward sweep saved at its end. Loops run their iterations backwards, as many as
// the forward sweep counted; adjoints of tangents defined outside a loop are carried through
// the reversed loop as accumulators. Calls of a callee's JVP become calls of its backward sweep.

/** Adjoints by the id of the tangent value (of the JVP) they belong to; absent = zero. */
type Adjoints = Map<number, Value>;

/**
 * The adjoints inside a branch or a loop: what it sets, over the adjoints from before it,
 * which are not copied (a copy per `if` is quadratic in a long function). Its keys are only
 * those it set.
 */
class BranchAdjoints extends Map<number, Value> {
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

/**
 * The backward sweep as a function of its own, `f$bwd(seed, inputs…)`, taking residuals from
 * the tape. `inputs` are the JVP parameters (arguments, shadows) its caller passes after the
 * seed (see ReverseInfo.inputs): at least those the sweep reads.
 */
export function backwardSweep(
  jvp: IRFunction,
  info: ReverseInfo,
  primal: PrimalSignature,
  wrt: number[],
  inputs: readonly number[] = info.inputs(),
): IRFunction {
  return buildDerivative("bwd", primal, wrt, jvp.loc, (b) => {
    // A function returning an array or object gets its adjoint in that result's shadow.
    const seed = returnsSeededNumber(jvp) ? b.newValue("number", "seed") : undefined;
    const given = new Map(
      inputs.map((k) => {
        const p = jvp.params[k]!;
        return [p.id, b.newValue(p.type, p.hint)] as const;
      }),
    );
    return {
      params: [...(seed ? [seed] : []), ...given.values()],
      results: emitBackwardSweep(b, jvp, info, seed, undefined, given),
    };
  });
}

/**
 * The gradient as one function, `f$grad(x…, seed)`: the forward sweep, then the backward
 * sweep reading the body's residuals from locals — only values saved inside loops and branches
 * go through the tape. Returns the adjoints (first returned, others in `out`) then the value.
 */
export function fusedGradient(
  jvp: IRFunction,
  info: ReverseInfo,
  primal: PrimalSignature,
  wrt: number[],
): IRFunction {
  return buildDerivative("grad", primal, wrt, jvp.loc, (b) => {
    const forward = emitForwardSweep(b, jvp, info, false);
    b.emit("peak", [], []);
    const seed = returnsSeededNumber(jvp) ? b.newValue("number", "seed") : undefined;
    const adjoints = emitBackwardSweep(b, jvp, info, seed, forward);
    return {
      params: [...forward.params, ...(seed ? [seed] : [])],
      results: [...adjoints, ...forward.results],
    };
  });
}

/**
 * The pullback without the tape, `f$vjp(x…)`: the forward sweep keeps every residual in locals
 * (see emitForwardSweep's `lift`) and returns the pullback itself, a closure over them:
 * `back(seed)` makes fresh zero shadows for the differentiated arrays and objects, runs the
 * backward sweep, and returns the adjoints in ascending parameter order (the adjoint alone
 * for one parameter, else an array of them). The value comes back in `out.v1`. For an array
 * or object result, `seed` is its adjoint: when the function returns a literal of numbers
 * (`[a, b]`), the backward sweep reads the seed where the literal's shadow would have been,
 * without clearing it; otherwise `out.v2` holds the result's shadow, which the caller fills
 * first. A last argument `withValue` false skips building an array or object value only the
 * caller would read. For functions without loops or calls that do tangent work (see vjpPays
 * in sweeps.ts).
 */
export function vjpFunction(
  jvp: IRFunction,
  info: ReverseInfo,
  primal: PrimalSignature,
  wrt: number[],
): IRFunction {
  return buildDerivative("vjp", primal, wrt, jvp.loc, (b) => {
    const forward = emitForwardSweep(b, jvp, info, false, true);
    const tangents = jvp.params.filter((p) => p.tangent);
    const shadows = tangents.filter(isShadow);
    const params = forward.params.filter((p) => !shadows.some((s) => forward.map.get(s.id) === p));
    const ret = jvp.body.ops[jvp.body.ops.length - 1]!;
    const resultShadow = ret.operands.find(isShadow);
    const seedIsShadow = resultShadow !== undefined && readsOnlyAsResult(jvp, resultShadow);
    const seed = b.newValue(resultShadow && seedIsShadow ? resultShadow.type : "number", "seed");
    const keptShadow = resultShadow && !seedIsShadow ? forward.map.get(resultShadow.id) : undefined;
    const body: Region = { params: resultShadow && !seedIsShadow ? [] : [seed], ops: [] };
    b.inRegion(body, () => {
      // Fresh zero shadows for the differentiated arrays and objects, which the caller keeps.
      const fresh = new Map<number, Value>();
      tangents.forEach((t, k) => {
        if (!isShadow(t)) return;
        const like = forward.map.get(jvp.params[wrt[k]!]!.id)!;
        const made = b.emit("zeros", [like], [t.type], {}, [], t.hint).results[0]!;
        made.tangent = true;
        fresh.set(t.id, made);
        forward.map.set(t.id, made);
      });
      if (resultShadow && seedIsShadow) forward.map.set(resultShadow.id, seed);
      const numbers = emitBackwardSweep(
        b,
        jvp,
        info,
        resultShadow ? undefined : seed,
        forward,
        undefined,
        seedIsShadow ? new Set([resultShadow!.id]) : undefined,
      );
      let n = 0;
      const adjoints = tangents.map((t) => fresh.get(t.id) ?? numbers[n++]!);
      b.loc = jvp.loc;
      const result =
        adjoints.length === 1
          ? adjoints[0]!
          : b.emit(
              "literal",
              adjoints,
              [
                {
                  kind: "array",
                  storage: "Array",
                  element: adjoints[0]!.type,
                  elements: adjoints.map((a) => a.type),
                },
              ],
              {},
              [],
              "adjoints",
            ).results[0]!;
      b.emit("return", [result], []);
    });
    const back = b.emit("closure", [], ["opaque"], {}, [body], "back").results[0]!;
    // `pullback` does not need the value: an array or object built for it alone is built only
    // when the last argument says so (for `valueWithPullback`).
    const withValue = b.newValue("boolean", "withValue");
    let value = forward.results.find((v) => !v.tangent && v !== keptShadow)!;
    const built = b.region.ops.find((o) => o.results[0] === value);
    const used = (region: Region): boolean =>
      region.ops.some((o) => o.operands.includes(value) || o.regions.some(used));
    if (built?.opcode === "literal" && !used(b.region)) {
      b.region.ops.splice(b.region.ops.indexOf(built), 1);
      const skipped: Region = { params: [], ops: [] };
      b.inRegion(skipped, () => {
        const none = b.emit("const", [], [value.type], {}).results[0]!;
        b.emit("yield", [none], []);
      });
      const made: Region = { params: [], ops: [built] };
      b.inRegion(made, () => b.emit("yield", [value], []));
      value = b.emit("if", [withValue], [value.type], {}, [made, skipped], "value").results[0]!;
    }
    return {
      params: [...params, withValue],
      results: [back, value, ...(keptShadow ? [keptShadow] : [])],
    };
  });
}

/**
 * Whether the shadow `v` (of the returned value) is a literal of numbers that the function
 * uses for nothing else, so its adjoint can be read where the caller passed it.
 */
function readsOnlyAsResult(jvp: IRFunction, v: Value): boolean {
  const type = v.type;
  const numbers =
    typeof type === "object" &&
    (type.kind === "array"
      ? type.elements?.every((e) => e === "number")
      : type.fields.every((f) => f.type === "number"));
  if (!numbers) return false;
  let defined = false;
  let uses = 0;
  forEachOp(jvp.body, (op, region) => {
    if (op.results.includes(v)) defined = op.opcode === "literal" && region === jvp.body;
    uses += op.operands.filter((o) => o === v).length;
  });
  return defined && uses === 1;
}

/**
 * Emits the backward sweep into `b`'s current region and returns the adjoints of the
 * differentiated parameters. With `forward`, the body's residuals are that sweep's values
 * instead of the tape's.
 */
function emitBackwardSweep(
  b: Builder,
  jvp: IRFunction,
  info: ReverseInfo,
  seed: Value | undefined,
  forward?: ForwardSweep,
  /** Residuals (JVP arguments and shadows) the caller gives as inputs, by JVP id. */
  given?: Map<number, Value>,
  /** Literal shadows (by JVP id) the caller gives and clears itself: read, not cleared. */
  uncleared?: Set<number>,
): Value[] {
  const values = b.values;
  /** Residuals taken back from the tape (or given as inputs), by the id of the JVP value they hold. */
  const residuals = new Map<number, Value>(given);
  const trips = new Map<Op, Value>();
  const zero = (hint = "") => b.constant(0, hint);
  /** Adjoints are named after the value: the adjoint of `dx` (tangent of `x`) is `x_adj`. */
  const adjointHints = new Map<number, string>();
  const nameAdjoints = (region: Region) => {
    for (const v of [...region.params, ...region.ops.flatMap((o) => o.results)]) {
      if (isLinear(v)) adjointHints.set(v.id, `${v.hint.replace(/^d/, "") || "t"}_adj`);
    }
    region.ops.forEach((o) => o.regions.forEach(nameAdjoints));
  };
  nameAdjoints({ params: jvp.params, ops: jvp.body.ops });

  /** Values of the backward sweep that are shadows (whose numbers it reads and changes). */
  const shadowRefs = new Set<number>();
  const primalValue = (v: Value): Value => {
    const found = residualValue(v);
    if (isShadow(v)) shadowRefs.add(found.id);
    return found;
  };
  const residualValue = (v: Value): Value => {
    const taped = residuals.get(v.id);
    if (taped) return taped;
    // In the fused gradient, values of the body are still in the forward sweep's locals.
    const local = forward && info.home.get(v.id) === jvp.body ? forward.map.get(v.id) : undefined;
    if (local) return local;
    const def = info.rematerializable.get(v.id) ?? info.recomputed.get(v.id);
    if (!def) throw new Error(`internal: backward sweep has no residual for %${v.id}`);
    const operands = def.operands.map(primalValue);
    return b.emit(def.opcode, operands, [v.type], { ...def.attrs }, [], v.hint).results[0]!;
  };

  const accumulate = (
    adjoints: Adjoints,
    target: Value,
    contribution: Value | undefined,
    negate = false,
  ) => {
    if (!contribution || !isLinear(target)) return;
    const current = adjoints.get(target.id);
    const hint = adjointHints.get(target.id) ?? "adj";
    let next: Value;
    if (!current) next = negate ? b.unary("neg", contribution, hint) : contribution;
    else next = b.binary(negate ? "sub" : "add", current, contribution, hint);
    adjoints.set(target.id, next);
  };

  /** Tangents defined outside `op` and read inside it: their adjoints flow out of it. */
  const outerTangents = (op: Op): number[] => {
    const inside = definedInside(op);
    const found: number[] = [];
    for (const region of op.regions)
      forEachOp(region, (o) => {
        for (const v of o.operands)
          if (isLinear(v) && !inside.has(v.id) && !found.includes(v.id)) found.push(v.id);
      });
    return found;
  };

  /** Emits the mirror of `region`; seeds for its terminator's operands must already be in `adjoints`. */
  function reverseRegion(region: Region, adjoints: Adjoints): void {
    if (forward && region === jvp.body) {
      for (const r of info.residuals(region)) {
        if (r.kind === "value") residuals.set(r.value.id, forward.map.get(r.value.id)!);
        else trips.set(r.loop, forward.trips.get(r.loop)!);
      }
    } else if (forward?.lifted) {
      // A branch's residuals are results of the `if`s around it (see emitForwardSweep).
      for (const r of info.residuals(region)) {
        if (r.kind === "value") residuals.set(r.value.id, forward.lifted.get(r.value.id)!);
      }
    } else {
      popResiduals(region);
    }
    for (const op of region.ops.slice(0, -1).reverse()) {
      if (info.hasTangent(op) && !isShadowBuilder(op)) transposeOp(op, adjoints);
      else if (op.opcode === "literal" && op.tangent) transposeLiteral(op, adjoints);
      else if ((op.opcode === "alloc" || op.opcode === "zeros") && op.tangent) clearShadow(op);
      else if (replacedSlot(op)) restoreSlot(op);
    }
  }

  function popResiduals(region: Region): void {
    for (const r of [...info.residuals(region)].reverse()) {
      b.loc = region.ops[region.ops.length - 1]!.loc;
      if (r.kind === "value")
        residuals.set(
          r.value.id,
          b.emit("pop", [], [r.value.type], {}, [], r.value.hint).results[0]!,
        );
      // Trip counts are integers: saying so keeps the loop counters and indices int32.
      else
        trips.set(r.loop, b.emit("pop", [], ["number"], { value: "int" }, [], "trips").results[0]!);
    }
  }

  function transposeOp(op: Op, adjoints: Adjoints): void {
    b.loc = op.loc;
    switch (op.opcode) {
      case "if":
        return transposeIf(op, adjoints);
      case "loop":
        return transposeLoop(op, adjoints);
      case "call":
        return transposeCall(op, adjoints);
      case "const":
        return;
      case "field":
      case "index":
        return transposeRead(op, adjoints);
      case "setField":
      case "setIndex":
        return transposeWrite(op, adjoints);
    }
    const adjoint = adjoints.get(op.results[0]!.id);
    if (!adjoint) return;
    const rule = TRANSPOSE_RULES.get(op.opcode);
    if (!rule) throw new Error(`internal: no transpose rule for tangent op '${op.opcode}'`);
    rule(
      {
        b,
        adjoint,
        accumulate: (target, contribution, negate) =>
          accumulate(adjoints, target, contribution, negate),
        primal: primalValue,
        isTangent: isLinear,
      },
      op,
    );
  }

  /** `dy = da[i]` reads the shadow; its transpose adds the adjoint of `dy` into it. */
  function transposeRead(op: Op, adjoints: Adjoints): void {
    const adjoint = adjoints.get(op.results[0]!.id);
    if (!adjoint) return;
    const [shadow, index] = op.operands as [Value, Value | undefined];
    if (op.opcode === "field")
      b.emit("addField", [primalValue(shadow), adjoint], [], { field: op.attrs.field! });
    else
      b.emit(
        "addIndex",
        [primalValue(shadow), primalValue(index!), adjoint],
        [],
        mayMissElement(shadow.type, index!) ? { ifExists: true } : {},
      );
  }

  /**
   * Whether `a[i]` may read past a plain array (`xs[i - 1]` at i = 0, `xs[xs.length]`): the read
   * gives undefined, which has no derivative, and adding an adjoint there would add a NaN
   * entry or a key such as '-1' to the gradient. Typed arrays ignore writes out of range, and a
   * tuple's constant position exists.
   */
  function mayMissElement(type: Type, index: Value): boolean {
    if (!isArray(type) || type.storage !== "Array") return false;
    const def = info.definitionOf(index);
    const at = def?.opcode === "const" ? def.attrs.value : undefined;
    return !(
      type.elements &&
      typeof at === "number" &&
      Number.isInteger(at) &&
      at >= 0 &&
      at < type.elements.length
    );
  }

  /**
   * `da[i] = dv` overwrites the shadow; its transpose moves the adjoint found there to `dv`
   * and clears it, since the value written before no longer reaches anything through `a[i]`.
   */
  function transposeWrite(op: Op, adjoints: Adjoints): void {
    const shadow = primalValue(op.operands[0]!);
    const value = op.operands[op.operands.length - 1]!;
    const update = inPlaceUpdates.get(op);
    if (update) {
      // `da[i] = da[i] + dv`: the adjoint in da[i] stays where it is and also flows to dv —
      // no clearing it and adding it back.
      if (!update.other) return;
      const found =
        op.opcode === "setField"
          ? b.emit("field", [shadow], ["number"], { field: op.attrs.field! }).results[0]!
          : b.emit("index", [shadow, primalValue(op.operands[1]!)], ["number"]).results[0]!;
      accumulate(adjoints, update.other, found);
      return;
    }
    let found: Value;
    if (op.opcode === "setField") {
      const field = op.attrs.field!;
      found = b.emit(
        "field",
        [shadow],
        ["number"],
        { field },
        [],
        adjointHints.get(value.id) ?? "adj",
      ).results[0]!;
      b.emit("setField", [shadow, zero()], [], { field });
    } else {
      const index = primalValue(op.operands[1]!);
      found = b.emit(
        "index",
        [shadow, index],
        ["number"],
        {},
        [],
        adjointHints.get(value.id) ?? "adj",
      ).results[0]!;
      b.emit("setIndex", [shadow, index, zero()], []);
    }
    accumulate(adjoints, value, found);
  }

  /**
   * A literal's shadow starts as zeros; what accumulated in it flows to its number parts, and
   * the shadow is left zero again, so a pullback can run its backward sweep more than once.
   */
  function transposeLiteral(op: Op, adjoints: Adjoints): void {
    b.loc = op.loc;
    const shadow = primalValue(op.results[0]!);
    const type = op.results[0]!.type;
    const clear = !uncleared?.has(op.results[0]!.id);
    op.operands.forEach((v, i) => {
      if (!isLinear(v)) return;
      if (isAggregate(type) && type.kind === "object") {
        const field = type.fields[i]!.name;
        accumulate(adjoints, v, b.emit("field", [shadow], ["number"], { field }).results[0]!);
        if (clear) b.emit("setField", [shadow, zero()], [], { field });
      } else {
        const at = b.constant(i);
        accumulate(adjoints, v, b.emit("index", [shadow, at], ["number"]).results[0]!);
        if (clear) b.emit("setIndex", [shadow, at, zero()], []);
      }
    });
  }

  /**
   * A shadow created in the forward sweep is zeroed where its creation is undone (see above).
   * An allocation's shadow owns only its own numbers: the arrays and objects in its slots are
   * shadows made elsewhere (a copy's elements are the original's), still holding adjoints.
   */
  function clearShadow(op: Op): void {
    const type = op.results[0]!.type;
    if (op.opcode === "alloc" && isArray(type) && type.element !== "number") return;
    b.loc = op.loc;
    b.emit("clear", [primalValue(op.results[0]!)], []);
  }

  /** Puts back the shadow a shadow store replaced (see restore.ts). */
  function restoreSlot(op: Op): void {
    b.loc = op.loc;
    const slot = op.operands.slice(0, -1).map(primalValue);
    b.emit(op.opcode, [...slot, primalValue(replacedSlot(op)!)], [], { ...op.attrs });
  }

  function transposeCall(op: Op, adjoints: Adjoints): void {
    const tangentResult = op.results.find(isLinear);
    const seed = tangentResult ? [adjoints.get(tangentResult.id) ?? zero()] : [];
    const tangentArgs = op.operands.filter(isLinear);
    const hints = tangentArgs.map((t) => adjointHints.get(t.id) ?? "adj");
    const emitCall = () => {
      // The arguments and shadows the callee's backward sweep takes as inputs.
      const inputs = info.needsOf(op).map((k) => primalValue(op.operands[k]!));
      return b.emit(
        "call",
        [...seed, ...inputs],
        tangentArgs.map(() => "number" as const),
        {
          callee: sweepKey("bwd", op.attrs),
          primal: op.attrs.primal,
          wrt: op.attrs.wrt,
          ...(info.tapeless(op) ? { tapeless: true } : {}),
        },
        [],
        hints,
      ).results;
    };
    const zeroSeed = seed.length > 0 && b.constantOf(seed[0]!) === 0;
    if (zeroSeed && info.skippable(op)) return;
    if (seed.length === 0 || !info.skippable(op)) {
      const results = emitCall();
      tangentArgs.forEach((t, i) => accumulate(adjoints, t, results[i]));
      return;
    }
    // A zero seed would only add zeros (a branch not taken, `min` of many): skip the call.
    const nonzero = b.compare("ne", seed[0]!, zero());
    const taken: Region = { params: [], ops: [] };
    const skipped: Region = { params: [], ops: [] };
    b.inRegion(taken, () => b.emit("yield", emitCall(), []));
    b.inRegion(skipped, () =>
      b.emit(
        "yield",
        tangentArgs.map(() => zero()),
        [],
      ),
    );
    b.loc = op.loc;
    const merged = b.emit(
      "if",
      [nonzero],
      tangentArgs.map(() => "number" as const),
      {},
      [taken, skipped],
      hints,
    );
    tangentArgs.forEach((t, i) => accumulate(adjoints, t, merged.results[i]));
  }

  /** Yields, for each of `ids`, its adjoint in `adjoints` (zero when there is none). */
  const yieldAdjoints = (adjoints: Adjoints, ids: number[]) =>
    ids.map((id) => adjoints.get(id) ?? zero(adjointHints.get(id)));

  function transposeIf(op: Op, adjoints: Adjoints): void {
    const cond = primalValue(op.operands[0]!);
    const tangentPositions = op.results.flatMap((r, i) => (isLinear(r) ? [i] : []));
    const inside = definedInside(op);
    const outcomes = op.regions.map((region) => {
      const branch: Adjoints = new BranchAdjoints(adjoints);
      const into: Region = { params: [], ops: [] };
      b.inRegion(into, () => {
        const y = region.ops[region.ops.length - 1]!;
        for (const i of tangentPositions)
          accumulate(branch, y.operands[i]!, adjoints.get(op.results[i]!.id));
        reverseRegion(region, branch);
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
      b.inRegion(o.into, () => b.emit("yield", yieldAdjoints(o.branch, changed), []));
    b.loc = op.loc;
    const merged = b.emit(
      "if",
      [cond],
      changed.map(() => "number" as const),
      {},
      outcomes.map((o) => o.into),
      changed.map((id) => adjointHints.get(id) ?? "adj"),
    );
    changed.forEach((id, i) => adjoints.set(id, merged.results[i]!));
  }

  function transposeLoop(op: Op, adjoints: Adjoints): void {
    const [before, after] = op.regions as [Region, Region];
    const positions = before.params.flatMap((p, i) => (isLinear(p) ? [i] : []));
    const condition = before.ops[before.ops.length - 1]!;
    const forwarded = condition.operands.slice(1);
    const afterYield = after.ops[after.ops.length - 1]!;
    const outer = outerTangents(op);
    const count = trips.get(op) ?? tripCount(op);

    // Loop counters are recomputed from the iteration number t: `init + t * step`.
    const inductions = before.params.flatMap((p, k) =>
      info.induced.has(p.id) && info.needsInduction(p, after.params[k]!) ? [k] : [],
    );
    const induce = (t: Value, k: number) => {
      const { init, step } = info.induced.get(before.params[k]!.id)!;
      const start = primalValue(init);
      const offset = step === 1 ? t : b.binary("mul", t, b.constant(step));
      const value = b.constantOf(start) === 0 ? offset : b.binary("add", start, offset);
      value.hint ||= before.params[k]!.hint;
      residuals.set(before.params[k]!.id, value);
      residuals.set(after.params[k]!.id, value);
    };
    for (const k of inductions) induce(count, k);

    // The last execution of `before`: the one whose condition ended the loop.
    const last: Adjoints = new BranchAdjoints(adjoints);
    for (const i of positions) accumulate(last, forwarded[i]!, adjoints.get(op.results[i]!.id));
    reverseRegion(before, last);
    const shared = info.shared.get(op) ?? [];
    const recurrences = info.recurrencesOf(op);
    const inits = [
      count,
      ...yieldAdjoints(
        last,
        positions.map((i) => before.params[i]!.id),
      ),
      ...yieldAdjoints(last, outer),
      // What the last iteration yielded is the loop's result.
      ...shared.map((s) => primalValue(s.result)),
      // Recurrences start where the forward loop started them (the loop must ascend).
      ...recurrences.map((k) => primalValue(op.operands[k]!)),
    ];

    // Then every iteration backwards: `after`, then the `before` that preceded it.
    const hints = [
      "trips",
      ...positions.map((i) => adjointHints.get(before.params[i]!.id) ?? "adj"),
      ...outer.map((id) => adjointHints.get(id) ?? "adj"),
      ...shared.map((s) => s.yielded.hint),
      ...recurrences.map((k) => before.params[k]!.hint),
    ];
    const carried = () => inits.map((v, i) => values.make(v.type, hints[i]));
    const head: Region = { params: carried(), ops: [] };
    let more: Value | undefined;
    b.inRegion(head, () => {
      const [k, ...rest] = head.params;
      more = b.compare("gt", k!, b.constant(0));
      b.emit("condition", [more, k!, ...rest], []);
    });
    const step: Region = { params: carried(), ops: [] };
    /** The iteration number t = k − 1 and the next k, which `ascend` may rewrite. */
    let iterationNumber: Value | undefined;
    let nextCount: Value | undefined;
    b.inRegion(step, () => {
      const [k, ...rest] = step.params;
      if (inductions.length > 0) {
        iterationNumber = b.binary("sub", k!, b.constant(1));
        for (const j of inductions) induce(iterationNumber, j);
      }
      const iteration: Adjoints = new Map(outer.map((id, j) => [id, rest[positions.length + j]!]));
      positions.forEach((i, j) => accumulate(iteration, afterYield.operands[i]!, rest[j]));
      const nextParams = rest.slice(positions.length + outer.length);
      shared.forEach((s, j) => residuals.set(s.yielded.id, nextParams[j]!));
      const current = rest.slice(positions.length + outer.length + shared.length);
      recurrences.forEach((k, j) => {
        residuals.set(before.params[k]!.id, current[j]!);
        residuals.set(after.params[k]!.id, current[j]!);
      });
      reverseRegion(after, iteration);
      positions.forEach((i) =>
        accumulate(iteration, forwarded[i]!, iteration.get(after.params[i]!.id)),
      );
      reverseRegion(before, iteration);
      const next = [
        ...yieldAdjoints(
          iteration,
          positions.map((i) => before.params[i]!.id),
        ),
        ...yieldAdjoints(iteration, outer),
        // This iteration's parameter is what the one before it yielded.
        ...shared.map((s) => residuals.get(s.param.id)!),
        // The recurrences' next values, as the forward loop computed them.
        ...recurrences.map((k) => primalValue(afterYield.operands[k]!)),
      ];
      nextCount = b.binary("sub", k!, b.constant(1));
      b.emit("yield", [nextCount, ...next], []);
    });
    b.loc = op.loc;
    const loop = b.emit(
      "loop",
      inits,
      inits.map((v) => v.type),
      {},
      [head, step],
      hints,
    );
    const adjointSlots = positions.length + outer.length + shared.length;
    if (iterationsCommute(step, adjointSlots))
      ascend(loop, count, more!, iterationNumber, nextCount!);
    else if (recurrences.length > 0) info.failedRecurrences.add(op);
    const [, ...results] = loop.results;
    outer.forEach((id, j) => adjoints.set(id, results[positions.length + j]!));
    positions.forEach((i, j) => accumulate(adjoints, op.operands[i]!, results[j]));
  }

  /** The trip count of a loop whose forward sweep did not tape it (see TripCount). */
  function tripCount(op: Op): Value {
    const count = info.tripCounts.get(op);
    if (!count) throw new Error("internal: backward sweep has no trip count for a loop");
    return computeTripCount(b, count, primalValue);
  }

  /**
   * Whether the backward iterations of a loop may run in any order: each only adds into
   * shadows and reads arrays (no clears, tape, calls), and carries its adjoints and shared
   * residuals (the first `adjointSlots` carried values after the count) unchanged. Then they run in ascending
   * order, which memory prefers (measured ~15% on a matrix–vector product), and which lets
   * them carry recurrences; the sums come out in a different order, equal up to rounding.
   */
  function iterationsCommute(step: Region, adjointSlots: number): boolean {
    const y = step.ops[step.ops.length - 1]!;
    const carried = y.operands.slice(1, 1 + adjointSlots);
    if (carried.some((v, i) => v !== step.params[i + 1])) return false;
    // Reading an adjoint out of a shadow (an in-place update's transpose) depends on what
    // other iterations added to it.
    const readsAdjoint = (o: Op) =>
      (o.opcode === "index" || o.opcode === "field") &&
      o.results[0]!.type === "number" &&
      shadowRefs.has(o.operands[0]!.id);
    const only = (region: Region): boolean =>
      region.ops.every((o) => !ORDERED.has(o.opcode) && !readsAdjoint(o) && o.regions.every(only));
    return only(step);
  }

  /** Rewrites a backward loop counting k = trips…1 (iteration t = k − 1) to count t = 0…trips−1. */
  function ascend(loop: Op, count: Value, more: Value, t: Value | undefined, next: Value): void {
    const [head, step] = loop.regions as [Region, Region];
    const compare = head.ops.find((o) => o.results[0] === more)!;
    compare.opcode = "lt";
    compare.operands = [head.params[0]!, count];
    const k = step.params[0]!;
    if (t) {
      step.ops = step.ops.filter((o) => o.results[0] !== t);
      const replace = (region: Region) =>
        region.ops.forEach((o) => {
          o.operands = o.operands.map((v) => (v === t ? k : v));
          o.regions.forEach(replace);
        });
      replace(step);
    }
    step.ops.find((o) => o.results[0] === next)!.opcode = "add";
    // The counter now is the loop's own counter (`j`): name it so.
    if (t?.hint) for (const v of [head.params[0]!, k, loop.results[0]!]) v.hint = t.hint;
    // The new initial count, built after the loop, goes before it.
    const zero = b.constant(0, "t");
    const built = b.region.ops.pop()!;
    b.region.ops.splice(b.region.ops.indexOf(loop), 0, built);
    loop.operands = [zero, ...loop.operands.slice(1)];
  }

  const inPlaceUpdates = findInPlaceUpdates(jvp);
  const ret = jvp.body.ops[jvp.body.ops.length - 1]!;
  const adjoints: Adjoints = new Map();
  const tangentResult = ret.operands.find(isLinear);
  if (tangentResult && seed) adjoints.set(tangentResult.id, seed);
  reverseRegion(jvp.body, adjoints);
  b.loc = jvp.loc;
  // Adjoints of number parameters are returned; those of arrays and objects are in their shadows.
  return yieldAdjoints(
    adjoints,
    jvp.params.filter(isLinear).map((p) => p.id),
  );
}

/**
 * Shadow writes `da[i] = da[i] + dv` (the tangent of `a[i] += v`) whose read comes earlier in
 * the same region with no write of a shadow in between, with the other addend
 * (undefined when the write stores the read value itself).
 */
function findInPlaceUpdates(jvp: IRFunction): Map<Op, { other: Value | undefined }> {
  const found = new Map<Op, { other: Value | undefined }>();
  const visit = (region: Region) => {
    const position = new Map<Op, number>();
    const definedBy = new Map<number, Op>();
    region.ops.forEach((op, k) => {
      position.set(op, k);
      for (const r of op.results) definedBy.set(r.id, op);
      op.regions.forEach(visit);
    });
    region.ops.forEach((store, k) => {
      if (!store.tangent || (store.opcode !== "setIndex" && store.opcode !== "setField")) return;
      if (store.attrs.value === "grow") return;
      const value = store.operands[store.operands.length - 1]!;
      const readOf = (v: Value): Op | undefined => {
        const load = definedBy.get(v.id);
        if (!load || !load.tangent || load.operands[0] !== store.operands[0]) return undefined;
        if (
          store.opcode === "setIndex" &&
          (load.opcode !== "index" || load.operands[1] !== store.operands[1])
        )
          return undefined;
        if (
          store.opcode === "setField" &&
          (load.opcode !== "field" || load.attrs.field !== store.attrs.field)
        )
          return undefined;
        const from = position.get(load)!;
        const between = region.ops.slice(from + 1, k);
        // Only writes of shadows matter (primal stores do not touch them); reads in between
        // become additions, which commute with keeping the adjoint in place.
        return between.some(
          (o) => (o.tangent && WRITES_MEMORY.has(o.opcode)) || o.regions.length > 0,
        )
          ? undefined
          : load;
      };
      if (readOf(value)) {
        found.set(store, { other: undefined });
        return;
      }
      const sum = definedBy.get(value.id);
      if (!sum || sum.opcode !== "add" || !sum.tangent) return;
      const [x, y] = sum.operands as [Value, Value];
      if (readOf(x)) found.set(store, { other: y });
      else if (readOf(y)) found.set(store, { other: x });
    });
  };
  visit(jvp.body);
  return found;
}
