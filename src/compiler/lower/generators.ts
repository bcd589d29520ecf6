import type {
  CallExpression,
  Expression,
  ForOfStatement,
  FunctionBody,
  MethodDefinition,
  Node,
  Statement,
  TSTypeAnnotation,
  YieldExpression,
} from "oxc-parser";
import { CompileAbort } from "../diagnostics/diagnostic.js";
import { notes, unknownType, unsupportedSyntax } from "../diagnostics/messages/index.js";
import { isArray, isObject } from "../ir/type-system.js";
import type { ArrayType, ObjectType, Type, Value } from "../ir/types.js";
import { ancestry, descendants, type ClassSymbol } from "../parse/class-hierarchy.js";
import { walk, type FunctionLike, type SourceModule } from "../parse/module.js";
import { typeResolver } from "../types/resolver.js";
import { annotationType, signatureOf, type TypeResolver } from "../types/signature.js";
import { assignedNames } from "./assigned-names.js";
import { classOfType, findMember } from "./class-dispatch.js";
import { Scope, type LoopTarget, type LowerContext, type Slot, type YieldSite } from "./context.js";
import { bindPattern, lowerParameterDefault } from "./destructure.js";
import { scanExits } from "./exits.js";
import { genericInstance } from "./generic-calls.js";
import { calleePath, omitted, resolveCallee } from "./user-call.js";

// Generators iterated by `for…of`: the generator is inlined at the loop that consumes it. Its
// body is lowered in a scope of its own (its parameters bound to the call's arguments, `this`
// to the receiver of a method), in its own module, and each `yield v` lowers the loop's body
// there, in the loop's scope, with the loop's pattern bound to v. So the values never exist as
// a sequence: the IR is the two pieces of code interleaved, as they run. The loop's `continue`
// ends the yield, its `break` (or `return`, or an exit to an outer loop) sets a flag that
// stops the generator's own loops and skips its statements after the yield, as any exit does
// (exits.ts sees a `yield` as a possible exit); the generator's `return` ends the iteration.

/** A generator call a `for…of` iterates, its arguments lowered. */
interface GeneratorCall {
  fn: FunctionLike;
  name: string;
  module: SourceModule;
  /** Resolves the generator's annotations (with its type arguments, for a generic one). */
  types: TypeResolver;
  /** The scope the generator was written in: a local generator reads what it closes over. */
  scope: Scope | undefined;
  args: Value[];
  /** A method's receiver, `this` in its body. */
  self?: Value;
}

/**
 * What a `for…of` iterates, when that is a generator's call or an object whose class has a
 * generator `[Symbol.iterator]()`. Otherwise the loop to lower as usual: what was lowered to
 * find out (a receiver) is held under a name no identifier can spell, and read from there.
 */
export function forOfGenerator(
  ctx: LowerContext,
  node: ForOfStatement,
): { generator: GeneratorCall } | { loop: ForOfStatement } {
  const right = node.right;
  if (right.type === "CallExpression" && !right.optional) {
    const called = generatorCall(ctx, right);
    if (called && "generator" in called) return called;
    return { loop: called ? { ...node, right: called.right } : node };
  }
  if (right.type === "Identifier") {
    // A name is read where the loop holds it (a local function's name is no value to read).
    const slot = ctx.scope.lookup(right.name);
    if (!slot || !isObject(slot.type) || !slot.type.classKey) return { loop: node };
  }
  const value = ctx.lowerExpression(right);
  const method = isObject(value.type) ? iteratorMethod(ctx, value.type, right) : undefined;
  if (method) return { generator: methodCall(ctx, method, value, [], "[Symbol.iterator]") };
  return { loop: { ...node, right: held(ctx, right, value) } };
}

