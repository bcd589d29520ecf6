import type {
  CallExpression,
  Class,
  NewExpression,
  Node,
  Statement,
  TSTypeAnnotation,
} from "oxc-parser";
import { unsupportedSyntax } from "../diagnostics/messages/index.js";
import type { ObjectType, Type, Value } from "../ir/types.js";
import { assignable, isObject, sameType } from "../ir/type-system.js";
import {
  classNamed,
  extendsUnknown,
  ancestry,
  descendants,
  genericInAncestry,
  privateNameClash,
  superclassOf,
  type ClassSymbol,
} from "../parse/class-hierarchy.js";
import { walk, type FunctionLike } from "../parse/module.js";
import type { FunctionSymbol } from "../parse/program.js";
import { classesOfInterfaceType, instanceType } from "./class-dispatch.js";
import { functionKey, genericKey, keyName } from "../ir/function-key.js";
import { genericClassType } from "../types/declared-types.js";
import { instantiationOf } from "../types/generic-classes.js";
import { enterModule, Scope, type LowerContext } from "./context.js";
import { typeResolver } from "../types/resolver.js";
import { annotationType, signatureOf } from "../types/signature.js";
import { calleePath, isNamespacePath, omitted } from "./user-call.js";
import { orDefault } from "./destructure.js";
import { arrowFieldsToInstall, arrowInitializer } from "./arrow-fields.js";

// `new Vec3(x, y, z)` of a class of the program: a call of its constructor, made a function
// that builds the instance and returns it (`Vec3.constructor`). Its body runs as JavaScript
// runs a constructor: the fields' initializers in declaration order, then the parameter
// properties (`constructor(public x = 0)`), then the body, with `this` the new instance. In
// differentiated code the instance is a plain object of the class's fields: its methods are
// called as nabla calls methods, by the class nabla knows it to be. In a class that extends
// another, `super(…)` runs the base's constructor on the same instance (its body lowered in
// place, with its parameters bound to the arguments), then the class's own fields are set.

/**
 * The class a `new` names, as the module being lowered sees it: `Vec` (not shadowed by a local),
 * or `geo.Vec` of a module imported as a namespace (`import * as geo from "./geo"`).
 */
export function constructedName(ctx: LowerContext, node: NewExpression): string | undefined {
  const callee = node.callee;
  if (callee.type === "Identifier") return ctx.scope.lookup(callee.name) ? undefined : callee.name;
  if (callee.type !== "MemberExpression" || !isNamespacePath(ctx, callee.object)) return undefined;
  return calleePath(callee);
}

/** The constructor of the class `name` (as seen from the module being lowered), if it is one. */
export function constructorOf(
  ctx: LowerContext,
  name: string,
  at: Node,
  as?: Type,
): FunctionSymbol | undefined {
  const cls = classNamed(ctx.program, ctx.module, name);
  if (!cls) return undefined;
  if (extendsUnknown(ctx.program, cls)) {
    return ctx.fail(
      at,
      unsupportedSyntax.constructNotSupported(
        `'new ${name}' of a class that extends a class nabla cannot see`,
        `declare the base class in the program, where nabla can see its constructor`,
      ),
    );
  }
  if (cls.decl.typeParameters && !cls.decl.superClass)
    return genericConstructorOf(ctx, cls, name, at as NewExpression, as);
  const type = instanceType(ctx, cls);
  const clash = !type && privateNameClash(ctx.program, cls);
  if (clash) {
    return ctx.fail(
      at,
      unsupportedSyntax.privateNameClash(`'new ${name}'`, clash.name, clash.base.name),
    );
  }
  const generic = !type && genericInAncestry(ctx.program, cls);
  if (generic)
    return ctx.fail(
      at,
      unsupportedSyntax.genericClass(`'new ${name}'`, generic.written, generic.params),
    );
  if (!type) return undefined;
  const node = constructorNode(ctx, cls, at);
  // `const s: Shape = new Circle(r)`: built as a value of the interface or base class it goes
  // to, so that it joins other values of that type (a branch, a return, a reassignment).
  if (
    as &&
    isObject(as) &&
    !sameType(type, as) &&
    assignable(type, as) &&
    isSupertype(ctx, cls, as)
  ) {
    const name = `${cls.name}${AS}${as.name}`;
    return { module: cls.module, name, node, constructs: as };
  }
  return { module: cls.module, name: `${cls.name}.constructor`, node, constructs: type };
}

