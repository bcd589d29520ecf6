import type { Node, TSType } from "oxc-parser";
import type { FunctionTypeInfo } from "../ir/types.js";
import type { SourceModule } from "../parse/module.js";
import type { ProgramGraph } from "../parse/program.js";
import { typeResolver } from "./declared-types.js";

// Function types written in annotations — `(x: number) => number`, an alias of one, or
// `Differentiable<…>` around one — read into what lowering needs to call a function value:
// its parameter and result types, and whether the type promises the function is differentiable.

/** The function type `node` (written in `mod`) denotes, or undefined if it is not one. */
export function functionTypeOf(
  program: ProgramGraph,
  mod: SourceModule,
  node: TSType,
  seen: Set<TSType> = new Set(),
): FunctionTypeInfo | undefined {
  if (seen.has(node)) return undefined;
  seen.add(node);
  const text = mod.text.slice(node.start, node.end);
  switch (node.type) {
    case "TSParenthesizedType":
      return functionTypeOf(program, mod, node.typeAnnotation, seen);
    case "TSFunctionType": {
      const resolve = typeResolver(program, mod);
      const params = node.params.map((p) => {
        const annotation = "typeAnnotation" in p ? p.typeAnnotation : undefined;
        return annotation ? resolve(annotation.typeAnnotation) : undefined;
      });
      const result = resolve(node.returnType.typeAnnotation);
      return { params, result, differentiable: false, text };
    }
    case "TSTypeReference": {
      if (node.typeName.type !== "Identifier") return undefined;
      const name = node.typeName.name;
      const argument = node.typeArguments?.params[0];
      if (isDifferentiableMarker(mod, name) && argument) {
        const inner = functionTypeOf(program, mod, argument, seen);
        return inner && { ...inner, differentiable: true, text };
      }
      const declared = program.resolveType(mod, name);
      if (declared?.node.type !== "TSTypeAliasDeclaration") return undefined;
      const aliased = functionTypeOf(program, declared.module, declared.node.typeAnnotation, seen);
      return aliased && { ...aliased, text };
    }
    default:
      return undefined;
  }
}

/** The function type of a parameter (`f: (x: number) => number`) written in `mod`, if it has one. */
export function parameterFunctionType(
  program: ProgramGraph,
  mod: SourceModule,
  param: Node,
): FunctionTypeInfo | undefined {
  const annotation = param.type === "Identifier" ? param.typeAnnotation : undefined;
  return annotation ? functionTypeOf(program, mod, annotation.typeAnnotation) : undefined;
}

/** Whether `name` in `mod` is nabla's `Differentiable` type. */
function isDifferentiableMarker(mod: SourceModule, name: string): boolean {
  const binding = mod.imports.get(name);
  if (!binding) return false;
  const fromNabla = binding.specifier === "nabla" || binding.specifier.startsWith("nabla/");
  return fromNabla && binding.imported === "Differentiable";
}
