// Run-time helpers for tangent values of arrays and objects (plain objects, arrays and typed
// arrays of numbers, nested): generated code uses them where a shape is only known at run time.

import { copyTyped } from "./pool.js";
import { refuseSeedOfOtherShape, type ResultShape } from "./seed-shape.js";

type TangentValue = number | Float64Array | Float32Array | TangentValue[] | TangentObject;
interface TangentObject {
  [field: string]: TangentValue;
}

/**
 * Sets every number in a tangent to zero, in place.
 *
 * @internal
 */
export function clearTangent(t: unknown): void {
  if (t instanceof Float64Array || t instanceof Float32Array) {
    t.fill(0);
  } else if (t instanceof Map) {
    for (const [k, v] of t) {
      if (typeof v === "number") t.set(k, 0);
      else clearTangent(v);
    }
  } else if (Array.isArray(t)) {
    for (let i = 0; i < t.length; i++) {
      if (typeof t[i] === "number") t[i] = 0;
      else clearTangent(t[i]);
    }
  } else if (t !== null && typeof t === "object") {
    const o = t as TangentObject;
    for (const k of Object.keys(o)) {
      if (typeof o[k] === "number") o[k] = 0;
      else clearTangent(o[k]);
    }
  }
}

/**
 * Lengthens the plain arrays of numbers in a shadow to those of the value (zeros), after code
 * that wrote past their end ran without its derivative: a checkpointed call's primal run.
 *
 * @internal
 */
export function growTangent(value: unknown, shadow: unknown): void {
  if (ArrayBuffer.isView(value) || value === null || typeof value !== "object") return;
  if (shadow === null || typeof shadow !== "object") return;
  const v = value as Record<string | number, unknown>;
  const t = shadow as Record<string | number, unknown>;
  if (value instanceof Map && shadow instanceof Map) {
    for (const [k, x] of value) {
      if (typeof x === "number") {
        if (!shadow.has(k)) shadow.set(k, 0);
      } else growTangent(x, shadow.get(k));
    }
    return;
  }
  if (Array.isArray(value) && Array.isArray(shadow)) {
    for (let i = 0; i < value.length; i++) {
      if (typeof value[i] === "number") {
        if (shadow[i] === undefined) shadow[i] = 0;
      } else growTangent(value[i], shadow[i]);
    }
    return;
  }
  for (const k of Object.keys(t)) growTangent(v[k], t[k]);
}

/**
 * A deep copy of a tangent, so a caller keeps its own.
 *
 * @internal
 */
export function copyTangent<T>(t: T): T {
  if (t instanceof Float64Array || t instanceof Float32Array) return copyTyped(t) as T;
  if (Array.isArray(t)) return t.map(copyTangent) as T;
  if (t instanceof Map) return new Map([...t].map(([k, v]) => [k, copyTangent(v)])) as T;
  if (t !== null && typeof t === "object") {
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(t)) copy[k] = copyTangent(v);
    return copy as T;
  }
  return t;
}

/**
 * The gradient `t` with the keys its value `like` has: without the fields it lacks (optional
 * fields left out, a union's other variants'), through arrays, objects and maps; in place.
 *
 * @internal
 */
export function withoutAbsent<T>(t: T, like: unknown): T {
  if (t === null || typeof t !== "object" || like === null || typeof like !== "object") return t;
  if (ArrayBuffer.isView(t)) return t;
  if (Array.isArray(t)) {
    const values = like as unknown[];
    t.forEach((e, i) => withoutAbsent(e, values[i]));
  } else if (t instanceof Map) {
    const values = like as Map<unknown, unknown>;
    for (const [k, e] of t) withoutAbsent(e, values.get(k));
  } else {
    const o = t as Record<string, unknown>;
    const values = like as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      // Same keys as the value: a field it does not have has no tangent.
      if (!(k in values)) delete o[k];
      else withoutAbsent(o[k], values[k]);
    }
  }
  return t;
}

