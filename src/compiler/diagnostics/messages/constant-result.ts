import { message, type Printable } from "./message.js";

// The messages of NABLA201 (a derivative that is always zero (a warning)): every text of the code,
// with the parts that vary as parameters; docs/diagnostics.md shows examples.

export const constantResult = {
  resultOfDoesNotDepend: (functionLabel: Printable) =>
    message(
      "constantResult",
      `the result of ${functionLabel} does not depend on the differentiated arguments, so its derivative is always zero`,
    ),
};
