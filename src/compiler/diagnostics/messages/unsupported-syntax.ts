import { message, type Printable } from "./message.js";

// The messages of NABLA101 (syntax differentiable code does not support (yet)): every text of the
// code, with the parts that vary as parameters; docs/diagnostics.md shows examples.

export const unsupportedSyntax = {
  decoratorsAreNotSupportedIn: () =>
    message(
      "unsupportedSyntax",
      `decorators are not supported in files nabla compiles (nabla does not transform them, and Node cannot run them); apply the decorator function by hand instead`,
    ),
  noLoopLabeled: (label: Printable) =>
    message("unsupportedSyntax", `no enclosing loop is labeled '${label}'`),
  breakOutsideLoop: () => message("unsupportedSyntax", `'break' or 'continue' outside a loop`),
  arrayFromIsSupportedAs: () =>
    message(
      "unsupportedSyntax",
      `'Array.from' is supported as 'Array.from({ length: n }, (_, i) => …)', 'Array.from(array)' or 'Array.from(array, (v, i) => …)'`,
    ),
  concatNeedsPlainArray: (typeText: Printable) =>
    message("unsupportedSyntax", `'.concat' needs a plain array, not a ${typeText}`),
  reverseNeedsOneElementType: (typeText: Printable) =>
    message(
      "unsupportedSyntax",
      `'.reverse' of a ${typeText} would move its elements to places of other types; reverse an array ('T[]') instead`,
    ),
  iteratorOutsideForOf: (method: Printable) =>
    message(
      "unsupportedSyntax",
      `'.${method}()' is supported as what a for…of iterates ('for (const [i, v] of xs.entries())'); elsewhere, loop over the indices or use '.map'`,
    ),
  arrayHolesAreNotSupported: () => message("unsupportedSyntax", `array holes are not supported`),
  arrayMethodIsNotSupported: (method: Printable) =>
    message(
      "unsupportedSyntax",
      `the array method '.${method}' is not supported in differentiable code (push, fill, slice, flat, concat, reverse, indexOf, includes, map, filter, forEach, reduce, reduceRight, some, every, find and findIndex are, and entries, keys and values in a for…of)`,
    ),
  assigningOfIsNotSupported: (describeNode: Printable, typeText: Printable) =>
    message(
      "unsupportedSyntax",
      `assigning ${describeNode} of ${typeText} is not supported in differentiable code`,
    ),
  assignmentIsNotSupportedIn: (operator: Printable) =>
    message(
      "unsupportedSyntax",
      `the '${operator}' assignment is not supported in differentiable code`,
    ),
  assignmentToIsNotSupported: (describeNode: Printable) =>
    message(
      "unsupportedSyntax",
      `assignment to ${describeNode} is not supported yet in differentiable code`,
    ),
  assignmentToOfIsNot: (describeNode: Printable, typeText: Printable) =>
    message(
      "unsupportedSyntax",
      `assignment to ${describeNode} of a ${typeText} is not supported in differentiable code`,
    ),
  callbackParametersMustBePlain: () =>
    message(
      "unsupportedSyntax",
      `a callback's parameters must be names or destructuring patterns, without default values or rest parameters`,
    ),
  callingIsNotSupportedIn: (describeNode: Printable) =>
    message("unsupportedSyntax", `calling ${describeNode} is not supported in differentiable code`),
  callingOnIsNotSupported: (describeNode: Printable, article: Printable) =>
    message(
      "unsupportedSyntax",
      `calling ${describeNode} on ${article} is not supported in differentiable code`,
    ),
  cannotAssignToPattern: (operator: Printable) =>
    message("unsupportedSyntax", `'${operator}' cannot assign to a pattern`),
  cannotDifferentiateSeeDiagnosticAbove: (functionLabel: Printable) =>
    message(
      "unsupportedSyntax",
      `cannot differentiate ${functionLabel} (see the diagnostic above)`,
    ),
  computedPropertyNamesOK: () =>
    message(
      "unsupportedSyntax",
      `computed property names ('o[k]') are not supported on objects in differentiable code`,
    ),
  computedFieldsOfMixedTypes: (type: Printable) =>
    message(
      "unsupportedSyntax",
      `'o[k]' with a key chosen at run time needs the fields of '${type}' to be of one type and not optional; read the field by name, or make it a 'Record<string, …>'`,
    ),
  mapReadWithBrackets: (type: Printable) =>
    message(
      "unsupportedSyntax",
      `a '${type}' is read with '.get(key)' and written with '.set(key, value)', not with brackets or '.name'`,
    ),
  mapMethodTakes: (method: Printable, count: Printable) =>
    message(
      "unsupportedSyntax",
      `'${method}' takes ${count} argument${count === 1 ? "" : "s"} here (no spread arguments)`,
    ),
  mapMethodIsNotSupported: (method: Printable) =>
    message(
      "unsupportedSyntax",
      `'.${method}' of a Map is not supported in differentiable code yet (supported: get, set, has, keys, values, entries, size, and for…of); loop over 'm.entries()' instead`,
    ),
  setMethodIsNotSupported: (method: Printable) =>
    message(
      "unsupportedSyntax",
      `'.${method}' of a Set is not supported in differentiable code yet (supported: has, add, keys, values, size, spreads and for…of)`,
    ),
  objectFunctionNeedsRecord: (name: Printable, type: Printable) =>
    message(
      "unsupportedSyntax",
      `'Object.${name}' in differentiable code needs a record ('Record<string, …>' or '{ [key: string]: … }'), not a ${type}`,
    ),
  forInNeedsRecord: (type: Printable) =>
    message(
      "unsupportedSyntax",
      `'for…in' in differentiable code walks the keys of a record ('Record<string, …>'), not of a ${type}; loop over an array of the names, or over 'm.keys()' for a map`,
    ),
  inOnMap: () =>
    message("unsupportedSyntax", `'key in map' tests the map's properties; use 'map.has(key)'`),
  mapTypeUnknown: (text: Printable) =>
    message(
      "unsupportedSyntax",
      `nabla cannot tell the key and value types of '${text}' (maps of numbers, arrays and objects keyed by strings or numbers are supported); annotate it, e.g. 'new Map<string, number>()'`,
    ),
  declarationsAreNotSupportedIn: (kind: Printable) =>
    message("unsupportedSyntax", `'${kind}' declarations are not supported in differentiable code`),
  destructuringDeclarationNeedsInitializer: () =>
    message("unsupportedSyntax", `a destructuring declaration needs an initializer`),
  differentiableCodeCanThrowNew: () =>
    message(
      "unsupportedSyntax",
      `differentiable code can throw 'new Error(message)' (or RangeError, TypeError) with a string message; throw other values outside it`,
    ),
  forAwaitIsNotSupported: () => message("unsupportedSyntax", `'for await' is not supported`),
  forOfLoopMustDeclare: () =>
    message(
      "unsupportedSyntax",
      `a 'for…of' loop must declare its variable ('for (const x of xs)')`,
    ),
  functionPassedToAnotherFunction: () =>
    message(
      "unsupportedSyntax",
      `a function passed to another function must be a plain function with simple parameters to be differentiated`,
    ),
  functionUsedAsValueHere: (name: Printable, name2: Printable) =>
    message(
      "unsupportedSyntax",
      `function '${name}' used as a value here; differentiable code can call it, pass it to a function-typed parameter, or name it ('const f = ${name2}'), but not use it as another kind of value`,
    ),
  hasNoFieldThatNabla: (what: Printable, name: Printable) =>
    message(
      "unsupportedSyntax",
      `${what} has no field '${name}' that nabla knows of (methods are called, not read)`,
    ),
  isGivenFunctionThatWraps: (
    name: Printable,
    MAX_SPECIALIZATION_DEPTH: Printable,
    name2: Printable,
  ) =>
    message(
      "unsupportedSyntax",
      `'${name}' is given a function that wraps the function it was given, ${MAX_SPECIALIZATION_DEPTH} levels deep: nabla compiles a copy of '${name2}' for each function it is given, so a recursion that wraps its function argument has no end; pass the same function down and the extra work as a parameter`,
    ),
  isNotSupportedInDifferentiable: (describeNode: Printable) =>
    message("unsupportedSyntax", `${describeNode} is not supported in differentiable code`),
  superCallMustBeAStatement: (name: Printable) =>
    message(
      "unsupportedSyntax",
      `${name === undefined ? "this 'super(…)'" : `the constructor of '${name}'`} is not supported in differentiable code: nabla runs a base class's constructor where 'super(…)' is a statement of the constructor's body (not inside a condition or an expression)`,
    ),
  superCallMissingArgument: (name: Printable) =>
    message(
      "unsupportedSyntax",
      `this 'super(…)' gives no argument for the base constructor's parameter '${name}', which has no default`,
    ),
  constructNotSupported: (what: Printable) =>
    message("unsupportedSyntax", `${what} is not supported in differentiable code`),
  isOnlyPlainFunctionsCan: (shown: Printable, value: Printable) =>
    message(
      "unsupportedSyntax",
      `'${shown}' is ${value}; only plain functions can be differentiated`,
    ),
  labelsAreSupportedOnLoops: () =>
    message("unsupportedSyntax", `labels are supported on loops only`),
  localFunctionCallsItselfRecursive: (name: Printable) =>
    message(
      "unsupportedSyntax",
      `the local function '${name}' calls itself; recursive local functions are not supported in differentiable code (declare it at the top level)`,
    ),
  localFunctionCannotPassItself: () =>
    message(
      "unsupportedSyntax",
      `a local function cannot pass itself on; recursive local functions are not supported in differentiable code (declare it at the top level)`,
    ),
  localFunctionMustBePlain: (name: Printable) =>
    message(
      "unsupportedSyntax",
      `the local function '${name}' must be a plain function with simple parameters to be differentiated`,
    ),
  mathIsNotMathConstant: (math: Printable) =>
    message(
      "unsupportedSyntax",
      `'Math.${math}' is not a Math constant; only calls of Math functions are supported`,
    ),
  newIsNotSupportedIn: (value: Printable) =>
    message(
      "unsupportedSyntax",
      `'new ${value}' is not supported in differentiable code (typed arrays and 'new Array(n)' are; build objects with literals)`,
    ),
  ofIsNotSupportedIn: (name: Printable, typeText: Printable) =>
    message(
      "unsupportedSyntax",
      `'${name}' of ${typeText} is not supported in differentiable code (only '.length', elements and the array methods in docs/guide.md)`,
    ),
  onIsNotSupportedIn: (describeNode: Printable, typeText: Printable) =>
    message(
      "unsupportedSyntax",
      `${describeNode} on a ${typeText} is not supported in differentiable code`,
    ),
  onlyPlainKeyValueProperties: () =>
    message(
      "unsupportedSyntax",
      `only plain 'key: value' properties are supported in object literals`,
    ),
  operatorIsNotSupportedIn: (operator: Printable) =>
    message(
      "unsupportedSyntax",
      `the '${operator}' operator is not supported in differentiable code`,
    ),
  optionalCallsAreNotSupported: () =>
    message("unsupportedSyntax", `optional calls are not supported in differentiable code`),
  optionalChainingIsNotSupported: () =>
    message("unsupportedSyntax", `optional chaining is not supported`),
  pushNeedsPlainArrayNot: (typeText: Printable) =>
    message("unsupportedSyntax", `'.push' needs a plain array, not a ${typeText}`),
  restElementRestInDestructuring: () =>
    message(
      "unsupportedSyntax",
      `a rest element ('...rest') in destructuring is not supported in differentiable code`,
    ),
  returnsBeforeItsLastStatement: (what: Printable) =>
    message(
      "unsupportedSyntax",
      `${what} returns before its last statement; annotate its return type (as in '(p: number[]): number[] => …') so nabla knows what its returns give`,
    ),
  spreadArgumentsAreNotSupported: () =>
    message("unsupportedSyntax", `spread arguments are not supported in differentiable code`),
  spreadOfArrayMustBeLast: () =>
    message(
      "unsupportedSyntax",
      `spreading an array into a call's arguments is supported as the last argument (or anywhere for a tuple, whose length its type gives): the arguments after it would take places that depend on its length`,
    ),
  spreadingIntoObjectIsNot: (typeText: Printable) =>
    message("unsupportedSyntax", `spreading a ${typeText} into an object is not supported`),
  spreadingIsNotSupported: (typeText: Printable) =>
    message("unsupportedSyntax", `spreading a ${typeText} is not supported`),
  staticMethodsAreNotSupported: (path: Printable) =>
    message(
      "unsupportedSyntax",
      `'${path}' is not a static method nabla can call (a static method with a body); use a function declared at the top level`,
    ),
  thisIsOnlySupportedIn: () => message("unsupportedSyntax", `'this' is only supported in methods`),
  undefinedIsNotSupportedIn: () =>
    message("unsupportedSyntax", `'undefined' is not supported in differentiable code`),
  unsupportedPropertyKey: () => message("unsupportedSyntax", `unsupported property key`),
  varDeclarationsAreNotSupported: () =>
    message(
      "unsupportedSyntax",
      `'var' declarations are not supported in differentiable code; use 'let' or 'const'`,
    ),
  withDerivativeNeedsFunctionFunctionDeclared: () =>
    message(
      "unsupportedSyntax",
      `'withDerivative' needs a function: a function declared at the top level, or an arrow function written here`,
    ),
};
