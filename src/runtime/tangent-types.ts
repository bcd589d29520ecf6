import type { AnyFunction, DifferentiationOptions } from "./options.js";

// The type-level tangents: what a value's tangent is (`Tangent<T>`), and what each operator
// returns for a function and its `wrt` (the public ones are re-exported by index.ts).

/**
 * The tangent of a value of type T, which is also the type of its gradient: a number for a
 * number; the same kind of array, of the elements' tangents, for arrays, tuples and typed
 * arrays; a `Map` of the values' tangents for a `Map`; for objects, records and class
 * instances a plain object of the tangents of the fields that
 * have one (numbers and what holds numbers — strings, booleans, functions and integer typed
 * arrays such as `Int32Array`, which hold integers, are left out).
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
      : T extends IntegerTypedArray
        ? never
        : T extends readonly unknown[]
          ? { -readonly [K in keyof T]: Tangent<T[K]> }
          : T extends (...args: never[]) => unknown
            ? never
            : T extends ReadonlyMap<infer K, infer V>
              ? Map<K, Tangent<V>>
              : T extends object
                ? {
                    -readonly [K in keyof T as HasTangent<T[K]> extends true ? K : never]: Tangent<
                      T[K]
                    >;
                  }
                : never;

/** The typed arrays of integers: data a function reads (labels, indices), with no tangent. */
export type IntegerTypedArray =
  Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array | Uint32Array;

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

/** The tangents of the required parameters that have one, in order (see {@link DefaultTangents}). */
export type DifferentiableTangents<P extends readonly unknown[]> = P extends readonly [
  infer Head,
  ...infer Rest,
]
  ? IsDefaultWrt<Head> extends true
    ? [Tangent<Head>, ...DifferentiableTangents<Rest>]
    : DifferentiableTangents<Rest>
  : [];

/**
 * Whether an operator differentiates a parameter of type `T` by default: it has a tangent and
 * is not a choice among numbers (an enum, `1 | 2 | 4`), which the compiler leaves out too.
 */
type IsDefaultWrt<T> =
  HasTangent<T> extends true
    ? [T] extends [number]
      ? // Every number is assignable to an enum, but an enum's text is its members' ("0" | "1").
        [`${number}`] extends [`${T}`]
        ? true
        : false
      : true
    : false;

/**
 * The tangents of the parameters an operator differentiates without `wrt`, in order: the
 * required parameters that have a tangent; only where none has one, the optional and
 * defaulted parameters that have one (a setting the caller may omit is not differentiated).
 */
export type DefaultTangents<P extends readonly unknown[]> =
  DifferentiableTangents<P> extends [] ? OmissibleTangents<P> : DifferentiableTangents<P>;

/**
 * The tangents of every parameter that has one, optional ones included, in order (none for a
 * rest parameter, which an operator's function cannot have).
 */
type OmissibleTangents<P extends readonly unknown[]> = P extends readonly []
  ? []
  : number extends P["length"]
    ? []
    : P extends readonly [infer Head, ...infer Rest]
      ? [...TangentIfAny<Head>, ...OmissibleTangents<Rest>]
      : P extends readonly [(infer Head)?, ...infer Rest]
        ? [...TangentIfAny<Exclude<Head, undefined>>, ...OmissibleTangents<Rest>]
        : [];

type TangentIfAny<T> = IsDefaultWrt<T> extends true ? [Tangent<T>] : [];

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
    : DefaultTangents<Parameters<F>>;

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
      : DefaultTangents<Parameters<F>> extends [infer Only]
        ? Only
        : DefaultTangents<Parameters<F>>;

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
    : DefaultTangents<Parameters<F>> extends [infer Only]
      ? Only
      : never;

/**
 * A row of `jacobian`'s result (its result, for a number-valued function): the tangent of the
 * one differentiated parameter, or with several (`wrt: [0, 1]`, or more than one by default) a
 * tuple of their tangents in `wrt`'s order.
 */
export type JacobianRow<F extends AnyFunction, W> = W extends number
  ? Tangent<Parameters<F>[W]>
  : W extends readonly [number]
    ? Tangent<Parameters<F>[W[0]]>
    : W extends readonly number[]
      ? TangentsAt<Parameters<F>, W>
      : DefaultTangents<Parameters<F>> extends [infer Only]
        ? Only
        : DefaultTangents<Parameters<F>>;

/**
 * What `hessian` returns for `f` and `wrt`. With respect to one parameter x: a number for a
 * number, else one row per element of x, each x's tangent. With respect to several (`wrt:
 * [0, 1]`, or more than one by default): a tuple of rows of blocks in `wrt`'s order, block
 * [a][b] being ∂²f/∂x_a∂x_b — see {@link HessianBlock}.
 */
export type HessianOf<F extends AnyFunction, W> = W extends number
  ? HessianBlock<Tangent<Parameters<F>[W]>, Tangent<Parameters<F>[W]>>
  : W extends readonly [number]
    ? HessianBlock<Tangent<Parameters<F>[W[0]]>, Tangent<Parameters<F>[W[0]]>>
    : W extends readonly number[]
      ? HessianBlocks<TangentsAt<Parameters<F>, W>>
      : DefaultTangents<Parameters<F>> extends [infer Only]
        ? HessianBlock<Only, Only>
        : HessianBlocks<DefaultTangents<Parameters<F>>>;

/**
 * Block ∂²f/∂x_a∂x_b of a Hessian, from the tangents of x_a (`Row`) and x_b (`Column`): a
 * number for two numbers; shaped like the array for a number and an array; for two arrays,
 * one row per element of x_a, each shaped like x_b.
 */
