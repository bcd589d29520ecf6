import type { Class } from "oxc-parser";
import type { FunctionLike, SourceModule } from "../parse/module.js";
import type { LowerContext } from "./context.js";

// The methods of a class of the program, as lowering looks them up by name: instance
// methods, getters (read as `v.lengthSq`, run as a call) and static methods
// (`Quaternion.identity()`).

export type MemberKind = "method" | "get" | "static";

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
      m.kind === (kind === "get" ? "get" : "method") &&
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
