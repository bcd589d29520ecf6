import type { Class, MemberExpression } from "oxc-parser";
import type { Value } from "../ir/types.js";
import type { FunctionLike, SourceModule } from "../parse/module.js";
import { annotationType } from "../types/signature.js";
import type { LowerContext } from "./context.js";

// The methods of a class of the program, as lowering looks them up by name: instance
// methods, getters (read as `v.lengthSq`, run as a call), static methods
// (`Quaternion.identity()`) and static properties (`Vec3.zero`).

export type MemberKind = "method" | "get" | "set" | "static";

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

/** The code of the member `name` of this kind, if the class declares one with a body. */
export function classMember(decl: Class, name: string, kind: MemberKind): FunctionLike | undefined {
  for (const m of decl.body.body) {
    if (
      m.type === "MethodDefinition" &&
      m.kind === (kind === "get" || kind === "set" ? kind : "method") &&
      m.static === (kind === "static") &&
      !m.computed &&
      m.key.type === "Identifier" &&
      m.key.name === name &&
      m.value.body
    ) {
      return m.value;
    }
  }
  return undefined;
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
  const decl = ctx.module.types.get(className);
  if (!decl || (decl.type !== "ClassDeclaration" && decl.type !== "ClassExpression"))
    return undefined;
  const name = node.property.name;
  const property = decl.body.body.find(
    (m) =>
      m.type === "PropertyDefinition" &&
      m.static &&
      !m.computed &&
      m.key.type === "Identifier" &&
      m.key.name === name,
  );
  if (property?.type !== "PropertyDefinition") return undefined;
  const type =
    annotationType(property.typeAnnotation, ctx.types) ??
    ctx.types.inferred?.typeAt(property.key.start);
  if (!type || type === "opaque" || type === "void") return undefined;
  ctx.at(node);
  ctx.readsModuleName(node, className);
  return ctx.builder.emit("global", [], [type], { callee: `${className}.${name}` }, [], name)
    .results[0]!;
}
