import type { CallExpression, Expression, Node, Statement, YieldExpression } from "oxc-parser";
import type { Message } from "../diagnostics/messages/message.js";
import {
  type CodeContext,
  typeMismatch,
  unsupportedSyntax,
} from "../diagnostics/messages/index.js";
import { assignable, fieldOf, isObject, sameType } from "../ir/type-system.js";
import { CompileAbort, type DiagnosticNote } from "../diagnostics/diagnostic.js";
import { Builder, ValueFactory } from "../ir/builder.js";
import type {
  ArrayType,
  FunctionKey,
  FunctionTypeInfo,
  IRFunction,
  ObjectType,
  Op,
  Region,
  SourceLoc,
  Type,
  Value,
} from "../ir/types.js";
import { walk, type FunctionLike, type SourceModule } from "../parse/module.js";
import { assignedNames } from "./assigned-names.js";
import type { FunctionSymbol, ProgramGraph } from "../parse/program.js";
import { typeResolver } from "../types/resolver.js";
import type { Binding, DifferentiationTarget, StaticFunction } from "../resolve/targets.js";
import type { Capture, LocalFunction } from "../resolve/captures.js";
import type { TypeResolver } from "../types/signature.js";
import type { TypeArguments } from "../types/declared-types.js";

// State shared by the lowering of one function: the builder, the lexical scopes, and the
// current SSA value of every variable (the environment). Structured SSA construction is
// done by snapshotting and merging environments at `if` and loop boundaries.

/** A variable of the source program (or a control-flow flag lowering introduces). */
/** A function value where code is lowered, with the IR values it carries (see carriedTypes). */
export interface FunctionArg {
  fn: StaticFunction;
  values: Value[];
}

/**
 * An object holding functions written in an object literal (`{ onStep: (t, y) => … }`), by the
 * IR value of the object: each such field's function, known where the code is compiled (see
 * object-closures.ts). The object's own field holds a placeholder nothing reads.
 */
/** A getter or method of an object literal. */
export interface LiteralAccessor {
  key: string;
  node: FunctionLike;
  getter: boolean;
}

/** An object written as a literal with accessors (literal-accessors.ts): them, and where it was written. */
export interface AccessorObject {
  accessors: Map<string, LiteralAccessor>;
  scope: Scope;
  origin: SourceLoc;
  /** The module the literal is written in (a factory's, see literal-factories.ts) and its types. */
  module: SourceModule;
  types: TypeResolver;
}

export interface BoundObject {
  fields: Map<string, FunctionArg>;
  /** Where the object was written, or the parameter it came in by, for messages. */
  origin: SourceLoc;
}

export interface Slot {
  readonly id: number;
  readonly name: string;
  readonly kind: "const" | "let" | "param" | "captured" | "flag";
  readonly type: Type;
  /**
   * A `let` annotated with an interface or base class wider than its first value's class
   * (`let chosen: Body = box`): it keeps the value's class until a value of another class is
   * assigned; then the function is lowered again with the variable of the annotated type.
   */
  readonly declaredAs?: { type: ObjectType; at: string };
}

export class Scope {
  readonly names = new Map<string, Slot>();
  constructor(readonly parent: Scope | undefined) {}

  lookup(name: string): Slot | undefined {
    return this.names.get(name) ?? this.parent?.lookup(name);
  }
}

export type Env = Map<Slot, Value>;

/** Flags that implement `break`/`continue` of one loop as structured exits. */
export interface LoopTarget {
  label: string | undefined;
  /** The loop statement, to match `break`/`continue` statements to it. */
  node: Node;
  breakFlag: Slot | undefined;
  continueFlag: Slot | undefined;
  /** The one-pass loop a `switch` is lowered as: `break` leaves it, `continue` passes it by. */
  isSwitch?: boolean;
  /** The one-pass loop a labelled block is lowered as: only `break label` leaves it. */
  isBlock?: boolean;
}

