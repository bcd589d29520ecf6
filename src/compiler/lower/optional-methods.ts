import type { CallExpression } from "oxc-parser";
import { unsupportedSyntax } from "../diagnostics/messages/index.js";
import type { ObjectType, Value } from "../ir/types.js";
import { sameType } from "../ir/type-system.js";
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
import { article } from "./describe.js";
import { lowerIf } from "./merge.js";

// `f.reset?.()` where `reset?(): void` is an optional method of the interface `f` has: the
// method of the object's run-time class (or its arrow field) where that class has one, nothing
// (or undefined, for a method returning a value) where it has none, as JavaScript's `?.` does (class-dispatch.ts tests the classes most derived first). An
// object of none of the program's classes throws, as for any method of an interface.

/**
 * The optional call `node` of the method `name` of `receiver`, whose type is an interface the
 * program's classes implement. A method returning a value gives it where the object's class
 * has the method and undefined where it has none (`m.warm?.(x) ?? x`): the result type is the
 * method's, which TypeScript's checker gives (an implementer may come before any that has it).
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
  const callee = node.callee;
  const declared =
    callee.type === "MemberExpression"
      ? ctx.types.inferred?.functionTypeAt(callee.property.start)?.result
      : undefined;
  const result = declared === "void" ? undefined : declared;
  // Undefined of the method's result type: where the class has no such method.
  const absent = () =>
    result ? [ctx.builder.emit("const", [], [result], {}, [], name).results[0]!] : [];
  const chain = (i: number): Value[] => {
    ctx.at(node);
    if (i === classes.length) {
      raiseNotOfProgramClass(
        ctx,
        name,
        type,
        classes.map((c) => c.cls),
      );
      return absent();
    }
    const { cls, found } = classes[i]!;
    return lowerIf(ctx, instanceOf(ctx, receiver, cls, node), [
      () => {
        if (!found) return absent();
        const v = callImplementation(ctx, node, receiver, type, name, "method", call, found);
        if (v.type === "void") return [];
        if (!result || !sameType(v.type, result))
          return ctx.fail(
            node,
            unsupportedSyntax.optionalMethodWithValue(
              name,
              type.name,
              result ? article(result) : "nothing nabla can type",
              article(v.type),
            ),
          );
        return [v];
      },
      () => chain(i + 1),
    ]);
  };
  return chain(0)[0] ?? ctx.builder.newValue("void");
}
