import { message, type Printable } from "./message.js";

// The messages of NABLA111 (a name differentiable code cannot see): every text of the code, with
// the parts that vary as parameters; docs/diagnostics.md shows examples.

/**
 * What a name differentiable code cannot see is (lower/unbound-name.ts): `Math` read as a value
 * (`xs.map(Math.tanh)`), a class read as a value (`Vec3.zero`), a name a module-level
 * destructuring declares, or another global.
 */
export type UnboundKind = "math" | "class" | "destructured" | "global";

const UNBOUND_HELP: Record<UnboundKind, (name: Printable) => string> = {
  math: () =>
    `differentiable code calls Math functions where it uses them: pass a function that calls one, such as '(x: number) => Math.tanh(x)', rather than the Math function itself`,
  class: (name) =>
    `differentiable code reads the static properties and calls the static methods of '${name}' (a class of the program), but does not write them or use the class itself: keep changing state in a parameter and return it`,
  destructured: (name) =>
    `declare '${name}' on its own at the top level ('const ${name} = …'): differentiable code does not read names a module-level destructuring declares`,
  global: () => `pass its value in as a parameter`,
};

export const unboundName = {
  cannotFindInDifferentiableCode: (name: Printable, kind: UnboundKind) =>
    message(
      "unboundName",
      `cannot find '${name}' in differentiable code`,
      UNBOUND_HELP[kind]?.(name),
    ),
};
