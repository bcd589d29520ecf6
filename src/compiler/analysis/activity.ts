import { forEachOp } from "../ir/walk.js";
import { fieldOf, isAggregate, isDifferentiable, isKeyed, isObject } from "../ir/type-system.js";
import type {
  FieldType,
  FunctionKey,
  IRFunction,
  ObjectType,
  Op,
  Region,
  Value,
} from "../ir/types.js";
import { ARITHMETIC_OPCODES } from "../ir/ops.js";
import { isPiecewiseConstantMath, isPiecewiseConstantOp } from "../rules/math.js";
import { textRoundTrips } from "./text-round-trips.js";
import { aliasClasses, isNoDerivativeField, type AliasClasses, type EffectsOf } from "./effects.js";

// Activity analysis (seed 000): a value is *varied* when it depends on a differentiated
// parameter, *useful* when the result depends on it, and *active* when both. Only active
// values get tangent code. Booleans and strings never carry derivatives; they are varied or
// useful only through non-differentiable ops, so that an active number laundered through
// `String(x)` is caught instead of silently losing its derivative. Bit operations (`x | 0`,
// `seed >>> 0`) are piecewise constant, like `Math.floor`: their result is not varied.
//
// Arrays and objects are references: activity belongs to their alias class (values that may
// share memory). A class is varied when it holds a differentiated parameter or a varied value
// is written into it (by a store, a literal, or a callee that writes its argument); every
// number read from a varied class is varied. Every class counts as useful, so a store into any
// array keeps the stored value's tangent.
//
// Calls: with `callVaried`, a call makes varied exactly what its callee's own analysis says it
// does for the arguments that are varied (its result, and the array and object arguments a
// varied value is written into) — a least fixed point over recursion (see the Differentiator's
// `variedEffects`). An index list a recursive function rewrites from integers it computes
// stays inactive though it is passed along with the differentiated array. Without it, a call
// with a varied argument varies its result and every argument it may write.

export interface Activity {
  varied: Set<number>;
  useful: Set<number>;
  isActive(v: Value): boolean;
  /** Whether the alias class of an array or object is varied. */
  variedClass(v: Value): boolean;
  /** Whether a set or map of `v`'s alias class is given varied keys. */
  variedKeyClass(v: Value): boolean;
  /** Non-differentiable ops an active value flows through: each is a user error. */
  blocked: Op[];
  /** Writes through an array or object `withoutDerivative` returned: each is a user error. */
  detachedWrites: Op[];
  /**
   * Stores of varied numbers into fields without a derivative (`@noDerivative`, a numeric
   * enum's), by `setField` or an object literal: each is a user error.
   */
  blockedStores: { op: Op; field: FieldType }[];
  /** Stores of varied numbers as keys of a set or map whose keys are read back: user errors. */
  blockedKeys: Op[];
  classes: AliasClasses;
  /** The effects of callees the analysis used. */
  effectsOf: EffectsOf;
}

/** Sees the activity analysis of each function differentiated (`nabla emit --activity`). */
export type ActivityObserver = (
  fn: IRFunction,
  wrt: number[],
  activity: Activity,
  /** The copy of `fn` with its small callees inlined, which is what gets linearized. */
  inlined: boolean,
) => void;

/** Whether `v` depends on the differentiated inputs (for arrays and objects: its alias class). */
export function isVaried(activity: Activity, v: Value): boolean {
  return isAggregate(v.type) ? activity.variedClass(v) : activity.varied.has(v.id);
}

/** What a call makes varied, given its varied argument positions (ascending). */
export interface CallVariedness {
  /** The returned value is varied. */
  result: boolean;
  /** The array and object parameters that hold varied values after the call (the varied ones among them). */
  params: Set<number>;
  /** The set and map parameters the call stores varied keys into. */
  keys?: Set<number>;
}

/** The callee's answer for a call, or undefined (assume the worst: see `analyzeActivity`). */
export type CallVaried = (callee: FunctionKey, varied: number[]) => CallVariedness | undefined;