/**
 * A zero tangent shaped like a value of a type that holds itself (a tree): zeros for its
 * numbers, the same kind of array or map for its arrays and maps, objects of the fields that
 * hold numbers; text, booleans and functions left out.
 *
 * @internal
 */
export function zerosOfValue(v: unknown): unknown {
  if (typeof v === "number") return 0;
  if (v instanceof Float64Array) return new Float64Array(v.length);
  if (v instanceof Float32Array) return new Float32Array(v.length);
  if (Array.isArray(v)) return v.map(zerosOfValue);
  if (v instanceof Map) return keyedZeros(v, zerosOfValue);
  if (v === null || typeof v !== "object") return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x === "number" || (x !== null && typeof x === "object")) out[k] = zerosOfValue(x);
  }
  return out;
}

/**
 * A zero tangent of a record or map: the same keys, each holding `zero(value)`.
 *
 * @internal
 */
export function keyedZeros(like: unknown, zero: (value: unknown) => unknown): unknown {
  if (like instanceof Map) {
    const m = new Map<unknown, unknown>();
    for (const [k, v] of like) m.set(k, zero(v));
    return m;
  }
  const o = like as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) out[k] = zero(o[k]);
  return out;
}

/**
 * A deep copy of a value of the user's, keeping class instances' prototypes and its sharing.
 *
 * @internal
 */
export function copyValue<T>(v: T): T {
  return copyValues([v])[0] as T;
}

/**
 * Deep copies of the arguments of a function that only reads them (a pullback in wasm), whose
 * sharing does not matter: a typed array, or an array of typed arrays (kmeans' points), is
 * copied without the look-ups that keep sharing, which cost more than copying small rows;
 * anything else as copyValues copies it.
 *
 * @internal
 */
export function copyReadOnly(values: unknown[]): unknown[] {
  const copies: unknown[] = new Array(values.length);
  for (let k = 0; k < values.length; k++) {
    const v = values[k];
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
      copies[k] = (v as Float64Array).slice();
      continue;
    }
    if (
      Array.isArray(v) &&
      v.every((row) => ArrayBuffer.isView(row) && !(row instanceof DataView))
    ) {
      copies[k] = v.map((row: Float64Array) => row.slice());
      continue;
    }
    copies[k] = copyValues([v])[0];
  }
  return copies;
}

/**
 * Deep copies of several values that keep their sharing: an array reachable from two of them
 * (or twice from one) is copied once, and both places get that copy. Checkpoints save
 * arguments this way, so a rerun sees `f(s, s.pos)` as the same memory twice, as f did.
 *
 * @internal
 */
export function copyValues(values: unknown[]): unknown[] {
  const copies = new Map<object, unknown>();
  const copy = (v: unknown): unknown => {
    if (v === null || typeof v !== "object") return v;
    const known = copies.get(v);
    if (known !== undefined) return known;
    // Any typed array (an Int32Array of indices too): its own kind, elements as they are.
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
      const c = (v as Float64Array).slice();
      copies.set(v, c);
      return c;
    }
    if (Array.isArray(v)) {
      const c: unknown[] = new Array(v.length);
      copies.set(v, c);
      for (let i = 0; i < v.length; i++) c[i] = copy(v[i]);
      return c;
    }
    if (v instanceof Map) {
      const c = new Map<unknown, unknown>();
      copies.set(v, c);
      for (const [k, x] of v) c.set(k, copy(x));
      return c;
    }
    // A Set (of indices, of names): its elements, as a Set.
    if (v instanceof Set) {
      const c = new Set<unknown>();
      copies.set(v, c);
      for (const x of v) c.add(copy(x));
      return c;
    }
    const c = Object.create(Object.getPrototypeOf(v) as object | null) as Record<string, unknown>;
    copies.set(v, c);
    for (const [k, x] of Object.entries(v)) c[k] = copy(x);
    return c;
  };
  return values.map(copy);
}

