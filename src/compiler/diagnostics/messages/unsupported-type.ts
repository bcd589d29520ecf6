import { message, type Printable } from "./message.js";

// The messages of NABLA106 (a type that cannot be differentiated): every text of the code, with the
// parts that vary as parameters; docs/diagnostics.md shows examples.

export const unsupportedType = {
  cannotBeCheckpointedItAnd: (label: Printable, what: Printable) =>
    message(
      "unsupportedType",
      `${label} cannot be checkpointed: it ${what}, and a checkpointed function may change only the numbers in its arguments; call it without checkpointing, or give it arrays of their final length to write into`,
    ),
  cannotBeUsedAsCondition: (type: Printable) =>
    message("unsupportedType", `a ${type} cannot be used as a condition in differentiable code`),
  cannotDifferentiateItReturns: (functionLabel: Printable, value: Printable, value2: Printable) =>
    message(
      "unsupportedType",
      `cannot differentiate ${functionLabel}: it returns ${value}, ${value2}`,
    ),
  cannotDifferentiateWithRespectTo: (functionLabel: Printable, hint: Printable, what: Printable) =>
    message(
      "unsupportedType",
      `cannot differentiate ${functionLabel} with respect to parameter '${hint}', ${what}`,
    ),
  cannotDifferentiateWithRespectToIntegerArray: (
    functionLabel: Printable,
    hint: Printable,
    storage: Printable,
  ) =>
    message(
      "unsupportedType",
      `cannot differentiate ${functionLabel} with respect to parameter '${hint}', an integer typed array (${storage}): its elements are integers, which have no derivative (a number stored into one is rounded to an integer)`,
      `an integer typed array is data the function reads (labels, indices, counts, masks); to differentiate with respect to its values, pass them as a Float64Array`,
    ),
  checkpointedFunctionMustReturnNumber: (label: Printable, typeText: Printable) =>
    message(
      "unsupportedType",
      `a checkpointed function must return a number or nothing; ${label} returns a ${typeText}`,
    ),
  dispatchedMethodsReturnDifferentTypes: (name: Printable, one: Printable, other: Printable) =>
    message(
      "unsupportedType",
      `the classes' '${name}' methods this call may run return different types ('${one}', '${other}'), which differentiable code cannot join`,
      `declare each '${name}' to return the interface the call goes through`,
    ),
  fieldOfHasTypeDifferentiable: (name: Printable, name2: Printable) =>
    message(
      "unsupportedType",
      `field '${name}' of '${name2}' has a type differentiable code cannot use`,
    ),
  keyedAlongManyDirections: () =>
    message(
      "unsupportedType",
      `a record, map or tree (a type that holds itself) that carries derivatives is not supported yet in a function differentiated along many directions at once ('jacobian' in forward mode); ask for '{ mode: "reverse" }' (a pullback per output), or keep these values in arrays or objects`,
    ),
  fieldHasRecursiveType: (name: Printable, type: Printable) =>
    message(
      "unsupportedType",
      `field '${name}' of '${type}' holds a value of the type it belongs to (a recursive type, such as a tree); nabla does not differentiate through recursive types yet: keep the tree's numbers in an array and the tree's shape in plain data, or evaluate it outside the differentiated code`,
    ),
  hasTypeWhichDifferentiableCode: (name: Printable, text: Printable) =>
    message(
      "unsupportedType",
      `'${name}' has type '${text}', which differentiable code does not support (numbers, booleans, arrays, typed arrays, object types, records and maps are supported)`,
      // `Array<Disk | Box>`: a union of classes nabla could not type as one (types/class-unions.ts).
      isUnionOfNamedTypes(String(text))
        ? `a union of classes can be used when each of its members is a class or an interface classes implement, and a field of one name has one type in all of them; else give them a base class or an interface they share, and write that ('Shape[]' for 'Array<Disk | Box>')`
        : mixedPrimitivesHelp(String(text)),
    ),
  isFieldOfOfType: (name: Printable, name2: Printable) =>
    message("unsupportedType", `'${name}' is a field of '${name2}' of a type nabla cannot call`),
  isNotSupportedInDifferentiable: (what: Printable, operator: Printable) =>
    message(
      "unsupportedType",
      `${what} is not supported in differentiable code; '${operator}' needs numbers`,
    ),
  interpolatedInTemplate: (type: Printable) =>
    message(
      "unsupportedType",
      `a value of type '${type}' in a template literal is not supported in differentiable code: nabla joins numbers, strings and booleans into text, not objects (whose 'toString' would run)`,
      `interpolate the numbers or strings it holds ('\${p.x}'), or build the text outside the function you differentiate`,
    ),
  needsNumberValuedFunctionThis: (operator: Printable, value: Printable) =>
    message(
      "unsupportedType",
      `'${operator}' needs a number-valued function; this one returns ${value}`,
    ),
  parameterHasType: (name: Printable, type: Printable) =>
    message("unsupportedType", `parameter '${name}' has type ${type}`),
  parameterOfHasSeveralArrayKinds: (name: Printable, shown: Printable, text: Printable) =>
    message(
      "unsupportedType",
      `parameter '${name}' of '${shown}' has type '${text}', which admits several kinds of array; a function an operator differentiates takes one, which its derivative's type follows`,
      `declare the one it is given ('${name}: number[]' or '${name}: Float64Array'); functions it calls may keep '${text}': each call is given its own version, for the arrays it passes`,
    ),
  parameterOfHasTypeWhich: (name: Printable, shown: Printable, text: Printable) =>
    message(
      "unsupportedType",
      `parameter '${name}' of '${shown}' has type '${text}', which nabla cannot differentiate (numbers, arrays, typed arrays, object types, records and maps can be)`,
      mixedPrimitivesHelp(String(text)),
    ),
  returnsDifferentiableFunctionsReturnNumbers: (shown: Printable, text: Printable) =>
    message(
      "unsupportedType",
      `'${shown}' returns '${text}'; differentiable functions return numbers, booleans, arrays, objects or nothing ('void')`,
    ),
  withDerivativeAppliesToNumbersApply: () =>
    message(
      "unsupportedType",
      `'withDerivative' applies to numbers; apply it to the numbers of an array or object`,
    ),
};

