import { isArray, isObject, typeText } from "../../ir/type-system.js";
import type { Type } from "../../ir/types.js";
import * as js from "./expression.js";
import type { Expr } from "./expression.js";
import type { Builtins } from "./module-names.js";

// Tangents along k directions at once (`f$jvps`, which `jacobian` uses): every number of a
// tangent becomes k numbers, its *lanes*, one per direction. The layout, by tangent type:
// - a number (a local, an argument, a result): an array of its k lanes (a plain array: a
//   `Float64Array` of more than 8 numbers costs 20 times as much to allocate);
// - an array of numbers (`number[]`, a typed array, a tuple of numbers): the same kind of
//   array, k times as long, the lanes of element i at i·k … i·k + k − 1 — so the tangent of
//   a result of m numbers along n directions is the m × n Jacobian, row by row;
// - a number in an object or in a tuple of mixed elements: an array of its k lanes in that
//   place;
// - arrays of arrays or objects, objects: the same structure as one tangent, holding the
//   above.
// The emitted code runs each tangent operation as a loop over the lanes (consecutive ones
// fused into one loop), so the primal computation runs once for all directions.

/** Whether a tangent array of type `t` keeps its numbers flat, k lanes per element. */
export function isFlatLanes(t: Type): boolean {
  return isArray(t) && t.element === "number";
}

/** A new tangent array of `length` elements in lane layout, zero (`alloc`). */
export function laneAllocation(type: Type, length: Expr, k: string, builtin: Builtins): Expr {
  if (!isArray(type)) throw new Error(`internal: alloc of ${typeText(type)}`);
  if (!isFlatLanes(type))
    return js.raw(`new ${builtin("Array")}(${length.text})`, js.PREC.primary, [length, js.name(k)]);
  const n = js.binary("*", length, js.name(k));
  return type.storage !== "Array"
    ? js.raw(`new ${builtin(type.storage)}(${n.text})`, js.PREC.primary, [n])
    : js.raw(`new ${builtin("Array")}(${n.text}).fill(0)`, js.PREC.primary, [n]);
}

/** A fresh zero tangent of (tangent) type `type` in lane layout, shaped like the value `like`. */
export function laneZerosLike(
  type: Type,
  like: Expr,
  k: string,
  builtin: Builtins,
  depth = 0,
): Expr {
  const kName = js.name(k);
  if (type === "number")
    return js.raw(`new ${builtin("Array")}(${k}).fill(0)`, js.PREC.primary, [kName]);
  if (isArray(type)) {
    if (isFlatLanes(type)) return laneAllocation(type, js.member(like, "length"), k, builtin);
    if (type.elements)
      return js.arrayLiteral(
        type.elements.map((t, i) =>
          laneZerosLike(t, js.element(like, js.literal(i)), k, builtin, depth + 1),
        ),
      );
    const e = `e${depth}`;
    const inner = laneZerosLike(type.element, js.name(e), k, builtin, depth + 1);
    return js.raw(
      `${js.member(like, "map").text}((${e}) => ${inner.text.startsWith("{") ? `(${inner.text})` : inner.text})`,
      js.PREC.primary,
      [like, kName],
    );
  }
  if (isObject(type))
    return js.objectLiteral(
      type.fields.map((f) => [
        f.name,
        laneZerosLike(f.type, js.member(like, f.name), k, builtin, depth + 1),
      ]),
    );
  return js.literal(0);
}

/**
 * A tangent type as the run-time helpers `laneOf`, `setLane` and `laneZeros` read it: `0` for
 * a number, `"f"` for a flat array of numbers (its storage is the value's), `["t", …]` for a
 * tuple of mixed elements, `["a", element]` for an array of arrays or objects, `["o", { … }]`
 * for an object.
 */
export function laneShape(type: Type): unknown {
  if (type === "number") return 0;
  if (isArray(type)) {
    if (isFlatLanes(type)) return "f";
    if (type.elements) return ["t", type.elements.map(laneShape)];
    return ["a", laneShape(type.element)];
  }
  if (isObject(type))
    return ["o", Object.fromEntries(type.fields.map((f) => [f.name, laneShape(f.type)]))];
  return null;
}
