// The `help:` lines of NABLA101: what to write instead of a construct differentiable code does
// not support, per construct, array method and operator. The message names what is wrong;
// these say how to get the same result with what nabla compiles.

/** Anything computed before the differentiated function runs can be passed in. */
const MOVE_OUT =
  "compute it outside the differentiated function and pass the result in as a parameter";

/** Per syntax kind (an oxc node type, or `bigint`, `regex`, `null` for literals). */
const CONSTRUCT_HELP: Record<string, string> = {
  TaggedTemplateExpression: "build the string with a plain template literal (`x = ${x}`)",
  ClassExpression: "declare the class at the top level of the module",
  ClassDeclaration: "declare the class at the top level of the module",
  SequenceExpression: "write each expression as a statement of its own",
  AwaitExpression: `await before calling the differentiated function and pass the value in; differentiable code is synchronous`,
  YieldExpression: "collect the values in an array and return it",
  ArrowFunctionExpression:
    "pass the function straight to the function that calls it, or declare it at the top level of the module",
  FunctionExpression:
    "pass the function straight to the function that calls it, or declare it at the top level of the module",
  FunctionDeclaration:
    "pass what it reads of 'this' as a parameter, or declare it at the top level of the module",
  ChainExpression:
    "write 'o.x' when the value is always there, or test it first: 'o !== undefined ? o.x : 0'",
  null: "leave the optional field or argument out, or use a number such as 'NaN'",
  SpreadElement:
    "pass the elements one by one ('f(xs[0], xs[1])'), or let the function take the array",
  TryStatement: `check the inputs with 'if' instead of catching an error; or ${MOVE_OUT}`,
  ForInStatement: "read the fields by name, or keep the values in an array and loop with 'for…of'",
  WithStatement: "name the object's fields ('o.x')",
  DebuggerStatement: "remove the 'debugger' statement",
  ObjectPattern: "declare each variable on its own ('const a = p.a;')",
  ArrayPattern: "declare each variable on its own ('const a = p[0];')",
  RestElement: "take an array parameter ('xs: number[]') instead of a rest parameter",
  AssignmentPattern: "pass the value at every call, or test for 'undefined' in the body",
  regex: MOVE_OUT,
  bigint: "use a number ('1' rather than '1n')",
  MetaProperty: "read it at the top level of the module, into a constant",
  ImportExpression: "import the module with an 'import' declaration at the top of the file",
  Super:
    "call the base class's constructor as a statement ('super(…)'), or its methods as 'super.m(…)'",
  TSAsExpression: "annotate the variable instead of asserting its type",
};

/** What to write instead of the construct `kind`. */
export function constructHelp(kind: string): string {
  return CONSTRUCT_HELP[kind] ?? MOVE_OUT;
}

/** Per array method differentiable code does not support. */
const ARRAY_METHOD_HELP: Record<string, string> = {
  copyWithin: "copy the elements in a 'for' loop",
  subarray:
    "read a copy with '.slice(start, end)'; a view that writes into the array it shares memory with is not supported",
  toString: "build the string outside the differentiated function",
  toLocaleString: "build the string outside the differentiated function",
  toSpliced: "build a new array from slices: '[...xs.slice(0, i), ...xs.slice(i + 1)]'",
  with: "copy the array ('const ys = xs.slice()') and assign the element ('ys[i] = v')",
  flat: "'.flat()' flattens an array of arrays one level; for other arrays, build the result in a 'for' loop",
};

/** What to write instead of the array method `method`. */
export function arrayMethodHelp(method: string): string {
  return ARRAY_METHOD_HELP[method] ?? "write it as a 'for' loop over the indices";
}

/** Per unary or binary operator differentiable code does not support. */
const OPERATOR_HELP: Record<string, string> = {
  instanceof:
    "tell the kinds of object apart by a field (such as 'kind: \"circle\"'), or give each kind its own function",
  void: "write the expression as a statement of its own ('void x;' is one)",
  delete: "build a new object without the field, or set the field to a value",
};

/** What to write instead of the operator `operator`; `field`: what `in` tests (`p.y`). */
export function operatorHelp(operator: string, field = "o.x"): string | undefined {
  if (operator === "in") return `test the field itself ('${field} !== undefined')`;
  return OPERATOR_HELP[operator];
}
