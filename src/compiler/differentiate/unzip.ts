import type { Builder } from "../ir/builder.js";
import { isAggregate, isArray } from "../ir/type-system.js";
import type { IRFunction, Op, Region, Type, Value } from "../ir/types.js";
import { buildDerivative, type PrimalSignature } from "./derivative-function.js";
import { sweepKey } from "../ir/names.js";
import type { ReverseInfo } from "./residuals.js";
import type { TripCount } from "./loop-facts.js";
import { isLinear, isShadow, isShadowBuilder } from "./tangent-values.js";

// Unzip, first half: the forward sweep of reverse mode. It is the linearized function with
// its tangent part removed — the primal computation only — plus, at the end of each region,
// the residuals the backward sweep will need, saved on the tape. Loops that carry tangent work
// also count their iterations, so the backward sweep knows how many to undo. A call of a
// callee's JVP becomes a call of the callee's forward sweep.

/** What the forward sweep built, for a backward sweep emitted in the same function. */
export interface ForwardSweep {
  params: Value[];
  results: Value[];
  /** Clones of the JVP's values, by their id. */
  map: Map<number, Value>;
  /** Iteration counters of the loops that carry tangent work. */
  trips: Map<Op, Value>;
  /**
   * With `lift`: the residuals of branches, by the id of the JVP value, as the results of the
   * outermost `if` that yields them to the body.
   */
  lifted?: Map<number, Value>;
}

/** The forward sweep as a function of its own, `f$fwd`, saving every residual on the tape. */
export function forwardSweep(
  jvp: IRFunction,
  info: ReverseInfo,
  primal: PrimalSignature,
  wrt: number[],
): IRFunction {
  return buildDerivative("fwd", primal, wrt, jvp.loc, (b) => {
    const sweep = emitForwardSweep(b, jvp, info, true);
    b.emit("peak", [], []);
    return { params: sweep.params, results: sweep.results };
  });
}

/**
 * Emits the forward sweep into `b`'s current region. With `saveTopLevel` false, the residuals
 * of the function body stay in locals for a backward sweep emitted right after it. With
 * `lift` too, so do those of branches: each `if` yields them as extra results (a placeholder
 * from the branch that did not compute them), and nothing goes on the tape — for functions
 * whose loops have no tangent work.
 */
