// GradBench "hello": square(x) = x·x and double(x) = d/dx square(x) = 2x.
import { derivative } from "nabla";

export function square(x: number): number {
  return x * x;
}

// --- GradBench wrappers (see ../README.md for the prepare/run convention) ---

export function prepareSquare(input: number): number {
  return input;
}

export function runSquare(x: number): number {
  return square(x);
}

export const prepareDouble = prepareSquare;

export function runDouble(x: number): number {
  return derivative(square)(x);
}