/**
 * Thrown by an operator, before running the function, when an array or object is reachable
 * from two arguments (or twice from one), as in `f(a, a)` or `f({ v: a }, a)`, and the function
 * writes to it: nabla gives each path its own tangent, which would be wrong for memory that
 * both names change. Pass a copy (`a.slice()`) instead.
 */
export class AliasedArgumentsError extends Error {
  constructor(operator: string, first: number, second: number) {
    super(
      (first === second
        ? `${operator}: argument ${first} reaches the same array or object twice, and the function writes to it; `
        : `${operator}: arguments ${first} and ${second} share an array or object, and the function writes to it; `) +
        `nabla differentiates each path as a separate value, so pass a copy (e.g. 'x.slice()') instead`,
    );
    this.name = "AliasedArgumentsError";
  }
}

/**
 * Throws AliasedArgumentsError when an array or object is reachable twice from the arguments
 * and one of the arguments reaching it is written by the function (`written[i]`).
 *
 * @internal
 */
export function checkAliasing(operator: string, args: unknown[], written: boolean[]): void {
  const owner = new Map<object, number>();
  const visit = (v: unknown, arg: number): void => {
    if (v === null || typeof v !== "object") return;
    const first = owner.get(v);
    if (first !== undefined) {
      if (written[first] || written[arg]) throw new AliasedArgumentsError(operator, first, arg);
      return;
    }
    owner.set(v, arg);
    if (ArrayBuffer.isView(v)) return;
    if (Array.isArray(v)) {
      if (v.length > 0 && typeof v[0] === "number") return;
      for (const e of v) visit(e, arg);
      return;
    }
    for (const x of v instanceof Map ? v.values() : Object.values(v)) visit(x, arg);
  };
  args.forEach(visit);
}

/** Where each array or object inside a tangent sits: container, key, the value there. */
export type TangentStructure = [Record<string | number, unknown>, string | number, unknown][];

/**
 * Records the arrays and objects inside a tangent, for a function that replaces arrays inside
 * its argument (`o.v = [1, 2]`): its derivative replaces them in the argument's shadow too,
 * while the adjoint of the original array stays in that array's shadow.
 *
 * @internal
 */
export function saveStructure(t: unknown): TangentStructure {
  const slots: TangentStructure = [];
  const visit = (v: unknown) => {
    if (v === null || typeof v !== "object" || ArrayBuffer.isView(v)) return;
    const container = v as Record<string | number, unknown>;
    for (const key of Object.keys(container)) {
      const child = container[key];
      if (child !== null && typeof child === "object") {
        slots.push([container, Array.isArray(v) ? Number(key) : key, child]);
        visit(child);
      }
    }
  };
  visit(t);
  return slots;
}

/**
 * Puts back what saveStructure recorded, so the tangent holds the original arrays' adjoints.
 *
 * @internal
 */
export function restoreStructure(slots: TangentStructure): void {
  for (const [container, key, child] of slots) container[key] = child;
}

/**
 * Adds the tangent `source` into `target` in place (same shape): how an adjoint returned by a
 * registered pullback joins the shadow of an array or object argument. With `longer`, a plain
 * array in `target` may be longer than its match in `source` (see seedTangent).
 *
 * @internal
 */
