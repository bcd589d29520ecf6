import { message, type Printable } from "./message.js";

// The messages of NABLA102 (a call of a function whose source nabla cannot see): every text of the
// code, with the parts that vary as parameters; docs/diagnostics.md shows examples.

export const unknownCallee = {
  cannotDifferentiateClosureFromCall: (name: Printable, factory: Printable) =>
    message(
      "unknownCallee",
      `cannot differentiate a call to '${name}': it holds the closure '${factory}(…)' returned when the module ran, which nabla cannot follow from here`,
      `make the closure inside the function you differentiate, where nabla inlines it: 'const ${name} = ${factory}(…)' there`,
    ),
  cannotDifferentiateCallToIt: (path: Printable) =>
    message(
      "unknownCallee",
      `cannot differentiate a call to '${path}': it has no visible source and no registered derivative`,
      `register its derivative with 'registerDerivative(${path}, { forward, reverse })' (docs/guide.md#custom-derivatives)`,
    ),
  cannotDifferentiateDeepCopy: (path: Printable) =>
    message(
      "unknownCallee",
      `cannot differentiate a call to '${path}' of a value holding arrays or objects: a deep copy keeps which parts the copy shares with itself, which nabla's derivatives cannot follow (it works for an array or object of numbers, and for an array of such objects or rows)`,
      `copy the levels you change with spreads and maps ('objs.map((o) => ({ ...o, v: [...o.v] }))', 'rows.map((r) => [...r])')`,
    ),
  structuredCloneOfInstance: (name: Printable) =>
    message(
      "unknownCallee",
      `'structuredClone' of a '${name}' gives a plain object, without the class's methods and getters (and its '#private' fields)`,
      `copy it with the class's own constructor ('new ${name}(…)') or a method that does`,
    ),
  jsonRoundTrip: () =>
    message(
      "unknownCallee",
      `a copy through JSON text ('JSON.parse(JSON.stringify(…))') is not differentiable: its numbers are read back from text, and it is not faithful (-0 becomes 0, NaN and Infinity become null)`,
      `copy with spreads and maps ('{ ...p, nested: { ...p.nested } }', 'rows.map((r) => [...r])'), or with 'structuredClone(x)' for an array or object of numbers; nabla differentiates those`,
    ),
  cannotDifferentiateDoesNotExport: (path: Printable, specifier: Printable, value: Printable) =>
    message(
      "unknownCallee",
      `cannot differentiate '${path}': '${specifier}' does not export a function '${value}' with visible source`,
      `import a function that '${specifier}' declares (check the name it exports), or register a derivative for it (docs/guide.md#custom-derivatives)`,
    ),
  /** `name`: what the importing module calls the export, suggested as its name. */
  anonymousDefaultValue: (
    path: Printable,
    specifier: Printable,
    kind: "object" | "array",
    name: Printable,
  ) =>
    message(
      "unknownCallee",
      `cannot differentiate '${path}': '${specifier}' exports it in an ${kind} written in 'export default ${kind === "object" ? "{ … }" : "[ … ]"}', which has no name there, and nabla reads the functions of module-level data by the name of a 'const'`,
      `name it in '${specifier}': 'const ${name} = ${kind === "object" ? "{ … }" : "[ … ]"}; export default ${name};'`,
    ),
  cannotDifferentiateItComesFrom: (path: Printable, specifier: Printable) =>
    message(
      "unknownCallee",
      `cannot differentiate '${path}': it comes from package '${specifier}', whose source nabla cannot see, and no derivative is registered for it`,
      `register its derivative with 'registerDerivative(${path}, { forward, reverse })'; nabla reads its parameter types from the package's .d.ts (docs/guide.md#custom-derivatives)`,
    ),
  classHasNoMethodNabla: (name: Printable, name2: Printable) =>
    message(
      "unknownCallee",
      `class '${name}' has no method '${name2}' nabla can see (neither it nor a class it extends declares one with a body)`,
      `declare '${name2}' in class '${name}' or a class it extends, or call a top-level function that takes the object`,
    ),
  /** `importsBack`: the subclass's module imports the module of the call. */
  /** `extendsHere`: the class extends one of the calling module (`file`). */
  subclassNotVisible: (name: Printable, file: Printable, extendsHere: boolean) =>
    message(
      "unknownCallee",
      `which method this call runs depends on whether the object is a '${name}', which overrides it, but the module of '${name}' imports ${file}, so ${file} cannot import '${name}' to test the object's class (the two modules would import each other, and one run before the other's classes exist)`,
      extendsHere
        ? `declare '${name}' in ${file}, next to the class it extends`
        : `make the call in a module that the module of '${name}' does not import`,
    ),
  superNotVisible: () =>
    message(
      "unknownCallee",
      "'super' here does not name a class of the program nabla can see",
      "extend a class declared in the program (or imported from a module of it)",
    ),
  isNotFunctionNablaCan: (name: Printable) =>
    message(
      "unknownCallee",
      `'${name}' is not a function nabla can see`,
      `give 'withDerivative' a function declared in this program, or an arrow function written here`,
    ),
  /** `closest`: the Math function `name` is probably a slip for. */
  mathIsNotMathFunction: (name: Printable, closest: string | undefined) =>
    message(
      "unknownCallee",
      `'Math.${name}' is not a Math function`,
      closest
        ? `did you mean 'Math.${closest}'?`
        : "docs/derivatives.md lists the Math functions nabla differentiates",
    ),
  cannotTellTypesOfCall: (name: Printable) =>
    message(
      "unknownCallee",
      `nabla cannot tell the parameter and result types of the function '${name}' holds`,
      "declare the type of the functions it holds ('Record<string, (z: number) => number>', '((t: number) => number)[]')",
    ),
  noFunctionOfProgramFits: (name: Printable, argumentTypes: Printable, result: Printable) =>
    message(
      "unknownCallee",
      `no function of the program fits this call of '${name}' (${argumentTypes}) → ${result}: a function value must be one of the functions the program uses as values: functions declared at the top level of a module, functions written in a module-level object or array that no code writes to, Math functions`,
      `declare the function it holds at the top level of a module (or in a module-level object or array), taking (${argumentTypes}) and returning ${result}`,
    ),
};
