import { basename } from "node:path";
import type { CallExpression, Node } from "oxc-parser";
import {
  unknownCallee,
  unsupportedSyntax,
  unsupportedType,
} from "../diagnostics/messages/index.js";
import { functionKey, genericKey, keyFile, keyName } from "../ir/function-key.js";
import type { FieldType, FunctionTypeInfo, ObjectType, Value } from "../ir/types.js";
import { isDifferentiable, isObject, sameType, typeText } from "../ir/type-system.js";
import {
  ancestry,
  classNamed,
  descendants,
  genericInAncestry,
  privateNameClash,
  implementersOf,
  superclassOf,
  type ClassSymbol,
} from "../parse/class-hierarchy.js";
import type { FunctionLike } from "../parse/module.js";
import type { FunctionSymbol } from "../parse/program.js";
import { typeResolver } from "../types/resolver.js";
import { instantiationOf } from "../types/generic-classes.js";
import { classMember } from "../parse/class-member.js";
import type { LowerContext } from "./context.js";
import { lowerIf } from "./merge.js";

// Methods of class hierarchies. A method is lowered once, for the class that declares it, with
// `this` of that class's type (a base class's type has room for its subclasses' fields, see
// types/declared-types.ts). A call finds the method where JavaScript would: on the class of
// the receiver's type or the nearest base declaring it. When a subclass overrides it, which
// code runs depends on the object, so the call tests the receiver's run-time class
// (`instanceof`, a condition without derivative), most derived first, and calls that class's
// method in each branch: an array of `Bond` holding several kinds of bonds runs each one's.

/** How a member is looked up: an instance method or a getter. */
export type InstanceMemberKind = "method" | "get" | "set";

/** Calls `symbol` with `receiver` as `this` (calls.ts supplies it; it lowers the arguments). */
export type MethodCaller = (symbol: FunctionSymbol, receiver: Value) => Value;

/** The class an object type is an instance of, if it is a class of the program. */
export function classOfType(ctx: LowerContext, type: ObjectType): ClassSymbol | undefined {
  if (!type.classKey) return undefined;
  // An instantiation of a generic class (`…#Box<Box$of>`) is of the class itself.
  const key = genericKey(type.classKey);
  const mod = ctx.program.load(keyFile(key));
  return classNamed(ctx.program, mod, keyName(key));
}

/**
 * The function type of a field of a class's instances: as the field's type has it, else for a
 * field declared without annotation and given a function (`constructor(private clamp =
 * Math.tanh)`, `act = relu`), the one TypeScript's checker infers.
 */
export function fieldFunctionType(
  ctx: LowerContext,
  type: ObjectType,
  field: FieldType,
): FunctionTypeInfo | undefined {
  if (field.callable || field.type !== "opaque") return field.callable;
  const cls = classOfType(ctx, type);
  for (const owner of cls ? ancestry(ctx.program, cls) : []) {
    for (const m of owner.decl.body.body) {
      const declared =
        // Not an arrow field: it is called as a method (arrow-fields.ts).
        m.type === "PropertyDefinition" &&
        !m.static &&
        !m.typeAnnotation &&
        m.value &&
        m.value.type !== "ArrowFunctionExpression"
          ? m.key
          : m.type === "MethodDefinition" && m.kind === "constructor"
            ? m.value.params
                .flatMap((p) =>
                  p.type === "TSParameterProperty" &&
                  p.parameter.type === "AssignmentPattern" &&
                  p.parameter.left.type === "Identifier" &&
                  !p.parameter.left.typeAnnotation
                    ? [p.parameter.left]
                    : [],
                )
                .find((id) => id.name === field.name)
            : undefined;
      if (declared?.type !== "Identifier" || declared.name !== field.name) continue;
      return typeResolver(ctx.program, owner.module).inferred?.functionTypeAt(declared.start);
    }
  }
  return undefined;
}

