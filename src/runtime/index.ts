// What user code imports from "nabla". The operators are typed here for the user's editor;
// their bodies only run when the program was not compiled by nabla, since the compiler
// replaces every operator call with a call to the derivative it generated.

/**
 * What programs import from `"nabla"`: the differentiation operators ({@link derivative},
 * {@link gradient}, {@link pullback}, {@link hessian}, {@link jacobian}…), the types that
 * describe their results ({@link Tangent}, {@link GradientOf}…), the functions written inside
 * differentiated code ({@link withoutDerivative}, {@link withDerivative}, {@link checkpoint}),
 * and {@link registerDerivative} for derivatives of your own.
 *
 * The operators are replaced by the nabla compiler with calls of the derivative code it
 * generates (`nabla run file.ts`); run without being compiled they throw
 * {@link NotCompiledError}. See docs/guide.md for how to write differentiable code.
 *
 * @module nabla
 */

// What generated code reads from the runtime (`$nabla.tape`, `$nabla.copyTangent`…).
export * from "./generated-code.js";
import { registerRule } from "./rules.js";
export { NotCompiledError } from "./not-compiled.js";
export { wasmArrays, WasmArrays, type WasmArraysOptions } from "./wasm-arrays.js";
import { compileAtRunTime } from "./fallback.js";
import type {
  AnyFunction,
  BackendOption,
  AuxFunction,
  AuxOf,
  DifferentiationOptions,
  GradientOptions,
  JacobianOptions,
  NumberValued,
  ScalarFunction,
  WithAux,
  WithoutAux,
} from "./options.js";
import type {
  AdjointsOf,
  DifferentiableTangents,
  GradientOf,
  Tangent,
  TangentsOf,
  WrtChecked,
  WrtTangent,
  JacobianRow,
  HessianOf,
} from "./tangent-types.js";
export type {
  AuxFunction,
  AuxOf,
  BackendOption,
  DifferentiationOptions,
  GradientOptions,
  JacobianOptions,
  WithAux,
  WithoutAux,
} from "./options.js";
export type {
  AdjointsOf,
  GradientOf,
  HessianBlock,
  HessianBlocks,
  HessianOf,
  JacobianRow,
  Tangent,
  TangentsOf,
} from "./tangent-types.js";

/**
 * d f / d x as a function of x (forward mode). f may return a number, or an array, typed
 * array or object of numbers: the derivative then has the same shape (`Tangent<R>`).
 * Operators nest: `derivative(derivative(f))` is the second derivative.
 *
 * @example
 * ```ts
 * import { derivative } from "nabla";
 *
 * const f = (x: number) => x ** 4;
 * derivative(f)(1); // → 4
 * derivative(derivative(f))(1); // → 12
 * derivative((t: number) => [Math.cos(t), Math.sin(t)])(0); // → [0, 1]
 * ```
 */
export function derivative<R>(
  f: (x: number) => R,
  options?: BackendOption,
): (x: number) => Tangent<R> {
  return compileAtRunTime("derivative", f, options) as never;
}

/**
 * The value of f at x together with its derivative (forward mode), from one run.
 *
 * @example
 * ```ts
 * import { valueWithDerivative } from "nabla";
 *
 * valueWithDerivative((x: number) => x * x)(3); // → { value: 9, derivative: 6 }
 * ```
 */
export function valueWithDerivative<R>(
  f: (x: number) => R,
  options?: BackendOption,
): (x: number) => { value: R; derivative: Tangent<R> } {
  return compileAtRunTime("valueWithDerivative", f, options) as never;
}

/**
 * The differential of f at a point (forward mode): a linear function from tangents of the
 * differentiated arguments (in `wrt` order) to the tangent of the result — a
 * Jacobian-vector product. f may return a number, an array or an object.
 *
 * @example
 * ```ts
 * import { differential } from "nabla";
 *
 * function g(a: number, b: number, c: number): number {
 *   return a * b + Math.exp(c);
 * }
 * differential(g)(1, 2, 3)(1, 0, 0); // → 2
 * // Tangents in wrt order: db = 1, da = 0.
 * differential(g, { wrt: [1, 0] })(1, 2, 3)(1, 0); // → 1
 * ```
 */