/** `gen(…)`, `obj.gen(…)`: a call of a generator, or the call to lower as usual. */
function generatorCall(
  ctx: LowerContext,
  node: CallExpression,
): { generator: GeneratorCall } | { right: Expression } | undefined {
  const callee = node.callee;
  if (callee.type === "Identifier") {
    const slot = ctx.scope.lookup(callee.name);
    const closure = slot && ctx.closures.get(slot);
    if (closure?.node.generator) {
      // A local generator: written in the function, it reads the variables it closes over.
      const fn = closure.node;
      const signature = signatureOf(fn, ctx.types);
      const args = argumentsOf(ctx, node, signature.params);
      return {
        generator: {
          fn,
          name: callee.name,
          module: ctx.module,
          types: ctx.types,
          scope: closure.scope,
          args,
        },
      };
    }
    if (slot) return undefined;
  }
  if (callee.type === "MemberExpression" && !callee.computed && !callee.optional) {
    if (callee.property.type !== "Identifier" || callee.object.type === "Super") return undefined;
    const object = callee.object as Expression;
    const head = object.type === "Identifier" ? object.name : undefined;
    // A value's method; not `ns.gen(…)` of a namespace import, `Array.from(…)`, `Vec.of(…)`.
    const value =
      head === undefined ||
      ctx.scope.lookup(head) !== undefined ||
      ctx.program.resolveLocalConstant(ctx.module, head) !== undefined;
    if (value) {
      const receiver = ctx.lowerExpression(object);
      const name = callee.property.name;
      if (isObject(receiver.type) && receiver.type.classKey) {
        const cls = classOfType(ctx, receiver.type);
        const found = cls && findMember(ctx, cls, name, "method");
        if (cls && found?.node.generator) {
          notOverridden(ctx, cls, node, (d) => !!findOwn(d, name));
          const types = typeResolver(ctx.program, found.owner.module);
          const args = argumentsOf(ctx, node, signatureOf(found.node, types).params);
          return {
            generator: methodCall(
              ctx,
              { owner: found.owner, node: found.node },
              receiver,
              args,
              name,
            ),
          };
        }
      }
      // Any other call: on the receiver already lowered.
      return {
        right: {
          ...node,
          callee: { ...callee, object: held(ctx, object, receiver) },
        } as Expression,
      };
    }
  }
  const path = calleePath(callee);
  const symbol = path !== undefined ? resolveCallee(ctx, path) : undefined;
  if (!symbol?.node.generator) return undefined;
  const plain = signatureOf(
    symbol.node,
    typeResolver(ctx.program, symbol.module, symbol.typeArguments),
  );
  const args = argumentsOf(ctx, node, plain.params);
  const generic = genericInstance(
    ctx,
    node,
    symbol,
    plain,
    args.map((a) => a.type),
  );
  return {
    generator: {
      fn: symbol.node,
      name: symbol.name,
      module: symbol.module,
      types: typeResolver(ctx.program, symbol.module, generic?.typeArguments),
      scope: undefined,
      args,
    },
  };
}

/** The arguments of a generator's call, with omitted trailing ones undefined (defaults apply). */
function argumentsOf(
  ctx: LowerContext,
  node: CallExpression,
  params: { name: string; type: Type | undefined; omissible?: boolean }[],
): Value[] {
  // As calls.ts lowers arguments: a literal takes its parameter's type.
  const args = node.arguments.map((arg, i) => {
    if (arg.type === "SpreadElement")
      return ctx.fail(arg, unsupportedSyntax.generatorSpreadArguments());
    const literal =
      arg.type === "ArrayExpression" ||
      arg.type === "ObjectExpression" ||
      arg.type === "NewExpression" ||
      (arg.type === "Identifier" && arg.name === "undefined") ||
      (arg.type === "Literal" && arg.value === null);
    return literal ? ctx.lowerValue(arg, params[i]?.type) : ctx.lowerExpression(arg);
  });
  const missing = params.slice(args.length);
  return missing.every((p) => p.omissible) ? [...args, ...omitted(ctx, missing as never)] : args;
}

