import { message, type Printable } from "./message.js";

// The messages of NABLA103 (a value whose type nabla cannot determine): every text of the code,
// with the parts that vary as parameters; docs/diagnostics.md shows examples.

/**
 * What to annotate, from how the code uses the value (lower/annotation-advice.ts): a type to
 * write; an object, whose interface only the user can name; the array a `for…of` variable
 * comes from (the variable itself cannot be annotated); a class nabla does not differentiate
 * through, for which no annotation helps; an annotation already there that nabla cannot read;
 * a destructured name, whose value is annotated where it is declared.
 */
export type Advice =
  | { kind: "annotate"; type: string }
  | { kind: "object" }
  | { kind: "loopArray"; array?: string; type?: string }
  | { kind: "unsupportedClass"; className: string }
  | { kind: "annotated"; text: string }
  | { kind: "pattern" }
  | { kind: "unknown" };

/** The help of an `Advice`; `written` shows the annotation in place (`const k: number = …`). */
function adviceHelp(advice: Advice, written: (type: string) => string): string {
  switch (advice.kind) {
    case "annotate":
      return `annotate it: '${written(advice.type)}'`;
    case "object":
      return `annotate it with the interface, type alias or class of the object it holds`;
    case "loopArray": {
      const array = advice.array ? `'${advice.array}'` : "the array it loops over";
      const example = advice.type ? ` (': ${advice.type}')` : "";
      return `TypeScript does not allow annotating a 'for…of' variable: give ${array} a type where it is declared${example}`;
    }
    case "unsupportedClass":
      return `differentiable code cannot read a '${advice.className}': pass the numbers it holds in as parameters`;
    case "annotated":
      return `give it a type nabla reads (numbers, booleans, arrays, typed arrays, interfaces, type aliases, classes) instead of '${advice.text}'`;
    case "pattern":
      return `annotate the value it is taken apart from, where that value is declared`;
    case "unknown":
      return `annotate it with its type (such as '${written("number")}' or '${written("number[]")}')`;
  }
}

export const unknownType = {
  cannotDetermineElementTypeOf: () =>
    message(
      "unknownType",
      `cannot determine the element type of an empty array literal; annotate the variable (e.g. 'const xs: number[] = []')`,
    ),
  cannotDetermineTypeOfAdd: (name: Printable) =>
    message(
      "unknownType",
      `cannot determine the type of '${name}'; add an annotation or an initializer`,
    ),
  cannotDetermineTypeOfImported: (name: Printable, specifier: Printable) =>
    message(
      "unknownType",
      `cannot determine the type of imported value '${name}' from '${specifier}'`,
      `annotate its declaration in '${specifier}'`,
    ),
  /** `kind`: how it is declared (`const`, `let`), for the annotation the help writes out. */
  cannotDetermineTypeOfModule: (name: Printable, kind: Printable, advice: Advice) =>
    message(
      "unknownType",
      `cannot determine the type of module variable '${name}'`,
      adviceHelp(advice, (type) => `${kind} ${name}: ${type} = …`),
    ),
  cannotDetermineTypeOfParameter: (name: Printable, shown: Printable, advice: Advice) =>
    message(
      "unknownType",
      `cannot determine the type of parameter '${name}' of '${shown}'`,
      adviceHelp(advice, (type) => `${name}: ${type}`),
    ),
  cannotDetermineTypeOfWhich: (name: Printable, functionLabel: Printable, advice: Advice) =>
    message(
      "unknownType",
      `cannot determine the type of '${name}', which ${functionLabel} reads from the enclosing function`,
      adviceHelp(advice, (type) => `${name}: ${type}`),
    ),
};
