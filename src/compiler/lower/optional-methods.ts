import type { CallExpression } from "oxc-parser";
import { unsupportedSyntax } from "../diagnostics/messages/index.js";
import type { ObjectType, Value } from "../ir/types.js";
import {
  callImplementation,
  classesOfInterfaceType,
  findMember,
  instanceOf,
  raiseNotOfProgramClass,
  type MethodCaller,
} from "./class-dispatch.js";
import { arrowFieldOfClass } from "./arrow-fields.js";
import type { LowerContext } from "./context.js";
import { lowerIf } from "./merge.js";

// `f.reset?.()` where `reset?(): void` is an optional method of the interface `f` has: the
// method of the object's run-time class (or its arrow field) where that class has one, nothing where it has none,
// as JavaScript's `?.` does (class-dispatch.ts tests the classes most derived first). An
// object of none of the program's classes throws, as for any method of an interface.

/**
 * The optional call `node` of the method `name` of `receiver`, whose type is an interface the
 * program's classes implement. Only a method returning nothing: the value of one returning
 * something would be that or undefined, which nabla does not join.
 */
export function lowerOptionalInterfaceMethodCall(
  ctx: LowerContext,
  node: CallExpression,
  receiver: Value,
  type: ObjectType & { interfaceKey: string },
  name: string,
  call: MethodCaller,
): Value {
  const classes = classesOfInterfaceType(ctx, type)
    .map((cls) => ({
      cls,
      // A class may have it as an arrow field, on its instances (arrow-fields.ts).
      found: arrowFieldOfClass(ctx, cls, name, node) ?? findMember(ctx, cls, name, "method"),
    }))
    .reverse();
  const chain = (i: number): Value[] => {
    ctx.at(node);
    if (i === classes.length) {
      raiseNotOfProgramClass(
        ctx,
        name,
        type,
        classes.map((c) => c.cls),
      );
      return [];
    }
    const { cls, found } = classes[i]!;
    return lowerIf(ctx, instanceOf(ctx, receiver, cls, node), [
      () => {
        if (!found) return [];
        const v = callImplementation(ctx, node, receiver, type, name, "method", call, found);
        if (v.type !== "void")
          return ctx.fail(node, unsupportedSyntax.optionalMethodWithValue(name, type.name));
        return [];
      },
      () => chain(i + 1),
    ]);
  };
  chain(0);
  return ctx.builder.newValue("void");
}
