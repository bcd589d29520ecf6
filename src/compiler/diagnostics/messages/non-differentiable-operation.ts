import { message, type Printable } from "./message.js";

// The messages of NABLA104 (a non-differentiable operation on a differentiated value): every text
// of the code, with the parts that vary as parameters; docs/diagnostics.md shows examples.

export const nonDifferentiableOperation = {
  fieldIsMarkedNoDerivativeBut: (field: Printable) =>
    message(
      "nonDifferentiableOperation",
      `field '${field}' is marked @noDerivative, but a value that depends on the differentiated arguments is stored into it`,
      `store 'withoutDerivative(…)' if the derivative should be dropped, or remove '@noDerivative'`,
    ),
  enumFieldGivenDifferentiatedValue: (field: Printable) =>
    message(
      "nonDifferentiableOperation",
      `field '${field}' is typed by a numeric enum, a choice that has no derivative, but a value that depends on the differentiated arguments is stored into it`,
      `store 'withoutDerivative(…)' if the derivative should be dropped, or type the field as 'number'`,
    ),
  isNotDifferentiableButValue: (callee: Printable) =>
    message(
      "nonDifferentiableOperation",
      `'${callee}' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result`,
      `use 'withoutDerivative(…)' if the derivative through this operation should be zero`,
    ),
  /** `${x}` or `"v" + x`: the text join (lowered as a `+` on strings) of a differentiated value. */
  textOfDifferentiatedValue: () =>
    message(
      "nonDifferentiableOperation",
      `a value that depends on the differentiated arguments is joined into text here (a template literal or '+' on a string), which has no derivative, and the text flows into the result`,
      `compute the result from the number itself; or join 'withoutDerivative(…)' of it if the derivative through the text should be zero`,
    ),
  keysReadWithoutDerivative: (kind: Printable) =>
    message(
      "nonDifferentiableOperation",
      `the keys of this ${kind} are read here, but some depend on the differentiated arguments; keys carry no derivative, so theirs would be lost`,
      `keep the values in an array ('xs.filter((x, i) => xs.indexOf(x) === i)' for distinct ones), or store 'withoutDerivative(…)' as the key if the derivative should be dropped`,
    ),
  calleeMayReadKeys: (kind: Printable) =>
    message(
      "nonDifferentiableOperation",
      `this call is given a ${kind} whose keys depend on the differentiated arguments; keys carry no derivative, so theirs would be lost where the call reads them`,
      `keep the values in an array, or store 'withoutDerivative(…)' as the key if the derivative should be dropped`,
    ),
  thisWritesIntoArrayOr: () =>
    message(
      "nonDifferentiableOperation",
      `this writes into an array or object that 'withoutDerivative' returned, which is the same memory as its argument; copy it first (e.g. '[...withoutDerivative(xs)]' or '.slice()')`,
    ),
};