/** The IR type of the instances of `cls`. */
export function instanceType(ctx: LowerContext, cls: ClassSymbol): ObjectType | undefined {
  const reference = {
    type: "TSTypeReference",
    typeName: { type: "Identifier", name: cls.name, start: 0, end: 0 },
    start: 0,
    end: 0,
  } as never;
  const type = typeResolver(ctx.program, cls.module)(reference);
  return type && typeof type === "object" && type.kind === "object" && type.classKey
    ? type
    : undefined;
}

/** The member `name` as `cls` has it: its own, or the nearest base's that has a body. */
export function findMember(
  ctx: LowerContext,
  cls: ClassSymbol,
  name: string,
  kind: InstanceMemberKind,
): { owner: ClassSymbol; node: FunctionLike } | undefined {
  for (const owner of ancestry(ctx.program, cls)) {
    const node = classMember(owner.decl, name, kind);
    if (node) return { owner, node };
  }
  return undefined;
}

/** The member `node` of `owner` as a function whose first parameter is `this`. */
export function memberSymbol(
  ctx: LowerContext,
  owner: ClassSymbol,
  node: FunctionLike,
  name: string,
  kind: InstanceMemberKind,
  at: Node,
  /** The receiver's type: for a generic class, the instantiation whose member it is. */
  receiverType?: ObjectType,
): FunctionSymbol {
  const instantiation = instantiationOf(ctx.program, receiverType?.classKey);
  if (instantiation && instantiation.cls.decl === owner.decl) {
    // One function per instantiation: its key is the member's with the instantiation's name.
    const member = kind === "method" ? `${owner.name}.${name}` : `${owner.name}.${kind}.${name}`;
    return {
      module: owner.module,
      name: `${member}<${instantiation.id}>`,
      node,
      thisType: receiverType!,
      typeArguments: instantiation.typeArguments,
      ...(kind === "get" ? { getter: true } : {}),
      ...(kind === "set" ? { setter: true } : {}),
    };
  }
  const thisType = instanceType(ctx, owner);
  const clash = !thisType && privateNameClash(ctx.program, owner);
  if (clash)
    return ctx.fail(
      at,
      unsupportedSyntax.privateNameClash(
        `'${name}' of '${owner.name}'`,
        clash.name,
        clash.base.name,
      ),
    );
  const generic = !thisType && genericInAncestry(ctx.program, owner);
  // A generic class outside a hierarchy whose instance's type arguments nabla does not know.
  const alone = !owner.decl.superClass && descendants(ctx.program, owner).length === 0;
  if (generic && alone)
    return ctx.fail(
      at,
      unsupportedSyntax.genericClassArguments(`'${name}'`, generic.written, owner.name),
    );
  if (generic)
    return ctx.fail(
      at,
      unsupportedSyntax.genericClass(`'${name}'`, generic.written, generic.params),
    );
  if (!thisType) {
    return ctx.fail(at, unknownCallee.classHasNoMethodNabla(owner.name, name));
  }
  return {
    module: owner.module,
    name: kind === "method" ? `${owner.name}.${name}` : `${owner.name}.${kind}.${name}`,
    node,
    thisType,
    ...(kind === "get" ? { getter: true } : {}),
    ...(kind === "set" ? { setter: true } : {}),
  };
}

/**
 * `shape.area()` where `shape` is an instance of a class of the program: the method its class
 * has, or, when subclasses override it, the one of the receiver's run-time class. Undefined
 * when neither the class nor a subclass has it (the caller then looks for a field).
 */
