import { message, type Printable } from "./message.js";

// The messages of NABLA103 (a value whose type nabla cannot determine): every text of the code,
// with the parts that vary as parameters; docs/diagnostics.md shows examples.

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
  cannotDetermineTypeOfModule: (name: Printable, name2: Printable) =>
    message(
      "unknownType",
      `cannot determine the type of module variable '${name}'; annotate it (e.g. 'const ${name2}: number = …')`,
    ),
  cannotDetermineTypeOfParameter: (name: Printable, shown: Printable) =>
    message(
      "unknownType",
      `cannot determine the type of parameter '${name}' of '${shown}'; annotate it (': number')`,
    ),
  cannotDetermineTypeOfWhich: (name: Printable, functionLabel: Printable) =>
    message(
      "unknownType",
      `cannot determine the type of '${name}', which ${functionLabel} reads from the enclosing function; annotate its declaration (': number')`,
    ),
};