/**
 * `new RingBuffer<number>(8)`, `new Pair(v, w)`: the constructor of the instantiation of the
 * generic class the `new` makes (generic-classes.ts), with the type arguments written, else
 * those TypeScript infers. It builds its instance as that instantiation, whatever it is
 * assigned to: a wider type would need the class's type parameters there too.
 */
function genericConstructorOf(
  ctx: LowerContext,
  cls: ClassSymbol,
  name: string,
  at: NewExpression,
  as: Type | undefined,
): FunctionSymbol {
  const params = cls.decl.typeParameters!.params.map((p) => p.name.name).join(", ");
  const written = `${cls.name}<${params}>`;
  if (descendants(ctx.program, cls).length > 0)
    return ctx.fail(at, unsupportedSyntax.genericClass(`'new ${name}'`, written, params));
  const explicit = at.typeArguments?.params.map((t) => ctx.types(t));
  let type: ObjectType | undefined;
  if (explicit) {
    type = explicit.every((t): t is Type => t !== undefined)
      ? genericClassType(ctx.program, cls, explicit)
      : undefined;
  } else {
    // Where the code says which instantiation goes there (`return new Pair(a, b)` in a method
    // returning `Pair<A, B>`, read in this instantiation), else what TypeScript infers (which
    // inside generic code names type parameters, not types).
    const key = functionKey(cls.module.file, cls.name);
    const ofClass = (t: Type | undefined): t is ObjectType =>
      t !== undefined && isObject(t) && !!t.classKey && genericKey(t.classKey) === key;
    const inferred = ctx.types.inferred?.expectedTypeOf(at.start, at.end);
    type = ofClass(as) ? as : ofClass(inferred) ? inferred : undefined;
  }
  if (!type || !instantiationOf(ctx.program, type.classKey))
    return ctx.fail(
      at,
      unsupportedSyntax.genericClassArguments(`'new ${name}'`, written, cls.name),
    );
  const instantiation = instantiationOf(ctx.program, type.classKey)!;
  return {
    module: cls.module,
    name: `${cls.name}.constructor<${instantiation.id}>`,
    node: constructorNode(ctx, cls, at),
    constructs: type,
    typeArguments: instantiation.typeArguments,
  };
}

/**
 * Whether `type` is an interface `cls` implements or a class it extends: TypeScript's
 * structural assignability would also let a `Scaled` go where a `Leaky` (its subclass with the
 * same members) is typed, and a `Scaled` built as a `Leaky` would run Leaky's methods.
 */
function isSupertype(ctx: LowerContext, cls: ClassSymbol, type: ObjectType): boolean {
  if (type.interfaceKey) {
    const interfaceType = { ...type, interfaceKey: type.interfaceKey };
    return classesOfInterfaceType(ctx, interfaceType).some((c) => c.decl === cls.decl);
  }
  return ancestry(ctx.program, cls).some(
    (c) => type.classKey === functionKey(c.module.file, c.name),
  );
}

/** How a constructor building its instance as a wider type is named: `Circle.constructor$as$Shape`. */
const AS = ".constructor$as$";

/**
 * The class a constructor builds: the one its name starts with (`Circle.constructor`,
 * `Circle.constructor$as$Shape` building a Circle as a Shape or as its base class, a
 * specialization `Circle_constructor$with$soft`), else its instance type's.
 */
