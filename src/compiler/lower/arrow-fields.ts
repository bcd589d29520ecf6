import type { ArrowFunctionExpression, Node } from "oxc-parser";
import { unknownCallee, unsupportedSyntax } from "../diagnostics/messages/index.js";
import type { ObjectType } from "../ir/types.js";
import { ancestry, classNamed, descendants, type ClassSymbol } from "../parse/class-hierarchy.js";
import { walk } from "../parse/module.js";
import type { FunctionSymbol } from "../parse/program.js";
import { fieldNamesAssigned } from "../resolve/function-values.js";
import { classOfType, instanceType } from "./class-dispatch.js";
import { instantiationOf } from "../types/generic-classes.js";
import type { LowerContext } from "./context.js";

// Arrow-function class fields (`forward = (x: number) => this.w * x`): each instance gets an
// arrow of its own whose `this` is the instance. When nothing else gives the field a value
// (no code assigns a field of that name, no other class of the hierarchy declares the name),
// the field is a method bound to the instance: a call is a method call with the receiver as
// `this`, and the field read where a function is expected is the arrow with `this` captured
// (lower/function-values.ts). A constructor lowered for differentiated code does not run
// their initializers; its instance `literal` lists them (`arrowFields`) and the backend
// installs them from the source, so an instance that leaves derivative code has them.

/** The arrow an instance field declaration `m` is initialized with, if it is one. */
export function arrowInitializer(m: Node): ArrowFunctionExpression | undefined {
  return m.type === "PropertyDefinition" &&
    !m.static &&
    !m.computed &&
    m.key.type === "Identifier" &&
    m.value?.type === "ArrowFunctionExpression"
    ? m.value
    : undefined;
}

/** The declarations of the instance member `name` in `c`: fields and methods of any kind. */
function declarations(c: ClassSymbol, name: string): Node[] {
  return c.decl.body.body.filter(
    (m) =>
      (m.type === "PropertyDefinition" ||
        m.type === "MethodDefinition" ||
        m.type === "TSAbstractPropertyDefinition" ||
        m.type === "TSAbstractMethodDefinition") &&
      !m.static &&
      !m.computed &&
      m.key.type === "Identifier" &&
      m.key.name === name,
  );
}

/** Whether the member `name` of an instance of this type is an arrow field (no check made). */
export function isArrowField(ctx: LowerContext, type: ObjectType, name: string): boolean {
  const cls = classOfType(ctx, type);
  const owner = cls && ancestry(ctx.program, cls).find((c) => declarations(c, name).length > 0);
  return owner !== undefined && declarations(owner, name).some((m) => arrowInitializer(m));
}

/** Whether an instance of this type may have arrow fields (its class's or a subclass's). */
export function hasArrowFields(ctx: LowerContext, type: ObjectType): boolean {
  const cls = classOfType(ctx, type);
  return (
    cls !== undefined &&
    [...ancestry(ctx.program, cls), ...descendants(ctx.program, cls)].some((c) =>
      c.decl.body.body.some((m) => arrowInitializer(m)),
    )
  );
}

/**
 * `scaler.apply(x)` where the class declares `apply = (x: number) => x * this.k`: the arrow,
 * called as a method of the receiver. Undefined when the nearest declaration of `name` in the
 * receiver's class or its bases is not an arrow field; a diagnostic when it is one that some
 * code assigns or that another class of the hierarchy declares too (which function an instance
 * holds would then depend on more than its class).
 */
