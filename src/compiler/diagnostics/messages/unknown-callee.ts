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
      `class '${name}' has no method '${name2}' nabla can see (neither it nor a class it extends declares one with a body)`,
    ),
  subclassNotVisible: (name: Printable, file: Printable) =>
    message(
      "unknownCallee",
      `which method this call runs depends on whether the object is a '${name}', which overrides it, but '${name}' is not visible by that name in ${file}: import it there, so the call can test the object's class`,
    ),
  superNotVisible: () =>
    message("unknownCallee", "'super' here does not name a class of the program nabla can see"),
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
