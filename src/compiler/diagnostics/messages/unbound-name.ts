import { message, type Printable } from "./message.js";

// The messages of NABLA111 (a name differentiable code cannot see): every text of the code, with
// the parts that vary as parameters; docs/diagnostics.md shows examples.

export const unboundName = {
  cannotFindInDifferentiableCode: (name: Printable) =>
    message(
      "unboundName",
      `cannot find '${name}' in differentiable code`,
      `pass its value in as a parameter, or declare it in a module nabla compiles`,
    ),
};