/** The generator method `[Symbol.iterator]()` an instance of a class of the program has. */
function iteratorMethod(
  ctx: LowerContext,
  type: ObjectType,
  at: Node,
): { owner: ClassSymbol; node: FunctionLike } | undefined {
  const cls = classOfType(ctx, type);
  if (!cls) return undefined;
  for (const owner of ancestry(ctx.program, cls)) {
    const node = findOwn(owner, ITERATOR);
    if (!node) continue;
    if (!node.generator) return undefined;
    notOverridden(ctx, cls, at, (d) => !!findOwn(d, ITERATOR));
    return { owner, node };
  }
  return undefined;
}

const ITERATOR = Symbol.iterator;

/** The method a class declares itself: by name, or `[Symbol.iterator]`. */
function findOwn(cls: ClassSymbol, name: string | typeof ITERATOR): FunctionLike | undefined {
  for (const m of cls.decl.body.body) {
    if (m.type !== "MethodDefinition" || m.kind !== "method" || m.static || !m.value.body) continue;
    if (
      name === ITERATOR
        ? isSymbolIterator(m)
        : !m.computed && m.key.type === "Identifier" && m.key.name === name
    )
      return m.value;
  }
  return undefined;
}

function isSymbolIterator(m: MethodDefinition): boolean {
  const key = m.key;
  return (
    m.computed &&
    key.type === "MemberExpression" &&
    !key.computed &&
    key.object.type === "Identifier" &&
    key.object.name === "Symbol" &&
    key.property.type === "Identifier" &&
    key.property.name === "iterator"
  );
}

/** A subclass's own generator would run for its instances: not chosen at run time here. */
function notOverridden(
  ctx: LowerContext,
  cls: ClassSymbol,
  at: Node,
  overrides: (d: ClassSymbol) => boolean,
): void {
  const overriding = descendants(ctx.program, cls).find(overrides);
  if (overriding) ctx.fail(at, unsupportedSyntax.generatorOverridden(cls.name, overriding.name));
}

function methodCall(
  ctx: LowerContext,
  method: { owner: ClassSymbol; node: FunctionLike },
  self: Value,
  args: Value[],
  name: string,
): GeneratorCall {
  return {
    fn: method.node,
    name: `${method.owner.name}.${name}`,
    module: method.owner.module,
    types: typeResolver(ctx.program, method.owner.module),
    scope: undefined,
    args,
    self,
  };
}

/**
 * `[...gen(…)]`, `Array.from(gen(…))`, `[...line]`, `[...line.segments()]`: a new array the
 * generator's values are pushed into, by a `for…of` over `call` (so inlined as any); undefined
 * when `call` runs no generator (iteratedGenerator).
 * `whole` is the expression whose type (an array, from TypeScript or the generator's
 * annotation) the array takes.
 */
export function collectGenerator(
  ctx: LowerContext,
  call: Node,
  whole: Node,
  /**
   * What a callback taking each value says they are (`Array.from(gen(), (v: T) => …)`), or the
   * array's type expected (`[...gen()] as number[]`).
   */
  taken?: () => Type | undefined,
): Value | undefined {
  const gen = iteratedGenerator(ctx, call);
  if (!gen) return undefined;
  const checked = taken ? undefined : ctx.types.inferred?.expectedTypeOf(whole.start, whole.end);
  const element =
    checked && isArray(checked) && !checked.elements
      ? checked.element
      : (taken?.() ?? yieldedType(gen.fn, gen.types));
  if (!element) return ctx.fail(whole, unknownType.cannotDetermineElementTypeOf());
  const at = { start: call.start, end: call.end };
  const type: ArrayType = { kind: "array", storage: "Array", element };
  ctx.at(whole);
  const array = ctx.builder.emit("literal", [], [type], {}, [], "values").results[0]!;
  const id = (name: string) => ({ type: "Identifier", name, ...at });
  const [values, value] = [`.values@${call.start}`, `.value@${call.start}`];
  // for (const value of call) values.push(value);
  const loop = {
    type: "ForOfStatement",
    await: false,
    left: {
      type: "VariableDeclaration",
      kind: "const",
      declarations: [{ type: "VariableDeclarator", id: id(value), init: null, ...at }],
      ...at,
    },
    right: call,
    body: {
      type: "ExpressionStatement",
      expression: {
        type: "CallExpression",
        callee: {
          type: "MemberExpression",
          object: id(values),
          property: id("push"),
          computed: false,
          optional: false,
          ...at,
        },
        arguments: [id(value)],
        optional: false,
        ...at,
      },
      ...at,
    },
    ...at,
  } as unknown as Statement;
  ctx.inScope(() => {
    ctx.declare(values, "const", type, array);
    ctx.lowerStatements([loop]);
  });
  return array;
}

