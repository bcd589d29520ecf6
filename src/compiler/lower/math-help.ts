import { closestName } from "../diagnostics/closest-name.js";
import { MATH_CONSTANTS, MATH_FUNCTIONS, NON_DIFFERENTIABLE_MATH } from "../rules/math.js";

// What a `Math.x` nabla does not know probably meant, for the help of its diagnostic.

const FUNCTIONS = [...MATH_FUNCTIONS.keys(), ...NON_DIFFERENTIABLE_MATH];

/** Whether `Math.name` is a function (read where a constant would be). */
export function isMathFunction(name: string): boolean {
  return FUNCTIONS.includes(name);
}

/** The Math constant `name` is probably a slip for. */
export function closestMathConstant(name: string): string | undefined {
  return closestName(name, MATH_CONSTANTS.keys());
}

/** The Math function `name` is probably a slip for. */
export function closestMathFunction(name: string): string | undefined {
  return closestName(name, FUNCTIONS);
}

/** The names of the Math constants, for a help listing them. */
export const MATH_CONSTANT_NAMES = [...MATH_CONSTANTS.keys()].join(", ");