export function differential<
  F extends AnyFunction,
  const O extends DifferentiationOptions & BackendOption = { wrt: undefined },
>(
  f: F,
  options?: WrtChecked<F, O>,
): (...args: Parameters<F>) => (...tangents: TangentsOf<F, O["wrt"]>) => Tangent<ReturnType<F>> {
  return compileAtRunTime("differential", f, options) as never;
}

/**
 * The value of f at a point together with its differential there (forward mode).
 *
 * @example
 * ```ts
 * import { valueWithDifferential } from "nabla";
 *
 * function g(a: number, b: number, c: number): number {
 *   return a * b + Math.exp(c);
 * }
 * const at = valueWithDifferential(g, { wrt: 0 })(1, 2, 3);
 * at.value; // ≈ 22.085537
 * at.differential(1); // → 2
 * ```
 */
export function valueWithDifferential<
  F extends AnyFunction,
  const O extends DifferentiationOptions & BackendOption = { wrt: undefined },
>(
  f: F,
  options?: WrtChecked<F, O>,
): (...args: Parameters<F>) => {
  value: ReturnType<F>;
  /** The differential at the point: tangents of the `wrt` arguments → tangent of the result. */
  differential: (...tangents: TangentsOf<F, O["wrt"]>) => Tangent<ReturnType<F>>;
} {
  return compileAtRunTime("valueWithDifferential", f, options) as never;
}

/**
 * x itself, whose derivative passes through `f` on its way: in forward mode f receives x's
 * tangent and returns the tangent to carry on with; in reverse mode it receives the adjoint
 * flowing back into x and returns the adjoint to pass on (Swift's `withDerivative`). Use it to
 * clip or rescale gradients, or to observe them. `f` must be a function declared at the top
 * level or an arrow written at the call that reads no local variables. The two modes agree
 * only when `f` is linear.
 *
 * @example
 * ```ts
 * import { derivative, gradient, withDerivative } from "nabla";
 *
 * function clip(d: number): number {
 *   return Math.max(-1, Math.min(1, d));
 * }
 * // The loss is (3w − 1)², but the gradient reaching w is clipped to [−1, 1].
 * function loss(w: number): number {
 *   const clipped = withDerivative(w, clip);
 *   return (3 * clipped - 1) ** 2;
 * }
 * gradient(loss)(2); // → 1
 * // Forward mode clips the tangent of w, which is 1: nothing to clip.
 * derivative(loss)(2); // → 30
 * ```
 */
export function withDerivative(x: number, f: (derivative: number) => number): number {
  void f;
  return x;
}

/**
 * `f` itself, marked so that reverse mode recomputes the call instead of taping it: written
 * `checkpoint(step)(state, dt)` inside differentiated code. The forward sweep keeps only the
 * arguments (copies of arrays); the backward sweep reruns the call to tape it just before its
 * own backward pass. Trades about one extra run of f for f's tape. Tagging a function
 * `/** @checkpoint *\/` checkpoints every call of it. f must be named (not an arrow) and
 * return a number or nothing; forward mode and plain code ignore the mark.
 *
 * @example
 * ```ts
 * import { checkpoint, gradient } from "nabla";
 *
 * function step(x: number, v: number): number {
 *   let y = x;
 *   for (let k = 0; k < 100; k++) y += 0.001 * Math.sin(y * v);
 *   return y;
 * }
 * function simulate(x0: number, v: number): number {
 *   let x = x0;
 *   for (let i = 0; i < 100; i++) x = checkpoint(step)(x, v);
 *   return x;
 * }
 * // The same gradient as without checkpoint, with a tape of one step instead of 100.
 * gradient(simulate)(0.5, 2);
 * ```
 */
export function checkpoint<F extends AnyFunction>(f: F): F {
  return f;
}

/**
 * A function value that differentiable code may call: `F` itself, as a type that says so.
 * A parameter or field of this type may hold any function the compiler saw used as a value —
 * a function declared at the top level of a module of the program — and differentiated code
 * follows whichever one it holds at run time. A function-typed parameter without it works
 * when every call passes a function known where the call is compiled (it is specialized).
 *
 * @example
 * ```ts
 * import { gradient, type Differentiable } from "nabla";
 *
 * function relu(x: number): number {
 *   return x > 0 ? x : 0.01 * x;
 * }
 * function softplus(x: number): number {
 *   return Math.log(1 + Math.exp(x));
 * }
 * function layer(act: Differentiable<(x: number) => number>, w: number): number {
 *   return act(3 * w);
 * }
 * function loss(w: number, smooth: boolean): number {
 *   return layer(smooth ? softplus : relu, w);
 * }
 * gradient(loss, { wrt: 0 })(1, false); // → 3
 * ```
 */
