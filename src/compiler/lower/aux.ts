import type { Node } from "oxc-parser";
import type { IRFunction, Op, Type, Value } from "../ir/types.js";
import { fieldOf, isArray, isObject, typeText } from "../ir/type-system.js";
import type { LowerContext } from "./context.js";

// `hasAux: true` (JAX's `has_aux`): the function returns `[loss, aux]` or `{ value: loss, aux }`
// and only the loss is differentiated. Its lowered body ends by reading the loss and the aux
// out of what it returns, handing the aux — detached, so it gets no tangent and no adjoint —
// to the runtime (`$nabla.setAux`), and returning the loss. Every reverse-mode derivative of
// it is then that of a number-valued function, and its forward sweep, which runs the primal
// once, leaves the aux for the operator's wrapper to take (`$nabla.takeAux`) right after.

/** The error when the result is neither shape. */
function shapeError(ctx: LowerContext, at: Node, name: string, type: Type): never {
  return ctx.fail(
    at,
    "badOperatorUse",
    `with 'hasAux: true', ${name} must return '[loss, aux]' (annotate the return type as a tuple such as '[number, string]') or '{ value: loss, aux }', with a number loss; it returns ${typeText(type) === "number" ? "a number" : `'${typeText(type)}'`}`,
  );
}

/**
 * Rewrites the final `return r` of `fn` (lowering leaves exactly one, at the end of its body)
 * into `setAux(detach(aux of r)); return loss of r`.
 */
export function splitAuxResult(ctx: LowerContext, fn: IRFunction, at: Node, name: string): void {
  const ret = fn.body.ops.at(-1);
  const result = ret?.opcode === "return" ? ret.operands[0] : undefined;
  if (!ret || !result) return shapeError(ctx, at, name, "void");
  const type = result.type;
  const b = ctx.builder;
  b.region = fn.body;
  b.loc = ret.loc;
  fn.body.ops.pop();
  let loss: Value;
  let aux: Value;
  const literal = definingLiteral(fn, result);
  if (isArray(type) && type.elements?.length === 2 && type.elements[0] === "number") {
    // `return [loss, aux]` written as a literal: its parts directly, so the aux never shares
    // an alias class with the loss (only the loss's computation is differentiated).
    [loss, aux] = literal
      ? [literal.operands[0]!, literal.operands[1]!]
      : [
          b.emit("index", [result, b.constant(0)], ["number"], {}, [], "loss").results[0]!,
          b.emit("index", [result, b.constant(1)], [type.elements[1]!], {}, [], "aux").results[0]!,
        ];
  } else if (
    isObject(type) &&
    type.fields.length === 2 &&
    fieldOf(type, "value")?.type === "number" &&
    fieldOf(type, "aux")
  ) {
    const read = (field: string): Value => {
      const k = type.fields.findIndex((f) => f.name === field);
      return literal && literal.operands.length === type.fields.length
        ? literal.operands[k]!
        : b.emit("field", [result], [type.fields[k]!.type], { field }, [], field).results[0]!;
    };
    loss = read("value");
    aux = read("aux");
  } else {
    return shapeError(ctx, at, name, type);
  }
  const detached = b.emit("detach", [aux], [aux.type], {}, [], "aux").results[0]!;
  b.emit("extern", [detached], ["void"], { callee: "nabla:setAux" });
  b.emit("return", [loss], []);
  fn.resultTypes = ["number"];
}

/** The `literal` op of `fn`'s body that makes `value`, if that is where it comes from. */
function definingLiteral(fn: IRFunction, value: Value): Op | undefined {
  return fn.body.ops.find((op) => op.opcode === "literal" && op.results[0]?.id === value.id);
}
