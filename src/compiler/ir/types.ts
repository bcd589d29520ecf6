// The IR: typed SSA values inside structured control flow (regions), in the spirit of
// MLIR's `scf` dialect. Every op lives in a region; `if` and `loop` own nested regions and
// pass values out through explicit results, so there are no phi nodes and no CFG.

/** Where an op came from in the user's source, for diagnostics and source maps. */
export interface SourceLoc {
  file: string;
  start: number;
  end: number;
}

export type ScalarType = "number" | "boolean" | "string" | "void";

/**
 * The typed arrays of integers. Their elements are read as numbers, but they hold no
 * derivative: what is stored into one is converted (truncated, wrapped, clamped) by
 * JavaScript, a piecewise constant function of it. Labels, indices, counts, masks.
 */
export type IntegerArrayStorage =
  | "Int32Array"
  | "Uint32Array"
  | "Int16Array"
  | "Uint16Array"
  | "Int8Array"
  | "Uint8Array"
  | "Uint8ClampedArray";

export type TypedArrayStorage = "Float64Array" | "Float32Array" | IntegerArrayStorage;

/**
 * `number[]`, tuples and typed arrays. `storage` says how the array is built at run time;
 * `elements` is set for tuples, whose element types are known by position.
 */
export interface ArrayType {
  readonly kind: "array";
  readonly storage: "Array" | TypedArrayStorage;
  readonly element: Type;
  readonly elements?: readonly Type[];
}

/** Interfaces, type aliases, inline object types and class instances. */
export interface ObjectType {
  readonly kind: "object";
  /** The declared name (`Params`, `Linear`), or the source text of an inline type. */
  readonly name: string;
  readonly fields: readonly FieldType[];
  /** For a class instance: the key of the class (`<file>#Name`), to find its methods. */
  readonly classKey?: string;
  /**
   * For an interface classes of the program implement (`class Biquad implements Filter`): the
   * key of the interface. Its value is an instance of one of them, so the type has room for
   * their fields, and a call of its method runs the one of the object's class.
   */
  readonly interfaceKey?: string;
  /**
   * For a union of classes or such interfaces (`Disk | Square`): the keys of its members, in
   * order; its `interfaceKey` is then their keys joined by ` | `. As for an interface, its value
   * is an instance of one of their classes, and a call of its method runs the one of that class.
   */
  readonly unionOf?: readonly string[];
}

export interface FieldType {
  readonly name: string;
  readonly type: Type;
  /** Marked `@noDerivative`: constant for differentiation, absent from the tangent. */
  readonly noDerivative: boolean;
  /** Typed by a numeric enum: why it has no derivative (a choice, not a quantity). */
  readonly enumChoice?: boolean;
  /** `f?: T`, `f: T | undefined`: an object may lack it (its tangent then lacks it too). */
  readonly optional?: boolean;
  /** A field holding a function (its type is opaque): the function type, to call it. */
  readonly callable?: FunctionTypeInfo;
  /** Its type holds the object's own type (a tree): opaque, and said so in messages. */
  readonly recursive?: boolean;
  /** Where the field is declared, for messages. */
  readonly declaredAt?: SourceLoc;
}

/**
 * `Record<string, T>`, index signatures (`{ [name: string]: T }`) and `Map<K, T>`: values read
 * and written by a key that is only known at run time. `index`, `setIndex` and `addIndex` take
 * the key as their index operand; the tangent is the same kind of collection, of the same keys.
 */
export interface KeyedType {
  readonly kind: "keyed";
  /** A plain object used as a dictionary, a `Map`, or a `Set` (whose value is `boolean`: has). */
  readonly storage: "Record" | "Map" | "Set";
  /** `string`, or `number` for a `Map<number, T>`. */
  readonly key: "string" | "number";
  readonly value: Type;
}

/**
 * A value nabla carries but never differentiates or operates on (a function-typed field, a
 * type it cannot read): it may sit in an object, but differentiable code cannot use it.
 */
export type OpaqueType = "opaque";

export type Type = ScalarType | OpaqueType | ArrayType | ObjectType | KeyedType;

export interface Value {
  readonly id: number;
  readonly type: Type;
  /** The source variable this value holds, if any; used to name emitted locals. */
  hint: string;
  /** Set by linearize on values of the tangent (differential) part of a derivative. */
  tangent?: boolean;
}

export type BinaryOpcode = "add" | "sub" | "mul" | "div" | "rem" | "pow";
export type CompareOpcode = "lt" | "le" | "gt" | "ge" | "eq" | "ne";
export type UnaryOpcode = "neg" | "not" | "truthy" | "nullish";

