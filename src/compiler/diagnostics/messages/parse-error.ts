import { message, type Printable } from "./message.js";

// The messages of NABLA001 (the file does not parse, or is nested too deeply to parse or to load):
// every text of the code, with the parts that vary as parameters; docs/diagnostics.md shows
// examples.

export const parseError = {
  /** What the parser (oxc-parser) or the type stripper says, as it says it. */
  fromParser: (text: Printable) => message("parseError", `${text}`),
  nestedTooDeeplyToParse: (levels: Printable) =>
    message(
      "parseError",
      `this code is nested too deeply to parse (more than ${levels} levels of brackets and operators): split it into smaller expressions and statements`,
    ),
  nestedTooDeeplyToLoad: (levels: Printable) =>
    message(
      "parseError",
      `this code is nested too deeply for JavaScript engines to load (V8 stops at about ${levels} levels of nested expressions): split it into smaller expressions and statements, with intermediate variables`,
    ),
};