/**
 * What a `yield` does in a generator inlined at the `for…of` consuming it (generators.ts):
 * it runs the loop's body, whose `break`, `return` or exit to an outer loop ends the generator.
 */
export interface YieldSite {
  /** The flags that end the generator, as loops a `yield` may break out of (see exits.ts). */
  stops: Set<LoopTarget>;
  /** The variables the consumer's body may assign: the generator's loops carry them. */
  writes: Slot[];
  /** Lowers `yield value` (or `yield* values`): the consumer's body, given the value. */
  lower(node: YieldExpression): void;
}

/** A call from the function being lowered to another user function. */
export interface CallSite {
  key: FunctionKey;
  symbol: FunctionSymbol;
  loc: SourceLoc;
  /** For a function given to an operator inside the code (a lambda with captures): how to lower it. */
  target?: DifferentiationTarget;
}

/**
 * Lowering is recursive descent: an expression holds calls, whose callbacks hold statements,
 * which hold expressions and functions. The files of lower/ reach these entry points through
 * the context instead of importing one another in a circle; lower/function.ts, which imports
 * them all, supplies them.
 */
export interface Lowering {
  expression(ctx: LowerContext, node: Expression): Value;
  value(ctx: LowerContext, node: Expression, expected: Type | undefined): Value;
  condition(ctx: LowerContext, node: Expression): Value;
  /** Whether the statements always exit (return, break, continue or throw). */
  statements(ctx: LowerContext, statements: Statement[]): boolean;
  function(
    program: ProgramGraph,
    module: SourceModule,
    key: string,
    name: string,
    node: FunctionLike,
    options?: LowerOptions,
  ): LoweredFunction;
}

export interface LoweredFunction {
  fn: IRFunction;
  calls: CallSite[];
}

export interface LowerOptions {
  /** Parameters without annotation are numbers (a lambda passed straight to `derivative`). */
  contextualNumberParams?: boolean;
  /** Variables of enclosing functions the function reads; they become trailing parameters. */
  captures?: Capture[];
  /** Local functions of the enclosing function it calls, reading the captures. */
  localFunctions?: LocalFunction[];
  /** For a method: the type of `this`, which becomes the first parameter. */
  thisType?: ObjectType;
  /** For a constructor: the instance it builds (`this`) and returns (see construct.ts). */
  constructs?: ObjectType;
  /** Function-typed parameters and captured local functions bound to known functions. */
  bindings?: Binding[];
  /** The function type this function was passed as: types of unannotated parameters, result. */
  contextual?: FunctionTypeInfo;
  /** Captures are ordinary parameters (a lifted local function), not constants. */
  liftedCaptures?: boolean;
  /** A lifted local function calling itself: its name, bound to itself and its captures. */
  recursive?: { name: string; fn: StaticFunction };
  /** `hasAux: true`: only the loss of the `[loss, aux]` it returns is differentiated. */
  aux?: boolean;
  /** A specialization of a generic function: what its type parameters stand for. */
  typeArguments?: TypeArguments;
  /** Statements left out, by position, their errors already reported (see recovery.ts). */
  skipped?: ReadonlySet<string>;
  /** `new` expressions built as a wider type, by position (see WidenConstruction). */
  widened?: ReadonlyMap<string, ObjectType>;
  /**
   * Lowered to say why a function tagged `@backend wasm` cannot run as WebAssembly: its
   * operators' messages speak of that function, not of differentiable code.
   */
  codeContext?: CodeContext;
}

/**
 * Thrown where an instance built by a `new` of this function joins values of its interface or
 * base class (`const c = new Circle(r); …; return c;` from a function returning `Shape`): the
 * function is lowered again with that `new` building the instance as the wider type, as
 * `new Circle(r)` written where a `Shape` goes is. The object is the same either way. Also
 * thrown for a `let` whose annotation is wider than its first value (Slot.declaredAs): `at`
 * is then the variable's position, and it is declared of the annotated type.
 */
