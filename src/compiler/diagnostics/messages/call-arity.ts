import { message, type Printable } from "./message.js";

// The messages of NABLA113 (a call with the wrong number of arguments): every text of the code,
// with the parts that vary as parameters; docs/diagnostics.md shows examples.

export const callArity = {
  arrayFromLengthNNeeds: () =>
    message("callArity", `'Array.from({ length: n }, …)' needs a callback`),
  functionGivenToTakesArgument: (
    operator: Printable,
    count: Printable,
    value: Printable,
    count2: Printable,
  ) =>
    message(
      "callArity",
      `the function given to '${operator}' takes ${count} argument${value}, got ${count2}`,
    ),
  mathTakesArgumentGot: (name: Printable, arity: Printable, value: Printable, count: Printable) =>
    message("callArity", `Math.${name} takes ${arity} argument${value}, got ${count}`),
  needsCallback: (what: Printable) => message("callArity", `${what} needs a callback`),
  newTakesOneArgumentLength: (name: Printable) =>
    message("callArity", `'new ${name}' takes one argument (a length) here`),
  takesArgumentGot: (name: Printable, count: Printable, value: Printable, count2: Printable) =>
    message("callArity", `'${name}' takes ${count} argument${value}, got ${count2}`),
  takesArgumentsGot: (name: Printable, expected: Printable, value: Printable, got: Printable) =>
    message("callArity", `'${name}' takes ${expected} argument${value}, got ${got}`),
  structuredCloneTakesOneArgument: () =>
    message(
      "callArity",
      `'structuredClone' takes one argument in differentiable code: the value to copy (no options)`,
    ),
  takesArgumentHere: (method: Printable, value: Printable, value2: Printable) =>
    message("callArity", `'.${method}' takes ${value} argument${value2} here`),
  withDerivativeTakesTwoArgumentsValue: () =>
    message(
      "callArity",
      `'withDerivative' takes two arguments: a value and a function of its derivative`,
    ),
  withoutDerivativeTakesOneArgument: () =>
    message("callArity", `'withoutDerivative' takes one argument`),
};