export function emitForwardSweep(
  b: Builder,
  jvp: IRFunction,
  info: ReverseInfo,
  saveTopLevel: boolean,
  lift = false,
): ForwardSweep {
  const values = b.values;
  const map = new Map<number, Value>();
  /** Iteration counters of the loops that carry tangent work, by loop. */
  const trips = new Map<Op, Value>();

  const clone = (v: Value): Value => {
    const c = values.make(v.type, v.hint);
    map.set(v.id, c);
    return c;
  };
  const mapped = (v: Value): Value => {
    const m = map.get(v.id);
    if (!m) throw new Error(`internal: forward sweep found no clone of %${v.id}`);
    return m;
  };
  /** What the forward sweep computes: primal values and shadows, not the linear tangents. */
  const primalOnly = (vs: Value[]) => vs.filter((v) => !isLinear(v));
  const primalTypes = (vs: Value[]): Type[] => primalOnly(vs).map((v) => v.type);

  /**
   * Clones a region's ops; `finish` builds its terminator after the residuals are saved
   * (`reserved`: without checking the tape's capacity, which a `reserve` made room for).
   */
  const cloneRegion = (
    region: Region,
    into: Region,
    finish: (terminator: Op) => void,
    reserved = false,
  ) => {
    b.inRegion(into, () => {
      for (const op of region.ops.slice(0, -1)) cloneOp(op);
      const terminator = region.ops[region.ops.length - 1]!;
      b.loc = terminator.loc;
      const saved = saveTopLevel || region !== jvp.body ? info.residuals(region) : [];
      for (const r of saved) {
        b.emit(
          "push",
          [r.kind === "value" ? mapped(r.value) : trips.get(r.loop)!],
          [],
          reserved ? { reserved: true } : {},
        );
      }
      finish(terminator);
    });
  };

  function cloneOp(op: Op): void {
    b.loc = op.loc;
    if (op.opcode === "if") return cloneIf(op);
    if (op.opcode === "loop") return cloneLoop(op);
    if (op.opcode === "call" && op.tangent) {
      // The callee's forward sweep returns its value, then its result's shadow (if any).
      const args = primalOnly(op.operands).map(mapped);
      const value = op.results.find((r) => !r.tangent);
      const shadow = op.results.find(isShadow);
      const results = [...(value ? [value] : []), ...(shadow ? [shadow] : [])];
      const call = b.emit(
        "call",
        args,
        results.map((r) => r.type),
        {
          callee: sweepKey("fwd", op.attrs),
          primal: op.attrs.primal,
          wrt: op.attrs.wrt,
          frozen: op.attrs.frozen ?? [],
          ...(info.tapeless(op) ? { tapeless: true } : {}),
          // A pure callee whose sweeps leave the tape alone: its forward sweep only computes
          // the value, and goes (dce) where nothing reads it.
          ...(info.tapeless(op) && op.attrs.pure ? { pure: true } : {}),
        },
        [],
        results.map((r) => r.hint),
      );
      results.forEach((r, i) => map.set(r.id, call.results[i]!));
      return;
    }
    if (isShadowBuilder(op)) {
      // Shadows are built with zeros where the tangent computation would put numbers.
      const operands = op.operands.map((v) => (isLinear(v) ? b.constant(0) : mapped(v)));
      const copy = b.emit(
        op.opcode,
        operands,
        op.results.map((r) => r.type),
        { ...op.attrs },
        [],
        op.results.map((r) => r.hint),
      );
      op.results.forEach((r, i) => map.set(r.id, copy.results[i]!));
      return;
    }
    if (op.tangent && op.opcode === "setIndex" && op.attrs.value === "grow") {
      // `a.push(v)`: the shadow grows with the array (by a zero), so the backward sweep finds
      // the element's adjoint where it transposes the push.
      const [shadow, index] = op.operands as [Value, Value];
      b.emit("setIndex", [mapped(shadow), mapped(index), b.constant(0)], [], { ...op.attrs });
      return;
    }
    if (op.tangent && op.opcode === "setIndex" && mayGrow(op, facts)) return growShadow(op);
    if (op.tangent) return;
    // A plain call of a function that never uses the tape needs no hand-over around it.
    const tapeless = op.opcode === "call" && info.primalTapeless(op.attrs.callee!);
    const copy = b.emit(
      op.opcode,
      op.operands.map(mapped),
      op.results.map((r) => r.type),
      { ...op.attrs, ...(tapeless ? { tapeless: true } : {}) },
      [],
      op.results.map((r) => r.hint),
    );
    op.results.forEach((r, i) => map.set(r.id, copy.results[i]!));
  }

  /**
   * `ys[i] = v` into a plain array may write past its end (`const ys = []` filled by index),
   * and the shadow must grow with it, as for a push, or the backward sweep would add adjoints
   * into missing elements. Only where the element is missing — past the end, or a hole left
   * by filling from the back (`for (i = n - 1; i >= 0; i--) ys[i] = …`): a checkpointed
   * call's forward sweep reruns in the backward sweep on shadows that already hold adjoints.
   */
  function growShadow(op: Op): void {
    const [shadow, index] = op.operands.slice(0, 2).map(mapped) as [Value, Value];
    const element = b.emit("index", [shadow, index], ["number"]).results[0]!;
    const past = b.unary("nullish", element);
    const grow: Region = { params: [], ops: [] };
    const keep: Region = { params: [], ops: [] };
    b.inRegion(grow, () => {
      b.emit("setIndex", [shadow, index, b.constant(0)], []);
      b.emit("yield", [], []);
    });
    b.inRegion(keep, () => b.emit("yield", [], []));
    b.loc = op.loc;
    b.emit("if", [past], [], {}, [grow, keep]);
  }

  const lifted = new Map<number, Value>();
  /** The residuals the branch being cloned yields (its own and those of nested ifs). */
  let exports: [number, Value][] | undefined;

  function cloneIf(op: Op): void {
    if (lift) return cloneIfLifted(op);
    const regions = op.regions.map((region) => {
      const into: Region = { params: [], ops: [] };
      cloneRegion(region, into, (y) => b.emit("yield", primalOnly(y.operands).map(mapped), []));
      return into;
    });
    b.loc = op.loc;
    const copy = b.emit(
      "if",
      [mapped(op.operands[0]!)],
      primalTypes(op.results),
      {},
      regions,
      primalOnly(op.results).map((r) => r.hint),
    );
    primalOnly(op.results).forEach((r, i) => map.set(r.id, copy.results[i]!));
  }

  function cloneIfLifted(op: Op): void {
    const branches = op.regions.map((region) => {
      const into: Region = { params: [], ops: [] };
      const own: [number, Value][] = [];
      b.inRegion(into, () => {
        const outer = exports;
        exports = own;
        for (const o of region.ops.slice(0, -1)) cloneOp(o);
        exports = outer;
        for (const r of info.residuals(region)) {
          if (r.kind !== "value") throw new Error("internal: a lifted branch holds a loop");
          own.push([r.value.id, mapped(r.value)]);
        }
      });
      return { into, own: new Map(own), terminator: region.ops[region.ops.length - 1]! };
    });
    const ids = branches.flatMap((br) => [...br.own.keys()]);
    const typeOf = new Map(branches.flatMap((br) => [...br.own].map(([id, v]) => [id, v])));
    for (const br of branches) {
      b.inRegion(br.into, () => {
        b.loc = br.terminator.loc;
        const values = ids.map((id) => br.own.get(id) ?? placeholder(typeOf.get(id)!.type));
        b.emit("yield", [...primalOnly(br.terminator.operands).map(mapped), ...values], []);
      });
    }
    b.loc = op.loc;
    const results = primalOnly(op.results);
    const copy = b.emit(
      "if",
      [mapped(op.operands[0]!)],
      [...results.map((r) => r.type), ...ids.map((id) => typeOf.get(id)!.type)],
      {},
      branches.map((br) => br.into),
      [...results.map((r) => r.hint), ...ids.map((id) => typeOf.get(id)!.hint)],
    );
    results.forEach((r, i) => map.set(r.id, copy.results[i]!));
    ids.forEach((id, k) => {
      const value = copy.results[results.length + k]!;
      lifted.set(id, value);
      exports?.push([id, value]);
    });
  }

  /** What a branch yields for a residual only the other branch computes. */
  function placeholder(type: Type): Value {
    if (type === "number") return b.constant(0);
    return b.emit("const", [], [type], type === "boolean" ? { value: false } : {}).results[0]!;
  }

  function cloneLoop(op: Op): void {
    const [before, after] = op.regions as [Region, Region];
    // The backward sweep needs the trip count, unless it can compute it (see TripCount).
    const counted = info.hasTangent(op) && !info.tripCounts.has(op);
    const counter = () => (counted ? [values.make("number", "trips")] : []);
    const beforeCounter = counter();
    const newBefore: Region = {
      params: [...primalOnly(before.params).map(clone), ...beforeCounter],
      ops: [],
    };
    cloneRegion(before, newBefore, (cond) => {
      const [flag, ...forwarded] = cond.operands;
      b.emit(
        "condition",
        [mapped(flag!), ...primalOnly(forwarded).map(mapped), ...beforeCounter],
        [],
      );
    });
    const afterCounter = counter();
    const newAfter: Region = {
      params: [...primalOnly(after.params).map(clone), ...afterCounter],
      ops: [],
    };
    const pushes = reservable(op);
    cloneRegion(
      after,
      newAfter,
      (y) => {
        const next = afterCounter.map((k) => b.binary("add", k, b.constant(1)));
        b.emit("yield", [...primalOnly(y.operands).map(mapped), ...next], []);
      },
      pushes > 0,
    );
    b.loc = op.loc;
    if (pushes > 0) {
      // Room for every iteration's residuals at once, not a check per iteration.
      const n = computeTripCount(b, info.tripCounts.get(op)!, mapped);
      b.emit("reserve", [pushes === 1 ? n : b.binary("mul", n, b.constant(pushes))], []);
    }
    const inits = [...primalOnly(op.operands).map(mapped), ...(counted ? [b.constant(0)] : [])];
    const results = primalOnly(op.results);
    const copy = b.emit(
      "loop",
      inits,
      [...results.map((r) => r.type), ...(counted ? (["number"] as Type[]) : [])],
      {},
      [newBefore, newAfter],
      [...results.map((r) => r.hint), ...(counted ? ["trips"] : [])],
    );
    results.forEach((r, i) => map.set(r.id, copy.results[i]!));
    if (counted) trips.set(op, copy.results[results.length]!);
  }

  /**
   * How many numbers each iteration of a loop pushes, if the forward sweep may make room for
   * all its iterations before it (else 0): its trip count is computed (see TripCount), it
   * pushes only at the end of its `after` region (nothing nested, nothing in `before`), and it
   * calls nothing (a callee would use the room).
   */
  function reservable(op: Op): number {
    if (!info.hasTangent(op) || !info.tripCounts.has(op)) return 0;
    const [before, after] = op.regions as [Region, Region];
    const residuals = info.residuals(after);
    if (residuals.length === 0 || info.residuals(before).length > 0) return 0;
    if (residuals.some((r) => r.kind === "value" && isAggregate(r.value.type))) return 0;
    const quiet = (region: Region, top: boolean): boolean =>
      (top || info.residuals(region).length === 0) &&
      region.ops.every(
        (o) =>
          o.opcode !== "call" && o.opcode !== "extern" && o.regions.every((r) => quiet(r, false)),
      );
    return quiet(before, true) && quiet(after, true) ? residuals.length : 0;
  }

  const facts = boundFacts(jvp);
  const params = primalOnly(jvp.params).map(clone);
  let results: Value[] = [];
  // The value first, then the result's shadow (for a function returning an array or object).
  cloneRegion(jvp.body, b.region, (ret) => {
    const kept = primalOnly(ret.operands);
    results = [...kept.filter((v) => !v.tangent), ...kept.filter((v) => v.tangent)].map(mapped);
  });
  return { params, results, map, trips, ...(lift ? { lifted } : {}) };
}

