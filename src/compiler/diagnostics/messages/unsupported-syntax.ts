import { message, withArticle, type CodeContext, type Printable } from "./message.js";
import { arrayMethodHelp, constructHelp, operatorHelp } from "./syntax-help.js";

// The messages of NABLA101 (syntax differentiable code does not support (yet)): every text of the
// code, with the parts that vary as parameters; docs/diagnostics.md shows examples.

export const unsupportedSyntax = {
  decoratorsAreNotSupportedIn: () =>
    message(
      "unsupportedSyntax",
      `decorators are not supported in files nabla compiles (nabla does not transform them, and Node cannot run them); apply the decorator function by hand instead`,
    ),
  noLoopLabeled: (label: Printable) =>
    message(
      "unsupportedSyntax",
      `no enclosing loop is labeled '${label}'`,
      `put the label '${label}:' on the loop to leave, as in '${label}: for (…)'`,
    ),
  breakOutsideLoop: () =>
    message(
      "unsupportedSyntax",
      `'break' or 'continue' outside a loop`,
      `use 'return' to leave the function`,
    ),
  arrayFromIsSupportedAs: () =>
    message(
      "unsupportedSyntax",
      `'Array.from' is supported as 'Array.from({ length: n }, (_, i) => …)', 'Array.from(array)' or 'Array.from(array, (v, i) => …)'`,
    ),
  concatNeedsPlainArray: (typeText: Printable) =>
    message(
      "unsupportedSyntax",
      `'.concat' needs a plain array, not ${withArticle(typeText)}`,
      `spread the values into an array literal: '[...a, ...b]'`,
    ),
  reverseNeedsOneElementType: (typeText: Printable) =>
    message(
      "unsupportedSyntax",
      `'.reverse' of a ${typeText} would move its elements to places of other types`,
      `reverse an array ('T[]') instead`,
    ),
  iteratorOutsideForOf: (method: Printable) =>
    message(
      "unsupportedSyntax",
      `'.${method}()' is supported as what a for…of iterates ('for (const [i, v] of xs.entries())')`,
      `elsewhere, loop over the indices or use '.map'`,
    ),
  arrayHolesAreNotSupported: () =>
    message(
      "unsupportedSyntax",
      `array holes are not supported`,
      `write every element, e.g. '[a, 0, b]' rather than '[a, , b]'`,
    ),
  arrayMethodIsNotSupported: (method: Printable) =>
    message(
      "unsupportedSyntax",
      `the array method '.${method}' is not supported in differentiable code (push, pop, shift, unshift, splice, fill, slice, flat, flatMap, concat, reverse, toReversed, sort, toSorted, at, join, indexOf, lastIndexOf, includes, map, filter, forEach, reduce, reduceRight, some, every, find, findIndex, findLast and findLastIndex are, a typed array's set, and entries, keys and values in a for…of)`,
      arrayMethodHelp(String(method)),
    ),
  searchByIdentity: (method: Printable, typeText: Printable) =>
    message(
      "unsupportedSyntax",
      `'.${method}' looks for the element that is this very ${typeText} ('==='), and differentiable code does not compare arrays and objects by identity`,
      `compare a field instead, e.g. 'findIndex((p) => p.id === wanted.id)', or keep the index where the element is found`,
    ),
  assigningOfIsNotSupported: (describeNode: Printable, typeText: Printable) =>
    message(
      "unsupportedSyntax",
      `assigning ${describeNode} of ${typeText} is not supported in differentiable code`,
      `assign elements ('xs[i] = v'); to change the length, build a new array ('xs.slice(0, n)', '[...xs, v]')`,
    ),
  assignmentIsNotSupportedIn: (operator: Printable) =>
    message(
      "unsupportedSyntax",
      `the '${operator}' assignment is not supported in differentiable code`,
      `write it out: 'x = x ${String(operator).slice(0, -1)} y'`,
    ),
  assignmentToIsNotSupported: (describeNode: Printable) =>
    message(
      "unsupportedSyntax",
      `assignment to ${describeNode} is not supported yet in differentiable code`,
      `assign to a variable or to an element or field ('x = v', 'xs[i] = v', 'o.x = v')`,
    ),
  assignmentToOfIsNot: (describeNode: Printable, typeText: Printable) =>
    message(
      "unsupportedSyntax",
      `assignment to ${describeNode} of a ${typeText} is not supported in differentiable code`,
      `assign to a variable, or to an element of an array or a field of an object`,
    ),
  builtinCallbackReadsMore: (
    name: Printable,
    method: Printable,
    args: Printable,
    reads: Printable,
    suggestion: Printable,
  ) =>
    message(
      "unsupportedSyntax",
      `'${name}' as the callback of '.${method}' is called with ${args}, and it reads ${reads}`,
      `pass an arrow that calls it as you mean, such as '${suggestion}'`,
    ),
  callbackParametersMustBePlain: () =>
    message(
      "unsupportedSyntax",
      `a callback's parameters must be names or destructuring patterns, without default values or rest parameters`,
      `take the argument by name and give the default in the body ('(x) => { const v = x ?? 0; … }')`,
    ),
  callingIsNotSupportedIn: (describeNode: Printable) =>
    message(
      "unsupportedSyntax",
      `calling ${describeNode} is not supported in differentiable code`,
      `give the function a name (a top-level function, or 'const f = (…) => …') and call 'f(…)'`,
    ),
  returnsFunctionItWrites: (name: Printable, written: Printable) =>
    message(
      "unsupportedSyntax",
      `'${name}' returns a function it writes ('${written}'), which differentiable code cannot call once '${name}' has returned: nabla follows a returned function that is declared in the program (or written in module-level data), or one a factory returns as its last statement`,
      `declare that function at the top level of its module and return it by name, or end '${name}' with 'return (…) => …'`,
    ),
  callingTheResultOfACall: (call: Printable) =>
    message(
      "unsupportedSyntax",
      `calling the function '${call}' returns, in the same expression, is not supported in differentiable code`,
      `name it first, then call it: 'const f = ${call}; f(…)'`,
    ),
  callingOnIsNotSupported: (describeNode: Printable, article: Printable) =>
    message(
      "unsupportedSyntax",
      `calling ${describeNode} on ${article} is not supported in differentiable code`,
      `call a function of the program with the value as an argument ('f(value)')`,
    ),
  cannotAssignToPattern: (operator: Printable) =>
    message(
      "unsupportedSyntax",
      `'${operator}' cannot assign to a pattern`,
      `assign each variable on its own ('a ${operator} p[0]; b ${operator} p[1];')`,
    ),
  cannotDifferentiateSeeDiagnosticAbove: (functionLabel: Printable) =>
    message(
      "unsupportedSyntax",
      `cannot differentiate ${functionLabel} (see the diagnostic above)`,
    ),
  computedPropertyNamesOK: () =>
    message(
      "unsupportedSyntax",
      `computed property names ('o[k]') are not supported on objects in differentiable code`,
      `read the field by name ('o.x'), or keep values you look up by position in an array ('xs[i]')`,
    ),
  computedFieldsOfMixedTypes: (type: Printable) =>
    message(
      "unsupportedSyntax",
      `'o[k]' with a key chosen at run time needs the fields of '${type}' to be of one type and not optional`,
      `read the field by name, or make it a 'Record<string, …>'`,
    ),
  mapReadWithBrackets: (type: Printable) =>
    message(
      "unsupportedSyntax",
      `a '${type}' is not read with brackets or '.name'`,
      `read it with 'm.get(key)' and write it with 'm.set(key, value)'`,
    ),
  mapMethodTakes: (method: Printable, count: Printable) =>
    message(
      "unsupportedSyntax",
      `'${method}' takes ${count} argument${count === 1 ? "" : "s"} here (no spread arguments)`,
      `pass the arguments one by one`,
    ),
  mapMethodIsNotSupported: (method: Printable) =>
    message(
      "unsupportedSyntax",
      `'.${method}' of a Map is not supported in differentiable code yet (supported: get, set, has, delete, keys, values, entries, size, forEach, and for…of)`,
      `loop over the map instead: 'for (const [key, value] of m)'`,
    ),
  setMethodIsNotSupported: (method: Printable) =>
    message(
      "unsupportedSyntax",
      `'.${method}' of a Set is not supported in differentiable code yet (supported: has, add, delete, keys, values, size, forEach, spreads and for…of)`,
      `build a new set from the keys you keep: 'new Set([...s].filter(…))'`,
    ),
  stringMethodArguments: (method: Printable, type: Printable) =>
    message(
      "unsupportedSyntax",
      `the string method '.${method}' in differentiable code takes numbers and strings, not a ${type}`,
      `compute the text outside the differentiated function and pass it in, or give '.${method}' a string`,
    ),
  objectAssignNeeds: (what: Printable) =>
    message(
      "unsupportedSyntax",
      `'Object.assign' in differentiable code copies objects of known fields into an object or a record; ${what}`,
      `assign the fields one by one ('target.x = source.x'), or make a new object ('{ ...target, ...source }')`,
    ),
  objectFunctionNeedsRecord: (name: Printable, type: Printable) =>
    message(
      "unsupportedSyntax",
      `'Object.${name}' in differentiable code needs a record ('Record<string, …>' or '{ [key: string]: … }'), not a ${type}`,
      `give the value a record type, or list the fields by name`,
    ),
  iteratingAGenerator: (type: Printable) =>
    message(
      "unsupportedSyntax",
      `iterating ${/^[aeiouAEIOU]/.test(String(type)) ? "an" : "a"} ${type} held in a variable or passed in is not supported in differentiable code`,
      `declare the parameter as an array ('xs: readonly number[]') where arrays are passed; iterate a generator's call itself, 'for (const x of gen(…))', or collect its values into an array outside the differentiated function and pass that`,
    ),
  generatorOutsideForOf: (name: Printable) =>
    message(
      "unsupportedSyntax",
      `'${name}' is a generator; differentiable code can use its values only in a 'for…of' over its call`,
      `loop over the call, 'for (const x of ${name}(…))', pushing the values into an array if you need them together`,
    ),
  generatorIteratesItself: (name: Printable) =>
    message(
      "unsupportedSyntax",
      `the generator '${name}' iterates itself; recursive generators are not supported in differentiable code`,
      `write the recursion as a loop over an explicit stack, or build the values in an array with a recursive plain function`,
    ),
  generatorOverridden: (base: Printable, derived: Printable) =>
    message(
      "unsupportedSyntax",
      `iterating a '${base}' whose subclass '${derived}' overrides its generator is not supported in differentiable code (which one runs depends on the object)`,
      `give the loop a value of the subclass's own type, or iterate an array of the values`,
    ),
  generatorReadsItsModule: (name: Printable) =>
    message(
      "unsupportedSyntax",
      `a generator of another module reading its module's '${name}' is not supported in differentiable code yet`,
      `pass '${name}' to the generator as an argument, import it where the loop is too, or declare the generator in the loop's module`,
    ),
  factoryReadsItsModule: (name: Printable) =>
    message(
      "unsupportedSyntax",
      `a factory of another module, or a method of the object it returns, reading its module's '${name}' is not supported in differentiable code yet`,
      `pass '${name}' to the factory as an argument, import it where the factory is called too, or declare the factory in that module`,
    ),
  baseConstructorReadsItsModule: (name: Printable, base: Printable) =>
    message(
      "unsupportedSyntax",
      `the constructor of '${base}', a class of another module run here by 'super(…)', reading its module's '${name}' is not supported in differentiable code yet`,
      `import '${name}' in the module of the subclass too (export it if it is not), or pass it to the constructor as an argument`,
    ),
  generatorSpreadArguments: () =>
    message(
      "unsupportedSyntax",
      `spread arguments to a generator iterated in differentiable code are not supported`,
      `pass the arguments one by one`,
    ),
  generatorReturnsValue: () =>
    message(
      "unsupportedSyntax",
      `a generator's 'return' with a value is not supported in differentiable code ('for…of' never sees that value)`,
      `write 'return;', and 'yield' the value first if the loop should see it`,
    ),
  yieldWithoutValue: () =>
    message(
      "unsupportedSyntax",
      `'yield' without a value (it yields undefined) is not supported in differentiable code`,
      `yield the value the loop should see`,
    ),
  yieldAsValue: () =>
    message(
      "unsupportedSyntax",
      `the value of a 'yield' expression (what 'next(v)' passes in) is not supported in differentiable code`,
      `write 'yield value;' as a statement of its own`,
    ),
  forInNeedsRecord: (type: Printable) =>
    message(
      "unsupportedSyntax",
      `'for…in' in differentiable code walks the keys of an object or a record ('Record<string, …>'), not of a ${type}`,
      `loop with 'for…of' over the elements, or over 'xs.keys()' for the indices ('m.keys()' for a map)`,
    ),
  inOnMap: () =>
    message(
      "unsupportedSyntax",
      `'key in map' tests the map's properties, not its keys`,
      `use 'map.has(key)'`,
    ),
  mapTypeUnknown: (text: Printable) =>
    message(
      "unsupportedSyntax",
      `nabla cannot tell the key and value types of '${text}' (maps and sets keyed by strings or numbers are supported)`,
      `give the types, e.g. 'new Map<string, number>()'`,
    ),
  declarationsAreNotSupportedIn: (kind: Printable) =>
    message(
      "unsupportedSyntax",
      `'${kind}' declarations are not supported in differentiable code`,
      `declare it with 'const' or 'let'`,
    ),
  destructuringDeclarationNeedsInitializer: () =>
    message(
      "unsupportedSyntax",
      `a destructuring declaration needs an initializer`,
      `give it the value to take apart: 'const { a, b } = p'`,
    ),
  differentiableCodeCanThrowNew: () =>
    message(
      "unsupportedSyntax",
      `differentiable code can throw 'new Error(message)' (or RangeError, TypeError) with a string message; throw other values outside it`,
    ),
  forAwaitIsNotSupported: () =>
    message(
      "unsupportedSyntax",
      `'for await' is not supported`,
      `await the values before calling the differentiated function, and loop over an array with 'for…of'`,
    ),
  forOfLoopMustDeclare: () =>
    message(
      "unsupportedSyntax",
      `a 'for…of' loop must declare its variable ('for (const x of xs)')`,
    ),
  functionPassedToAnotherFunction: () =>
    message(
      "unsupportedSyntax",
      `a function passed to another function must be a plain function with simple parameters to be differentiated`,
      `give it parameters that are names, with or without defaults, or patterns ('(x: number, k = 2) => …'), not rest parameters`,
    ),
  functionsIntoRestParameter: (callee: Printable, rest: Printable) =>
    message(
      "unsupportedSyntax",
      `'${callee}' takes functions through its rest parameter '...${rest}', which differentiable code supports only in a function that ends by returning a function written there ('const compose = (...fns: Fn[]) => (x: number) => …')`,
      `write '${callee}' to return '(x: number) => …' applying the functions, and call that ('${callee}(f, g)(x)'), or take the functions as separate parameters`,
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
      `declare the field in the type, or call the method ('.${name}(…)')`,
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
  /** `kind`: the construct's syntax kind (lower/describe.ts `syntaxKind`), which picks the help. */
  isNotSupportedInDifferentiable: (
    describeNode: Printable,
    kind: string,
    where: CodeContext = "differentiable",
  ) =>
    message(
      "unsupportedSyntax",
      `${describeNode} is not supported in ${where === "wasm" ? "a function run as WebAssembly" : "differentiable code"}`,
      constructHelp(kind),
    ),
  superCallMustBeAStatement: (name: Printable) =>
    message(
      "unsupportedSyntax",
      `${name === undefined ? "this 'super(…)'" : `the constructor of '${name}'`} is not supported in differentiable code: nabla runs a base class's constructor where 'super(…)' is a statement of the constructor's body (not inside a condition or an expression)`,
      `call 'super(…)' as a statement of its own in the constructor`,
    ),
  superCallMissingArgument: (name: Printable) =>
    message(
      "unsupportedSyntax",
      `this 'super(…)' gives no argument for the base constructor's parameter '${name}', which has no default`,
      `pass a value for '${name}'`,
    ),
  deleteNeedsRecord: (type: Printable) =>
    message(
      "unsupportedSyntax",
      `'delete' in differentiable code removes a key of a record ('Record<string, …>'), not a field of a ${type}`,
      `keep the field and give it a value that means none (such as 0), or use a record or a Map`,
    ),
  sortWithoutComparator: (method: string) =>
    message(
      "unsupportedSyntax",
      `'.${method}()' without a comparator is supported for arrays of numbers, booleans and strings: JavaScript orders other elements by their text ('[object Object]' for every object)`,
      `pass the order you mean, such as '.${method}((a, b) => a.cost - b.cost)'`,
    ),
  sortOfTuple: (method: string) =>
    message(
      "unsupportedSyntax",
      `'.${method}' of a tuple is not supported in differentiable code: its elements' types are known by position`,
      `sort an array ('number[]') instead`,
    ),
  sortComparatorForm: (method: string) =>
    message(
      "unsupportedSyntax",
      `this comparator of '.${method}' is not supported in differentiable code`,
      `write it at the call ('(a, b) => a.cost - b.cost') or name a function of the program`,
    ),
  genericClass: (what: Printable, generic: Printable, params: Printable) =>
    message(
      "unsupportedSyntax",
      `${what}: a generic class ('${generic}') that extends a class or that classes extend is not supported in differentiable code yet`,
      `declare the classes of the hierarchy without type parameters (the type you use in place of '${params}'); a generic class outside a hierarchy is supported`,
    ),
  genericClassArguments: (what: Printable, generic: Printable, name: Printable) =>
    message(
      "unsupportedSyntax",
      `${what}: nabla cannot tell which types this instance of the generic class '${generic}' is of, or cannot differentiate through them`,
      `write the type arguments where the instance is made ('new ${name}<number>(…)'): numbers, arrays, interfaces or classes of the program`,
    ),
  privateNameClash: (what: Printable, name: string, base: string) =>
    message(
      "unsupportedSyntax",
      `${what}, which declares '${name}' as its base '${base}' does, is not supported in differentiable code`,
      `rename one of the two: nabla's output makes each class's '#' names properties named "${name}", and one instance cannot hold two`,
    ),
  arrowFieldAssigned: (field: Printable, className: Printable) =>
    message(
      "unsupportedSyntax",
      `the arrow-function field '${field}' of '${className}' may be assigned other functions (some code of the program assigns a field named '${field}', a field chosen at run time, or uses 'Object.assign' on an existing object), so nabla cannot tell which function it holds`,
      `declare '${field}' as a method ('${field}(…) { … }'; a subclass can override it), or give the field a function type and assign top-level functions to it ('${field}: (x: number) => number = tanh')`,
    ),
  arrowFieldDeclaredAgain: (field: Printable, className: Printable, other: Printable) =>
    message(
      "unsupportedSyntax",
      `'${field}' is an arrow-function field of '${className}' and declared again by '${other}', so which function an instance holds depends on more than its class`,
      `declare '${field}' as a method in every class that has it, so each class's own runs`,
    ),
  arrowFieldReadAsValue: (field: Printable, className: Printable) =>
    message(
      "unsupportedSyntax",
      `the arrow-function field '${field}' of '${className}' can be called, passed where a function is expected or named by a 'const', but not read as a value here`,
      `call it ('o.${field}(…)'), or pass it to the function that calls it ('xs.map(o.${field})')`,
    ),
  arrowFieldUsesSuper: (field: Printable, className: Printable) =>
    message(
      "unsupportedSyntax",
      `'super' in the arrow-function field '${field}' of '${className}' is not supported when the instance is built in differentiable code`,
      `make '${field}' a method ('${field}(…) { return super.…; }'), or build the instance outside the differentiated function`,
    ),
  arrowFieldsOfBaseInAnotherModule: (className: Printable, base: Printable) =>
    message(
      "unsupportedSyntax",
      `'new ${className}' of a class whose base '${base}' has arrow-function fields and is declared in another module is not supported in differentiable code`,
      `declare '${base}' in the module of '${className}', or make its arrow-function fields methods`,
    ),
  spreadingArrowFields: (className: Printable) =>
    message(
      "unsupportedSyntax",
      `spreading an instance of '${className}', a class with arrow-function fields, is not supported in differentiable code`,
      `copy the fields you need by name ('{ k: o.k }'), or give the class a method that makes the copy`,
    ),
  constructNotSupported: (what: Printable, help: string) =>
    message("unsupportedSyntax", `${what} is not supported in differentiable code`, help),
  isOnlyPlainFunctionsCan: (shown: Printable, value: Printable) =>
    message(
      "unsupportedSyntax",
      `'${shown}' is ${value}; only plain functions can be differentiated`,
      value === "async"
        ? `await before the call and pass the value in: differentiate a plain function of it`
        : `collect the values in an array and return it from a plain function`,
    ),
  labelsAreSupportedOnLoops: (label: Printable) =>
    message(
      "unsupportedSyntax",
      `labels are supported on loops and blocks only`,
      `remove the label, or put the statement in a block ('${label}: { … }') to leave it with 'break ${label}'`,
    ),
  localFunctionCallsItselfRecursive: (name: Printable) =>
    message(
      "unsupportedSyntax",
      `the local function '${name}' calls itself; recursive local functions are not supported in differentiable code (declare it at the top level)`,
    ),
  localFunctionsCallEachOther: (name: Printable) =>
    message(
      "unsupportedSyntax",
      `the local function '${name}' is called again by a local function it calls; local functions calling each other are not supported in differentiable code (one calling itself is)`,
      `declare them at the top level of the module, where functions may call each other, and pass them what they read of this function`,
    ),
  localFunctionCannotPassItself: () =>
    message(
      "unsupportedSyntax",
      `a local function cannot pass itself on through a local function it calls; local functions calling each other are not supported in differentiable code, one calling itself is (declare them at the top level)`,
    ),
  localFunctionMustBePlain: (name: Printable) =>
    message(
      "unsupportedSyntax",
      `the local function '${name}' must be a plain function with simple parameters to be differentiated`,
      `give it parameters that are names, with or without defaults, or patterns ('(x: number, k = 2) => …'), not rest parameters`,
    ),
  /** `meant`: whether it is a function, else the constant it is probably a slip for, if any. */
  mathIsNotMathConstant: (
    math: Printable,
    meant: { isFunction: boolean; closest?: string | undefined; constants: string },
  ) =>
    message(
      "unsupportedSyntax",
      `'Math.${math}' is not a Math constant; only calls of Math functions are supported`,
      meant.isFunction
        ? `call it ('Math.${math}(x)'), or pass a function that does ('(x: number) => Math.${math}(x)')`
        : meant.closest
          ? `did you mean 'Math.${meant.closest}'?`
          : `the Math constants are ${meant.constants}`,
    ),
  newIsNotSupportedIn: (value: Printable) =>
    message(
      "unsupportedSyntax",
      `'new ${value}' is not supported in differentiable code (typed arrays and 'new Array(n)' are; build objects with literals)`,
      value === "Map" || value === "Set"
        ? `keep the values in an array, or in an object literal with a field per key`
        : `create it outside the differentiated function and pass it in, or build an object literal ('{ x: 1, y: 2 }')`,
    ),
  ofIsNotSupportedIn: (name: Printable, typeText: Printable) =>
    message(
      "unsupportedSyntax",
      `'${name}' of ${typeText} is not supported in differentiable code (only '.length', elements and the array methods in docs/guide.md)`,
      `read '.length' or the elements ('xs[i]'), or call an array method`,
    ),
  onIsNotSupportedIn: (describeNode: Printable, typeText: Printable) =>
    message(
      "unsupportedSyntax",
      `${describeNode} on a ${typeText} is not supported in differentiable code`,
      `read it outside the differentiated function and pass the number in`,
    ),
  onlyPlainKeyValueProperties: () =>
    message(
      "unsupportedSyntax",
      `only 'key: value' properties, getters and methods are supported in object literals`,
      `write each property as 'key: value', 'get key() { … }' or 'key() { … }'`,
    ),
  setterInObjectLiteral: (key: Printable) =>
    message(
      "unsupportedSyntax",
      `a setter in an object literal ('set ${key}(v)') is not supported in differentiable code`,
      `assign the fields it would set where the value changes, or make the object an instance of a class with 'set ${key}(v)'`,
    ),
  getterResultType: (key: Printable) =>
    message(
      "unsupportedSyntax",
      `nabla cannot tell what the getter '${key}' of this object literal gives`,
      `annotate its result type ('get ${key}(): number')`,
    ),
  /** `field`: for `"y" in p`, the field tested (`p.y`), which the help names. */
  operatorIsNotSupportedIn: (operator: Printable, field?: string) =>
    message(
      "unsupportedSyntax",
      `the '${operator}' operator is not supported in differentiable code`,
      operatorHelp(String(operator), field),
    ),
  /** `"y" in p` of a class instance whose class does not settle it; `field`: `p.y`. */
  inOnClassInstance: (typeName: Printable, field?: string) =>
    message(
      "unsupportedSyntax",
      `the 'in' operator on an instance of '${typeName}' is not supported in differentiable code (on plain objects it is)`,
      operatorHelp("in", field),
    ),
  inWithRunTimeKeyOfObjectHoldingFunctions: () =>
    message(
      "unsupportedSyntax",
      `the 'in' operator with a key chosen at run time, of an object holding functions written in it, is not supported in differentiable code`,
      `test a key written as a string ('"eval" in o')`,
    ),
  optionalMethodWithValue: (
    name: Printable,
    typeName: Printable,
    declared: Printable,
    returned: Printable,
  ) =>
    message(
      "unsupportedSyntax",
      `the optional call of '${name}', a method of '${typeName}' declared to return ${declared}, is not supported in differentiable code where a class's '${name}' returns ${returned}`,
      `optional methods called with '?.' are supported when each class's method returns what '${typeName}' declares (a number, a boolean, nothing…); declare the classes' '${name}' to return ${declared}, or give '${name}' a body in every class that implements '${typeName}' and call it without '?.'`,
    ),
  optionalCallsAreNotSupported: () =>
    message(
      "unsupportedSyntax",
      `optional calls are not supported in differentiable code`,
      `test for the function first: 'if (f !== undefined) f(x)'`,
    ),
  optionalChainingIsNotSupported: () =>
    message(
      "unsupportedSyntax",
      `optional chaining is not supported`,
      `test the value first: 'o !== undefined ? o.x : 0'`,
    ),
  functionPushed: (method: Printable) =>
    message(
      "unsupportedSyntax",
      `a function added to an array with '.${method}' is not supported in differentiable code: a list of functions is known where it is written`,
      `write the functions in the array literal ('const fs = [(t: number) => t * x, (t: number) => t + y]'), or keep the numbers they need in an array and call one function with them`,
    ),
  lengthChangeNeedsPlainArray: (method: Printable, typeText: Printable) =>
    message(
      "unsupportedSyntax",
      `'.${method}' needs a plain array, not ${withArticle(typeText)}`,
      String(typeText).startsWith("[")
        ? "a tuple's length is part of its type: declare the variable as an array ('number[]') to change its length"
        : `a typed array has a fixed length: create it with its final length ('new ${typeText}(n)') and assign 'a[i] = v'`,
    ),
  spreadArgumentsOfLengthChange: (method: Printable) =>
    message(
      "unsupportedSyntax",
      `a spread start or count of '.${method}' is not supported in differentiable code`,
      "pass the start and the count as numbers ('xs.splice(i, n)'); the items after them may be spread",
    ),
  objectRestOfUnknownType: () =>
    message(
      "unsupportedSyntax",
      `a rest element ('...rest') of an object whose type nabla cannot tell is not supported in differentiable code`,
      `annotate the object's type (an interface, or 'Record<string, number>'), or read the fields it needs by name`,
    ),
  objectRestAfterComputedKey: () =>
    message(
      "unsupportedSyntax",
      `a rest element ('...rest') of a record after a computed key ('[k]: v') is not supported in differentiable code`,
      `name the keys the rest leaves out as written keys ('{ a, ...rest }'), or copy the record and delete the key ('const rest = { ...r }; delete rest[k]')`,
    ),
  restElementRestInDestructuring: () =>
    message(
      "unsupportedSyntax",
      `a rest element ('...rest') in destructuring is not supported in differentiable code`,
      `take the rest with '.slice': 'const rest = xs.slice(2)'`,
    ),
  returnsBeforeItsLastStatement: (what: Printable) =>
    message(
      "unsupportedSyntax",
      `${what} returns before its last statement; annotate its return type (as in '(p: number[]): number[] => …') so nabla knows what its returns give`,
    ),
  spreadArgumentsAreNotSupported: () =>
    message(
      "unsupportedSyntax",
      `spread arguments are not supported in differentiable code`,
      constructHelp("SpreadElement"),
    ),
  spreadOfArrayMustBeLast: () =>
    message(
      "unsupportedSyntax",
      `spreading an array into a call's arguments is supported as the last argument (or anywhere for a tuple, whose length its type gives): the arguments after it would take places that depend on its length`,
      `spread the array last, or give it a tuple type ('[number, number]')`,
    ),
  spreadOfMaybeAbsent: (text: Printable, why: Printable) =>
    message(
      "unsupportedSyntax",
      `spreading '${text}', which may be undefined or null here, is not supported where ${why}`,
      `spread it where it is known to be there: '${text} ? { ...base, ...${text} } : base'`,
    ),
  spreadingIntoObjectIsNot: (typeText: Printable) =>
    message(
      "unsupportedSyntax",
      `spreading a ${typeText} into an object is not supported`,
      `spread an object, or write the fields out ('{ x: v[0], y: v[1] }')`,
    ),
  spreadingIsNotSupported: (typeText: Printable) =>
    message(
      "unsupportedSyntax",
      `spreading a ${typeText} is not supported`,
      `write the elements out ('[t[0], t[1], v]')`,
    ),
  staticMethodsAreNotSupported: (path: Printable) =>
    message(
      "unsupportedSyntax",
      `'${path}' is not a static method nabla can call (a static method with a body); use a function declared at the top level`,
    ),
  thisIsOnlySupportedIn: () =>
    message(
      "unsupportedSyntax",
      `'this' is only supported in methods`,
      `pass the object as a parameter`,
    ),
  thisInStaticMethod: (className: Printable) =>
    message(
      "unsupportedSyntax",
      `'this' in a static method is not supported`,
      `name the class instead: '${className}.' rather than 'this.'`,
    ),
  undefinedIsNotSupportedIn: () =>
    message(
      "unsupportedSyntax",
      `'undefined' is not supported in differentiable code`,
      `leave the optional field or argument out, or use a number such as 'NaN'`,
    ),
  unsupportedPropertyKey: () =>
    message(
      "unsupportedSyntax",
      `unsupported property key`,
      `name the key ('{ x: 1 }') or write it as a string ('{ "x": 1 }')`,
    ),
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
