// What user code imports from "nabla". The operators are typed here for the user's editor;
// their bodies only run when the program was not compiled by nabla, since the compiler
// replaces every operator call with a call to the derivative it generated.

export { out } from "./register.js";
export {
  push,
  pop,
  tapeMark,
  tapeTake,
  tapeRestore,
  tapeReset,
  tapeStats,
  resetTapePeak,
} from "./tape.js";
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
