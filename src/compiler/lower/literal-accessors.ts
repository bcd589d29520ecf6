import type { CallExpression, Node, ObjectExpression, ObjectProperty } from "oxc-parser";
import { walk, type ModuleConstant, type SourceModule } from "../parse/module.js";
import type { FunctionSymbol } from "../parse/program.js";
import { functionsUsedAsValues, unwrapped } from "../resolve/function-values.js";
import { typeResolver } from "../types/resolver.js";
import { CompileAbort } from "../diagnostics/diagnostic.js";
import { closureCapture, notes, unsupportedSyntax } from "../diagnostics/messages/index.js";
import { forEachOp } from "../ir/walk.js";
import type { Op, Type, Value } from "../ir/types.js";
import { signatureOf } from "../types/signature.js";
import {
  enterModule,
  Scope,
  type AccessorObject,
  type LiteralAccessor,
  type LowerContext,
} from "./context.js";
import { expectType } from "./expect-type.js";
import { inlineCallback } from "./inline-callback.js";
import { objectUseOf } from "./object-closures.js";
import { emitUserCall } from "./user-call.js";

// Getters and methods written in an object literal: `{ w, h, get area() { return this.w *
// this.h; } }`, `{ x, norm() { return Math.abs(this.x); } }`. The object is tracked by its IR
// value (LowerContext.literalAccessors); a read of a getter (`box.area`) or a call of a method
// (`box.norm()`) inlines its body there, with `this` the object and the names it reads those
// of the scope the literal was written in, as a local function's call is inlined. A getter so
// runs at each read, as in JavaScript, and sees the fields as they are then (`box.w = 3;
// box.area`); `{ ...box }` copies its value. The object's field for an accessor is a
// placeholder no code reads (an interface's method has none: the object is of the interface's
// type). A function the object is passed to is specialized for its accessors
// (passed-accessors.ts), and a factory returning it is run where it is called
// (literal-factories.ts); any other use of the object (storing it, returning it from elsewhere,
// joining it with another object) is refused (checkAccessorObjectUses), since code there would
// read the placeholder.

/** `get area() {…}` or `area() {…}` of an object literal; undefined for `key: value`. */
export function literalAccessor(
  ctx: LowerContext,
  prop: ObjectProperty,
  key: string,
): LiteralAccessor | undefined {
  if (prop.kind === "set") return ctx.fail(prop, unsupportedSyntax.setterInObjectLiteral(key));
  const getter = prop.kind === "get";
  if (!getter && !prop.method) return undefined;
  const node = prop.value as LiteralAccessor["node"];
  if (node.async || node.generator)
    return ctx.fail(prop, unsupportedSyntax.onlyPlainKeyValueProperties());
  return { key, node, getter };
}

/** The placeholder the object holds for an accessor: of the getter's result type. */
export function accessorPlaceholder(
  ctx: LowerContext,
  accessor: LiteralAccessor,
  declared: Type | undefined,
): Value {
  const { node, key } = accessor;
  const type = accessor.getter
    ? (declared ??
      signatureOf(node, ctx.types).result ??
      ctx.types.inferred?.returnTypeOf(node.start, node.end))
    : "opaque";
  if (type === undefined || type === "void")
    return ctx.fail(node, unsupportedSyntax.getterResultType(key));
  return ctx.builder.emit("const", [], [type], {}, [], key).results[0]!;
}

/** Records the accessors of `literal`, written in the current scope. */
export function registerAccessors(
  ctx: LowerContext,
  literal: Value,
  accessors: Map<string, LiteralAccessor>,
  at: Node,
): void {
  if (accessors.size === 0) return;
  ctx.literalAccessors.set(literal, {
    accessors,
    scope: ctx.scope,
    origin: ctx.loc(at),
    module: ctx.module,
    types: ctx.types,
  });
}

/** `box.area`, where `area` is a getter of the literal `box` holds: what runs it there. */
export function literalGetterRead(
  ctx: LowerContext,
  node: Node,
  object: Value,
  name: string,
): (() => Value) | undefined {
  const entry = ctx.literalAccessors.get(object);
  const accessor = entry?.accessors.get(name);
  if (!entry || !accessor?.getter) return undefined;
  return () => runAccessor(ctx, node, object, entry, accessor, []);
}