export class WidenConstruction extends Error {
  constructor(
    readonly at: string,
    readonly type: ObjectType,
  ) {
    super("internal: a construction to widen");
  }
}

/** A read of the element a hole-skipping method visits, and the method's call (hole-checks.ts). */
export interface VisitedElement {
  read: Op;
  method: string;
  at: { start: number; end: number };
}

/** A `new Array(n)` of numbers the program wrote: its alloc op, where, and its text (new-array-holes.ts). */
export interface NewArray {
  alloc: Op;
  at: number;
  text: string;
}

/** An update `a[k] op= v`: the read of a[k] and the write (typed-updates.ts). */
export interface ElementUpdate {
  read: Op;
  store: Op;
}

export class LowerContext {
  readonly builder: Builder;
  env: Env = new Map();
  scope: Scope;
  loops: LoopTarget[] = [];
  readonly calls: CallSite[] = [];
  /** Element reads of the methods that skip holes (forEach, reduce…), for hole-checks.ts. */
  readonly visits: VisitedElement[] = [];
  /** The program's own writes `a[k] = v` (not `a[k] += v`), for hole-checks.ts. */
  readonly elementWrites: Op[] = [];
  /** The program's updates `a[k] op= v`, for typed-updates.ts. */
  readonly elementUpdates: ElementUpdate[] = [];
  /** The arrays the program lengthens or may lengthen (`xs.length = n`), for hole-checks.ts. */
  readonly lengthWrites: { array: Value; at: number }[] = [];
  /** The program's `new Array(n)` of numbers, which JavaScript makes of holes (new-array-holes.ts). */
  readonly newArrays: NewArray[] = [];
  /**
   * The results of `map` whose callback may shorten the array it maps, which JavaScript leaves
   * with holes where the removed elements were; `made` says so, for hole-checks.ts.
   */
  readonly mapsWithHoles: { array: Value; at: number; made: string }[] = [];
  returnedFlag: Slot | undefined;
  /**
   * Local functions (`const f = (t: number) => …`): their code and the scope they were written
   * in. A call inlines the body there, so it reads and writes the variables it closes over.
   */
  readonly closures = new Map<Slot, { node: FunctionLike; scope: Scope }>();
  /**
   * `const g = gradient(f)`: the operator call a name holds, and the scope it was written in;
   * `g(x)` is lowered as `gradient(f)(x)` (lower/held-operators.ts).
   */
  readonly heldOperators = new Map<
    Slot,
    { call: CallExpression; operator: string; scope: Scope }
  >();
  /** Variables held in a one-element array a closure shares (lower/cells.ts): the array. */
  readonly cells = new Map<Slot, Value>();
  /** Names of `let` variables closures this function passes on assign (lower/cells.ts). */
  celled: ReadonlySet<string> = new Set();
  /**
   * Names bound to function values (see function-values.ts): a function-typed parameter of a
   * specialization, or one holding a function chosen at run time.
   */
  readonly bound = new Map<Slot, FunctionArg>();
  /** Objects written as literals with getters or methods, by value (literal-accessors.ts). */
  readonly literalAccessors = new Map<Value, AccessorObject>();
  /** Objects holding functions written in object literals, by value (object-closures.ts). */
  readonly boundObjects = new Map<Value, BoundObject>();
  /**
   * Calls that pass such objects to a specialization taking their functions: how many leading
   * operands are those arguments (an object is allowed there, not among the values carried).
   */
  readonly boundPasses = new Map<Op, number>();
  /**
   * Of those calls, the operands that are objects with accessors written in their literal,
   * captured as `this` by the accessors lifted for the callee (passed-accessors.ts).
   */
  readonly thisPasses = new Map<Op, Set<number>>();
  /** Local functions being inlined now (a call of one inside itself is recursion). */
  readonly inlining = new Set<FunctionLike>();
  /** Statements left out, by position, their errors already reported (see recovery.ts). */
  skipped: ReadonlySet<string> = new Set();
  /** The type the `new` being lowered goes to, when wider than its class (construct.ts). */
  newAs: Type | undefined = undefined;
  /** `new` expressions to build as a wider type, by position (see WidenConstruction). */
  widened: ReadonlyMap<string, ObjectType> = new Map();
  /** The position of the `new` that built each instance value, by value id. */
  readonly constructedAt = new Map<number, string>();
  /** Set while lowering the calls a function value dispatches to (see function-values.ts). */
  dispatching: string | undefined = undefined;
  /**
   * Set while lowering the branches of a method call dispatched on the receiver's class: the
   * result type the call has where it is written, which an override declaring a narrower one
   * (`scaled(): Pt3` for `scaled(): Pt`) is called as (see class-dispatch.ts).
   */
  dispatchedResult: { start: number; end: number; type: ObjectType } | undefined = undefined;
  /** Set while lowering `super.m(…)`: the class whose method the call runs (see class-dispatch.ts). */
  superOf: string | undefined = undefined;
  /** Where this function's operators are nested, for their messages (LowerOptions.codeContext). */
  codeContext: CodeContext = "differentiable";
  /** The function has no return type annotation: a number is assumed. */
  resultDefaulted = false;
  /**
   * `hasAux`: each return of the function is `[loss, aux]` or `{ value: loss, aux }`, taken
   * apart (see aux.ts); `declared` is its return type, if annotated. Not inside an inlined
   * local function, whose returns are its own.
   */
  auxReturn: { declared: Type | undefined } | undefined = undefined;
  resultSlot: Slot | undefined;
  /** Inside an inlined generator: what its `yield` does (see generators.ts). */
  yieldSite: YieldSite | undefined = undefined;
  /** The base class of another module whose constructor `super(…)` is running here. */
  baseConstructor: string | undefined = undefined;
  /**
   * Resolves type annotations written in this module. It and `module` change while a
   * generator of another module is inlined (generators.ts).
   */
  types: TypeResolver;
  private nextSlot = 0;
  /** The module of the function being lowered (`module` differs in an inlined generator). */
  readonly home: SourceModule;