export type Differentiable<F extends AnyFunction> = F;

/**
 * x itself, with a derivative of zero: stops differentiation (a "stop-gradient"). x may be a
 * number, an array or an object; an array or object is the same memory, not a copy.
 *
 * @example
 * ```ts
 * import { derivative, withoutDerivative } from "nabla";
 *
 * // Only the first factor of x · x is differentiated.
 * derivative((x: number) => x * withoutDerivative(x))(3); // → 3
 * ```
 */
export function withoutDerivative<T>(x: T): T {
  return x;
}

/**
 * The gradient of a number-valued f (reverse mode): the derivative with respect to each
 * differentiated argument, in one backward pass. One differentiated argument → its tangent
 * (a number for a number, an array for an array…); several → an array of them in `wrt` order
 * (see {@link GradientOf}).
 *
 * With `{ hasAux: true }` (JAX's `has_aux`), f returns `[loss, aux]` or `{ value: loss, aux }`:
 * only the loss is differentiated, and the result is `{ gradient, aux }`, the aux being what f
 * computed in the same run (no derivative flows through it).
 *
 * @example
 * ```ts
 * import { gradient } from "nabla";
 *
 * function loss(w: number, b: number, x: number, y: number): number {
 *   const r = w * x + b - y;
 *   return r * r;
 * }
 * gradient(loss, { wrt: [0, 1] })(0.5, 0.1, 2, 3); // ≈ [-7.6, -3.8]
 * gradient(loss, { wrt: 0 })(0.5, 0.1, 2, 3); // ≈ -7.6
 * gradient((p: number[]) => p[0] * p[1])([2, 3]); // → [3, 2]
 * ```
 *
 * @example
 * ```ts
 * import { gradient } from "nabla";
 *
 * // The residual comes back next to the gradient, from the same run.
 * function fit(w: number, x: number, y: number): [number, { residual: number }] {
 *   const residual = w * x - y;
 *   return [residual * residual, { residual }];
 * }
 * gradient(fit, { wrt: 0, hasAux: true })(2, 3, 5); // → { gradient: 6, aux: { residual: 1 } }
 * ```
 */
export function gradient<F extends AuxFunction, const O extends WithAux>(
  f: F,
  options: WrtChecked<F, O>,
): (...args: Parameters<F>) => { gradient: GradientOf<F, O["wrt"]>; aux: AuxOf<F> };
export function gradient<F extends ScalarFunction, const O extends WithoutAux = { wrt: undefined }>(
  f: F,
  options?: WrtChecked<F, O>,
): (...args: Parameters<F>) => GradientOf<F, O["wrt"]>;
export function gradient(f: AnyFunction, options?: GradientOptions): AnyFunction {
  return compileAtRunTime("gradient", f, options) as never;
}

/**
 * The value of f together with its gradient (reverse mode), from one forward and one
 * backward sweep.
 *
 * With `{ hasAux: true }`, f returns `[loss, aux]` or `{ value: loss, aux }`, and the result is
 * `{ value, gradient, aux }`: the loss, its gradient, and the aux f computed in the same run
 * (f runs once; the aux gets no derivative).
 *
 * @example
 * ```ts
 * import { valueWithGradient } from "nabla";
 *
 * function loss(w: number, b: number, x: number, y: number): number {
 *   const r = w * x + b - y;
 *   return r * r;
 * }
 * valueWithGradient(loss, { wrt: 0 })(0.5, 0.1, 2, 3); // ≈ { value: 3.61, gradient: -7.6 }
 * ```
 *
 * @example
 * ```ts
 * import { valueWithGradient } from "nabla";
 *
 * function mse(w: number[], xs: number[], ys: number[]) {
 *   const predictions = xs.map((x) => w[0] * x + w[1]);
 *   let sum = 0;
 *   for (let i = 0; i < xs.length; i++) sum += (predictions[i] - ys[i]) ** 2;
 *   return { value: sum / xs.length, aux: { predictions } };
 * }
 * const r = valueWithGradient(mse, { wrt: 0, hasAux: true })([1, 0], [1, 2], [2, 4]);
 * r.value; // → 2.5
 * r.gradient; // → [-5, -3]
 * r.aux.predictions; // → [1, 2]
 * ```
 */
