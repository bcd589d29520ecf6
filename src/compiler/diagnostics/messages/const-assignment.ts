import { message, type Printable } from "./message.js";

// The messages of NABLA110 (assignment to a constant): every text of the code, with the parts that
// vary as parameters; docs/diagnostics.md shows examples.

export const constAssignment = {
  cannotAssignToBecauseIt: (name: Printable) =>
    message(
      "constAssignment",
      `cannot assign to '${name}' because it is a constant`,
      `declare '${name}' with 'let' to change it`,
    ),
};