  constructor(
    readonly lowering: Lowering,
    public module: SourceModule,
    readonly program: ProgramGraph,
    readonly functionName: string,
    readonly body: Region,
    /** What `return` gives; an inlined local function with early returns swaps in its own. */
    public resultType: Type,
    typeArguments?: TypeArguments,
  ) {
    this.builder = new Builder(new ValueFactory(), body, this.loc({ start: 0, end: 0 }));
    this.scope = new Scope(undefined);
    this.types = typeResolver(program, module, typeArguments);
    this.home = module;
  }

  /**
   * A module-level name (a constant, a class) is emitted as written, and read where the
   * function's module reads it. In a generator inlined from another module, a name the two
   * modules mean differently by cannot be read so: reported.
   */
  readsModuleName(at: { start: number; end: number }, name: string): void {
    if (this.module === this.home) return;
    const meaning = (mod: SourceModule) =>
      this.program.resolveLocalConstant(mod, name) ?? this.program.resolveType(mod, name)?.node;
    const there = meaning(this.module);
    if (there !== undefined && there === meaning(this.home)) return;
    // Inlined code of another module: a generator's (with its `yield`), or a factory's.
    this.fail(
      at,
      this.yieldSite
        ? unsupportedSyntax.generatorReadsItsModule(name)
        : this.baseConstructor
          ? unsupportedSyntax.baseConstructorReadsItsModule(name, this.baseConstructor)
          : unsupportedSyntax.factoryReadsItsModule(name),
    );
  }

  lowerExpression(node: Expression): Value {
    return this.lowering.expression(this, node);
  }

  /** An expression where a value of type `expected` is wanted (literals take that type). */
  lowerValue(node: Expression, expected: Type | undefined): Value {
    return this.lowering.value(this, node, expected);
  }

  /** An expression as a boolean, for `if`, loops, `!`, `&&` and `||`. */
  lowerCondition(node: Expression): Value {
    return this.lowering.condition(this, node);
  }

