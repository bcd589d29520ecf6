import type { Node } from "oxc-parser";
import type { SourceModule } from "./module.js";

// `const loss = makeLoss(config)`: a module-level constant holding what a call returned, such
// as a closure a factory makes at run time. Its code is not known at compile time, so
// messages about differentiating it name the call it came from.

/** The callee's text of the call whose result the module-level `const name = …` holds. */
export function factoryCallOf(module: SourceModule, name: string): string | undefined {
  for (const statement of module.program.body) {
    const decl = statement.type === "ExportNamedDeclaration" ? statement.declaration : statement;
    if (decl?.type !== "VariableDeclaration" || decl.kind !== "const") continue;
    for (const d of decl.declarations) {
      if (d.id.type !== "Identifier" || d.id.name !== name || !d.init) continue;
      let init: Node = d.init;
      while (init.type === "ParenthesizedExpression" || init.type === "TSAsExpression")
        init = init.expression;
      if (init.type !== "CallExpression") return undefined;
      return module.text.slice(init.callee.start, init.callee.end);
    }
  }
  return undefined;
}
