import type { Node } from "oxc-parser";
import type { FunctionTypeInfo, Type } from "../ir/types.js";
import type { SourceModule } from "../parse/module.js";
import type { ProgramGraph } from "../parse/program.js";
import { checkedTypes } from "./checked-types.js";
import { annotationResolver, parameterFunctionType, type TypeArguments } from "./declared-types.js";
import type { TypeResolver } from "./signature.js";

// The types of one module's code, as lowering asks for them: what annotations say
// (declared-types.ts), and for what is not annotated, what TypeScript's checker infers
// (checked-types.ts).

/** The types of `mod`'s code: annotations read, the rest from the checker (with a program). */
export function typeResolver(
  program: ProgramGraph | undefined,
  mod: SourceModule,
  typeArguments?: TypeArguments,
): TypeResolver {
  const read = annotationResolver(program, mod, typeArguments);
  // JavaScript (a JavaScript entry, the run-time fallback's function text) has no types to
  // infer from: its parameters take their types from the call, as before.
  if (!program || !/\.[cm]?tsx?$/.test(mod.file) || mod.file.startsWith("package:")) return read;
  const checked = checkedTypes(program);
  // A function value's type is read where it is bound (function-values.ts), not here: to
  // lowering, a value of type `opaque` would be data it cannot use.
  const data = (t: Type | undefined) => (t === "opaque" ? undefined : t);
  return Object.assign(read, {
    inferred: {
      typeAt: (position: number) => data(checked.typeAt(mod.file, position)),
      returnTypeOf: (start: number, end: number) =>
        data(checked.returnTypeOf(mod.file, start, end)),
      returnsFunction: (start: number, end: number) =>
        checked.returnTypeOf(mod.file, start, end) === "opaque",
      expectedTypeOf: (start: number, end: number) =>
        data(checked.expectedTypeOf(mod.file, start, end)),
      parameterTypeOf: (start: number, end: number, index: number) =>
        data(checked.parameterTypeOf(mod.file, start, end, index)),
      literalsAt: (position: number) => checked.literalsAt(mod.file, position),
      functionTypeAt: (position: number) => checked.functionTypeAt(mod.file, position),
      enumValueAt: (position: number) => checked.enumValueAt(mod.file, position),
      mayBeAbsentIn: (start: number, end: number) => checked.mayBeAbsentIn(mod.file, start, end),
      callAt: (start: number, end: number) => {
        const call = checked.callAt(mod.file, start, end);
        return call && { params: call.params.map(data), result: data(call.result) };
      },
    },
  });
}

/**
 * The function type of a parameter (written in `mod`): its annotation's, else for a parameter
 * given a default and no annotation (`constructor(private clamp = Math.tanh)`), the checker's.
 */
export function parameterFunctionTypeOf(
  program: ProgramGraph,
  mod: SourceModule,
  param: Node,
): FunctionTypeInfo | undefined {
  const declared = parameterFunctionType(program, mod, param);
  if (declared) return declared;
  const inner = param.type === "TSParameterProperty" ? param.parameter : param;
  // `loss: T` of a `T extends Loss` type parameter: the function type TypeScript gives it.
  if (
    inner.type === "Identifier" &&
    inner.typeAnnotation?.typeAnnotation.type === "TSTypeReference" &&
    inner.typeAnnotation.typeAnnotation.typeName.type === "Identifier" &&
    typeParameterName(mod, inner.typeAnnotation.typeAnnotation.typeName.name)
  )
    return typeResolver(program, mod).inferred?.functionTypeAt(inner.start);
  if (inner.type !== "AssignmentPattern" || inner.left.type !== "Identifier") return undefined;
  if (inner.left.typeAnnotation) return undefined;
  return typeResolver(program, mod).inferred?.functionTypeAt(inner.left.start);
}

/** Whether `name`, written as a type in `mod`, is no type the module declares or imports. */
function typeParameterName(mod: SourceModule, name: string): boolean {
  return !mod.types.has(name) && !mod.imports.has(name);
}
