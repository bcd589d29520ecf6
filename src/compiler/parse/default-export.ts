import type { SourceModule } from "./module.js";

// `export default { kinetic(m, v) { … } }`: a default export that is a value written in the
// export itself, which has no name in its module. Modules record named values only, so
// messages about reading such an export say to name it.

/** The kind of value `export default …` writes in `module` without a name, if it does. */
export function anonymousDefaultValue(module: SourceModule): "object" | "array" | undefined {
  for (const statement of module.program.body) {
    if (statement.type !== "ExportDefaultDeclaration") continue;
    const decl = statement.declaration;
    if (decl.type === "ObjectExpression") return "object";
    if (decl.type === "ArrayExpression") return "array";
  }
  return undefined;
}