export function constructedClassName(name: string, type: ObjectType): string {
  // A generic class's instantiation (`Box.constructor<Box$of>`) builds the class itself.
  const match = /^(.*?)[._]constructor(\$|$)/.exec(name.replace(/(<[\w$]+>)+$/, ""));
  if (match) return match[1]!;
  return type.classKey ? keyName(genericKey(type.classKey)) : type.name;
}

/**
 * Whether the base constructor's parameters (of another module, maybe) are annotated with
 * types that mean the same in the module of `cls`, which the constructor JavaScript gives
 * `cls` declares them in.
 */
function sameParameterTypes(
  ctx: LowerContext,
  params: Node[],
  base: ClassSymbol,
  cls: ClassSymbol,
): boolean {
  if (base.module === cls.module) return true;
  const there = typeResolver(ctx.program, base.module);
  const here = typeResolver(ctx.program, cls.module);
  return params.every((p) => {
    const id = (p.type === "AssignmentPattern" ? p.left : p) as Node & {
      typeAnnotation?: TSTypeAnnotation | null;
    };
    const written = annotationType(id.typeAnnotation, there);
    const seen = annotationType(id.typeAnnotation, here);
    // Unannotated, its type would be looked up at the base's positions in the wrong file.
    return written !== undefined && seen !== undefined && sameType(written, seen);
  });
}

/** The constructor a class declares, or the one JavaScript gives it when it declares none. */
function constructorNode(ctx: LowerContext, cls: ClassSymbol, at: Node): FunctionLike {
  const own = cls.decl.body.body.find(
    (m) => m.type === "MethodDefinition" && m.kind === "constructor",
  ) as { value: FunctionLike } | undefined;
  if (own) return own.value;
  const where = { start: cls.decl.start, end: cls.decl.end };
  const base = superclassOf(ctx.program, cls);
  // `constructor(...args) { super(...args); }`, with the parameters of the constructor it
  // reaches (so omitted arguments take that constructor's defaults).
  const params = base ? constructorNode(ctx, base, at).params.map(plainParameter) : [];
  if (params.some((p) => !p) || (base && !sameParameterTypes(ctx, params as Node[], base, cls))) {
    return ctx.fail(
      at,
      unsupportedSyntax.constructNotSupported(
        `'new ${cls.name}', whose inherited constructor takes rest or destructured parameters, or parameters not annotated with types its module sees,`,
        `give '${cls.name}' a constructor of its own that calls 'super(…)' with plain parameters, or annotate the base constructor's parameters with types imported in its module too`,
      ),
    );
  }
  const body: Statement[] = base
    ? [
        {
          type: "ExpressionStatement",
          expression: {
            type: "CallExpression",
            callee: { type: "Super", ...where },
            arguments: params.map((p) => {
              const id = p!.type === "AssignmentPattern" ? p!.left : p!;
              return { type: "Identifier", name: (id as { name: string }).name, ...where };
            }),
            optional: false,
            ...where,
          },
          ...where,
        } as unknown as Statement,
      ]
    : [];
  return {
    type: "FunctionExpression",
    id: null,
    params,
    body: { type: "FunctionBody", body, ...where },
    async: false,
    generator: false,
    ...where,
  } as unknown as FunctionLike;
}

/** A constructor's parameter without `public`/`readonly`; undefined for rest and patterns. */
function plainParameter(p: Node): Node | undefined {
  const param = p.type === "TSParameterProperty" ? p.parameter : p;
  if (param.type === "Identifier") return param;
  if (param.type === "AssignmentPattern" && param.left.type === "Identifier") return param;
  return undefined;
}

/**
 * The instance a constructor starts from: the class's fields, none written yet, but for its
 * arrow-function fields, which the backend installs (arrow-fields.ts).
 */
