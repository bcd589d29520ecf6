import type { Class, MemberExpression } from "oxc-parser";
import type { Value } from "../ir/types.js";
import type { SourceModule } from "../parse/module.js";
import { ancestry, classNamed } from "../parse/class-hierarchy.js";
import { annotationType } from "../types/signature.js";
import type { LowerContext } from "./context.js";

// The classes of the program as lowering looks them up by name, and their static properties
// (`Vec3.zero`); their methods are found by parse/class-member.ts.

/** The class `className` of `file`, if the program declares one there. */
export function classDeclaration(
  ctx: LowerContext,
  file: string,
  className: string,
): { mod: SourceModule; decl: Class } | undefined {
  const mod = ctx.program.load(file);
  const decl = mod.types.get(className);
  if (!decl || (decl.type !== "ClassDeclaration" && decl.type !== "ClassExpression"))
    return undefined;
  return { mod, decl };
}

/**
 * `Vec3.zero` where the class of this module declares `static zero = …`: a read of the static
 * property, as of a module-level constant (data nabla differentiates nothing through and code
 * must not write). Undefined for anything else.
 */
export function staticPropertyRead(ctx: LowerContext, node: MemberExpression): Value | undefined {
  if (node.computed || node.object.type !== "Identifier" || node.property.type !== "Identifier")
    return undefined;
  const className = node.object.name;
  if (ctx.scope.lookup(className)) return undefined;
  // A class of this module or one it imports (`import { Units } from "./units"`).
  const cls = classNamed(ctx.program, ctx.module, className);
  if (!cls) return undefined;
  const name = node.property.name;
  // The class's own static, else one it inherits (`Planet.G` with `G` declared on a base class).
  const owner = ancestry(ctx.program, cls).find((c) =>
    c.decl.body.body.some((m) => isStaticProperty(m, name)),
  );
  const property = owner?.decl.body.body.find((m) => isStaticProperty(m, name));
  if (property?.type !== "PropertyDefinition") return undefined;
  // The declaration's annotation and position mean something only in this module's types; an
  // inherited static of another module is typed where it is read.
  const type =
    owner!.module === ctx.module
      ? (annotationType(property.typeAnnotation, ctx.types) ??
        ctx.types.inferred?.typeAt(property.key.start))
      : ctx.types.inferred?.typeAt(node.property.start);
  if (!type || type === "opaque" || type === "void") return undefined;
  ctx.at(node);
  ctx.readsModuleName(node, className);
  return ctx.builder.emit("global", [], [type], { callee: `${className}.${name}` }, [], name)
    .results[0]!;
}

function isStaticProperty(m: Class["body"]["body"][number], name: string): boolean {
  return (
    m.type === "PropertyDefinition" &&
    m.static &&
    !m.computed &&
    m.key.type === "Identifier" &&
    m.key.name === name
  );
}
