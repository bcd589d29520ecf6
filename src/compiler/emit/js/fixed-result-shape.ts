import { isArray, isObject } from "../../ir/type-system.js";
import type { Type } from "../../ir/types.js";

/**
 * The shape every value of `type` has, as the runtime's `resultShape` gives it, written in
 * JavaScript; undefined when the type does not fix it. A tuple or an object of numbers fixes
 * it: the results whose pullback closure reads the seed itself (see vjpFunction).
 */
export function fixedResultShape(type: Type): string | undefined {
  if (isArray(type) && type.storage === "Array" && type.elements?.every((e) => e === "number"))
    return `{ length: ${type.elements.length} }`;
  if (isObject(type) && type.fields.every((f) => f.type === "number")) {
    const differentiable = type.fields.filter((f) => !f.noDerivative && !f.enumChoice);
    const names = (optional: boolean) =>
      JSON.stringify(differentiable.filter((f) => !!f.optional === optional).map((f) => f.name));
    return `{ fields: {}, numbers: ${names(false)}, optionalNumbers: ${names(true)} }`;
  }
  return undefined;
}