/** `box.norm(…)`, where `norm` is a method of the literal `box` holds: its call, inlined. */
export function literalMethodCall(
  ctx: LowerContext,
  node: CallExpression,
  object: Value,
  name: string,
  lowerArguments: () => Value[],
): Value | undefined {
  const entry = ctx.literalAccessors.get(object);
  const accessor = entry?.accessors.get(name);
  if (!entry || !accessor || accessor.getter) return undefined;
  return runAccessor(ctx, node, object, entry, accessor, lowerArguments());
}

/**
 * `Loss.mse(a, b)`, where `Loss` is a module-level `const` object literal (of this module,
 * imported, or read through a namespace import: `L.Loss.mse(…)`) and `mse` a method written in
 * it (`mse(a, b) { … }`) that no code replaces. A method not using `this` is called as the
 * function it is (compiled in its module, named by its path, as a call through a function value
 * calls it); one using `this` is inlined as a literal's method is, with `this` the object
 * (whose other methods it may call) and the names it reads those of its module.
 */
export function moduleLiteralMethodCall(
  ctx: LowerContext,
  node: CallExpression,
  objectNode: Node,
  object: Value,
  name: string,
  lowerArguments: () => Value[],
): Value | undefined {
  const found = moduleObjectLiteral(ctx, objectNode);
  if (!found) return undefined;
  const kept = new Map<Node, FunctionSymbol>(
    functionsUsedAsValues(ctx.program).map((s) => [s.node, s]),
  );
  const accessors = new Map<string, LiteralAccessor>();
  let called: FunctionSymbol | undefined;
  for (const p of found.literal.properties) {
    if (p.type !== "Property" || p.computed || !p.method || !kept.has(p.value)) continue;
    const key = p.key.type === "Identifier" ? p.key.name : undefined;
    const accessor = key === undefined ? undefined : literalAccessor(ctx, p, key);
    if (!accessor) continue;
    accessors.set(accessor.key, accessor);
    if (accessor.key === name) called = kept.get(p.value);
  }
  if (!called) return undefined;
  if (!usesThis(called.node)) return emitUserCall(ctx, node, called, called.name, lowerArguments());
  ctx.literalAccessors.set(object, {
    accessors,
    // Its code reads the names of its module only.
    scope: new Scope(undefined),
    origin: ctx.loc(objectNode),
    module: found.module,
    types: found.module === ctx.module ? ctx.types : typeResolver(ctx.program, found.module),
  });
  return literalMethodCall(ctx, node, object, name, lowerArguments);
}

/** Whether a method's body reads `this` (its own, not that of a function written in it). */
function usesThis(fn: Node): boolean {
  let found = false;
  walk(fn, (n) => {
    if (n !== fn && (n.type === "FunctionExpression" || n.type === "FunctionDeclaration"))
      return false;
    if (n.type === "ThisExpression") found = true;
    return !found;
  });
  return found;
}

/** The module-level `const` object literal `node` names (`Loss`, `L.Loss`), and its module. */
function moduleObjectLiteral(
  ctx: LowerContext,
  node: Node,
): { literal: ObjectExpression; module: SourceModule } | undefined {
  let constant: ModuleConstant | undefined;
  if (node.type === "Identifier" && !ctx.scope.lookup(node.name)) {
    constant =
      ctx.module.constants.get(node.name) ??
      (ctx.module.imports.has(node.name)
        ? ctx.program.resolveLocalConstant(ctx.module, node.name)
        : undefined);
  } else if (
    node.type === "MemberExpression" &&
    !node.computed &&
    node.object.type === "Identifier" &&
    node.property.type === "Identifier" &&
    !ctx.scope.lookup(node.object.name)
  ) {
    const target = ctx.program.namespaceModule(ctx.module, node.object.name);
    constant = target && ctx.program.resolveExportedConstant(target, node.property.name);
  }
  if (constant?.kind !== "const" || !constant.node.init) return undefined;
  const init = unwrapped(constant.node.init);
  if (init.type !== "ObjectExpression") return undefined;
  const module = ctx.program
    .loadedModules()
    .find((m) => m.constants.get(constant!.name) === constant);
  return module && { literal: init, module };
}

