import { message, type Printable } from "./message.js";

// The messages of NABLA105 (differentiated code writes module-level data): every text of the code,
// with the parts that vary as parameters; docs/diagnostics.md shows examples.

export const moduleVariableWrite = {
  differentiableCodeCannotChangeModule: (name: Printable, value: Printable) =>
    message(
      "moduleVariableWrite",
      `differentiable code cannot change the module-level '${name}'${value}; pass it in as a parameter instead`,
    ),
  differentiableCodeCannotChangeStatic: (property: Printable, className: Printable) =>
    message(
      "moduleVariableWrite",
      `differentiable code cannot change the static property '${property}', which is module-level state`,
      `differentiable code reads the static properties of '${className}' but does not write them: keep changing state (a counter, a cache) outside the differentiated code, or in a parameter and return it`,
    ),
  cannotTellWhetherCallChanges: (name: Printable, callee: Printable) =>
    message(
      "moduleVariableWrite",
      `differentiable code cannot change the module-level '${name}', and nabla cannot read ${callee} to tell whether this call does; pass it in as a parameter instead`,
    ),
  differentiableCodeCannotWriteModule: (name: Printable) =>
    message(
      "moduleVariableWrite",
      `differentiable code cannot write the module-level variable '${name}'; pass it in and return the new value instead`,
    ),
};
