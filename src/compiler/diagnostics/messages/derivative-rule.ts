import { message, type Printable } from "./message.js";

// The messages of NABLA115 (a registerDerivative nabla cannot use): every text of the code, with
// the parts that vary as parameters; docs/diagnostics.md shows examples.

export const derivativeRule = {
  noTypeDeclarations: (name: Printable, specifier: Printable) =>
    message(
      "derivativeRule",
      `cannot find the type declarations of '${name}' in package '${specifier}' (a .d.ts file that declares it); nabla needs its parameter types`,
    ),
  notAFunctionNablaCanSee: (name: Printable) =>
    message(
      "derivativeRule",
      `'${name}' is not a function nabla can see: register derivatives of functions declared in this program or imported from a package with type declarations`,
    ),
  forwardRuleParameterCount: (
    name: Printable,
    parameters: Printable,
    count: Printable,
    list: Printable,
  ) =>
    message(
      "derivativeRule",
      `the forward rule of '${name}' takes ${parameters}, but it is called with ${count} ${list}: the arguments of '${name}', then the tangents of its differentiable parameters`,
    ),
  reverseRuleParameterCount: (
    name: Printable,
    parameters: Printable,
    argumentsText: Printable,
    list: Printable,
  ) =>
    message(
      "derivativeRule",
      `the reverse rule of '${name}' takes ${parameters}, but it is called with the ${argumentsText} of '${name}' ${list}`,
    ),
  registerDerivativeNeedsFunctionByName: () =>
    message(
      "derivativeRule",
      `'registerDerivative' needs the function by name: a function declared in this program or imported from a package`,
    ),
  parameterOfIsOptionalHas: (text: Printable, name: Printable) =>
    message(
      "derivativeRule",
      `the parameter '${text}' of '${name}' is optional, has a default or gathers the rest; functions with registered derivatives take plain parameters`,
    ),
  parameterOfNeedsTypeAnnotation: (name: Printable, name2: Printable) =>
    message(
      "derivativeRule",
      `the parameter '${name}' of '${name2}' needs a type annotation nabla understands (number, arrays, typed arrays, objects) to register its derivative`,
    ),
  ruleOfMustBeFunction: (kind: Printable, name: Printable) =>
    message(
      "derivativeRule",
      `the '${kind}' rule of '${name}' must be a function`,
      kind === "forward"
        ? `write it as an arrow function: 'forward: (x, dx) => ({ value: ${name}(x), tangent: … })'`
        : `write it as an arrow function: 'reverse: (x) => ({ value: ${name}(x), pullback: (dy) => … })'`,
    ),
  parameterOfRuleOfIs: (
    value: Printable,
    kind: Printable,
    name: Printable,
    value2: Printable,
    typeText: Printable,
    typeText2: Printable,
  ) =>
    message(
      "derivativeRule",
      `parameter ${value} of the ${kind} rule of '${name}' is ${value2}, of type ${typeText}, but it is declared ${typeText2}`,
    ),
  registerDerivativeMustBeStatementAt: () =>
    message(
      "derivativeRule",
      `'registerDerivative' must be a statement at the top level of a module, so nabla sees every registration whatever runs first`,
      `move it to the top level of the module that declares the function`,
    ),
  registerDerivativeTakesTwoArgumentsFunction: () =>
    message(
      "derivativeRule",
      `'registerDerivative' takes two arguments: the function and its rule { forward, reverse }`,
    ),
  ruleGivenToRegisterDerivativeMust: () =>
    message(
      "derivativeRule",
      `the rule given to 'registerDerivative' must be an object literal { forward, reverse }, so nabla can read it`,
    ),
  derivativeRuleHasOnlyMembers: () =>
    message("derivativeRule", `a derivative rule has only the members 'forward' and 'reverse'`),
  derivativeRuleNeedsForwardReverse: () =>
    message("derivativeRule", `a derivative rule needs 'forward', 'reverse' or both`),
  alreadyHasRegisteredDerivativeFunction: (name: Printable) =>
    message(
      "derivativeRule",
      `'${name}' already has a registered derivative; a function can have one rule`,
      `keep one registration, with both 'forward' and 'reverse' in its rule`,
    ),
  hasRegisteredDerivativeWithoutRule: (
    targetName: Printable,
    value: Printable,
    value2: Printable,
  ) =>
    message(
      "derivativeRule",
      `'${targetName}' has a registered derivative without a '${value}' rule, which ${value2} needs`,
      `add a '${value}' rule to the registration of '${targetName}'`,
    ),
};
