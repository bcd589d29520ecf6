import { message, type Printable } from "./message.js";

// The messages of NABLA102 (a call of a function whose source nabla cannot see): every text of the
// code, with the parts that vary as parameters; docs/diagnostics.md shows examples.

export const unknownCallee = {
  cannotDifferentiateCallToIt: (path: Printable) =>
    message(
      "unknownCallee",
      `cannot differentiate a call to '${path}': it has no visible source and no registered derivative`,
    ),
  cannotDifferentiateDoesNotExport: (path: Printable, specifier: Printable, value: Printable) =>
    message(
      "unknownCallee",
      `cannot differentiate '${path}': '${specifier}' does not export a function '${value}' with visible source`,
    ),
  cannotDifferentiateItComesFrom: (path: Printable, specifier: Printable) =>
    message(
      "unknownCallee",
      `cannot differentiate '${path}': it comes from package '${specifier}', whose source nabla cannot see, and no derivative is registered for it`,
    ),
  classHasNoMethodNabla: (name: Printable, name2: Printable) =>
    message(
      "unknownCallee",
      `class '${name}' has no method '${name2}' nabla can see (inherited methods are not supported yet)`,
    ),
  extendsAndOverridesSoWhich: (override: Printable, name: Printable, name2: Printable) =>
    message(
      "unknownCallee",
      `'${override}' extends '${name}' and overrides '${name2}', so which method this call runs depends on the object; nabla does not dispatch methods yet, so it cannot differentiate such a call`,
    ),
  isNotFunctionNablaCan: (name: Printable) =>
    message("unknownCallee", `'${name}' is not a function nabla can see`),
  mathIsNotMathFunction: (name: Printable) =>
    message("unknownCallee", `'Math.${name}' is not a Math function`),
  noFunctionOfProgramFits: (name: Printable, argumentTypes: Printable, result: Printable) =>
    message(
      "unknownCallee",
      `no function of the program fits this call of '${name}' (${argumentTypes}) → ${result}: a function value must be one of the top-level functions the program uses as values`,
    ),
};
