import { message, type Printable } from "./message.js";

// The messages of NABLA900 (a bug in nabla, reported where it happened): every text of the code,
// with the parts that vary as parameters; docs/diagnostics.md shows examples.

export const internalError = {
  whileDifferentiating: (label: Printable, error: Printable) =>
    message(
      "internalError",
      `internal compiler error while differentiating ${label}: ${error}. This is a bug in nabla; please report it with this program (NABLA_DEBUG=1 shows the stack)`,
    ),
  whileEmitting: (error: Printable) =>
    message(
      "internalError",
      `internal compiler error while emitting this module: ${error}. This is a bug in nabla; please report it with this program (NABLA_DEBUG=1 shows the stack)`,
    ),
  outOfStackDifferentiating: (label: Printable, advice: Printable) =>
    message("internalError", `cannot differentiate ${label}: ${advice}`),
  cannotEmitThisModule: (advice: Printable) =>
    message("internalError", `cannot emit this module: ${advice}`),
  cannotCompileThisModule: (advice: Printable) =>
    message("internalError", `cannot compile this module: ${advice}`),
};