export function valueWithGradient<F extends AuxFunction, const O extends WithAux>(
  f: F,
  options: WrtChecked<F, O>,
): (...args: Parameters<F>) => { value: number; gradient: GradientOf<F, O["wrt"]>; aux: AuxOf<F> };
export function valueWithGradient<
  F extends ScalarFunction,
  const O extends WithoutAux = { wrt: undefined },
>(
  f: F,
  options?: WrtChecked<F, O>,
): (...args: Parameters<F>) => { value: number; gradient: GradientOf<F, O["wrt"]> };
export function valueWithGradient(f: AnyFunction, options?: GradientOptions): AnyFunction {
  return compileAtRunTime("valueWithGradient", f, options) as never;
}

/**
 * The pullback of f at a point (reverse mode): a linear function from an adjoint of the result
 * (shaped like the result) to the adjoints of the differentiated arguments — a
 * vector-Jacobian product. It can be called any number of times, in any order with other
 * derivatives.
 *
 * @example
 * ```ts
 * import { pullback } from "nabla";
 *
 * function polar(q: number[]): number[] {
 *   return [q[0] * Math.cos(q[1]), q[0] * Math.sin(q[1])];
 * }
 * const back = pullback(polar)([2, 0]);
 * back([1, 0]); // → [1, 0]
 * back([0, 1]); // → [0, 2]
 * ```
 */
export function pullback<
  F extends AnyFunction,
  const O extends DifferentiationOptions & BackendOption = { wrt: undefined },
>(
  f: F,
  options?: WrtChecked<F, O>,
): (...args: Parameters<F>) => (adjoint: Tangent<ReturnType<F>>) => GradientOf<F, O["wrt"]> {
  return compileAtRunTime("pullback", f, options) as never;
}

/**
 * The value of f at a point together with its pullback there (reverse mode).
 *
 * @example
 * ```ts
 * import { valueWithPullback } from "nabla";
 *
 * function polar(q: number[]): number[] {
 *   return [q[0] * Math.cos(q[1]), q[0] * Math.sin(q[1])];
 * }
 * const at = valueWithPullback(polar)([2, 0]);
 * at.value; // → [2, 0]
 * at.pullback([0, 1]); // → [0, 2]
 * ```
 */
export function valueWithPullback<
  F extends AnyFunction,
  const O extends DifferentiationOptions & BackendOption = { wrt: undefined },
>(
  f: F,
  options?: WrtChecked<F, O>,
): (...args: Parameters<F>) => {
  value: ReturnType<F>;
  /** The pullback at the point: adjoint of the result → adjoints of the `wrt` arguments. */
  pullback: (adjoint: Tangent<ReturnType<F>>) => GradientOf<F, O["wrt"]>;
} {
  return compileAtRunTime("valueWithPullback", f, options) as never;
}

/**
 * A derivative rule for `F` (Swift's `@derivative(of:)`, ChainRules' `frule`/`rrule`), given to
 * {@link registerDerivative}:
 * - `forward(...args, ...tangents)`: the value at `args` and the tangent of the result, given a
 *   tangent for each differentiable parameter — what `valueWithDifferential` would compute;
 * - `reverse(...args)`: the value and a pullback from the adjoint of the result to the adjoints
 *   of the differentiable parameters (one, or a tuple in parameter order) — what
 *   `valueWithPullback` would compute.
 *
 * Give either or both: forward mode (`derivative`, `differential`) uses `forward`, reverse mode
 * (`gradient`, `pullback`) uses `reverse`.
 */