export function newInstance(
  ctx: LowerContext,
  type: ObjectType,
  className: string,
  at: Node,
): Value {
  const absent = type.fields.map(
    (f) => ctx.builder.emit("const", [], [f.type], {}, [], f.name).results[0]!,
  );
  const arrowFields = arrowFieldsToInstall(ctx, className, at);
  return ctx.builder.emit(
    "literal",
    absent,
    [type],
    { instanceOf: className, ...(arrowFields.length > 0 ? { arrowFields } : {}) },
    [],
    "self",
  ).results[0]!;
}

/**
 * What a constructor runs: `this.f = init` for each field with an initializer, then
 * `this.p = p` for each parameter property, then the body; in a class that extends another,
 * these come right after the body's `super(…)`. Then `return this`.
 */
export function constructorStatements(
  ctx: LowerContext,
  className: string,
  fn: FunctionLike,
  body: Statement[],
): Statement[] {
  const cls = classNamed(ctx.program, ctx.module, className);
  const end = { start: fn.end - 1, end: fn.end };
  const returnThis = {
    type: "ReturnStatement",
    argument: { type: "ThisExpression", ...end },
    ...end,
  } as unknown as Statement;
  return [...initialization(ctx, cls, fn, body), returnThis];
}

/** A constructor's statements for the class `cls`, without the final `return this`. */
function initialization(
  ctx: LowerContext,
  cls: ClassSymbol | undefined,
  fn: FunctionLike,
  body: Statement[],
): Statement[] {
  const at = (n: Node) => ({ start: n.start, end: n.end });
  const assign = (field: string, value: Node, where: Node) =>
    ({
      type: "ExpressionStatement",
      expression: {
        type: "AssignmentExpression",
        operator: "=",
        left: {
          type: "MemberExpression",
          object: { type: "ThisExpression", ...at(where) },
          property: { type: "Identifier", name: field, ...at(where) },
          computed: false,
          optional: false,
          ...at(where),
        },
        right: value,
        ...at(where),
      },
      ...at(where),
    }) as unknown as Statement;
  const decl: Class | undefined = cls?.decl;
  // Arrow fields are not assigned: the instance has them from the start (newInstance).
  const initializers = (decl?.body.body ?? []).flatMap((m) =>
    m.type === "PropertyDefinition" &&
    !m.static &&
    m.value &&
    m.key.type === "Identifier" &&
    !arrowInitializer(m)
      ? [assign(m.key.name, m.value, m)]
      : [],
  );
  const properties = fn.params.flatMap((p) => {
    if (p.type !== "TSParameterProperty") return [];
    const param = p.parameter.type === "AssignmentPattern" ? p.parameter.left : p.parameter;
    if (param.type !== "Identifier") return [];
    return [assign(param.name, { type: "Identifier", name: param.name, ...at(param) } as Node, p)];
  });
  const own = [...initializers, ...properties];
  if (!cls || !decl?.superClass) return [...own, ...body];
  // The `super(…)` statement, marked with the class whose constructor calls it.
  const i = body.findIndex(
    (s) =>
      s.type === "ExpressionStatement" &&
      s.expression.type === "CallExpression" &&
      s.expression.callee.type === "Super",
  );
  if (i < 0) return ctx.fail(fn, unsupportedSyntax.superCallMustBeAStatement(cls.name));
  const statement = body[i] as Statement & { expression: CallExpression };
  const marked = {
    ...statement,
    expression: { ...statement.expression, initializing: cls },
  } as unknown as Statement;
  return [...body.slice(0, i), marked, ...own, ...body.slice(i + 1)];
}

/**
 * `super(…)` in the constructor of `cls`: the base class's constructor run on `this`, its
 * code lowered here in a scope of its own, where its parameters hold the arguments.
 */