/** For `number | string`: a field telling the kinds apart gives it one type. */
function mixedPrimitivesHelp(text: string): string | undefined {
  // `[number, string?]`: one the parameter's or variable's checks found mixed (tuple-types.ts).
  if (/^\[.*(\?|\.\.\.).*\]$/.test(text))
    return `a tuple whose length varies ('[number, number?]') is an array of its one element type, and the elements of '${text}' differ in type: give them one type, or use an object with an optional field ('{ value: number; label?: string }')`;
  const kinds = primitivesOfUnion(text);
  return kinds
    ? `a value that may be a ${kinds.join(" or a ")} has no one type nabla can differentiate: tell the kinds apart by a field ('{ kind: "number"; value: number } | { kind: "op"; op: string }')`
    : undefined;
}

/** `number | string`, `(number | string)[]`: its kinds of primitive, when more than one. */
function primitivesOfUnion(text: string): string[] | undefined {
  const kindOf = (m: string) =>
    /^(number|-?\d.*)$/.test(m)
      ? "number"
      : /^(string|["'`].*)$/.test(m)
        ? "string"
        : /^(boolean|true|false)$/.test(m)
          ? "boolean"
          : undefined;
  const kinds = unionMembers(text).map(kindOf);
  const distinct = [...new Set(kinds)];
  return kinds.every((k) => k !== undefined) && distinct.length > 1
    ? (distinct as string[])
    : undefined;
}

function unionMembers(text: string): string[] {
  return text
    .replace(/^Array<(.*)>$/, "$1")
    .replace(/^\((.*)\)\[\]$/, "$1")
    .split(" | ");
}

/** `Disk | Square`, `Array<Disk | Square>`, `(Disk | Square)[]`: a union of named types only. */
function isUnionOfNamedTypes(text: string): boolean {
  const members = unionMembers(text);
  return members.length > 1 && members.every((m) => /^[A-Z][\w$]*$/.test(m));
}
