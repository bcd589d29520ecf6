// What user code imports from "nabla". The operators are typed here for the user's editor;
// their bodies only run when the program was not compiled by nabla, since the compiler
// replaces every operator call with a call to the derivative it generated.

export { out } from "./register.js";
export {
  tape,
  growTape,
  tapeTake,
  tapeRestore,
  tapeStats,
  resetTapePeak,
  shrinkTape,
  tapeReset,
} from "./tape.js";
export { clearTangent, copyTangent, AliasedArgumentsError } from "./tangents.js";
export { NotCompiledError } from "./not-compiled.js";
import { NotCompiledError } from "./not-compiled.js";

/** Options of the operators that take several arguments. */
export interface DifferentiationOptions {
  /**
   * Indices of the parameters to differentiate with respect to, as number literals
   * (the compiler reads them). Default: every parameter.
   */
  wrt?: number | readonly number[];
}

type NumberFunction = (...args: number[]) => number;

/** The tangent of a value of type T. */
export type Tangent<T> = T extends number ? number : never;

/** d f / d x as a function of x (forward mode). */
export function derivative(f: (x: number) => number): (x: number) => number {
  throw new NotCompiledError("derivative", f);
}

/** The value of f at x together with its derivative (forward mode). */
export function valueWithDerivative(
  f: (x: number) => number,
): (x: number) => { value: number; derivative: number } {
  throw new NotCompiledError("valueWithDerivative", f);
}

/**
 * The differential of f at a point: a linear function from tangents of the differentiated
 * arguments (in `wrt` order) to the tangent of the result — a Jacobian-vector product.
 */
export function differential<F extends NumberFunction>(
  f: F,
  options?: DifferentiationOptions,
): (...args: Parameters<F>) => (...tangents: number[]) => number {
  void options;
  throw new NotCompiledError("differential", f);
}

/** The value of f at a point together with its differential there. */
export function valueWithDifferential<F extends NumberFunction>(
  f: F,
  options?: DifferentiationOptions,
): (...args: Parameters<F>) => { value: number; differential: (...tangents: number[]) => number } {
  void options;
  throw new NotCompiledError("valueWithDifferential", f);
}

/** x itself, with a derivative of zero: stops differentiation (a "stop-gradient"). */
export function withoutDerivative<T>(x: T): T {
  return x;
}

/** A tuple of numbers with the shape of T (a homomorphic mapped type keeps tuples tuples). */
type Numbers<T> = { -readonly [K in keyof T]: number };

/** What `gradient` returns for `f` and `wrt`: one number for one parameter, else a tuple. */
export type GradientOf<F extends NumberFunction, W> = W extends number
  ? number
  : W extends readonly [number]
    ? number
    : W extends readonly number[]
      ? Numbers<W>
      : Parameters<F> extends [unknown]
        ? number
        : Numbers<Parameters<F>>;

/**
 * The gradient of a number-valued f (reverse mode): the derivative with respect to each
 * differentiated argument, in one backward pass. One argument → a number; several → an
 * array in `wrt` order.
 */
export function gradient<
  F extends NumberFunction,
  const O extends DifferentiationOptions = { wrt: undefined },
>(f: F, options?: O): (...args: Parameters<F>) => GradientOf<F, O["wrt"]> {
  void options;
  throw new NotCompiledError("gradient", f);
}

/** The value of f together with its gradient (reverse mode). */
export function valueWithGradient<
  F extends NumberFunction,
  const O extends DifferentiationOptions = { wrt: undefined },
>(
  f: F,
  options?: O,
): (...args: Parameters<F>) => { value: number; gradient: GradientOf<F, O["wrt"]> } {
  void options;
  throw new NotCompiledError("valueWithGradient", f);
}

/**
 * The pullback of f at a point (reverse mode): a linear function from an adjoint of the result
 * to the adjoints of the differentiated arguments — a vector-Jacobian product. It can be called
 * any number of times, in any order with other derivatives.
 */
export function pullback<
  F extends NumberFunction,
  const O extends DifferentiationOptions = { wrt: undefined },
>(f: F, options?: O): (...args: Parameters<F>) => (adjoint: number) => GradientOf<F, O["wrt"]> {
  void options;
  throw new NotCompiledError("pullback", f);
}

/** The value of f at a point together with its pullback there. */
export function valueWithPullback<
  F extends NumberFunction,
  const O extends DifferentiationOptions = { wrt: undefined },
>(
  f: F,
  options?: O,
): (...args: Parameters<F>) => {
  value: number;
  pullback: (adjoint: number) => GradientOf<F, O["wrt"]>;
} {
  void options;
  throw new NotCompiledError("valueWithPullback", f);
}
