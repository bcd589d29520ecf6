// The options the operators take, and the kinds of function they accept: the public types
// of `"nabla"`'s operator signatures (re-exported by index.ts).

/**
 * Options of the operators that take a function of several arguments, such as
 * `gradient(loss, { wrt: [0, 1] })`.
 */
export interface DifferentiationOptions {
  /**
   * Indices of the parameters to differentiate with respect to, written as number literals
   * (`{ wrt: 1 }` or `{ wrt: [2, 0] }`: the compiler reads them). Tangents and gradients come
   * in `wrt` order. Default: every required parameter that has a tangent (not strings,
   * booleans, enums or number literals such as `1 | 2`, which are choices; optional and
   * defaulted parameters only where no required one has a tangent).
   *
   * The operators' types check the indices against the function: one out of range, or naming a
   * parameter without a tangent, is a type error at the call whose message says so, such as
   * `Type 'number' is not assignable to type '"wrt index 3 is out of range: the function has 3
   * parameters"'`.
   */
  wrt?: number | readonly number[];
}

/**
 * The `backend` option of {@link derivative}, {@link valueWithDerivative}, {@link differential},
 * {@link valueWithDifferential}, {@link gradient}, {@link valueWithGradient}, {@link pullback},
 * {@link valueWithPullback}, {@link hessian}, {@link hessianVectorProduct},
 * {@link gradientAndHessianVectorProduct} and {@link jacobian}: which code the derivative runs
 * as. A pullback in wasm runs its forward sweep when taken and keeps what it left in wasm
 * memory for its backward sweeps; `"auto"` keeps pullbacks JavaScript.
 */
export interface BackendOption {
  /**
   * `"js"` (the default): JavaScript. `"wasm"`: WebAssembly, for a function whose values are
   * numbers, booleans and arrays of numbers (`Float64Array`, `number[]`, arrays of them); the
   * arguments are copied into wasm memory per call. A function that uses anything else stays
   * JavaScript, and the compiler says why (warning NABLA202). `"auto"`: where the function
   * qualifies and loops over array elements, whichever of WebAssembly and JavaScript runs
   * faster, timed over the call site's first calls (both give the same results); JavaScript
   * otherwise, without a warning.
   * Written as a literal: the compiler reads it. A program run uncompiled (the run-time
   * fallback) uses JavaScript whatever it says.
   */
  backend?: "wasm" | "js" | "auto";
}

/**
 * Options of {@link gradient} and {@link valueWithGradient}: `wrt`, `backend`, and `hasAux`
 * (JAX's `has_aux`) for a function that returns an auxiliary output next to its loss.
 */
export interface GradientOptions extends DifferentiationOptions, BackendOption {
  /**
   * `true`: the function returns `[loss, aux]` (a tuple) or `{ value: loss, aux }`; only the
   * loss is differentiated, and the result carries `aux` as the function computed it, from the
   * same run (it gets no derivative, as if wrapped in {@link withoutDerivative}). Written as a
   * literal: the compiler reads it. Default `false`.
   */
  hasAux?: boolean;
}

/** Options of {@link jacobian}: `wrt`, and `mode` to choose forward or reverse mode. */
export interface JacobianOptions extends DifferentiationOptions, BackendOption {
  /**
   * `"forward"`: n forward-mode passes (Jacobian-vector products, run along many directions at
   * once); `"reverse"`: one forward sweep and m pullbacks (vector-Jacobian products), for n
   * inputs and m outputs. Default: whichever needs fewer passes, decided at run time. Written
   * as a literal: the compiler reads it.
   */
  mode?: "forward" | "reverse";
}

/** A function returning a number, of any differentiable arguments. */
export type ScalarFunction = (...args: never[]) => number;

/**
 * A function for `hasAux: true`: it returns its loss with an auxiliary output, as a tuple
 * `[loss, aux]` or as `{ value: loss, aux }`.
 */
export type AuxFunction = (
  ...args: never[]
) => readonly [number, unknown] | { value: number; aux: unknown };

/** The auxiliary output of an {@link AuxFunction}. */
export type AuxOf<F extends AuxFunction> =
  ReturnType<F> extends readonly [number, infer A]
    ? A
    : ReturnType<F> extends { value: number; aux: infer A }
      ? A
      : never;

/** The options of {@link gradient} and {@link valueWithGradient} with `hasAux: true`. */
export type WithAux = DifferentiationOptions & BackendOption & { hasAux: true };

/** The options of {@link gradient} and {@link valueWithGradient} without `hasAux: true`. */
export type WithoutAux = DifferentiationOptions & BackendOption & { hasAux?: false };

/** Any function (for the rule types: any parameters, any result). */
export type AnyFunction = (...args: never[]) => unknown;

/** A function of numbers, arrays or objects returning a number. */
export type NumberValued = (...args: never[]) => number;