/**
 * The number of iterations of a loop whose trip count follows from its condition (see
 * TripCount), built with `b` from the values `valueOf` gives for the JVP's.
 */
export function computeTripCount(
  b: Builder,
  count: TripCount,
  valueOf: (v: Value) => Value,
): Value {
  const { compare, integral } = count;
  const init = valueOf(count.init);
  let bound = count.lengthOf
    ? b.emit("length", [valueOf(count.lengthOf)], ["number"]).results[0]!
    : valueOf(count.bound);
  const up = compare === "lt" || compare === "le";
  // Integer counters: i < bound is i < ceil(bound), i <= bound is i <= floor(bound)…
  const rounding = compare === "lt" || compare === "ge" ? "ceil" : "floor";
  if (!integral) bound = b.emit("math", [bound], ["number"], { callee: rounding }).results[0]!;
  // i < bound: bound − init values; i <= bound: one more (counting down: init − bound…).
  let n =
    up && b.constantOf(init) === 0
      ? bound
      : up
        ? b.binary("sub", bound, init)
        : b.binary("sub", init, bound);
  if (compare === "le" || compare === "ge") n = b.binary("add", n, b.constant(1));
  // No iterations when the condition fails at once (NaN included).
  return b.select(b.compare("gt", n, b.constant(0)), n, b.constant(0), "trips");
}