export interface DerivativeRule<F extends AnyFunction> {
  /**
   * Forward mode: the arguments of `f`, then one tangent per differentiable parameter, in
   * parameter order (zero for parameters not being differentiated) → `f`'s value and the
   * tangent of its result.
   */
  forward?: (...args: [...Parameters<F>, ...DifferentiableTangents<Parameters<F>>]) => {
    value: ReturnType<F>;
    tangent: Tangent<ReturnType<F>>;
  };
  /**
   * Reverse mode: the arguments of `f` (copies of arrays and objects) → `f`'s value and its
   * pullback there.
   */
  reverse?: (...args: Parameters<F>) => {
    value: ReturnType<F>;
    /** Adjoint of the result → adjoints of the differentiable parameters. */
    pullback: (adjoint: Tangent<ReturnType<F>>) => AdjointsOf<Parameters<F>>;
  };
}

/**
 * Registers the derivative of `f`: wherever differentiated code calls `f` (in this file or any
 * file importing it), nabla calls the rule instead of differentiating `f`'s body. This is how
 * a function from a package without source becomes differentiable, and how a derivative can be
 * made faster or numerically stabler than the one nabla would derive. Call it as a statement at
 * the top level of a module, with the rule written as an object literal, before any code that
 * differentiates `f` runs. `f` must not change its arguments. Returns the rule.
 *
 * @example
 * ```ts
 * import { gradient, registerDerivative } from "nabla";
 *
 * function sigmoid(x: number): number {
 *   return 1 / (1 + Math.exp(-x));
 * }
 * registerDerivative(sigmoid, {
 *   // σ′ = σ·(1 − σ): the pullback keeps σ(x) instead of computing exp again.
 *   reverse: (x) => {
 *     const s = sigmoid(x);
 *     return { value: s, pullback: (dy) => dy * s * (1 - s) };
 *   },
 * });
 * gradient((w: number) => sigmoid(3 * w))(0); // → 0.75
 * ```
 */
export function registerDerivative<F extends AnyFunction>(
  f: F,
  // NoInfer: F comes from f alone, so the rule's parameters and results are typed from it.
  rule: NoInfer<DerivativeRule<F>>,
): DerivativeRule<F> {
  return registerRule(f, rule as never);
}

/**
 * The Hessian of a number-valued f with respect to one parameter x (a number, `number[]` or a
 * typed array): for a number, the second derivative; for an array of n numbers, n rows, row i
 * being the gradient of ∂f/∂xᵢ (the tangent type of x). It takes n Hessian-vector products,
 * each a reverse-mode pass over the forward-mode derivative.
 *
 * With respect to several parameters (`wrt: [0, 1]`, or by default when f has several), as
 * JAX's `hessian(f, argnums=(0, 1))`: a tuple of rows of blocks in `wrt`'s order, block [a][b]
 * being ∂²f/∂x_a∂x_b — a number for two numbers, shaped like the array for a number and an
 * array, and for two arrays one row per element of x_a, each shaped like x_b (see
 * {@link HessianOf}). It takes one Hessian-vector product per number of all of them.
 *
 * @example
 * ```ts
 * import { hessian } from "nabla";
 *
 * function rosenbrock(p: number[]): number {
 *   const a = 1 - p[0];
 *   const b = p[1] - p[0] * p[0];
 *   return a * a + 100 * b * b;
 * }
 * hessian(rosenbrock)([1, 1]); // → [[802, -400], [-400, 200]]
 * hessian((x: number) => x * x * x)(2); // → 12
 * // Weights and a bias: [[H_ww, H_wb], [H_bw, H_bb]].
 * const h = hessian((w: number[], b: number) => b * w[0] * w[1] + b * b)([2, 3], 1);
 * h; // → [[[[0, 1], [1, 0]], [3, 2]], [[3, 2], 2]]
 * ```
 */
export function hessian<
  F extends NumberValued,
  const O extends DifferentiationOptions & BackendOption = { wrt: undefined },
>(f: F, options?: WrtChecked<F, O>): (...args: Parameters<F>) => HessianOf<F, O["wrt"]> {
  return compileAtRunTime("hessian", f, options) as never;
}

/**
 * The Hessian of f with respect to x (`wrt`), times the vector v, without forming the
 * Hessian: the arguments of f, then v (shaped like x). Computed as the gradient of
 * x ↦ ⟨∇f(x), v⟩ in reverse mode over forward mode, a small constant times a gradient.
 *
 * @example
 * ```ts
 * import { hessianVectorProduct } from "nabla";
 *
 * function rosenbrock(p: number[]): number {
 *   const a = 1 - p[0];
 *   const b = p[1] - p[0] * p[0];
 *   return a * a + 100 * b * b;
 * }
 * hessianVectorProduct(rosenbrock)([1, 1], [1, 0]); // → [802, -400]
 * ```
 */