  /** Whether the statements always exit (return, break, continue or throw). */
  lowerStatements(statements: Statement[]): boolean {
    return this.lowering.statements(this, statements);
  }

  loc(node: { start: number; end: number }): SourceLoc {
    return { file: this.module.file, start: node.start, end: node.end };
  }

  /** Sets the location that ops built from now on are attributed to. */
  at(node: { start: number; end: number }): void {
    this.builder.loc = this.loc(node);
  }

  /** Stops lowering with the diagnostic `message` (from the catalog, diagnostics/messages) at `node`. */
  fail(node: { start: number; end: number }, message: Message): never {
    throw new CompileAbort({ severity: "error", ...message, loc: this.loc(node), notes: [] });
  }

  /** Like `fail`, with notes (e.g. where a value was defined). */
  failWithNotes(
    node: { start: number; end: number },
    message: Message,
    notes: DiagnosticNote[],
  ): never {
    throw new CompileAbort({ severity: "error", ...message, loc: this.loc(node), notes });
  }

  declare(
    name: string,
    kind: Slot["kind"],
    type: Type,
    value: Value,
    declaredAs?: Slot["declaredAs"],
  ): Slot {
    if (kind === "let") this.checkJoinable(type, value);
    const slot: Slot = {
      id: this.nextSlot++,
      name,
      kind,
      type,
      ...(declaredAs ? { declaredAs } : {}),
    };
    if (!value.hint) value.hint = name;
    this.scope.names.set(name, slot);
    if ((kind === "let" || kind === "param") && type !== "opaque" && this.celled.has(name)) {
      // Assigned by a closure this function passes on: held in a cell they share (cells.ts).
      const cell = this.builder.emit("literal", [value], [cellType(type)], {}, [], name)
        .results[0]!;
      this.env.set(slot, cell);
      this.cells.set(slot, cell);
      return slot;
    }
    this.env.set(slot, value);
    return slot;
  }

  /** A variable a closure of the enclosing function assigns, held in the cell `cell`. */
  declareCell(name: string, type: Type, cell: Value): Slot {
    const slot: Slot = { id: this.nextSlot++, name, kind: "captured", type };
    this.scope.names.set(name, slot);
    this.env.set(slot, cell);
    this.cells.set(slot, cell);
    return slot;
  }

  /**
   * A name for a function (a local function, a bound parameter): a slot whose IR value is an
   * unused placeholder, since calls of it are resolved where they are lowered.
   */
  declareFunctionName(name: string): Slot {
    return this.declare(name, "const", "opaque", this.constantAtEntry(undefined, name, "opaque"));
  }

  /** A flag or hidden variable, not visible to source names; its initial value is built at entry. */
  hiddenSlot(name: string, type: Type, initial: number | boolean | undefined): Slot {
    const slot: Slot = { id: this.nextSlot++, name, kind: "flag", type };
    this.env.set(slot, this.constantAtEntry(initial, name, type));
    return slot;
  }

  /** A constant placed at the top of the function body, so it dominates every use. */
  constantAtEntry(value: number | boolean | undefined, hint: string, type?: Type): Value {
    const saved = this.builder.region;
    const savedLen = this.body.ops.length;
    this.builder.region = this.body;
    const v =
      value === undefined
        ? this.builder.emit("const", [], [type ?? "number"], {}, [], hint).results[0]!
        : this.builder.constant(value, hint);
    const op = this.body.ops.splice(savedLen, 1)[0]!;
    this.body.ops.unshift(op);
    this.builder.region = saved;
    return v;
  }

  value(slot: Slot): Value {
    const cell = this.cells.get(slot);
    if (cell) {
      const b = this.builder;
      return b.emit("index", [cell, b.constant(0)], [slot.type], {}, [], slot.name).results[0]!;
    }
    const v = this.env.get(slot);
    if (!v) throw new Error(`internal: slot ${slot.name} has no value`);
    return v;
  }