export function lowerClassMethodCall(
  ctx: LowerContext,
  node: CallExpression,
  receiver: Value,
  type: ObjectType,
  name: string,
  kind: InstanceMemberKind,
  call: MethodCaller,
): Value | undefined {
  const cls = classOfType(ctx, type);
  if (!cls) return undefined;
  const own = findMember(ctx, cls, name, kind);
  // Deepest first, so a subclass's override is tested before its base's.
  const overriding = descendants(ctx.program, cls)
    .filter((d) => classMember(d.decl, name, kind))
    .reverse();
  // `cls`'s own override of a base's method: TypeScript's structural typing lets an instance
  // of the base (same members) be typed as `cls`, so the override runs only on a real `cls`.
  const visible = classNamed(ctx.program, ctx.module, cls.name)?.decl === cls.decl;
  const base = visible && own?.owner.decl === cls.decl ? superclassOf(ctx.program, cls) : undefined;
  const inherited = base && findMember(ctx, base, name, kind);
  const callOwn = (): Value => {
    const mine = () =>
      yielded(call(memberSymbol(ctx, own!.owner, own!.node, name, kind, node, type), receiver));
    if (!inherited) return mine()[0] ?? ctx.builder.newValue("void");
    const theirs = () =>
      yielded(call(memberSymbol(ctx, inherited.owner, inherited.node, name, kind, node), receiver));
    const [v] = lowerIf(ctx, instanceOf(ctx, receiver, cls, node), [mine, theirs]);
    return v ?? ctx.builder.newValue("void");
  };
  if (overriding.length === 0) return own && callOwn();
  const chain = (i: number): Value[] => {
    ctx.at(node);
    if (i === overriding.length) {
      if (own) return yielded(callOwn());
      // An abstract method: an instance of a class nabla did not see has no code to run here.
      ctx.builder.emit(
        "extern",
        [
          ctx.builder.constant("TypeError"),
          ctx.builder.constant(
            `nabla: '${name}' of an instance of a class extending '${cls.name}' that the compiled program does not declare`,
          ),
        ],
        ["void"],
        { callee: "nabla:raise" },
      );
      // The branch never continues; its result still needs a value of the right shape.
      const last = overriding[overriding.length - 1]!;
      const fallback = classMember(last.decl, name, kind)!;
      return yielded(call(memberSymbol(ctx, last, fallback, name, kind, node), receiver));
    }
    const sub = overriding[i]!;
    const test = instanceOf(ctx, receiver, sub, node);
    return lowerIf(ctx, test, [
      () => {
        const method = classMember(sub.decl, name, kind)!;
        return yielded(call(memberSymbol(ctx, sub, method, name, kind, node), receiver));
      },
      () => chain(i + 1),
    ]);
  };
  const [v] = typedAsWritten(ctx, node, kind, () => chain(0));
  return v ?? ctx.builder.newValue("void");
}

/**
 * The branches of a dispatched call, lowered by `branches`: a class's method may declare a
 * narrower result than the one the call is written against (`scaled(): Pt3` for `scaled():
 * Pt`, `scale(k): Sq` for an interface's `scale(k): Shape`), so each branch's call has the
 * type the call has where it is written, and the branches join (the object is the same).
 */
function typedAsWritten(
  ctx: LowerContext,
  node: CallExpression,
  kind: InstanceMemberKind,
  branches: () => Value[],
): Value[] {
  const written =
    kind === "method" ? ctx.types.inferred?.callAt(node.start, node.end)?.result : undefined;
  const saved = ctx.dispatchedResult;
  if (written && isObject(written) && (written.classKey || written.interfaceKey))
    ctx.dispatchedResult = { start: node.start, end: node.end, type: written };
  try {
    return branches();
  } finally {
    ctx.dispatchedResult = saved;
  }
}

/**
 * `f.process(v)` where `f`'s type is an interface classes of the program implement: the
 * method of the object's run-time class, tested most derived first. An object of no such
 * class (a plain object with a `process` field, a class nabla did not compile) throws.
 */
