import { transformSync } from "oxc-transform";
import type { Op } from "../../ir/types.js";

// A function the IR names by where it is written in the source (`OpAttrs.written`: the arrow
// given to `withDerivative`), as JavaScript: its text with the TypeScript types stripped.

/** The JavaScript of the function `op` names by its place in the source. */
export function writtenFunction(op: Op, sourceText: (file: string) => string): string {
  const [start, end] = op.attrs.written!;
  const text = sourceText(op.loc.file).slice(start, end);
  const stripped = transformSync("with-derivative.ts", `const $f = ${text};`, {
    sourceType: "module",
  });
  return stripped.code
    .trim()
    .replace(/^const \$f = /, "")
    .replace(/;$/, "");
}