  assign(slot: Slot, value: Value): void {
    const cell = this.cells.get(slot);
    if (cell) {
      this.checkJoinable(slot.type, value);
      this.builder.emit("setIndex", [cell, this.builder.constant(0), value], []);
      return;
    }
    const wider = slot.declaredAs;
    if (
      wider &&
      isObject(value.type) &&
      !sameType(slot.type, value.type) &&
      assignable(value.type, wider.type) &&
      !this.widened.has(wider.at)
    )
      throw new WidenConstruction(wider.at, wider.type);
    this.checkJoinable(slot.type, value);
    if (!value.hint && slot.kind !== "flag") value.hint = slot.name;
    this.env.set(slot, value);
  }

  /**
   * A variable's values meet where branches and loops join, which needs one type: a class's
   * instance in a variable of its interface or base class would be read as its own class
   * there (there is no conversion op), so it is a diagnostic, not an internal error.
   */
  checkJoinable(type: Type, value: Value): void {
    if (isObject(type) && isObject(value.type) && !sameType(type, value.type))
      if (assignable(value.type, type)) {
        const at = this.constructedAt.get(value.id);
        if (at !== undefined && !this.widened.has(at)) throw new WidenConstruction(at, type);
        // An object of no class (a literal, an interface's value) is built by no `new`.
        const extra = value.type.fields.filter((f) => !fieldOf(type, f.name)).map((f) => f.name);
        throw new CompileAbort({
          severity: "error",
          ...(value.type.classKey
            ? typeMismatch.instanceWhereWiderTypeJoins(value.type.name, type.name)
            : extra.length > 0
              ? typeMismatch.objectWithOtherFieldsJoins(
                  value.type.name,
                  type.name,
                  extra.join("', '"),
                )
              : typeMismatch.objectOfOtherTypeJoins(value.type.name, type.name)),
          loc: this.builder.loc,
          notes: [],
        });
      }
  }

  /**
   * The variables local functions called in `nodes` assign (through the scope each was written
   * in, and the local functions they call): a loop carries them too.
   */
  closureWrites(nodes: (Node | null | undefined)[]): Slot[] {
    const found = new Set<Slot>();
    const seen = new Set<FunctionLike>();
    const visit = (list: (Node | null | undefined)[], scope: Scope) => {
      for (const node of list) {
        if (!node) continue;
        walk(node, (n) => {
          // A call of a local function, or its name handed on (`Array.from(…, normal)`,
          // which calls it where the loop runs).
          const name =
            n.type === "CallExpression" && n.callee.type === "Identifier"
              ? n.callee.name
              : n.type === "Identifier"
                ? n.name
                : undefined;
          if (name === undefined) return true;
          const slot = scope.lookup(name);
          const closure = slot && this.closures.get(slot);
          if (!closure || seen.has(closure.node)) return true;
          seen.add(closure.node);
          for (const name of assignedNames([closure.node.body])) {
            const written = closure.scope.lookup(name);
            if (written && this.env.has(written)) found.add(written);
          }
          visit([closure.node.body], closure.scope);
          return true;
        });
      }
    };
    visit(nodes, this.scope);
    return [...found];
  }

  /** Runs `fn` in a nested lexical scope. */
  inScope<T>(fn: () => T): T {
    const saved = this.scope;
    this.scope = new Scope(saved);
    try {
      return fn();
    } finally {
      this.scope = saved;
    }
  }
}

/** A module whose code lowering runs inside a function of another (a factory's, an object literal's methods). */
export interface CodePlace {
  module: SourceModule;
  types: TypeResolver;
}

/** Lowers what follows as code of `place`'s module. */
export function enterModule(ctx: LowerContext, place: CodePlace): void {
  ctx.module = place.module;
  ctx.types = place.types;
}

/** The type of a cell holding a value of type `type`: a one-element array. */
export function cellType(type: Type): ArrayType {
  return { kind: "array", storage: "Array", element: type };
}