/** What shows an index below an array's length: definitions, and loop counters' bounds. */
interface BoundFacts {
  definitions: Map<number, Op>;
  /** `after` parameters of loops whose condition is `x < n`, x forwarded to them: n. */
  below: Map<number, Value>;
}

function boundFacts(jvp: IRFunction): BoundFacts {
  const facts: BoundFacts = { definitions: new Map(), below: new Map() };
  const visit = (region: Region) => {
    for (const op of region.ops) {
      for (const r of op.results) facts.definitions.set(r.id, op);
      op.regions.forEach(visit);
      if (op.opcode !== "loop") continue;
      const [before, after] = op.regions as [Region, Region];
      const condition = before.ops[before.ops.length - 1]!;
      const test = before.ops.find((o) => o.results[0] === condition.operands[0]);
      if (!test || (test.opcode !== "lt" && test.opcode !== "gt")) continue;
      const [x, n] = test.opcode === "lt" ? test.operands : [...test.operands].reverse();
      condition.operands.slice(1).forEach((forwarded, k) => {
        if (forwarded === x && after.params[k]) facts.below.set(after.params[k]!.id, n!);
      });
    }
  };
  visit(jvp.body);
  return facts;
}

/**
 * Whether a tangent store of a number may grow its shadow: a plain array, written by index,
 * unless the index is known to be below the length the shadow was made with (arrays never
 * shrink) — a constant inside a literal or an allocation, or the counter of a loop running
 * while it is below the allocation's length, as in the copies `map` and `slice` lower to.
 */
function mayGrow(store: Op, facts: BoundFacts): boolean {
  const [shadow, index] = store.operands as [Value, Value];
  const value = store.operands[store.operands.length - 1]!;
  const type = shadow.type;
  if (!isArray(type) || type.storage !== "Array" || type.elements || isAggregate(value.type))
    return false;
  const made = facts.definitions.get(shadow.id);
  const constant = facts.definitions.get(index.id);
  const at = constant?.opcode === "const" ? constant.attrs.value : undefined;
  if (typeof at === "number" && made?.opcode === "literal") return at >= made.operands.length;
  if (made?.opcode !== "alloc") return true;
  const length = made.operands[0]!;
  const size = facts.definitions.get(length.id);
  if (typeof at === "number" && size?.opcode === "const" && typeof size.attrs.value === "number")
    return at >= size.attrs.value;
  return facts.below.get(index.id) !== length;
}