/**
 * The generator iterating `node` runs, with the resolver of its module: a generator function's
 * call, a generator method's call on an instance (`line.segments()`), or an instance whose class
 * has a generator `[Symbol.iterator]()` (`line`, `this`), as `for…of` inlines them.
 */
export function iteratedGenerator(
  ctx: LowerContext,
  node: Node,
): { fn: FunctionLike; types: TypeResolver } | undefined {
  const fn = calledGenerator(ctx, node);
  if (fn) return { fn, types: ctx.types };
  // Only a name or `this`: what TypeScript says it is, not lowered twice.
  const instance = (n: Node) => {
    if (n.type !== "Identifier" && n.type !== "ThisExpression") return undefined;
    const type = ctx.types.inferred?.typeAt(n.start);
    return type && isObject(type) && type.classKey ? type : undefined;
  };
  const ofModule = (m: { owner: ClassSymbol; node: FunctionLike }) =>
    m.node.generator ? { fn: m.node, types: typeResolver(ctx.program, m.owner.module) } : undefined;
  if (node.type === "CallExpression") {
    const callee = node.callee;
    if (node.optional || callee.type !== "MemberExpression" || callee.computed) return undefined;
    if (callee.optional || callee.property.type !== "Identifier") return undefined;
    const type = instance(callee.object);
    const cls = type && classOfType(ctx, type);
    const found = cls && findMember(ctx, cls, callee.property.name, "method");
    return found && ofModule(found);
  }
  const type = instance(node);
  const method = type && iteratorMethod(ctx, type, node);
  return method && ofModule(method);
}

/** The generator `node` calls, if it is a call of a generator function (not of a method). */
function calledGenerator(ctx: LowerContext, node: Node): FunctionLike | undefined {
  if (node.type !== "CallExpression" || node.optional) return undefined;
  const path = calleePath(node.callee);
  if (path === undefined) return undefined;
  const slot = ctx.scope.lookup(path.split(".")[0]!);
  if (slot) {
    const closure = path.includes(".") ? undefined : ctx.closures.get(slot);
    return closure?.node.generator ? closure.node : undefined;
  }
  const symbol = resolveCallee(ctx, path);
  return symbol?.node.generator ? symbol.node : undefined;
}

/** `value`, held under a hidden name; the identifier reading it sits where `at` was. */
function held(ctx: LowerContext, at: Node, value: Value): Expression {
  const name = `.held@${at.start}`;
  if (!value.hint) value.hint = "iterated";
  ctx.declare(name, "const", value.type, value);
  return { type: "Identifier", name, start: at.start, end: at.end } as unknown as Expression;
}

/** Where lowering is: what changes between a generator's code and its consumer's. */
interface Place {
  module: SourceModule;
  types: TypeResolver;
  scope: Scope;
  loops: LoopTarget[];
  returnedFlag: Slot | undefined;
  resultSlot: Slot | undefined;
  resultType: Type;
  resultDefaulted: boolean;
  auxReturn: LowerContext["auxReturn"];
  yieldSite: YieldSite | undefined;
  /** The generators and local functions being inlined here (a call of one is recursion). */
  inlining: FunctionLike[];
}