export function analyzeActivity(
  fn: IRFunction,
  wrt: number[],
  effectsOf: EffectsOf = () => undefined,
  callVaried: CallVaried = () => undefined,
  variedOnly = false,
): Activity {
  const classes = aliasClasses(fn, effectsOf, false);
  const variedClasses = new Set<number>();
  const varied = new Set<number>();
  const useful = new Set<number>();
  /** Classes of sets and maps that a varied key is stored into (here, or by a callee). */
  const variedKeys = new Set<number>();
  let changed = true;
  const isVaried = (v: Value) =>
    isAggregate(v.type) ? variedClasses.has(classes.find(v.id)) : varied.has(v.id);
  const mark = (set: Set<number>, v: Value) => {
    if (isAggregate(v.type)) {
      if (set !== varied || !isDifferentiable(v.type)) return;
      const root = classes.find(v.id);
      if (!variedClasses.has(root)) {
        variedClasses.add(root);
        changed = true;
      }
      return;
    }
    if (!set.has(v.id)) {
      set.add(v.id);
      changed = true;
    }
  };
  for (const i of wrt) mark(varied, fn.params[i]!);
  // Whether a varied key carries a derivative: not when computed by rounding
  // (`Math.floor(x / width)`, a bucket), through arithmetic with other values.
  const definitions = new Map<number, Op>();
  forEachOp(fn.body, (op) => op.results.forEach((r) => definitions.set(r.id, op)));
  const keyCarries = (v: Value, depth = 0): boolean => {
    if (!varied.has(v.id)) return false;
    const def = definitions.get(v.id);
    if (!def || depth > 32) return true;
    if (def.opcode === "math" && isPiecewiseConstantMath(def.attrs.callee)) return false;
    if (def.opcode === "nondiff" && isPiecewiseConstantOp(def.attrs.callee)) return false;
    if (def.opcode === "math" || ARITHMETIC_OPCODES.has(def.opcode))
      return def.operands.some((o) => keyCarries(o, depth + 1));
    return true;
  };
  const carries = (op: Op, v: Value) => v.type === "number" || op.opcode === "nondiff";

  const forward = (region: Region) => {
    for (const op of region.ops) {
      switch (op.opcode) {
        case "if":
          op.regions.forEach(forward);
          op.results.forEach((r, i) => {
            if (op.regions.some((reg) => isVaried(terminator(reg).operands[i]!))) mark(varied, r);
          });
          continue;
        case "loop": {
          const [before, after] = op.regions as [Region, Region];
          op.operands.forEach((init, i) => isVaried(init) && mark(varied, before.params[i]!));
          forward(before);
          const forwarded = terminator(before).operands.slice(1);
          forwarded.forEach((f, i) => {
            if (isVaried(f)) {
              mark(varied, after.params[i]!);
              mark(varied, op.results[i]!);
            }
          });
          forward(after);
          terminator(after).operands.forEach(
            (y, i) => isVaried(y) && mark(varied, before.params[i]!),
          );
          continue;
        }
        case "const":
        case "global":
        case "extern":
        case "detach":
        case "length":
        case "alloc":
          continue;
        case "field":
          if (isVaried(op.operands[0]!) && !isNoDerivativeField(op)) mark(varied, op.results[0]!);
          continue;
        case "index":
          if (isVaried(op.operands[0]!)) mark(varied, op.results[0]!);
          continue;
        case "setField":
        case "setIndex": {
          const value = op.operands[op.operands.length - 1]!;
          if (isVaried(value) && !(op.opcode === "setField" && isNoDerivativeField(op)))
            mark(varied, op.operands[0]!);
          // A set or map given a varied key: its keys, read back, would be varied.
          const [target, key] = op.operands;
          if (op.opcode === "setIndex" && hasNumberKeys(target!.type) && keyCarries(key!))
            variedKeys.add(classes.find(target!.id));
          continue;
        }
        case "call": {
          const variedArgs = op.operands.flatMap((arg, i) => (isVaried(arg) ? [i] : []));
          if (variedArgs.length === 0) continue;
          const summary = callVaried(op.attrs.callee!, variedArgs);
          if (summary) {
            if (summary.result) for (const r of op.results) mark(varied, r);
            for (const i of summary.params) mark(varied, op.operands[i]!);
            for (const i of summary.keys ?? []) variedKeys.add(classes.find(op.operands[i]!.id));
            continue;
          }
          for (const r of op.results) mark(varied, r);
          const effects = effectsOf(op.attrs.callee!);
          op.operands.forEach((arg, i) => {
            if (isAggregate(arg.type) && (!effects || effects.writes.has(i))) {
              mark(varied, arg);
              if (hasNumberKeys(arg.type)) variedKeys.add(classes.find(arg.id));
            }
          });
          continue;
        }
        default:
          // A bit operation's result is piecewise constant: it carries no derivative.
          if (op.opcode === "nondiff" && isPiecewiseConstantOp(op.attrs.callee)) continue;
          if (op.operands.some(isVaried)) {
            for (const r of op.results) if (carries(op, r) || isAggregate(r.type)) mark(varied, r);
          }
      }
    }
  };

  const backward = (region: Region) => {
    for (let k = region.ops.length - 1; k >= 0; k--) {
      const op = region.ops[k]!;
      if (op.opcode === "return") {
        for (const v of op.operands) if (v.type === "number") mark(useful, v);
      } else if (op.opcode === "if") {
        op.results.forEach((r, i) => {
          if (useful.has(r.id))
            for (const reg of op.regions) mark(useful, terminator(reg).operands[i]!);
        });
        op.regions.forEach(backward);
      } else if (op.opcode === "loop") {
        const [before, after] = op.regions as [Region, Region];
        const forwarded = terminator(before).operands.slice(1);
        op.results.forEach((r, i) => {
          if (useful.has(r.id) || useful.has(after.params[i]!.id)) mark(useful, forwarded[i]!);
        });
        backward(after);
        backward(before);
        const yields = terminator(after).operands;
        before.params.forEach((p, i) => {
          if (useful.has(p.id)) {
            mark(useful, op.operands[i]!);
            mark(useful, yields[i]!);
          }
        });
      } else if (op.opcode === "setField" || op.opcode === "setIndex" || op.opcode === "literal") {
        for (const v of op.operands) if (v.type === "number") mark(useful, v);
      } else if (op.opcode === "call" && op.operands.some((v) => isAggregate(v.type))) {
        // The callee may write an argument someone reads later.
        for (const v of op.operands) if (v.type === "number") mark(useful, v);
      } else if (
        op.opcode !== "detach" &&
        // Arrays and objects count as useful (see above): what builds them is useful too.
        op.results.some((r) => useful.has(r.id) || isAggregate(r.type))
      ) {
        for (const v of op.operands) if (carries(op, v) || op.opcode === "nondiff") mark(useful, v);
      }
    }
  };

  while (changed) {
    changed = false;
    forward(fn.body);
    if (!variedOnly) backward(fn.body);
  }

  // Report where the derivative is first lost: not a later op of the same chain
  // (`parseFloat(String(x))` is one error, at `String`).
  const blocked: Op[] = [];
  const blockedStores: { op: Op; field: FieldType }[] = [];
  const blockedResults = new Set<number>();
  const blockedKeys: Op[] = [];
  forEachOp(fn.body, (op) => {
    // Text carries no derivative unless a number was turned into it (reported there): a key
    // read out of a varied pair (`for (const [k, v] of m)`) loses nothing.
    const variedOperands = op.operands.filter(
      (v) => varied.has(v.id) && (v.type !== "string" || blockedResults.has(v.id)),
    );
    if (
      op.opcode === "nondiff" &&
      !isPiecewiseConstantOp(op.attrs.callee) &&
      variedOperands.length > 0 &&
      op.results.some((r) => useful.has(r.id))
    ) {
      if (!variedOperands.every((v) => blockedResults.has(v.id))) blocked.push(op);
      for (const r of op.results) blockedResults.add(r.id);
    }
    if (op.opcode === "setField" && isNoDerivativeField(op) && varied.has(op.operands[1]!.id))
      blockedStores.push({
        op,
        field: fieldOf(op.operands[0]!.type as ObjectType, op.attrs.field!)!,
      });
    // An object literal built with a varied number in such a field loses its derivative too.
    const built = op.results[0]?.type;
    if (op.opcode === "literal" && built && isObject(built))
      built.fields.forEach((field, k) => {
        const v = op.operands[k];
        if (field.noDerivative && v && varied.has(v.id)) blockedStores.push({ op, field });
      });
  });

  // Text made from varied numbers and turned back into numbers out of activity's sight
  // (through arrays of text, a record's keys): reported where it becomes a number.
  const roundTrips = textRoundTrips(
    fn.body,
    classes,
    keyCarries,
    (v) => variedClasses.has(classes.find(v.id)),
    useful,
  );
  for (const op of roundTrips)
    if (!blocked.includes(op) && !op.operands.some((v) => blockedResults.has(v.id)))
      blocked.push(op);

  // Keys carry no derivative: where a set or map given varied keys has them read back
  // (`[...new Set(xs)]`, `for (const [k, v] of m)`), theirs would be lost.
  forEachOp(fn.body, (op) => {
    const source = op.operands[0];
    if (
      op.opcode === "nondiff" &&
      (op.attrs.callee === "Array.from" || op.attrs.callee === ".keys") &&
      source &&
      hasNumberKeys(source.type) &&
      variedKeys.has(classes.find(source.id))
    )
      blockedKeys.push(op);
    // A callee given such a set or map may read its keys: nabla does not follow it there.
    if (
      op.opcode === "call" &&
      op.operands.some((v) => hasNumberKeys(v.type) && variedKeys.has(classes.find(v.id)))
    )
      blockedKeys.push(op);
  });

  // The array or object withoutDerivative returns is the argument's memory under a name that
  // carries no derivative: writing through it would change the argument behind its shadow.
  const detached = new Set<number>();
  const detachedWrites: Op[] = [];
  forEachOp(fn.body, (op) => {
    if (op.opcode === "detach" && isAggregate(op.results[0]!.type))
      detached.add(classes.find(op.results[0]!.id));
  });
  const isDetached = (v: Value) => isAggregate(v.type) && detached.has(classes.find(v.id));
  const findDetachedWrites = (region: Region): void =>
    forEachOp(region, (op) => {
      if ((op.opcode === "setField" || op.opcode === "setIndex") && isDetached(op.operands[0]!))
        detachedWrites.push(op);
      if (op.opcode === "call") {
        const effects = effectsOf(op.attrs.callee!);
        if (op.operands.some((v, i) => isDetached(v) && (!effects || effects.writes.has(i))))
          detachedWrites.push(op);
      }
    });
  if (detached.size > 0) findDetachedWrites(fn.body);

  return {
    varied,
    useful,
    blocked,
    blockedStores,
    blockedKeys,
    detachedWrites,
    classes,
    effectsOf,
    variedKeyClass: (v) => variedKeys.has(classes.find(v.id)),
    variedClass: (v) => variedClasses.has(classes.find(v.id)),
    isActive: (v) =>
      isAggregate(v.type)
        ? isDifferentiable(v.type) && isVaried(v)
        : v.type === "number" && varied.has(v.id) && useful.has(v.id),
  };
}