export type Opcode =
  | "const" // attrs.value
  | BinaryOpcode
  | CompareOpcode
  | UnaryOpcode
  | "and" // boolean and of two already-evaluated booleans (no short circuit)
  | "or"
  | "select" // operands [cond, a, b]: a when cond else b; both already evaluated
  | "detach" // withoutDerivative(x): x, with a zero derivative
  | "withDerivative" // withDerivative(x, f): x; f is the module-level function attrs.callee, or the arrow attrs.written
  | "adjust" // tangent op: f(t) for the f of a withDerivative (its tangent, or in reverse its adjoint)
  | "nondiff" // attrs.callee = JS operator or global function (`|`, `String`); no derivative
  | "math" // attrs.callee = Math function name
  | "call" // attrs.callee = FunctionKey of a user function
  | "extern" // attrs.callee = dotted path of an outside function (console.log); inactive only
  | "global" // attrs.callee = module-level constant name; attrs.function: a function's value
  | "if" // operands [cond], regions [then, else], results
  | "loop" // operands inits, regions [before, after], results
  | "yield" // terminator of if-branches and loop `after` regions
  | "condition" // terminator of loop `before` regions: operands [cond, ...forwarded]
  | "return" // terminator of a function body
  | "field" // operands [object]: attrs.field of it
  | "index" // operands [array, i]: element i
  | "length" // operands [array]: its length
  | "setField" // operands [object, v]: object.field = v
  | "setIndex" // operands [array, i, v]: array[i] = v
  | "addField" // reverse mode: operands [object, v]: object.field += v
  | "addIndex" // reverse mode: operands [array, i, v]: array[i] += v
  | "truncate" // operands [array, n]: array.length = n, n at most its length (pop, shift, splice)
  | "alloc" // operands [length]: a new array of the result type, filled with zeros (attrs.holes: holes)
  | "literal" // operands: the elements (array type) or the fields in order (object type)
  | "zeros" // operands [v]: a fresh zero tangent with v's shape (shadow of a constant aggregate)
  | "clear" // reverse mode: operands [shadow]: sets every number in it to zero
  | "push" // reverse mode: operands [v], saves v on the tape
  | "reserve" // reverse mode: operands [n]: makes room on the tape for n more numbers
  | "pop" // reverse mode: results [v], takes the last value saved on the tape
  | "peak" // reverse mode: the tape is at its highest here (end of a forward sweep), for statistics
  | "closure"; // results [f]: a function value of regions [body], whose params are f's, ending in `return`; reads what is in scope

export interface Op {
  opcode: Opcode;
  operands: Value[];
  results: Value[];
  regions: Region[];
  attrs: OpAttrs;
  loc: SourceLoc;
  /** Set by linearize on ops that compute tangents (the differential part of the program). */
  tangent?: boolean;
}

