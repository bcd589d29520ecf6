import type { Node } from "oxc-parser";
import { fieldOf, isObject } from "../ir/type-system.js";
import type { ObjectType, Type, Value } from "../ir/types.js";
import { ancestry, type ClassSymbol } from "../parse/class-hierarchy.js";
import { classesOfInterfaceType, instanceOf, instanceType } from "./class-dispatch.js";
import type { LowerContext } from "./context.js";
import { unsupportedSyntax } from "../diagnostics/messages/index.js";
import { lowerIf } from "./merge.js";

// `"radius" in s` where `s` is a union of classes or an interface classes implement: whether
// the object has the field is what its class declares, so the test is the object's class
// (`instanceof`, most derived first), each class answering as its declaration says. An object
// of none of the classes throws, as a method called on it would.
//
// Of a plain object (`Circle | Rect` of interfaces, which lowering types as one object with
// the fields of both, optional where a member lacks them), the object is asked, as JavaScript
// asks it: the objects the compiled code makes have the keys JavaScript's would (a key written
// `undefined` kept, an optional one left out where the source leaves it out).

/**
 * `"name" in object`, asked of the object at run time (no derivative). A function written in
 * an object literal (an arrow field, a method, a getter) is the object's key in JavaScript, but
 * the object the compiled code makes may hold no key for it (object-closures.ts,
 * literal-accessors.ts): that answer is known here, true.
 */
export function hasField(ctx: LowerContext, object: Value, name: string): Value {
  if (writtenFunctions(ctx, object).has(name)) return ctx.builder.constant(true);
  return ctx.builder.emit("nondiff", [ctx.builder.constant(name), object], ["boolean"], {
    callee: "in",
  }).results[0]!;
}

/**
 * `key in object` written by the user: `name` when the key is a string written there. A key
 * chosen at run time of an object holding functions written in it is refused (see hasField).
 */
export function hasKey(
  ctx: LowerContext,
  node: Node,
  key: Value,
  object: Value,
  name: string | undefined,
): Value {
  if (name !== undefined) return hasField(ctx, object, name);
  if (writtenFunctions(ctx, object).size > 0)
    return ctx.fail(node, unsupportedSyntax.inWithRunTimeKeyOfObjectHoldingFunctions());
  return ctx.builder.emit("nondiff", [key, object], ["boolean"], { callee: "in" }).results[0]!;
}

/** The names of the functions written in the object literal `object` was made by. */
function writtenFunctions(ctx: LowerContext, object: Value): Set<string> {
  return new Set([
    ...(ctx.boundObjects.get(object)?.fields.keys() ?? []),
    ...(ctx.literalAccessors.get(object)?.accessors.keys() ?? []),
  ]);
}

/** Whether `"name" in` a value of `type` is asked of the object itself (a plain object). */
export function asksObjectForField(type: Type): boolean {
  return isObject(type) && type.classKey === undefined && type.interfaceKey === undefined;
}

/**
 * `"name" in object`, answered by the object's class; undefined when some class does not
 * decide it (an optional field, a method or getter of the name, a field only a subclass has).
 */
export function lowerFieldPresence(
  ctx: LowerContext,
  node: Node,
  object: Value,
  type: ObjectType & { interfaceKey: string },
  name: string,
): Value | undefined {
  const classes = classesOfInterfaceType(ctx, type).reverse();
  const answers = classes.map((cls) => declaresField(ctx, cls, name));
  if (classes.length === 0 || answers.some((a) => a === undefined)) return undefined;
  const chain = (i: number): Value[] => {
    ctx.at(node);
    if (i === classes.length) {
      ctx.builder.emit(
        "extern",
        [
          ctx.builder.constant("TypeError"),
          ctx.builder.constant(
            `nabla: '"${name}" in' a '${type.name}' that is an instance of none of its classes in the compiled program (${classes.map((c) => c.name).join(", ")})`,
          ),
        ],
        ["void"],
        { callee: "nabla:raise" },
      );
      // The branch never continues; its result still needs a value.
      return [ctx.builder.constant(false)];
    }
    return lowerIf(ctx, instanceOf(ctx, object, classes[i]!, node), [
      () => [ctx.builder.constant(answers[i]!)],
      () => chain(i + 1),
    ]);
  };
  return chain(0)[0];
}

/** Whether instances of `cls` (not of a subclass) have the field; undefined if not certain. */
function declaresField(ctx: LowerContext, cls: ClassSymbol, name: string): boolean | undefined {
  const type = instanceType(ctx, cls);
  if (!type) return undefined;
  // A method or accessor is found by `in` too, on the prototype.
  const member = ancestry(ctx.program, cls).some((c) =>
    c.decl.body.body.some(
      (m) =>
        (m.type === "MethodDefinition" || m.type === "TSAbstractMethodDefinition") &&
        !m.static &&
        m.key.type === "Identifier" &&
        m.key.name === name,
    ),
  );
  const field = fieldOf(type, name);
  if (member || field?.optional) return undefined;
  return field !== undefined;
}
