import { typeMismatch, unsupportedType } from "../diagnostics/messages/index.js";
import type { Node } from "oxc-parser";
import { assignable, isAggregate, isObject, typeText } from "../ir/type-system.js";
import type { Type, Value } from "../ir/types.js";
import type { LowerContext } from "./context.js";
import { article } from "./describe.js";

/** `v`, if its type fits `type`; otherwise a type-mismatch diagnostic at `node`. */
export function expectType(ctx: LowerContext, node: Node, v: Value, type: Type): Value {
  if (assignable(v.type, type)) return v;
  // `new Square(x)` where an interface of fields (`Shaped { readonly area: number }`) goes.
  if (
    isObject(v.type) &&
    v.type.classKey &&
    isObject(type) &&
    !type.classKey &&
    !type.interfaceKey
  ) {
    const source = ctx.module.text.slice(node.start, node.end);
    const name = /^[\w$.]+$/.test(source) ? source : "s";
    const fields = type.fields.map((f) => `${f.name}: ${name}.${f.name}`).join(", ");
    return ctx.fail(
      node,
      typeMismatch.instanceWhereFieldsGo(type.name, v.type.name, `{ ${fields} }`),
    );
  }
  return ctx.fail(node, typeMismatch.expectedHereGot(article(type), article(v.type)));
}

/**
 * A value as a condition: a boolean, or a number's or a string's truthiness (0, NaN and ""
 * are false, and an absent one).
 */
export function toBoolean(ctx: LowerContext, v: Value, node: Node): Value {
  if (v.type === "boolean") return v;
  if (v.type === "number" || v.type === "string") return ctx.builder.unary("truthy", v);
  // An array or object is truthy unless absent (`const hit = xs.find(…); if (hit) …`).
  // A function value too (`if (layer.act) …`): a function is never falsy.
  if (isAggregate(v.type) || v.type === "opaque")
    return ctx.builder.unary("not", ctx.builder.unary("nullish", v));
  return ctx.fail(node, unsupportedType.cannotBeUsedAsCondition(typeText(v.type)));
}