function placeOf(ctx: LowerContext): Place {
  return {
    module: ctx.module,
    types: ctx.types,
    scope: ctx.scope,
    loops: ctx.loops,
    returnedFlag: ctx.returnedFlag,
    resultSlot: ctx.resultSlot,
    resultType: ctx.resultType,
    resultDefaulted: ctx.resultDefaulted,
    auxReturn: ctx.auxReturn,
    yieldSite: ctx.yieldSite,
    inlining: [...ctx.inlining],
  };
}

function enter(ctx: LowerContext, place: Place): void {
  const { inlining, ...rest } = place;
  Object.assign(ctx, rest);
  ctx.inlining.clear();
  for (const fn of inlining) ctx.inlining.add(fn);
}

/** The generator, inlined: the loop `node` with the generator `gen`, labeled `label`. */
export function lowerGeneratorLoop(
  ctx: LowerContext,
  node: ForOfStatement,
  gen: GeneratorCall,
  label: string | undefined,
): void {
  if (node.await) ctx.fail(node, unsupportedSyntax.forAwaitIsNotSupported());
  const left = node.left;
  if (left.type !== "VariableDeclaration" || left.declarations.length !== 1)
    return ctx.fail(left, unsupportedSyntax.forOfLoopMustDeclare());
  if (ctx.inlining.has(gen.fn))
    return ctx.fail(node.right, unsupportedSyntax.generatorIteratesItself(gen.name));
  const pattern = left.declarations[0]!.id;
  const kind = left.kind === "const" ? "const" : "let";
  const body: Statement[] = node.body.type === "BlockStatement" ? node.body.body : [node.body];

  // The loop's exits, as for any loop: its own break and continue, and those that leave it.
  const target: LoopTarget = { label, node, breakFlag: undefined, continueFlag: undefined };
  ctx.loops.push(target);
  const exits = (() => {
    try {
      return scanExits(ctx, node.body);
    } finally {
      ctx.loops.pop();
    }
  })();
  if (exits.breaks.has(target)) target.breakFlag = ctx.hiddenSlot("break", "boolean", false);
  const continues = exits.continues.has(target);
  exits.breaks.delete(target);
  exits.continues.delete(target);
  const flags = [
    ...(target.breakFlag ? [target.breakFlag] : []),
    ...(exits.returns ? [ctx.returnedFlag!] : []),
    ...[...exits.breaks].map((t) => t.breakFlag!),
    ...[...exits.continues].map((t) => t.continueFlag!),
  ];
  const writes = [
    ...[...assignedNames([node.body], true)]
      .map((name) => ctx.scope.lookup(name))
      .filter((slot): slot is Slot => slot !== undefined && ctx.env.has(slot)),
    ...ctx.closureWrites([node.body]),
    ...flags,
    ...(exits.returns && ctx.resultSlot ? [ctx.resultSlot] : []),
    ...(ctx.yieldSite && containsYield(node.body) ? ctx.yieldSite.writes : []),
  ];

  const consumer = placeOf(ctx);
  const yielded = yieldedType(gen.fn, gen.types);
  const site: YieldSite = {
    stops: new Set(
      flags.map((flag) => ({ label: undefined, node, breakFlag: flag, continueFlag: undefined })),
    ),
    writes: [...new Set(writes)],
    lower: (y) => {
      if (y.delegate) return lowerDelegate(ctx, y);
      if (!y.argument) return ctx.fail(y, unsupportedSyntax.yieldWithoutValue());
      const value = ctx.lowerValue(y.argument, yielded);
      const inGenerator = placeOf(ctx);
      enter(ctx, { ...consumer, loops: [...consumer.loops, target] });
      try {
        ctx.inScope(() => {
          ctx.at(node);
          if (continues) target.continueFlag = ctx.hiddenSlot("continue", "boolean", false);
          if (pattern.type === "Identifier") ctx.declare(pattern.name, kind, value.type, value);
          else bindPattern(ctx, pattern, value);
          ctx.lowerStatements(body);
        });
      } finally {
        enter(ctx, inGenerator);
      }
    },
  };

  const signature = signatureOf(gen.fn, gen.types);
  enter(ctx, {
    module: gen.module,
    types: gen.types,
    scope: new Scope(gen.scope),
    loops: [],
    returnedFlag: ctx.hiddenSlot("returned", "boolean", false),
    resultSlot: undefined,
    resultType: "void",
    resultDefaulted: false,
    auxReturn: undefined,
    yieldSite: site,
    inlining: [...consumer.inlining, gen.fn],
  });
  try {
    refuseReturnedValues(ctx, gen.fn);
    if (gen.self) ctx.declare("this", "const", gen.self.type, gen.self);
    signature.params.forEach((p, i) => {
      const arg = gen.args[i];
      if (!arg) return;
      if (p.pattern) return bindPattern(ctx, p.pattern, arg);
      ctx.declare(p.name, "param", arg.type, arg);
      if (p.defaultValue) lowerParameterDefault(ctx, p.name, p.defaultValue);
    });
    ctx.lowerStatements((gen.fn.body as FunctionBody).body);
  } catch (error) {
    // A problem in the generator's own code: the note says which loop brought it in.
    const d = error instanceof CompileAbort ? error.diagnostic : undefined;
    if (
      d &&
      d.loc.file === gen.module.file &&
      d.loc.start >= gen.fn.start &&
      d.loc.end <= gen.fn.end
    )
      d.notes.unshift({
        ...notes.inGeneratorIteratedHere(gen.name),
        loc: { file: consumer.module.file, start: node.right.start, end: node.right.end },
      });
    throw error;
  } finally {
    enter(ctx, consumer);
  }
}

