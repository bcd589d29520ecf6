import { transformSync } from "oxc-transform";
import { forEachOp } from "../../ir/walk.js";
import type { IRFunction, Op } from "../../ir/types.js";
import type { EmittedLine } from "./emitted.js";

// Functions the IR names by where they are written in the source, as JavaScript: their text
// with the TypeScript types stripped. The arrow given to `withDerivative` (`OpAttrs.written`),
// and the arrow-function fields of a class whose instance derivative code builds
// (`OpAttrs.arrowFields`).

/** The JavaScript of the function `op` names by its place in the source. */
export function writtenFunction(op: Op, sourceText: (file: string) => string): string {
  const [start, end] = op.attrs.written!;
  return strippedFunction(sourceText(op.loc.file).slice(start, end));
}

/** A function expression's text with its types stripped. */
function strippedFunction(text: string): string {
  const stripped = transformSync("with-derivative.ts", `const $f = ${text};`, {
    sourceType: "module",
  });
  return stripped.code
    .trim()
    .replace(/^const \$f = /, "")
    .replace(/;$/, "");
}

/** The name of the function that installs the arrow fields of an instance `literal` builds. */
export function arrowFieldInstaller(op: Op): string {
  return `${op.attrs.instanceOf!}$arrowFields`;
}

/**
 * For each class whose instance `fns` build with arrow-function fields, a module-level
 * function declaration (hoisted, as derivatives may run while the module loads) that gives
 * `this` those fields as the class's field initializers would: the arrows copied from the
 * class, each reading `this` as the instance. The `literal` calls it on the new object.
 */
export function hoistedArrowFields(
  fns: IRFunction[],
  nameOf: (name: string) => string,
  /** The source at [start, end) of a file, as the output writes it (`#x` as `["#x"]`). */
  sourceText: (file: string, start: number, end: number) => string,
): EmittedLine[][] {
  const found = new Map<string, Op>();
  for (const fn of fns)
    forEachOp(fn.body, (op) => {
      if (op.opcode === "literal" && op.attrs.arrowFields && op.attrs.instanceOf)
        found.set(arrowFieldInstaller(op), op);
    });
  return [...found].map(([name, op]) => {
    const positions = op.attrs.arrowFields!;
    const fields: EmittedLine[] = [];
    for (let i = 0; i < positions.length; i += 4) {
      const [keyStart, keyEnd, start, end] = positions.slice(i, i + 4) as [
        number,
        number,
        number,
        number,
      ];
      // `#step = (…) => …` is a property keyed "#step" in the output (private-names.ts).
      const name = sourceText(op.loc.file, keyStart, keyEnd);
      const field = name.startsWith('"') ? `[${name}]` : `.${name}`;
      const arrow = strippedFunction(sourceText(op.loc.file, start, end));
      fields.push({ text: `this${field} = ${arrow};`, indent: 1, loc: op.loc });
    }
    return [
      { text: `function ${nameOf(name)}() {`, indent: 0, loc: op.loc },
      ...fields,
      { text: "return this;", indent: 1, loc: undefined },
      { text: "}", indent: 0, loc: undefined },
    ];
  });
}