export function addTangent(target: unknown, source: unknown, longer = false): void {
  // A seed may leave out a part of the result, as `Tangent<T>` lets it (an optional field, a
  // part with no tangent): its adjoint is zero.
  if (longer && source === undefined) return;
  if (target instanceof Float64Array || target instanceof Float32Array || Array.isArray(target)) {
    const from = source as ArrayLike<unknown>;
    const fits =
      from &&
      (from.length === target.length ||
        (longer && Array.isArray(target) && from.length < target.length));
    if (!fits)
      throw new TypeError(
        `nabla: a registered derivative returned a tangent of length ${from?.length} for an array of length ${target.length}`,
      );
    for (let i = 0; i < from.length; i++) {
      if (typeof target[i] === "number") (target as number[])[i] += from[i] as number;
      else addTangent(target[i], from[i], longer);
    }
  } else if (target instanceof Map) {
    const from = source as Map<unknown, unknown>;
    for (const [k, v] of target) {
      if (typeof v === "number") target.set(k, v + ((from.get(k) as number | undefined) ?? 0));
      else addTangent(v, from.get(k), longer);
    }
  } else if (target !== null && typeof target === "object") {
    const t = target as TangentObject;
    const s = source as TangentObject;
    for (const k of Object.keys(t)) {
      if (typeof t[k] === "number")
        (t as Record<string, number>)[k]! += longer
          ? ((s[k] as number | undefined) ?? 0)
          : (s[k] as number);
      else addTangent(t[k], s[k], longer);
    }
  }
}

/**
 * Puts a pullback's seed into its result's shadow, cleared first, once it is checked against
 * the result's shape (`resultShape`). In reverse mode the shadow of an array that `pop`,
 * `shift` or `splice` shortened keeps its length (the compiler's BackwardSweep says why), so
 * a plain array's shadow may be longer than the seed: its extra slots held elements the
 * result no longer has, and their adjoints stay zero.
 *
 * @internal
 */
export function seedTangent(shadow: unknown, seed: unknown, shape: ResultShape): void {
  refuseSeedOfOtherShape(seed, shape);
  clearTangent(shadow);
  addTangent(shadow, seed, true);
}

/**
 * How a tangent is laid out along k directions (see the compiler's emit/js/lanes.ts): `0` a
 * number (an array of its k lanes), `"f"` a flat array of numbers (element i's lanes
 * at i·k … i·k + k − 1), `["t", shapes]` a tuple of mixed elements, `["a", shape]` an array of
 * arrays or objects, `["o", shapes]` an object.
 *
 * @internal
 */
export type LaneShape =
  0 | "f" | ["t", LaneShape[]] | ["a", LaneShape] | ["o", Record<string, LaneShape>];

type Lanes = Float64Array | Float32Array | number[] | Lanes[] | { [field: string]: Lanes };

/**
 * Lane q of a tangent laid out along k directions: the tangent along direction q, laid out as
 * one tangent. Registered forward rules get their tangents this way.
 *
 * @internal
 */
export function laneOf(t: unknown, shape: LaneShape, k: number, q: number): unknown {
  if (shape === 0) return (t as number[])[q];
  if (shape === "f") {
    const flat = t as Float64Array | Float32Array | number[];
    const n = flat.length / k;
    const out: Float64Array | Float32Array | number[] =
      flat instanceof Float64Array
        ? new Float64Array(n)
        : flat instanceof Float32Array
          ? new Float32Array(n)
          : new Array<number>(n);
    for (let i = 0; i < n; i++) out[i] = flat[i * k + q]!;
    return out;
  }
  if (shape[0] === "t") return (t as unknown[]).map((e, i) => laneOf(e, shape[1][i]!, k, q));
  if (shape[0] === "a") return (t as unknown[]).map((e) => laneOf(e, shape[1], k, q));
  const o = t as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(shape[1]).map((f) => [f, laneOf(o[f], shape[1][f]!, k, q)]),
  );
}

/**
 * A zero tangent laid out along k directions, shaped like the tangent `like` (laid out as one).
 *
 * @internal
 */
export function laneZeros(like: unknown, shape: LaneShape, k: number): Lanes {
  if (shape === 0) return new Array<number>(k).fill(0);
  if (shape === "f") {
    const flat = like as Float64Array | Float32Array | number[];
    if (flat instanceof Float64Array) return new Float64Array(flat.length * k);
    if (flat instanceof Float32Array) return new Float32Array(flat.length * k);
    return new Array<number>(flat.length * k).fill(0);
  }
  if (shape[0] === "t") return (like as unknown[]).map((e, i) => laneZeros(e, shape[1][i]!, k));
  if (shape[0] === "a") return (like as unknown[]).map((e) => laneZeros(e, shape[1], k));
  const o = like as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(shape[1]).map((f) => [f, laneZeros(o[f], shape[1][f]!, k)]),
  ) as Lanes;
}

