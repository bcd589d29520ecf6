import { message, type CodeContext, type Printable } from "./message.js";

// The messages of NABLA116 (nested differentiation nabla cannot do): every text of the code, with
// the parts that vary as parameters; docs/diagnostics.md shows examples.

const inside = (where: CodeContext) =>
  where === "wasm"
    ? "inside a function run as WebAssembly, where operators are lowered like nested ones"
    : "inside differentiable code";
/** An operator that cannot be nested (`what`, quoted), where it is. */
const notNestable = (what: Printable, where: CodeContext) =>
  where === "wasm"
    ? `${what} is not covered inside a function run as WebAssembly: operators there are lowered like nested ones, which may be 'derivative', 'gradient' or their 'valueWith…' forms (call ${what} from code run as JavaScript instead)`
    : `${what} cannot be used inside differentiable code; inside, use 'derivative', 'gradient' or their 'valueWith…' forms (nabla differentiates those again)`;

export const nestedDifferentiation = {
  innerGradientOfArrayWrites: (operator: Printable) =>
    message(
      "nestedDifferentiation",
      `inside differentiable code, '${operator}' with respect to an array runs its function once per element, and this function changes arrays it is given or captures; keep the function free of writes (copy the array first)`,
    ),
  innerGradientOfParametersWrites: (operator: Printable, count: Printable) =>
    message(
      "nestedDifferentiation",
      `inside differentiable code, '${operator}' with respect to ${count} parameters runs its function once per parameter, and this function changes arrays it is given or captures; differentiate with respect to one parameter at a time, or keep the function free of writes`,
    ),
  innerOperatorWrtOneArray: (
    operator: Printable,
    name: Printable,
    index: Printable,
    where: CodeContext = "differentiable",
  ) =>
    message(
      "nestedDifferentiation",
      `${inside(where)}, '${operator}' differentiates with respect to one array, or to numbers: pick the array '${name}' alone with '{ wrt: ${index} }' (nabla computes it in forward mode, one direction per number)`,
    ),
  innerOperatorWrtNumbers: (
    operator: Printable,
    name: Printable,
    where: CodeContext = "differentiable",
  ) =>
    message(
      "nestedDifferentiation",
      `${inside(where)}, '${operator}' differentiates with respect to numbers, one array of numbers or one object of numbers (parameter '${name}' is none of these): nabla computes it in forward mode, one direction per number`,
    ),
  cannotBeUsedInsideDifferentiable: (maker: Printable, where: CodeContext = "differentiable") =>
    message("nestedDifferentiation", notNestable(`'${maker}'`, where)),
  operatorCannotBeNested: (operator: Printable, where: CodeContext = "differentiable") =>
    message("nestedDifferentiation", notNestable(`'${operator}'`, where)),
  cannotDifferentiateDerivativeOfAgain: (targetName: Printable) =>
    message(
      "nestedDifferentiation",
      `cannot differentiate the derivative of '${targetName}' again: its derivative is a registered rule, and nabla does not differentiate rules`,
      `differentiate '${targetName}' once, or remove its rule so nabla differentiates its body`,
    ),
  differentiatesItselfWithoutEnd: (label: Printable) =>
    message(
      "nestedDifferentiation",
      `${label} calls itself inside a function it gives an operator ('derivative((s) => … f(n - 1, s))'), so its derivative needs its derivative of the next order, and that one the next, without end; nabla compiles derivatives of a fixed order`,
      "write the inner derivative by hand, or take the operator out of the recursion (differentiate a function that does not call the one differentiating it)",
    ),
  hasAuxIsNotSupportedInside: (where: CodeContext = "differentiable") =>
    message(
      "nestedDifferentiation",
      `'hasAux' is not supported ${inside(where)}; differentiate the loss alone there, and compute the aux outside`,
    ),
  holdsFunctionChosenAtRun: (
    name: Printable,
    operator: Printable,
    where: CodeContext = "differentiable",
  ) =>
    message(
      "nestedDifferentiation",
      `'${name}' holds a function chosen at run time; ${inside(where)}, '${operator}' needs a function known where the code is compiled`,
    ),
  holdsNoFunction: (name: Printable, operator: Printable) =>
    message(
      "nestedDifferentiation",
      `'${name}' holds no function here (it was left out, or given undefined or null), so '${operator}' has nothing to differentiate`,
    ),
  ofFunctionValueTakesNo: (operator: Printable) =>
    message(
      "nestedDifferentiation",
      `'${operator}' of a function value takes no options: it differentiates with respect to every parameter`,
    ),
  returnsFunctionInsideDifferentiableCode: (
    path: Printable,
    lastName: Printable,
    where: CodeContext = "differentiable",
  ) =>
    message(
      "nestedDifferentiation",
      `'${path}' returns a function; ${inside(where)}, call it where it is made, as in '${lastName}(f)(x)', or hold it in a 'const' and call that`,
    ),
  heldOperatorShadowed: (name: Printable, fn: Printable) =>
    message(
      "nestedDifferentiation",
      `'${name}' was made from '${fn}', which means something else here: call the operator where '${fn}' is the function it was given`,
    ),
  withDerivativeCannotBeDifferentiatedAgain: () =>
    message(
      "nestedDifferentiation",
      `'withDerivative' cannot be differentiated again: its function only sees the first derivative`,
    ),
};
