import { message, type Printable } from "./message.js";

// The messages of NABLA112 (a function value nabla cannot follow): every text of the code, with the
// parts that vary as parameters; docs/diagnostics.md shows examples.

export const closureCapture = {
  functionArgumentKept: (callee: Printable, parameter: Printable, how: Printable) =>
    message(
      "closureCapture",
      `'${callee}' keeps the function given for its parameter '${parameter}' in data (${how}); a function passed to code nabla differentiates can be called there, or passed on as an argument, but not kept to be called later`,
      `declare the function at the top level of a module and pass it by name ('const square = (z: number) => z * z;' there, then 'square'): such a function may be kept; or call it where it is given, or pass it as an argument to the code that calls it`,
    ),
  thisFunctionCallsFunctionParameters: (count: Printable, parameters: Printable) =>
    message(
      "closureCapture",
      `this function calls ${count} function parameters of the enclosing function ('${parameters}'); nabla compiles the derivative of a lambda calling one function parameter where that function is passed, not of one calling several (pass them as one function)`,
    ),
  hasAuxIsNotSupportedFor: (value: Printable) =>
    message(
      "closureCapture",
      `'hasAux' is not supported for a lambda calling a function parameter of the enclosing function ('${value}'); differentiate the loss alone, and compute the aux outside`,
    ),
  cannotAssignToVariableOf: (name: Printable) =>
    message(
      "closureCapture",
      `cannot assign to '${name}', a variable of the enclosing function, from differentiated code (closures that mutate captured variables are not supported yet)`,
    ),
  arrowFieldStored: (field: Printable) =>
    message(
      "closureCapture",
      `the arrow-function field '${field}' can be called or passed to a function that calls it, but not stored as a value in differentiable code`,
      `store the object instead and call its field ('holder.model.${field}(t)'), or declare the function at the top level`,
    ),
  inlineFunctionStored: () =>
    message(
      "closureCapture",
      `a local or inline function can be called, or passed to a function that calls it, but not stored as a value (in a field, an object or an array) in differentiable code`,
      `declare it at the top level of a module, taking what it reads from here as parameters, and store that (in a class, a method does this)`,
    ),
  functionChosenAtRunTime: () =>
    message(
      "closureCapture",
      `a function stored as a value chosen at run time must be declared at the top level of a module; a local or inline function chosen by a condition can be called or passed to a function, but not stored`,
    ),
  functionGivenToWithDerivativeReads: (name: Printable) =>
    message(
      "closureCapture",
      `the function given to 'withDerivative' reads the local variable '${name}'; it runs inside the derivative code, where only its parameter and module-level names are visible`,
    ),
  holdsFunctionWhichReadsFrom: (name: Printable, functionLabel: Printable) =>
    message(
      "closureCapture",
      `'${name}' holds a function, which ${functionLabel} reads from the enclosing function; differentiated code can call such a captured value only when it is a 'const' holding top-level functions (\`const f = c ? g : h\`), or a parameter called by a lambda given to an operator in plain code, whose derivative nabla compiles where the function is passed. Otherwise name the function inside the lambda (\`(p) => run(p, c ? f : g)\`)`,
    ),
  localFunctionMayChange: (name: Printable) =>
    message(
      "closureCapture",
      `'${name}' is a 'let' variable holding a local function, which may change; a function given to an operator can call the enclosing function's local functions declared with 'const' or 'function'`,
      `declare it with 'const'`,
    ),
  localFunctionReadsHiddenName: (fn: Printable, name: Printable) =>
    message(
      "closureCapture",
      `the local function '${fn}' reads '${name}', which this declaration hides where the operator is called; nabla passes what a local function reads by name there`,
      `rename one of the two variables named '${name}'`,
    ),
  isFunctionDifferentiableCodeCan: (name: Printable, name2: Printable) =>
    message(
      "closureCapture",
      `'${name}' is a function; differentiable code can call it ('${name2}(…)') or pass it to a function-typed parameter, but not use it as another kind of value`,
    ),
  defaultWrittenElsewhere: (what: Printable) =>
    message(
      "closureCapture",
      `${what} may be given undefined here, which takes its default, and the default is written in another module; pass the function, or leave the argument out`,
    ),
  isListOfFunctions: (name: Printable) =>
    message(
      "closureCapture",
      `'${name}' is a list of functions written here; differentiable code can loop over it ('for (const f of ${name})', '${name}.reduce((v, f) => f(v), x)', '.reduceRight', '.forEach'), call its elements ('${name}[i](…)') and read its length, but not use it as another kind of value`,
    ),
  isListOfObjectsHoldingFunctions: (name: Printable, member: Printable) =>
    message(
      "closureCapture",
      `'${name}' is a list of objects holding functions written here; differentiable code can loop over it ('for (const t of ${name})', '${name}.forEach', '.reduce', '.map'), read and call its elements' members ('${name}[i].${member}(…)') and read its length, but not pass it on, store it or use it as another kind of value`,
      `to keep such objects in data, make them instances of classes implementing the interface (their methods can read fields set by the constructor)`,
    ),
  objectListMethodForm: (method: Printable, folds: boolean) =>
    message(
      "closureCapture",
      `'.${method}' of a list of objects holding functions is supported with a callback written at the call that returns only at its end${folds ? ", and an initial value" : ""}`,
    ),
  functionListMethodForm: (method: Printable, folds: boolean) =>
    message(
      "closureCapture",
      `'.${method}' of a list of functions is supported with a callback written at the call, of plain parameters, that returns only at its end${folds ? ", and an initial value" : ""}`,
      folds
        ? `write it as '.${method}((acc, f) => f(acc), x)'`
        : `write it as '.${method}((f, i) => { … })'`,
    ),
  isLocalNotFunctionNabla: (head: Printable, value: Printable) =>
    message("closureCapture", `'${head}' is a local ${value}, not a function nabla can see`),
  localValueIsNotAFunction: (head: Printable, value: Printable, what: Printable) =>
    message(
      "closureCapture",
      `'${head}' is a local ${value}, not a function nabla can see; ${what} needs a function declared in the program or an arrow function`,
    ),
  isLocalValueGiveWithDerivative: (name: Printable) =>
    message(
      "closureCapture",
      `'${name}' is a local value; give 'withDerivative' a function declared at the top level, or an arrow function written here`,
    ),
  isModuleLevelVariableHolding: (head: Printable) =>
    message(
      "closureCapture",
      `'${head}' is a module-level variable holding a function, which may change; differentiable code can call functions declared with 'function' or 'const' only`,
    ),
  moduleVariableHoldsAFunction: (head: Printable, what: Printable) =>
    message(
      "closureCapture",
      `'${head}' is a module-level variable holding a function, which may change; ${what} needs a function declared with 'function' or 'const'`,
    ),
  nablaCannotTellWhichFunction: (what: Printable) =>
    message(
      "closureCapture",
      `nabla cannot tell which function this is; ${what} needs a function declared in the program, an arrow function, or a 'Differentiable<…>' value`,
    ),
  objectWithAccessorsUsed: (accessors: Printable, use: Printable) =>
    message(
      "closureCapture",
      `this object has methods or getters written in its literal ('${accessors}'); differentiable code runs them on the object where it is written, where a factory returns it (a function ending in 'return { … }'), and in the functions it is passed to, but cannot ${use}`,
      `make it an instance of a class declaring them ('class Box { get area() { … } }'), which can go anywhere; or compute the values here and pass those`,
    ),
  factoryElsewhereTakesFunctions: (name: Printable) =>
    message(
      "closureCapture",
      `'${name}', a factory of another module returning an object with methods, takes functions: nabla builds such an object where the factory is called, and a factory of another module only when it is given no functions`,
      `declare the factory in this module, or pass it the values the functions compute`,
    ),
  passedMethodUsesThis: (name: Printable) =>
    message(
      "closureCapture",
      `'${name}', written in an object literal passed to a function, uses 'this' other than to read its fields and call its methods ('this.w', 'this.f()'): nabla follows the object there only through such reads and calls`,
      `read what it needs into variables first ('const w = this.w'), or make the object an instance of a class declaring '${name}'`,
    ),
  literalMethodNotKnown: (name: Printable, type: Printable) =>
    message(
      "closureCapture",
      `which code '${name}' of this '${type}' runs is not known here: differentiable code calls a method or getter written in an object literal only on an object whose literal it knows (written in this function or a module-level 'const', returned by a factory ending in 'return { … }', or passed in as an argument), not on one chosen by a condition, kept in a variable that branches or loops change, made when the module was loaded, or read from an array or a field`,
      `build the object where the method is called (call its factory there, or call the method in each branch choosing the object), or make the objects instances of classes declaring it ('class … implements ${type}'), which nabla dispatches on their class`,
    ),
  objectHoldingFunctionUsed: (fields: Printable, use: Printable) =>
    message(
      "closureCapture",
      `this object holds a function written in an object literal ('${fields}'); differentiable code can pass such an object to a function of the program, read its fields, call or test its functions, and build it where a factory ending in 'return { … }' is called, but not ${use}`,
      `pass the object straight to the function that calls its functions; to keep a function in data, declare it at the top level of a module, taking what it reads from here as parameters`,
    ),
  thisFunctionIsPassedTo: (value: Printable) =>
    message(
      "closureCapture",
      `this function is passed to another function and assigns '${value}', a variable it captures; such a function may read the variables it captures but not assign them (return the new value instead, or write into an array)`,
    ),
};