export interface OpAttrs {
  value?: number | boolean | string;
  /** On an `alloc` of a plain array: made of holes, as `new Array(n)` (lower/new-array-holes.ts). */
  holes?: boolean;
  callee?: string;
  /**
   * On `withDerivative` and `adjust`: the function is the arrow written at these [start, end]
   * offsets of the op's file (`loc.file`), which the backend compiles under the name `callee`
   * (`comparator` on a sort's `nondiff`).
   */
  written?: number[];
  /**
   * On the `nondiff` op `nabla:sortOrder`: the comparator the engine's sort calls, a
   * module-level function by name or, with `written`, the arrow hoisted under this name.
   */
  comparator?: string;
  /** With `comparator`: the local variables the arrow reads, whose values follow the array. */
  reads?: string[];
  /** A user callee as written at the call site (`g`, `ns.g`): how the emitted code names it. */
  calleeName?: string;
  /**
   * On a `call` in a function run as WebAssembly: an inner `gradient` of the callee in reverse
   * mode, with respect to these parameters (ascending); differentiate/inner-gradients.ts
   * expands it into the sweeps' calls.
   */
  reverseGradient?: number[];
  /**
   * On the calls an inner gradient is expanded into (differentiate/inner-gradients.ts): they
   * write only the fresh shadows they are given, and take off the tape what they put on it
   * before the next op (the fused gradient, or the forward sweep and then the backward).
   */
  innerGradient?: boolean;
  /** An inner operator's call of its function that runs once per element (see lower/nested.ts). */
  repeated?: boolean;
  /** A call a function value dispatches to: what holds it, for messages. */
  via?: string;
  /** On a `global` op: the value is this user function (a function chosen at run time). */
  function?: FunctionKey;
  /**
   * On a `global` op: the binding may not be initialized yet when this runs (a module-level
   * `const` declared below, or in a module still loading); it then reads as undefined.
   */
  mayBeUninitialized?: boolean;
  /** On a call of a derivative: the primal function and the differentiated parameters. */
  primal?: FunctionKey;
  wrt?: number[];
  /** On a `const` without a value: it is `null`, not `undefined`. */
  isNull?: boolean;
  /** On a `call` of a getter (`v.norm`): run as a read of the property, not a call. */
  getter?: boolean;
  /** On a `call` of a function with a rest parameter: its last operand is the packed array. */
  restParameter?: boolean;
  /** On a `call` of a setter (`t.fahrenheit = f`): run as an assignment of the property. */
  setter?: boolean;
  /**
   * On the `literal` a constructor starts from: the class, named as its module names it, whose
   * instance the object is (its methods are the class's).
   */
  instanceOf?: string;
  /**
   * On that `literal`: the arrow-function fields the instance gets, as the start and end of
   * each one's name and of its arrow in the source of the op's file (lower/arrow-fields.ts).
   */
  arrowFields?: number[];
  /** `field`, `setField`, `addField`: the field name. */
  field?: string;
  /**
   * On the `literal` of an object literal: the fields it may leave out (an optional field not
   * written, or copied from a spread object that may lack it); its other fields are keys of the
   * object even when undefined (`{ bonus: undefined }`), as in JavaScript. Unset: any field
   * whose value is an undefined constant is left out.
   */
  omittable?: string[];
  /**
   * On a call of a reverse-mode derivative: the array arguments whose contents stay unchanged
   * until its backward sweep runs, so it may read them again instead of taping.
   */
  frozen?: number[];
  /** On a call of a reverse-mode sweep: the callee leaves the tape alone (no hand-over around it). */
  tapeless?: boolean;
  /**
   * On an `addIndex` into a plain array's shadow at a position that may not exist: skipped
   * there (see the `index` rule in rules/transpose.ts), so an out-of-range read adds no entry or key to the gradient.
   */
  ifExists?: boolean;
  /**
   * On a `setIndex` of a record, map or set: the key is deleted (`delete r[k]`, `m.delete(k)`),
   * the value operand (undefined) being what a read of the key then gives.
   */
  deletes?: boolean;
  /**
   * On a `setIndex` or `setField` of a backward sweep: it puts back a shadow a store replaced
   * (differentiate/restore.ts), journaled so that a pullback run again can redo it first.
   */
  undoesStore?: boolean;
  /** On a `push`: an enclosing `reserve` made room for it, so it stores without a check. */
  reserved?: boolean;
  /** On a call of a method: the call is `operands[0].<method>(…rest)`. */
  method?: string;
  /** On `super.<method>(…)`: the class whose method runs, whatever the object's class. */
  superOf?: string;
  /**
   * A checkpointed call (`checkpoint(f)(…)`, or f tagged `@checkpoint`): reverse mode saves its
   * arguments and reruns f's forward sweep in the backward sweep instead of taping f.
   */
  checkpoint?: boolean;
  /**
   * On a `call`: the callee writes no memory and calls nothing outside the program, so calling
   * it again with the same arguments gives the same results and changes nothing (see
   * differentiate/last-write.ts, which moves such calls).
   */
  pure?: boolean;
  /**
   * On a pure call of a derivative: the attributes of the call of the function itself it
   * stands for (how the emitted code names the callee…), for making it that call again when
   * nothing reads its tangent (differentiate/primal-calls.ts).
   */
  primalCall?: OpAttrs;
}

export interface Region {
  params: Value[];
  ops: Op[];
}

/** Identifies a user function across the program: `<absolute file>#<name>`. */
export type FunctionKey = string;

export interface IRFunction {
  key: FunctionKey;
  name: string;
  params: Value[];
  /** How many trailing parameters hold captured variables (for a lambda); never differentiated. */
  captures: number;
  /** One type for a primal function; derivatives return several values (e.g. tangent, value). */
  resultTypes: Type[];
  body: Region;
  loc: SourceLoc;
  /**
   * Set on the derivatives of a function with a registered rule: they call the rule instead
   * of running a body (which is empty), and are emitted in the module that registers it.
   */
  adapter?: RuleAdapter;
  /** Set on the sweeps of a checkpointed call, which are emitted from this description. */
  checkpoint?: CheckpointSweep;
  /** A derivative nabla could not build for an optional demand: emitted as a function that throws this. */
  stub?: string;
  /**
   * A JVP along k directions at once (`f$jvps`): the body is the JVP's, and every tangent
   * number is emitted as k lanes (see emit/js/lanes.ts).
   */
  lanes?: boolean;
}

/** A reverse-mode sweep of a checkpointed call (see emit/js/checkpoint.ts). */
export interface CheckpointSweep {
  kind: "fwd" | "bwd";
  primal: FunctionKey;
  wrt: number[];
  /** The sweeps the backward sweep reruns. */
  fwd: FunctionKey;
  bwd: FunctionKey;
  params: Type[];
  result: Type | undefined;
}

/** A derivative that calls a registered rule (see emit/js/rule-adapter.ts). */
export interface RuleAdapter {
  /** No fused `grad`: `gradient` of a rule runs the sweep pair. */
  kind: "jvp" | "fwd" | "bwd" | "jvps";
  /** The key of the function the rule is for. */
  rule: FunctionKey;
  wrt: number[];
  /** The module that registers the rule, where the adapter is emitted. */
  home: string;
}

/** A function type written in an annotation, read by types/declared-types.ts. */
export interface FunctionTypeInfo {
  /** Parameter types; undefined where nabla cannot read the type. */
  params: (Type | undefined)[];
  /** `void` for a function returning nothing; undefined where nabla cannot read the type. */
  result: Type | undefined;
  /** The annotation as written, for messages. */
  text: string;
}
