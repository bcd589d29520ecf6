import { message, type Printable } from "./message.js";

// The messages of NABLA108 (an operator used the wrong way): every text of the code, with the parts
// that vary as parameters; docs/diagnostics.md shows examples.

export const badOperatorUse = {
  restParameterOfOperatorTarget: (name: Printable) =>
    message(
      "badOperatorUse",
      `'${name}' has a rest parameter, which a function given to an operator cannot have yet; take an array parameter instead ('xs: number[]'), or call '${name}' from the function you differentiate`,
    ),
  optionsMustBeObjectLiteral: (example: Printable) =>
    message("badOperatorUse", `options must be an object literal such as ${example}`),
  needsFunctionToDifferentiateAs: (operator: Printable) =>
    message(
      "badOperatorUse",
      `'${operator}' needs the function to differentiate as its first argument`,
    ),
  takes: (operator: Printable, value: Printable) =>
    message("badOperatorUse", `'${operator}' takes ${value}`),
  isLetVariableHoldingFunction: (name: Printable) =>
    message(
      "badOperatorUse",
      `'${name}' is a 'let' variable holding a function, which may change; declare it with 'const' so nabla knows which function to differentiate`,
    ),
  needsFunctionWhoseSourceNabla: (operator: Printable) =>
    message(
      "badOperatorUse",
      `'${operator}' needs a function whose source nabla can see: a function declared in this program or an arrow function written here`,
    ),
  /** `derivative(derivative(f))` of a parameter or variable `f` holding a function value. */
  derivativeOfHeldFunction: (operator: Printable, inner: Printable, name: Printable) =>
    message(
      "badOperatorUse",
      `'${operator}' cannot differentiate '${inner}': '${name}' is a function value here (a parameter or a variable), whose code nabla follows only where it is called`,
      `differentiate a lambda calling it: '${operator}((x) => ${inner}(x))'`,
    ),
  /** `gradient(Math.max)`: a Math function of any number of arguments, or of none. */
  mathFunctionOfNoFixedArity: (operator: Printable, name: Printable) =>
    message(
      "badOperatorUse",
      `'${operator}' cannot differentiate 'Math.${name}' given as a value: it takes any number of arguments, so nabla cannot tell which are differentiated`,
      `write an arrow function calling it with the arguments you mean, such as '${operator}((x) => Math.${name}(x, 0))'`,
    ),
  /** `gradient(f)` of a local variable holding a function value (not a parameter). */
  variableHoldingFunction: (operator: Printable, name: Printable) =>
    message(
      "badOperatorUse",
      `'${operator}' cannot differentiate '${name}': it is a variable holding a function value, which nabla cannot follow to its code here`,
      `give '${operator}' the function itself: its name, or an arrow function written at the call ('${operator}((x) => …)')`,
    ),
  holdsClosureFromCall: (operator: Printable, name: Printable, factory: Printable) =>
    message(
      "badOperatorUse",
      `'${operator}' cannot differentiate '${name}': it holds the closure '${factory}(…)' returned when the module ran, which nabla cannot follow from here`,
      `make the closure inside the function you differentiate, where nabla inlines it: '${operator}((p) => { const ${name} = ${factory}(…); return ${name}(p); })'`,
    ),
  cannotTellWhichMethod: (operator: Printable, member: Printable) =>
    message(
      "badOperatorUse",
      `'${operator}' cannot tell which function '${member}' is: it takes a function declared in this program by name, a static method ('Class.method') or an arrow function written here`,
      `wrap the call in an arrow function written here, such as '(x) => ${member}(x)'`,
    ),
  needsFunctionOfAtLeast: (operator: Printable) =>
    message(
      "badOperatorUse",
      `'${operator}' needs a function of at least one number argument; this one takes none`,
    ),
  differentiatesFunctionsOfOneNumber: (operator: Printable, name: Printable, arity: Printable) =>
    message(
      "badOperatorUse",
      `'${operator}' differentiates functions of one number argument, but '${name}' takes ${arity}; use 'differential' for several arguments`,
    ),
  differentiatesWithRespectToOne: (
    operator: Printable,
    functionLabel: Printable,
    count: Printable,
  ) =>
    message(
      "badOperatorUse",
      `'${operator}' differentiates with respect to one parameter; ${functionLabel} has ${count} differentiable ones, so pick one with '{ wrt: i }'`,
    ),
  jacobianOfObjectIsReverse: (type: Printable) =>
    message(
      "badOperatorUse",
      `'jacobian' with respect to an object (${type}) runs in reverse mode, a pullback per output`,
      `leave out 'mode: "forward"', or pass the numbers as an array`,
    ),
  needsDifferentiatedParameterToBe: (operator: Printable, value: Printable) =>
    message(
      "badOperatorUse",
      operator === "jacobian"
        ? `'jacobian' needs the differentiated parameter to be a number, a number[], a tuple of numbers, a typed array, an array of those (number[][]) or an object, not ${value}`
        : `'${operator}' needs the differentiated parameter to be a number, a number[], a tuple of numbers or a typed array, not ${value}`,
    ),
  unknownOption: (key: Printable, takes: Printable, elsewhere: Printable) =>
    message("badOperatorUse", `unknown option '${key}'; ${takes}${elsewhere}`),
  optionIsGivenTwice: (key: Printable) =>
    message("badOperatorUse", `the option '${key}' is given twice`),
  hasAuxMustBeWrittenAs: () =>
    message(
      "badOperatorUse",
      `'hasAux' must be written as 'true' or 'false': nabla reads it from the source`,
    ),
  backendMustBeWrittenAs: () =>
    message(
      "badOperatorUse",
      `'backend' must be written as "wasm", "js" or "auto": nabla reads it from the source`,
    ),
  modeMustBeWrittenAs: () =>
    message(
      "badOperatorUse",
      `'mode' must be written as "forward" or "reverse": nabla reads it from the source`,
    ),
  wrtMustListParameterIndices: () =>
    message(
      "badOperatorUse",
      `'wrt' must list parameter indices as number literals, e.g. '{ wrt: [0, 2] }'`,
    ),
  wrtIndexIsNotInteger: (index: Printable) =>
    message("badOperatorUse", `'wrt' index ${index} is not an integer`),
  wrtIndexIsOutOf: (index: Printable, arity: Printable, value: Printable) =>
    message(
      "badOperatorUse",
      `'wrt' index ${index} is out of range: the function has ${arity} parameter${value}`,
    ),
  wrtListsParameterTwice: (index: Printable) =>
    message("badOperatorUse", `'wrt' lists parameter ${index} twice`),
  wrtMustNameAtLeast: () => message("badOperatorUse", `'wrt' must name at least one parameter`),
  anonymousDefaultExportedFunctionCannot: () =>
    message(
      "badOperatorUse",
      `an anonymous default-exported function cannot be checkpointed: give it a name ('export default function step(…)')`,
    ),
  callOfWithFunctionArgument: (name: Printable) =>
    message(
      "badOperatorUse",
      `a call of '${name}' with a function argument cannot be checkpointed`,
    ),
  checkpointTakesOneFunctionDeclared: () =>
    message(
      "badOperatorUse",
      `'checkpoint' takes one function declared in the program, by name: 'checkpoint(step)(state)' (to checkpoint a method, tag it '/** @checkpoint */')`,
    ),
  jacobianNeedsFunctionReturningNumber: (typeText: Printable) =>
    message(
      "badOperatorUse",
      `'jacobian' needs a function returning a number, a number[], a tuple of numbers or a typed array; this one returns ${typeText}`,
    ),
  needsNumberValuedFunctionThis: (operator: Printable, typeText: Printable) =>
    message(
      "badOperatorUse",
      `'${operator}' needs a number-valued function; this one returns ${typeText}`,
    ),
  withHasAuxTrueMustReturn: (functionLabel: Printable, shown: Printable) =>
    message(
      "badOperatorUse",
      `with 'hasAux: true', ${functionLabel} must return '[loss, aux]' or '{ value: loss, aux }' with a number loss (a tuple return type such as '[number, string]' if annotated), but this is ${shown}`,
    ),
};
