import type { Node } from "oxc-parser";
import type { UnboundKind } from "../diagnostics/messages/unbound-name.js";
import { walk } from "../parse/module.js";
import { isPlatformGlobal } from "../types/globals.js";
import type { LowerContext } from "./context.js";

// What a name differentiable code cannot see is, for the help of NABLA111.

/** Whether a module-level destructuring declaration of the module binds `name`. */
function destructuredAtTopLevel(ctx: LowerContext, name: string): boolean {
  return ctx.module.program.body.some((statement) => {
    const declaration =
      statement.type === "ExportNamedDeclaration" ? statement.declaration : statement;
    if (declaration?.type !== "VariableDeclaration") return false;
    return declaration.declarations.some((d) => {
      if (d.id.type === "Identifier") return false;
      let binds = false;
      walk(d.id as Node, (n) => {
        if (n.type === "Identifier" && n.name === name) binds = true;
      });
      return binds;
    });
  });
}

export function unboundKind(ctx: LowerContext, name: string): UnboundKind {
  if (name === "Math" && isPlatformGlobal(ctx.module, name)) return "math";
  const type = ctx.program.resolveType(ctx.module, name)?.node;
  if (type?.type === "ClassDeclaration" || type?.type === "ClassExpression") return "class";
  if (destructuredAtTopLevel(ctx, name)) return "destructured";
  return "global";
}
