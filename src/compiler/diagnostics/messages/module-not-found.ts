import { message, type Printable } from "./message.js";

// The messages of NABLA114 (a relative import of a module that does not exist): every text of the
// code, with the parts that vary as parameters; docs/diagnostics.md shows examples.

export const moduleNotFound = {
  cannotFindModule: (specifier: Printable) =>
    message(
      "moduleNotFound",
      `cannot find the module '${specifier}'`,
      `check the path: a relative import names a file from this file's folder, as in './model.js' or './model.ts'`,
    ),
};