/** `yield* inner`: `for (const v of inner) yield v;`, any iterable, generators inlined too. */
function lowerDelegate(ctx: LowerContext, y: YieldExpression): void {
  const at = { start: y.start, end: y.end };
  const name = `.yield@${y.start}`;
  const id = { type: "Identifier", name, ...at };
  const loop = {
    type: "ForOfStatement",
    await: false,
    left: {
      type: "VariableDeclaration",
      kind: "const",
      declarations: [{ type: "VariableDeclarator", id, init: null, ...at }],
      ...at,
    },
    right: y.argument,
    body: {
      type: "ExpressionStatement",
      expression: { type: "YieldExpression", delegate: false, argument: id, ...at },
      ...at,
    },
    ...at,
  } as unknown as Statement;
  ctx.lowerStatements([loop]);
}

/** `Generator<Y>`, `Iterable<Y>`…: Y, what the generator's annotation says it yields. */
function yieldedType(fn: FunctionLike, types: TypeResolver): Type | undefined {
  const annotation = fn.returnType?.typeAnnotation;
  if (annotation?.type !== "TSTypeReference" || annotation.typeName.type !== "Identifier")
    return undefined;
  const [y] = annotation.typeArguments?.params ?? [];
  if (!y || !ITERABLES.has(annotation.typeName.name)) return undefined;
  const type = annotationType(
    { type: "TSTypeAnnotation", typeAnnotation: y } as TSTypeAnnotation,
    types,
  );
  return type === "opaque" ? undefined : type;
}

const ITERABLES = new Set([
  "Generator",
  "Iterable",
  "IterableIterator",
  "Iterator",
  "IteratorObject",
]);

/** A `return v` in a generator: what it returns is the iterator's, which `for…of` drops. */
function refuseReturnedValues(ctx: LowerContext, fn: FunctionLike): void {
  walk(fn.body!, (n) => {
    if (n !== fn.body && FUNCTIONS.has(n.type)) return false;
    if (n.type === "ReturnStatement" && n.argument)
      ctx.fail(n, unsupportedSyntax.generatorReturnsValue());
    return true;
  });
}

const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

/** Whether `nodes` hold a `yield` of the function being lowered (not of a nested one). */
export function containsYield(...nodes: (Node | null | undefined)[]): boolean {
  let found = false;
  for (const node of nodes) {
    if (!node) continue;
    walk(node, (n) => {
      if (n.type === "YieldExpression") found = true;
      return !found && !FUNCTIONS.has(n.type);
    });
  }
  return found;
}