export function hessianVectorProduct<
  F extends NumberValued,
  const O extends DifferentiationOptions & BackendOption = { wrt: undefined },
>(
  f: F,
  options?: WrtChecked<F, O>,
): (...args: [...Parameters<F>, WrtTangent<F, O["wrt"]>]) => WrtTangent<F, O["wrt"]> {
  return compileAtRunTime("hessianVectorProduct", f, options) as never;
}

/**
 * The gradient of f with respect to x (`wrt`) and the Hessian of f times the vector v, from
 * one pass: the arguments of f, then v (shaped like x). {@link hessianVectorProduct} takes the
 * gradient of x ↦ ⟨∇f(x), v⟩; with respect to v, that function's gradient is ∇f(x), so taking
 * it with respect to both gives the two for little more than the Hessian-vector product alone
 * (a Newton step needs both).
 *
 * @example
 * ```ts
 * import { gradientAndHessianVectorProduct } from "nabla";
 *
 * function rosenbrock(p: number[]): number {
 *   const a = 1 - p[0];
 *   const b = p[1] - p[0] * p[0];
 *   return a * a + 100 * b * b;
 * }
 * const r = gradientAndHessianVectorProduct(rosenbrock)([2, 1], [1, 0]);
 * r.gradient; // → [2402, -600]
 * r.hessianVectorProduct; // → [4402, -800]
 * ```
 */
export function gradientAndHessianVectorProduct<
  F extends NumberValued,
  const O extends DifferentiationOptions & BackendOption = { wrt: undefined },
>(
  f: F,
  options?: WrtChecked<F, O>,
): (...args: [...Parameters<F>, WrtTangent<F, O["wrt"]>]) => {
  gradient: WrtTangent<F, O["wrt"]>;
  hessianVectorProduct: WrtTangent<F, O["wrt"]>;
} {
  return compileAtRunTime("gradientAndHessianVectorProduct", f, options) as never;
}

/**
 * The Jacobian of f with respect to x (`wrt`; a number, `number[]`, typed array, an array of
 * them such as `number[][]`, or an object). For a number-valued f it is the gradient; for f
 * returning m numbers, m rows, row i being the gradient of the i-th output (shaped like x).
 * nabla runs n forward-mode passes or m reverse-mode passes, whichever is fewer; `{ mode: "forward" }` or `{ mode: "reverse" }`
 * chooses (JAX's `jacfwd` and `jacrev`). Both give the same Jacobian.
 *
 * @typeParam F - the function: returns a number, a `number[]`, a tuple of numbers or a typed
 * array.
 *
 * @example
 * ```ts
 * import { jacobian } from "nabla";
 *
 * function polar(q: number[]): number[] {
 *   return [q[0] * Math.cos(q[1]), q[0] * Math.sin(q[1])];
 * }
 * jacobian(polar)([2, 0]); // → [[1, 0], [0, 2]]
 * jacobian(polar, { mode: "reverse" })([2, 0]); // → [[1, 0], [0, 2]]
 * jacobian((p: number[]) => p[0] * p[1])([2, 3]); // → [3, 2]
 * jacobian((p: number[]) => p[0] * p[1], { mode: "forward" })([2, 3]); // → [3, 2]
 * // With respect to rows: each row of the Jacobian shaped like them.
 * const products = jacobian((m: number[][]) => m.map((r) => r[0] * r[1]));
 * products([[1, 2], [3, 4]]); // → [[[2, 1], [0, 0]], [[0, 0], [4, 3]]]
 * ```
 */
export function jacobian<
  F extends (...args: never[]) => number | readonly number[] | Float64Array | Float32Array,
  const O extends JacobianOptions = { wrt: undefined },
>(
  f: F,
  options?: WrtChecked<F, O>,
): (
  ...args: Parameters<F>
) => ReturnType<F> extends number ? JacobianRow<F, O["wrt"]> : JacobianRow<F, O["wrt"]>[] {
  return compileAtRunTime("jacobian", f, options) as never;
}