export function lowerInterfaceMethodCall(
  ctx: LowerContext,
  node: CallExpression,
  receiver: Value,
  type: ObjectType & { interfaceKey: string },
  name: string,
  kind: InstanceMemberKind,
  call: MethodCaller,
  /** For a getter some classes have: how the others read it (their field). */
  otherwise?: () => Value,
  /** A class's arrow field of the name, which its instances have instead of a method. */
  arrowField?: (cls: ClassSymbol) => { owner: ClassSymbol; node: FunctionLike } | undefined,
): Value {
  const classes = classesOfInterfaceType(ctx, type)
    .map((cls) => ({ cls, found: arrowField?.(cls) ?? findMember(ctx, cls, name, kind) }))
    .filter((c) => c.found !== undefined)
    .reverse();
  if (classes.length === 0)
    return ctx.fail(node.callee, unknownCallee.classHasNoMethodNabla(type.name, name));
  let resultType: Value["type"] | undefined;
  const callOn = (i: number): Value[] => {
    const results = callOnClass(i);
    // The classes' methods must give one type where the branches join (an SSA join has no
    // conversion): methods declared to return different interfaces cannot be dispatched.
    const type = results[0]?.type;
    if (type !== undefined && resultType !== undefined && !sameType(type, resultType))
      return ctx.fail(
        node,
        unsupportedType.dispatchedMethodsReturnDifferentTypes(
          name,
          typeText(resultType),
          typeText(type),
        ),
      );
    resultType ??= type;
    return results;
  };
  const callOnClass = (i: number) =>
    yielded(callImplementation(ctx, node, receiver, type, name, kind, call, classes[i]!.found!));
  const chain = (i: number): Value[] => {
    ctx.at(node);
    if (i === classes.length && otherwise) return yielded(otherwise());
    if (i === classes.length) {
      raiseNotOfProgramClass(
        ctx,
        name,
        type,
        classes.map((c) => c.cls),
      );
      // The branch never continues; its result still needs a value of the right shape.
      return callOn(classes.length - 1);
    }
    return lowerIf(ctx, instanceOf(ctx, receiver, classes[i]!.cls, node), [
      () => callOn(i),
      () => chain(i + 1),
    ]);
  };
  const [v] = typedAsWritten(ctx, node, kind, () => chain(0));
  return v ?? ctx.builder.newValue("void");
}

/** A class's implementation `found` of an interface's member `name`, called on `receiver`. */
export function callImplementation(
  ctx: LowerContext,
  node: CallExpression,
  receiver: Value,
  type: ObjectType,
  name: string,
  kind: InstanceMemberKind,
  call: MethodCaller,
  found: { owner: ClassSymbol; node: FunctionLike },
): Value {
  const symbol = memberSymbol(ctx, found.owner, found.node, name, kind, node);
  // A class with nothing differentiable (`class Relu implements Activation`) has a method
  // that cannot take a derivative through `this`: it runs with `this` of the interface's
  // type (which has room for the other classes' fields), as a function of its own.
  if (symbol.thisType && !isDifferentiable(symbol.thisType))
    return call({ ...symbol, name: `${symbol.name}$as$${type.name}`, thisType: type }, receiver);
  return call(symbol, receiver);
}

/** The TypeError an interface's member raises on an object of none of the program's classes. */
export function raiseNotOfProgramClass(
  ctx: LowerContext,
  name: string,
  type: ObjectType,
  classes: readonly ClassSymbol[],
): void {
  ctx.builder.emit(
    "extern",
    [
      ctx.builder.constant("TypeError"),
      ctx.builder.constant(
        `nabla: '${name}' of a '${type.name}' that is an instance of none of the classes of the compiled program implementing it (${classes.map((c) => c.name).join(", ")})`,
      ),
    ],
    ["void"],
    { callee: "nabla:raise" },
  );
}

/**
 * The classes whose instances a value of the interface type `type` may be, each after its own
 * base: those implementing the interface, or for a union (`Disk | Square`), its classes and the
 * classes extending them, and those implementing its interfaces.
 */
export function classesOfInterfaceType(
  ctx: LowerContext,
  type: ObjectType & { interfaceKey: string },
): ClassSymbol[] {
  const found: ClassSymbol[] = [];
  for (const key of type.unionOf ?? [type.interfaceKey]) {
    const mod = ctx.program.load(keyFile(key));
    const decl = mod.types.get(keyName(key));
    const cls = classNamed(ctx.program, mod, keyName(key));
    const classes = cls
      ? [cls, ...descendants(ctx.program, cls)]
      : decl
        ? implementersOf(ctx.program, decl)
        : [];
    for (const c of classes) if (!found.some((f) => f.decl === c.decl)) found.push(c);
  }
  // Bases first (a class extending another of the union may come after it): callers test the
  // classes in reverse, so that an instance of a subclass runs the subclass's method.
  const depth = (c: ClassSymbol) => ancestry(ctx.program, c).length;
  return found
    .map((c, at) => ({ c, at }))
    .sort((a, b) => depth(a.c) - depth(b.c) || a.at - b.at)
    .map(({ c }) => c);
}