export type HessianBlock<Row, Column> = [Row] extends [number]
  ? Column
  : [Column] extends [number]
    ? Row
    : Column[];

/** The blocks of a Hessian with respect to parameters of tangents `T`, row by row. */
export type HessianBlocks<T extends readonly unknown[]> = {
  -readonly [A in keyof T]: { -readonly [B in keyof T]: HessianBlock<T[A], T[B]> };
};

/**
 * The type of an operator's `options` argument: `O` itself when its `wrt` names parameters of
 * `F` that have a tangent; else `O` with the first wrong index (out of range, naming a string,
 * a boolean or another parameter without a tangent, not an integer, listed twice) or the
 * empty list replaced by a string literal type saying what is wrong, so that the call is a
 * type error showing it: `Type 'number' is not assignable to type '"wrt index 3 is out of
 * range: the function has 3 parameters"'`. Indices that are not literals (`wrt: i` for
 * `i: number`) are left to the compiler, and so are parameters of type `any` or `unknown`.
 */
// The first branch is never taken (O is never `never`): it is where TypeScript infers O from
// the argument. The check is an indexed access into conditional types distributive over F and
// O: where either is a type parameter, TypeScript relates the argument to the check made with
// its constraint, so generic code is checked against its constraints instead of rejected.
export type WrtChecked<F extends AnyFunction, O extends DifferentiationOptions> = [O] extends [
  never,
]
  ? O
  : WrtCheck<F, O>["options"];

/** {@link WrtChecked}'s check, for each function type F and options type O. */
type WrtCheck<F, O extends DifferentiationOptions> = F extends AnyFunction
  ? O extends unknown
    ? {
        options: OptionsWithMessages<
          O,
          CheckedWrt<Parameters<F>, "wrt" extends keyof O ? O["wrt"] : undefined>
        >;
      }
    : never
  : never;

/** O when `C` (its checked `wrt`) holds no message, else O with `C` as its `wrt`. */
type OptionsWithMessages<O, C> = [WrtMessages<C>] extends [never]
  ? O
  : { [K in keyof O]: K extends "wrt" ? C : O[K] };

/** The messages `CheckedWrt` put in place of wrong indices. */
type WrtMessages<C> = C extends string
  ? C
  : C extends readonly unknown[]
    ? Extract<C[number], string>
    : never;

/** `wrt` W with its first wrong index for parameters P replaced by what is wrong with it. */
type CheckedWrt<P extends readonly unknown[], W> = W extends number
  ? IndexOrProblem<P, W>
  : W extends readonly []
    ? "wrt must name at least one parameter"
    : W extends readonly number[]
      ? CheckedIndices<P, W>
      : W;

/**
 * A list of indices up to the first wrong one (a wrong index, or one listed twice), which is
 * replaced by what is wrong with it: one error at a time, like the compiler's.
 */
type CheckedIndices<
  P extends readonly unknown[],
  W extends readonly number[],
  Seen extends number = never,
> = W extends readonly [infer I extends number, ...infer Rest extends readonly number[]]
  ? [ListedIndexProblem<P, I, Seen>] extends [never]
    ? readonly [I, ...CheckedIndices<P, Rest, number extends I ? Seen : Seen | I>]
    : readonly [ListedIndexProblem<P, I, Seen>, ...Rest]
  : W;

/** What is wrong with index I of a list after the indices `Seen`, or never. */
type ListedIndexProblem<P extends readonly unknown[], I extends number, Seen extends number> = [
  I,
] extends [Seen]
  ? `wrt lists parameter ${I} twice`
  : IndexProblem<P, I>;

/** Index I itself when it names a parameter of P that has a tangent, else what is wrong. */
type IndexOrProblem<P extends readonly unknown[], I extends number> = [IndexProblem<P, I>] extends [
  never,
]
  ? I
  : IndexProblem<P, I>;

/** What is wrong with `wrt` index I for parameters P, or never. */
type IndexProblem<P extends readonly unknown[], I extends number> = number extends I
  ? never
  : `${I}` extends `${bigint}`
    ? `${I}` extends `-${string}`
      ? OutOfRange<P, I>
      : `${I}` extends keyof P
        ? NoTangent<P[I], I>
        : number extends P["length"]
          ? NoTangent<P[I], I>
          : OutOfRange<P, I>
    : `wrt index ${I} is not an integer`;

/** The message for an index out of range (the compiler's words, for a fixed arity). */
type OutOfRange<
  P extends readonly unknown[],
  I extends number,
> = number extends Required<P>["length"]
  ? `wrt index ${I} is out of range: parameter indices start at 0`
  : `wrt index ${I} is out of range: the function has ${Required<P>["length"]} parameter${Required<P>["length"] extends 1 ? "" : "s"}`;

/** The message for a parameter of type T without a tangent, or never (any and unknown pass). */
type NoTangent<T, I extends number> = unknown extends T
  ? never
  : [T] extends [never]
    ? never
    : HasTangent<T> extends false
      ? `wrt index ${I} names ${NoTangentKind<[Exclude<T, undefined>] extends [never] ? T : Exclude<T, undefined>>}`
      : never;

/** A parameter type without a tangent, in words. */
type NoTangentKind<T> = [T] extends [string]
  ? "a string parameter, which has no tangent"
  : [T] extends [boolean]
    ? "a boolean parameter, which has no tangent"
    : [T] extends [AnyFunction]
      ? "a function parameter, which has no tangent"
      : [T] extends [IntegerTypedArray]
        ? "an integer typed array parameter, which has no tangent"
        : [T] extends [object]
          ? "an object parameter with no differentiable fields (numbers, arrays of numbers…)"
          : "a parameter without a tangent";