export function arrowFieldMethod(
  ctx: LowerContext,
  type: ObjectType,
  name: string,
  at: Node,
): FunctionSymbol | undefined {
  const cls = classOfType(ctx, type);
  const found = cls && arrowFieldOfClass(ctx, cls, name, at);
  if (!found) return undefined;
  // An arrow field of a generic class: one function per instantiation, as its methods.
  const instantiation = instantiationOf(ctx.program, type.classKey);
  if (instantiation?.cls.decl === found.owner.decl) {
    return {
      module: found.owner.module,
      name: `${found.owner.name}.${name}<${instantiation.id}>`,
      node: found.node,
      thisType: type,
      typeArguments: instantiation.typeArguments,
    };
  }
  const thisType = instanceType(ctx, found.owner);
  if (!thisType) return ctx.fail(at, unknownCallee.classHasNoMethodNabla(found.owner.name, name));
  return {
    module: found.owner.module,
    name: `${found.owner.name}.${name}`,
    node: found.node,
    thisType,
  };
}

/** The arrow field `name` instances of `cls` have, as arrowFieldMethod finds and checks it. */
export function arrowFieldOfClass(
  ctx: LowerContext,
  cls: ClassSymbol,
  name: string,
  at: Node,
): { owner: ClassSymbol; node: ArrowFunctionExpression } | undefined {
  const owner = ancestry(ctx.program, cls).find((c) => declarations(c, name).length > 0);
  const arrow =
    owner &&
    declarations(owner, name)
      .map(arrowInitializer)
      .find((a) => a);
  if (!owner || !arrow) {
    // A method called here that a subclass replaces by an arrow field on its instances.
    const sub = descendants(ctx.program, cls).find((d) =>
      declarations(d, name).some((m) => arrowInitializer(m)),
    );
    if (owner && sub && declarations(owner, name).some((m) => m.type.includes("Method")))
      return ctx.fail(at, unsupportedSyntax.arrowFieldDeclaredAgain(name, sub.name, owner.name));
    return undefined;
  }
  // A subclass's declaration replaces the arrow; a base's method would run where `this` is
  // typed as the base. A base's field declaration is replaced by the arrow for every instance.
  const other = [
    ...(declarations(owner, name).length > 1 ? [owner] : []),
    ...ancestry(ctx.program, owner)
      .slice(1)
      .filter((c) => declarations(c, name).some((m) => m.type.includes("Method"))),
    ...descendants(ctx.program, owner).filter((c) => declarations(c, name).length > 0),
  ][0];
  if (other)
    return ctx.fail(at, unsupportedSyntax.arrowFieldDeclaredAgain(name, owner.name, other.name));
  const assigned = fieldNamesAssigned(ctx.program);
  if (assigned === "any" || assigned.has(name))
    return ctx.fail(at, unsupportedSyntax.arrowFieldAssigned(name, owner.name));
  return { owner, node: arrow };
}

/**
 * The arrow fields an instance of `className` (a class seen from the module lowered) gets,
 * its bases' first, as the `literal` of its constructor lists them: per field, the start and
 * end of its name and of its arrow in the source. Its module's output installs them.
 */
export function arrowFieldsToInstall(ctx: LowerContext, className: string, at: Node): number[] {
  const cls = classNamed(ctx.program, ctx.module, className);
  if (!cls) return [];
  const positions: number[] = [];
  for (const c of ancestry(ctx.program, cls).reverse()) {
    for (const m of c.decl.body.body) {
      const arrow = arrowInitializer(m);
      if (!arrow || m.type !== "PropertyDefinition") continue;
      const field = (m.key as { name: string }).name;
      // The arrows are emitted in this module, where the class's module-level names must mean
      // what they mean in the class's.
      if (c.module !== ctx.module)
        return ctx.fail(at, unsupportedSyntax.arrowFieldsOfBaseInAnotherModule(cls.name, c.name));
      // `super.m()` has no meaning outside a class's code.
      let usesSuper: Node | undefined;
      walk(arrow, (n) => {
        if (n.type === "Super") usesSuper ??= n;
        return !usesSuper;
      });
      if (usesSuper)
        return ctx.fail(usesSuper, unsupportedSyntax.arrowFieldUsesSuper(field, c.name));
      positions.push(m.key.start, m.key.end, arrow.start, arrow.end);
    }
  }
  return positions;
}