/** A branch's results: the call's value, unless the method returns nothing. */
function yielded(v: Value): Value[] {
  return v.type === "void" ? [] : [v];
}

/**
 * `value instanceof C`, where `C` is a class of the program: as the module lowered names it
 * (by its name or through a namespace import), else imported by the generated code, as a
 * function it calls is (`loss.ts` calling `predict` of a `Predictor` that `Model` of
 * `model.ts` implements, a module `loss.ts` need not import). A class of a module importing
 * this one is refused: importing it here would make that module run before this one, and its
 * `extends` (or whatever else it reads of this module as it loads) fail.
 */
export function instanceOf(ctx: LowerContext, value: Value, cls: ClassSymbol, at: Node): Value {
  const path = visiblePath(ctx, cls);
  if (!path && ctx.program.reaches(cls.module, ctx.home)) {
    const extendsHere = ancestry(ctx.program, cls).some((c) => c.module === ctx.module);
    const file = `'${basename(ctx.module.file)}'`;
    return ctx.fail(at, unknownCallee.subclassNotVisible(cls.name, file, extendsHere));
  }
  ctx.at(at);
  if (path) ctx.readsModuleName(at, path.split(".")[0]!);
  const attrs = path
    ? { callee: path }
    : { callee: cls.name, function: functionKey(cls.module.file, cls.name) };
  const reference = ctx.builder.emit("global", [], ["opaque"], attrs, [], cls.name).results[0]!;
  return ctx.builder.emit("nondiff", [value, reference], ["boolean"], { callee: "instanceof" })
    .results[0]!;
}

/** The class a `super` in the code of `thisType`'s class refers to. */
export function superclassOfThis(ctx: LowerContext, at: Node): ClassSymbol {
  const self = ctx.scope.lookup("this");
  const type = self && ctx.value(self).type;
  const cls =
    type && typeof type === "object" && type.kind === "object" ? classOfType(ctx, type) : undefined;
  const base = cls && superclassOf(ctx.program, cls);
  if (!base) return ctx.fail(at, unknownCallee.superNotVisible());
  return base;
}

/**
 * `super.m(…)` in the code of a class: the member of its base class (or the nearest class
 * above declaring it), called on `this` whatever its run-time class (no dispatch).
 */
export function lowerSuperMethod(
  ctx: LowerContext,
  node: CallExpression,
  name: string,
  kind: InstanceMemberKind,
  call: MethodCaller,
): Value {
  const base = superclassOfThis(ctx, node);
  const found = findMember(ctx, base, name, kind);
  if (!found) return ctx.fail(node, unknownCallee.classHasNoMethodNabla(base.name, name));
  const visible = visiblePath(ctx, found.owner);
  if (!visible) return ctx.fail(node, unknownCallee.superNotVisible());
  const self = ctx.value(ctx.scope.lookup("this")!);
  const saved = ctx.superOf;
  ctx.superOf = visible;
  try {
    return call(memberSymbol(ctx, found.owner, found.node, name, kind, node), self);
  } finally {
    ctx.superOf = saved;
  }
}

/**
 * How the module lowered names the class `cls`: by its name, or through a namespace import
 * (`geo.Vec` where the module has `import * as geo from "./geo"`); undefined if neither.
 */
function visiblePath(ctx: LowerContext, cls: ClassSymbol): string | undefined {
  if (classNamed(ctx.program, ctx.module, cls.name)?.decl === cls.decl) return cls.name;
  for (const [local, binding] of ctx.module.imports) {
    if (binding.imported !== "*" || binding.typeOnly || ctx.scope.lookup(local)) continue;
    const path = `${local}.${cls.name}`;
    if (classNamed(ctx.program, ctx.module, path)?.decl === cls.decl) return path;
  }
  return undefined;
}
