import { message, type Printable } from "./message.js";

// The messages of NABLA107 (a function that can reach its end without returning): every text of the
// code, with the parts that vary as parameters; docs/diagnostics.md shows examples.

export const missingReturn = {
  canReachItsEndWithout: (shown: Printable, resultType: Printable) =>
    message(
      "missingReturn",
      `'${shown}' can reach its end without returning a ${resultType}; add a return statement`,
    ),
  reachesItsEndWithoutReturning: (what: Printable, article: Printable) =>
    message(
      "missingReturn",
      `${what} can reach its end without returning ${article}; add a return statement`,
    ),
};
