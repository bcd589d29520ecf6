import { message, type Printable } from "./message.js";

// The messages of NABLA109 (a value of the wrong type): every text of the code, with the parts that
// vary as parameters; docs/diagnostics.md shows examples.

export const typeMismatch = {
  arrayElementsMustAllBe: (typeText: Printable) =>
    message("typeMismatch", `array elements must all be ${typeText}`),
  arrayIndexMustBeNumber: (typeText: Printable) =>
    message("typeMismatch", `an array index must be a number, got a ${typeText}`),
  keyMustBe: (key: Printable, got: Printable, type: Printable) =>
    message("typeMismatch", `a key of a '${type}' must be a ${key}, got a ${got}`),
  objectKeyMustBeText: (got: Printable) =>
    message("typeMismatch", `a key chosen at run time ('o[k]') must be text, got a ${got}`),
  entriesExpected: (type: Printable, got: Printable) =>
    message(
      "typeMismatch",
      `a '${type}' is built from another of its kind or from an array of [key, value] pairs, not from a ${got}`,
    ),
  callbackMustReturnOneType: () => message("typeMismatch", `the callback must return one type`),
  callbackOfMustReturnValue: (method: Printable) =>
    message("typeMismatch", `the callback of '.${method}' must return a value`),
  callbackOfTypedArray: (call: Printable) =>
    message("typeMismatch", `the callback of ${call} must return a number: it fills a typed array`),
  spreadArgumentMustBeArray: (typeText: Printable) =>
    message("typeMismatch", `a spread argument must be an array or a tuple, got a ${typeText}`),
  cannotCompareWith: (type: Printable, type2: Printable) =>
    message("typeMismatch", `cannot compare a ${type} with a ${type2}`),
  cannotCompareByIdentity: (type: Printable) =>
    message(
      "typeMismatch",
      `cannot tell whether two ${type} values are the same one ('==='): differentiable code does not compare arrays and objects by identity`,
      "compare a field that tells them apart instead (an id, a name)",
    ),
  expectedHereGot: (article: Printable, article2: Printable) =>
    message("typeMismatch", `expected ${article} here, got ${article2}`),
  /** `fields`: the literal copying the instance's fields, as the help writes it. */
  instanceWhereFieldsGo: (expected: Printable, got: Printable, fields: Printable) =>
    message(
      "typeMismatch",
      `expected a ${expected} here, got a ${got}: '${expected}' declares fields only, so differentiable code holds its values as plain objects, and an instance of a class (its getters, its methods) is not one`,
      `copy what '${expected}' needs into an object literal ('${fields}')`,
    ),
  instanceWhereWiderTypeJoins: (from: Printable, to: Printable) =>
    message(
      "typeMismatch",
      `a '${from}' is held here where the code also holds other '${to}' values: differentiable code makes an instance a '${to}' where it is built ('new ${from}(…)' in this function), not one it was given as a '${from}'`,
      `declare the parameter, variable or result it comes from as '${to}'`,
    ),
  objectWithOtherFieldsJoins: (from: Printable, to: Printable, extra: Printable) =>
    message(
      "typeMismatch",
      `a '${from}' is held here where the code also holds other '${to}' values: where branches or loops join, differentiable code needs one type, and this object has fields a '${to}' does not ('${extra}')`,
      `keep it in a variable of its own type, or build a new '${to}' holding only the fields a '${to}' has`,
    ),
  objectOfOtherTypeJoins: (from: Printable, to: Printable) =>
    message(
      "typeMismatch",
      `a '${from}' is held here where the code also holds other '${to}' values: where branches or loops join, differentiable code needs one type`,
      `declare the variable, parameter or result it comes from as '${to}'`,
    ),
  fieldOfIsMissing: (name: Printable, name2: Printable) =>
    message("typeMismatch", `field '${name}' of '${name2}' is missing`),
  functionGivenToTakesHere: (operator: Printable, article: Printable, article2: Printable) =>
    message(
      "typeMismatch",
      `the function given to '${operator}' takes ${article} here, got ${article2}`,
    ),
  functionGivenToTakesNumber: (operator: Printable, value: Printable) =>
    message(
      "typeMismatch",
      `the function given to '${operator}' takes a number here, got ${value}`,
    ),
  hasNoReturnTypeSo: (functionLabel: Printable, article: Printable, typeText: Printable) =>
    message(
      "typeMismatch",
      `${functionLabel} has no return type, so nabla takes it to return a number, but this is ${article}; annotate the return type (': ${typeText}')`,
    ),
  lengthMustBeNumber: () => message("typeMismatch", `'length' must be a number`),
  mathExpectsNumbersGot: (name: Printable, type: Printable) =>
    message("typeMismatch", `Math.${name} expects numbers, got a ${type}`),
  needsNumbersGot: (operator: Printable, type: Printable) =>
    message("typeMismatch", `'${operator}' needs numbers, got ${type}s`),
  newArrayNeedsLength: () => message("typeMismatch", `'new Array' needs a length`),
  typedFromTakesNumbers: (name: Printable) =>
    message("typeMismatch", `'${name}.from' takes an array of numbers`),
  newNeedsLengthOrArray: (name: Printable) =>
    message("typeMismatch", `'new ${name}' needs a length or an array of numbers`),
  parameterOfIsGot: (name: Printable, name2: Printable, article: Printable, article2: Printable) =>
    message("typeMismatch", `parameter '${name}' of '${name2}' is ${article}, got ${article2}`),
  returnNeedsValueHere: (article: Printable) =>
    message("typeMismatch", `'return' needs ${article} value here`),
  sliceTakesNumbers: () => message("typeMismatch", `'.slice' takes numbers`),
  thisFunctionReturnsNothingVoid: () =>
    message("typeMismatch", `this function returns nothing ('void')`),
};