function runAccessor(
  ctx: LowerContext,
  at: Node,
  object: Value,
  entry: AccessorObject,
  accessor: LiteralAccessor,
  args: Value[],
): Value {
  const { node, key } = accessor;
  if (ctx.inlining.has(node))
    return ctx.fail(at, unsupportedSyntax.localFunctionCallsItselfRecursive(key));
  if (args.length > node.params.length)
    return ctx.fail(at, unsupportedSyntax.localFunctionMustBePlain(key));
  const saved = ctx.scope;
  const caller = { module: ctx.module, types: ctx.types };
  ctx.scope = new Scope(entry.scope);
  ctx.inlining.add(node);
  // The method's code is its module's: a factory of another module's (literal-factories.ts).
  enterModule(ctx, entry);
  let result: Type | undefined;
  let produced: Value | undefined;
  try {
    ctx.declare("this", "const", object.type, object);
    produced = inlineCallback(
      ctx,
      node,
      args,
      `the ${accessor.getter ? "getter" : "method"} '${key}'`,
    );
    result = signatureOf(node, ctx.types).result;
  } finally {
    ctx.inlining.delete(node);
    ctx.scope = saved;
    enterModule(ctx, caller);
  }
  ctx.at(at);
  if (result && result !== "void" && produced) return expectType(ctx, at, produced, result);
  return produced ?? ctx.builder.newValue("void");
}

/**
 * Refuses every use of an object with accessors other than reading or writing a field that is
 * not one (its getters and methods ran inlined), testing whether it is there, or has a field.
 */
export function checkAccessorObjectUses(ctx: LowerContext): void {
  if (ctx.literalAccessors.size === 0) return;
  forEachOp(ctx.body, (op) => {
    op.operands.forEach((operand, index) => {
      const entry = ctx.literalAccessors.get(operand);
      if (!entry || allowed(ctx, op, index, entry)) return;
      const atObject = op.opcode === "return" || op.opcode === "yield" || op.opcode === "condition";
      const names = [...entry.accessors.values()].map((a) =>
        a.getter ? `get ${a.key}` : `${a.key}()`,
      );
      throw new CompileAbort({
        severity: "error",
        ...closureCapture.objectWithAccessorsUsed(names.join("', '"), useOf(ctx, op, index, entry)),
        loc: atObject ? entry.origin : op.loc,
        notes: atObject ? [] : [{ ...notes.objectWithAccessorsFrom(), loc: entry.origin }],
      });
    });
  });
}

function allowed(ctx: LowerContext, op: Op, index: number, entry: AccessorObject): boolean {
  switch (op.opcode) {
    // Passed to a function specialized for its accessors, which they capture as `this`
    // (passed-accessors.ts).
    case "call":
      return index < (ctx.boundPasses.get(op) ?? 0) || ctx.thisPasses.get(op)?.has(index) === true;
    case "field":
    case "setField":
      return index === 0 && !entry.accessors.has(op.attrs.field as string);
    case "nullish":
      return true;
    case "nondiff":
      return op.attrs.callee === "in" && index === 1;
    default:
      return false;
  }
}

/** What the code does with the object, for the message ("return it"). */
function useOf(ctx: LowerContext, op: Op, index: number, entry: AccessorObject): string {
  // Carried by a function passed to the call, which captured the object by its name.
  if (op.opcode === "call" && index >= (ctx.boundPasses.get(op) ?? Infinity))
    return "capture it in a function that is passed on (a method reading its own object by its name: read it through 'this' instead)";
  if (op.opcode === "field")
    return entry.accessors.get(op.attrs.field as string)?.getter
      ? `read its getter '${op.attrs.field}' other than by name ('box.${op.attrs.field}'), such as by destructuring or a key chosen at run time`
      : `read its method '${op.attrs.field}' as a value (call it instead)`;
  if (op.opcode === "setField" && index === 0) return `assign its accessor '${op.attrs.field}'`;
  return objectUseOf(op);
}