/**
 * What `fn` makes varied when the parameters `wrt` are (see `CallVariedness`): forward
 * dataflow only, since the caller's analysis decides what is useful.
 */
export function variedness(
  fn: IRFunction,
  wrt: number[],
  effectsOf: EffectsOf,
  callVaried: CallVaried,
): CallVariedness {
  const activity = analyzeActivity(fn, wrt, effectsOf, callVaried, true);
  const ret = terminator(fn.body).operands[0];
  const isVaried = (v: Value) =>
    isAggregate(v.type)
      ? isDifferentiable(v.type) && activity.variedClass(v)
      : activity.varied.has(v.id);
  const params = new Set<number>();
  const keys = new Set<number>();
  fn.params.forEach((p, i) => {
    if (isAggregate(p.type) && isVaried(p)) params.add(i);
    if (hasNumberKeys(p.type) && activity.variedKeyClass(p)) keys.add(i);
  });
  return { result: ret !== undefined && isVaried(ret), params, keys };
}

function terminator(region: Region): Op {
  return region.ops[region.ops.length - 1]!;
}

/** A set or map keyed by numbers, whose keys may be read back as values. */
function hasNumberKeys(t: Value["type"]): boolean {
  return isKeyed(t) && t.storage !== "Record" && t.key === "number";
}
