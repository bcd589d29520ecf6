import type { SourceModule } from "../parse/module.js";
import { inferType } from "./infer-type.js";
import { annotationType } from "./signature.js";

// The types of a module's top-level variables, as declared or inferred from their
// initializers, in declaration order: an initializer may read the variables declared before
// it. Parsing records the declarations; this fills in their types.

export function typeModuleConstants(mod: SourceModule): void {
  for (const constant of mod.constants.values()) {
    const annotation = constant.node.id.typeAnnotation;
    constant.type = annotation
      ? annotationType(annotation)
      : inferType(
          constant.node.init,
          (n) => mod.constants.get(n)?.type,
          undefined,
          (n) => !mod.topLevel.has(n),
        );
  }
}