export function lowerSuperConstructorCall(
  ctx: LowerContext,
  node: CallExpression,
  args: Value[],
): Value {
  const cls = (node as { initializing?: ClassSymbol }).initializing;
  if (!cls) return ctx.fail(node, unsupportedSyntax.superCallMustBeAStatement(undefined));
  const base = superclassOf(ctx.program, cls)!;
  const fn = constructorNode(ctx, base, node);
  const statements = initialization(
    ctx,
    base,
    fn,
    (fn.body as { body: Statement[] } | null)?.body ?? [],
  );
  if (statements.length === 0) return ctx.builder.newValue("void");
  let returns = false;
  // `super.m()` in the base's constructor means the base's base, which the `this` here (of the
  // class being built) would not say.
  let superMember = false;
  walk(fn.body!, (n) => {
    if (n.type === "ReturnStatement") returns = true;
    if (n.type === "MemberExpression" && n.object.type === "Super") superMember = true;
    return !returns && !superMember && (n === fn.body || !n.type.includes("Function"));
  });
  if (superMember) {
    return ctx.fail(
      node,
      unsupportedSyntax.constructNotSupported(
        `'super(…)' calling the constructor of '${base.name}', which uses 'super.' itself,`,
        `set the fields in '${base.name}''s constructor directly, without 'super.'`,
      ),
    );
  }
  if (returns) {
    return ctx.fail(
      node,
      unsupportedSyntax.constructNotSupported(
        `'super(…)' calling the constructor of '${base.name}', which returns early,`,
        `let '${base.name}''s constructor run to its end (set the fields in an if/else)`,
      ),
    );
  }
  // A base class of another module: its constructor's code reads the names of its module.
  const elsewhere = base.module !== ctx.module;
  const home = elsewhere
    ? { module: base.module, types: typeResolver(ctx.program, base.module) }
    : { module: ctx.module, types: ctx.types };
  const params = signatureOf(fn, home.types).params;
  // Checked here, where the messages can point at this module's code.
  fn.params.forEach((p, i) => {
    const param = plainParameter(p);
    if (!param) {
      return ctx.fail(
        elsewhere ? node : p,
        unsupportedSyntax.constructNotSupported(
          `a rest or destructured parameter of a constructor called by 'super(…)'`,
          `take the values as plain parameters ('constructor(x: number, y: number)')`,
        ),
      );
    }
    if (param.type === "Identifier" && !args[i] && !params[i]?.omissible)
      return ctx.fail(node, unsupportedSyntax.superCallMissingArgument(param.name));
  });
  const self = ctx.value(ctx.scope.lookup("this")!);
  const saved = ctx.scope;
  const caller = { module: ctx.module, types: ctx.types };
  ctx.scope = new Scope(undefined);
  enterModule(ctx, home);
  const outerBase = ctx.baseConstructor;
  if (elsewhere) ctx.baseConstructor = base.name;
  try {
    ctx.declare("this", "const", self.type, self);
    fn.params.forEach((p, i) => {
      const param = plainParameter(p)!;
      // `drag?: number` not given: undefined, as JavaScript passes it.
      const arg =
        args[i] ?? (param.type === "Identifier" ? omitted(ctx, [params[i]!])[0] : undefined);
      if (param.type === "Identifier") {
        ctx.declare(param.name, "param", arg!.type, arg!);
        return;
      }
      const pattern = param as Node & { left: { name: string }; right: Node };
      const hidden = `$super${i}`;
      if (arg) ctx.declare(hidden, "param", arg.type, arg);
      const where = { start: pattern.start, end: pattern.end };
      const init = arg
        ? orDefault({ type: "Identifier", name: hidden, ...where } as never, pattern.right as never)
        : pattern.right;
      ctx.lowerStatements([
        {
          type: "VariableDeclaration",
          kind: "let",
          declare: false,
          declarations: [
            {
              type: "VariableDeclarator",
              id: { type: "Identifier", name: pattern.left.name, ...where },
              init,
              definite: false,
              ...where,
            },
          ],
          ...where,
        } as unknown as Statement,
      ]);
    });
    ctx.lowerStatements(statements);
  } finally {
    ctx.scope = saved;
    enterModule(ctx, caller);
    ctx.baseConstructor = outerBase;
  }
  return ctx.builder.newValue("void");
}
