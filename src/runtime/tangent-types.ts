import type { AnyFunction } from "./options.js";

// The type-level tangents: what a value's tangent is (`Tangent<T>`), and what each operator
// returns for a function and its `wrt` (the public ones are re-exported by index.ts).

/**
 * The tangent of a value of type T, which is also the type of its gradient: a number for a
 * number; the same kind of array, of the elements' tangents, for arrays, tuples and typed
 * arrays; for objects and class instances a plain object of the tangents of the fields that
 * have one (numbers and what holds numbers — strings, booleans and functions are left out).
 * Fields marked `@noDerivative` are left out too at run time; a JSDoc tag is invisible to
 * types, so they still appear here.
 *
 * @example
 * ```ts
 * import { gradient, type Tangent } from "nabla";
 *
 * interface Params {
 *   w: number[];
 *   b: number;
 *   label: string;
 * }
 * function loss(p: Params): number {
 *   return p.w[0] * p.b;
 * }
 * // Tangent<Params> is { w: number[]; b: number }
 * const g: Tangent<Params> = gradient(loss)({ w: [2], b: 3, label: "a" });
 * g; // → { w: [3], b: 2 }
 * ```
 */
export type Tangent<T> = T extends number
  ? number
  : T extends Float64Array
    ? Float64Array
    : T extends Float32Array
      ? Float32Array
      : T extends readonly unknown[]
        ? { -readonly [K in keyof T]: Tangent<T[K]> }
        : T extends (...args: never[]) => unknown
          ? never
          : T extends object
            ? {
                -readonly [K in keyof T as HasTangent<T[K]> extends true ? K : never]: Tangent<
                  T[K]
                >;
              }
            : never;

/** Whether values of type T have a tangent (numbers, and arrays and objects holding some). */
export type HasTangent<T> = [Tangent<T>] extends [never]
  ? false
  : T extends object
    ? T extends readonly unknown[] | Float64Array | Float32Array
      ? true
      : keyof Tangent<T> extends never
        ? false
        : true
    : true;

/** The tangents of the parameters that have one, in order (the default `wrt`). */
export type DifferentiableTangents<P extends readonly unknown[]> = P extends readonly [
  infer Head,
  ...infer Rest,
]
  ? HasTangent<Head> extends true
    ? [Tangent<Head>, ...DifferentiableTangents<Rest>]
    : DifferentiableTangents<Rest>
  : [];

/** The tangents of the parameters at the indices `W`, in `W`'s order. */
export type TangentsAt<P extends readonly unknown[], W extends readonly number[]> = {
  -readonly [K in keyof W]: Tangent<P[W[K] & number]>;
};

/**
 * The tangents a differential takes for `f` and `wrt`, one per differentiated parameter, in
 * `wrt` order (see {@link differential}).
 */
export type TangentsOf<F extends AnyFunction, W> = W extends number
  ? [Tangent<Parameters<F>[W]>]
  : W extends readonly number[]
    ? TangentsAt<Parameters<F>, W>
    : DifferentiableTangents<Parameters<F>>;

/**
 * What `gradient` returns for `f` and `wrt`: one tangent for one differentiated parameter,
 * else a tuple of tangents in `wrt` order. By default every parameter that has a tangent is
 * differentiated (strings and booleans are not).
 */
export type GradientOf<F extends AnyFunction, W> = W extends number
  ? Tangent<Parameters<F>[W]>
  : W extends readonly [number]
    ? Tangent<Parameters<F>[W[0]]>
    : W extends readonly number[]
      ? TangentsAt<Parameters<F>, W>
      : DifferentiableTangents<Parameters<F>> extends [infer Only]
        ? Only
        : DifferentiableTangents<Parameters<F>>;

/**
 * What the pullback of a {@link DerivativeRule} returns for parameters `P`: the adjoint of
 * the one differentiable parameter, else a tuple of them in parameter order.
 */
export type AdjointsOf<P extends readonly unknown[]> =
  DifferentiableTangents<P> extends [infer Only] ? Only : DifferentiableTangents<P>;

/** The tangent of the one differentiated parameter (`wrt`, or the only one with a tangent). */
export type WrtTangent<F extends AnyFunction, W> = W extends number
  ? Tangent<Parameters<F>[W]>
  : W extends readonly [number]
    ? Tangent<Parameters<F>[W[0]]>
    : DifferentiableTangents<Parameters<F>> extends [infer Only]
      ? Only
      : never;