/**
 * Writes the tangent `v` (laid out as one) into lane q of `lanes` (laid out along k directions,
 * as laneZeros made it from a tangent shaped like `v`).
 *
 * @internal
 */
export function setLane(lanes: unknown, shape: LaneShape, k: number, q: number, v: unknown): void {
  if (shape === 0) {
    (lanes as number[])[q] = v as number;
  } else if (shape === "f") {
    const flat = lanes as Float64Array | Float32Array | number[];
    const from = v as ArrayLike<number>;
    const n = flat.length / k;
    if (!from || from.length !== n)
      throw new TypeError(
        `nabla: a registered derivative returned a tangent of length ${from?.length} for an array of length ${n}`,
      );
    for (let i = 0; i < n; i++) flat[i * k + q] = from[i]!;
  } else if (shape[0] === "t") {
    (lanes as unknown[]).forEach((e, i) => setLane(e, shape[1][i]!, k, q, (v as unknown[])[i]));
  } else if (shape[0] === "a") {
    (lanes as unknown[]).forEach((e, i) => setLane(e, shape[1], k, q, (v as unknown[])[i]));
  } else {
    const o = lanes as Record<string, unknown>;
    const s = v as Record<string, unknown>;
    for (const f of Object.keys(shape[1])) setLane(o[f], shape[1][f]!, k, q, s[f]);
  }
}

/**
 * The lengths of an argument's arrays before a call that may lengthen them (`xs.push(v)`,
 * `p.hist.push(x)`, `rows[0].push(v)`): an array of numbers's length, `[length, lengths of
 * its elements]` for an array of arrays or objects, an object's `{ field: lengths }` for its
 * fields holding arrays or objects; -1 for anything else.
 *
 * @internal
 */
export function arrayLength(value: unknown, depth = 0): ArgumentLengths {
  if (depth > 64 || value === null || typeof value !== "object" || ArrayBuffer.isView(value))
    return -1;
  if (Array.isArray(value)) {
    // An array of numbers (the usual argument) is its length, found without a list.
    if (!value.some((e) => e !== null && typeof e === "object")) return value.length;
    const items = value.map((e) => arrayLength(e, depth + 1));
    return items.some((l) => l !== -1) ? [value.length, items] : value.length;
  }
  if (value instanceof Map || value instanceof Set) return -1;
  let fields: Record<string, ArgumentLengths> | undefined;
  for (const key of Object.keys(value)) {
    const l = arrayLength((value as Record<string, unknown>)[key], depth + 1);
    if (l !== -1) (fields ??= {})[key] = l;
  }
  return fields ?? -1;
}

/** @internal */
export type ArgumentLengths =
  number | [number, ArgumentLengths[]] | { [field: string]: ArgumentLengths };

/**
 * A shadow the call lengthened with its argument, its arrays cut back to the argument's
 * lengths before the call (`arrayLength`): their first elements are the adjoints of the
 * elements the caller gave.
 *
 * @internal
 */
export function trimmedTo<T>(shadow: T, lengths: ArgumentLengths): T {
  if (shadow === null || typeof shadow !== "object") return shadow;
  if (typeof lengths === "number") {
    if (lengths >= 0 && Array.isArray(shadow) && shadow.length > lengths) shadow.length = lengths;
  } else if (Array.isArray(lengths)) {
    if (!Array.isArray(shadow)) return shadow;
    if (shadow.length > lengths[0]) shadow.length = lengths[0];
    shadow.forEach((e, i) => trimmedTo(e, lengths[1][i] ?? -1));
  } else {
    const o = shadow as Record<string, unknown>;
    for (const key of Object.keys(lengths)) trimmedTo(o[key], lengths[key]!);
  }
  return shadow;
}
