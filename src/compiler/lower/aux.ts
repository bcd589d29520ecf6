import { badOperatorUse } from "../diagnostics/messages/index.js";
import type { Expression, Node } from "oxc-parser";
import type { Op, Type, Value } from "../ir/types.js";
import { fieldOf, isArray, isObject, typeText } from "../ir/type-system.js";
import { functionLabel } from "../ir/names.js";
import type { LowerContext } from "./context.js";
import { lowerValue } from "./members.js";

// `hasAux: true` (JAX's `has_aux`): the function returns `[loss, aux]` or `{ value: loss, aux }`
// and only the loss is differentiated. Each `return` of the function (and the body of an
// expression arrow) is lowered as: read the loss and the aux out of what it returns, hand the
// aux — detached, so it gets no tangent and no adjoint — to the runtime (`$nabla.setAux`), and
// return the loss. The function is then number-valued for every derivative built from it, and
// its forward sweep, which runs the primal once, leaves the aux for the operator's wrapper to
// take (`$nabla.takeAux`) right after. No return type is needed: each return is taken apart
// on its own (a plain JavaScript function given to the fallback has none).

/**
 * Lowers `returned`, a value the function returns, into the loss (returned); the aux goes to
 * the runtime. `declared` is the function's return type, if annotated.
 */
export function lowerAuxReturn(
  ctx: LowerContext,
  returned: Expression,
  declared: Type | undefined,
): Value {
  const value = lowerValue(ctx, returned, declared);
  const type = value.type;
  const b = ctx.builder;
  const literal = definingLiteral(ctx, value);
  ctx.at(returned);
  let loss: Value;
  let aux: Value;
  if (isArray(type) && literal?.operands.length === 2 && literal.operands[0]!.type === "number") {
    // `[loss, aux]` written here: its parts, so the aux never shares an alias class with the
    // loss (only what computes the loss is differentiated).
    [loss, aux] = [literal.operands[0]!, literal.operands[1]!];
  } else if (isArray(type) && type.elements?.length === 2 && type.elements[0] === "number") {
    loss = b.emit("index", [value, b.constant(0)], ["number"], {}, [], "loss").results[0]!;
    aux = b.emit("index", [value, b.constant(1)], [type.elements[1]!], {}, [], "aux").results[0]!;
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
        : b.emit("field", [value], [type.fields[k]!.type], { field }, [], field).results[0]!;
    };
    loss = read("value");
    aux = read("aux");
  } else {
    return shapeError(ctx, returned, type);
  }
  const detached = b.emit("detach", [aux], [aux.type], {}, [], "aux").results[0]!;
  b.emit("extern", [detached], ["void"], { callee: "nabla:setAux" });
  return loss;
}

/** The error when a function given with `hasAux` returns something else. */
function shapeError(ctx: LowerContext, at: Node, type: Type): never {
  const shown = typeText(type) === "number" ? "a number" : `'${typeText(type)}'`;
  return ctx.fail(
    at,
    badOperatorUse.withHasAuxTrueMustReturn(functionLabel(ctx.functionName), shown),
  );
}

/** The `literal` op of the current region that made `value`, if that is where it comes from. */
function definingLiteral(ctx: LowerContext, value: Value): Op | undefined {
  const ops = ctx.builder.region.ops;
  for (let k = ops.length - 1; k >= 0; k--) {
    const op = ops[k]!;
    if (op.results.some((r) => r.id === value.id)) return op.opcode === "literal" ? op : undefined;
  }
  return undefined;
}
