import { isArray, isKeyed, isObject, isRecursiveType, typeText } from "../../ir/type-system.js";
import type { Type, TypedArrayStorage } from "../../ir/types.js";
import * as js from "./expression.js";
import type { Expr } from "./expression.js";
import type { Builtins } from "./module-names.js";

// JavaScript for building arrays and objects: allocations, literals, and zero tangents shaped
// like a value (shadows). Used by the function emitter and by the operator wrappers.

/** `new Float64Array(n)`, `new Array(n).fill(0)`, or `new Array(n)` for arrays of objects. */
export function allocation(type: Type, length: Expr, builtin: Builtins, holes = false): Expr {
  if (!isArray(type)) throw new Error(`internal: alloc of ${typeText(type)}`);
  if (type.storage !== "Array")
    return js.raw(`new ${builtin(type.storage)}(${length.text})`, js.PREC.primary, [length]);
  // `new Array(n)` read before it is filled keeps its holes, for the checks that stop at one.
  const fill = type.element === "number" && !holes ? ".fill(0)" : "";
  return js.raw(`new ${builtin("Array")}(${length.text})${fill}`, js.PREC.primary, [length]);
}

export function literalOf(type: Type, items: Expr[], builtin: Builtins): Expr {
  if (isArray(type)) return js.arrayLiteral(items);
  if (isObject(type)) return js.objectLiteral(type.fields.map((f, i) => [f.name, items[i]!]));
  // A record or map starts empty; lowering stores its entries one by one.
  if (isKeyed(type) && items.length === 0)
    return type.storage === "Record"
      ? js.objectLiteral([])
      : js.raw(`new ${builtin(type.storage)}()`, js.PREC.primary, []);
  throw new Error(`internal: literal of ${typeText(type)}`);
}

/**
 * A tangent's typed array of length `n`: small ones come from the runtime's pool (see
 * runtime/pool.ts), being much cheaper to allocate than V8's own.
 */
export function tangentAllocation(storage: TypedArrayStorage, n: Expr, runtime: string): Expr {
  // An integer array has no tangent (isDifferentiable): asking for one is nabla's mistake.
  if (storage !== "Float64Array" && storage !== "Float32Array")
    throw new Error(`internal: a tangent of an ${storage}`);
  return js.raw(`${runtime}.new${storage}(${n.text})`, js.PREC.primary, [n]);
}

/**
 * A fresh zero tangent of (tangent) type `type`, shaped like the value `like`; `runtime` is
 * the local name of nabla's runtime, `builtin` names the platform's globals.
 */
export function zerosLike(
  type: Type,
  like: Expr,
  runtime: string,
  builtin: Builtins,
  depth = 0,
): Expr {
  if (type === "number") return js.literal(0);
  // A type that holds itself (a tree) has values of any depth: the runtime walks the value.
  if (isRecursiveType(type)) return js.call(`${runtime}.zerosOfValue`, [like]);
  if (isArray(type)) {
    if (type.elements)
      return js.arrayLiteral(
        type.elements.map((t, i) =>
          zerosLike(t, js.element(like, js.literal(i)), runtime, builtin, depth + 1),
        ),
      );
    const n = js.member(like, "length");
    if (type.storage !== "Array") return tangentAllocation(type.storage, n, runtime);
    if (type.element === "number")
      return js.raw(`new ${builtin("Array")}(${n.text}).fill(0)`, js.PREC.primary, [like]);
    const e = `e${depth}`;
    const inner = zerosLike(type.element, js.name(e), runtime, builtin, depth + 1);
    return js.raw(
      `${js.member(like, "map").text}((${e}) => ${inner.text.startsWith("{") ? `(${inner.text})` : inner.text})`,
      js.PREC.primary,
      [like],
    );
  }
  if (isKeyed(type)) {
    // The same keys, each holding a zero tangent of its value.
    const e = `e${depth}`;
    const inner = zerosLike(type.value, js.name(e), runtime, builtin, depth + 1);
    return js.call(`${runtime}.keyedZeros`, [
      like,
      js.raw(
        `(${e}) => ${inner.text.startsWith("{") ? `(${inner.text})` : inner.text}`,
        js.PREC.conditional,
        [],
      ),
    ]);
  }
  if (isObject(type))
    return js.objectLiteral(
      type.fields.map((f) => {
        const field = js.member(like, f.name);
        const zeros = zerosLike(f.type, field, runtime, builtin, depth + 1);
        // An absent optional array or object has no tangent: code reads it only where present.
        if (!f.optional || f.type === "number") return [f.name, zeros];
        return [
          f.name,
          js.conditional(js.raw(`${field.text} == null`, js.PREC.equality, [field]), field, zeros),
        ];
      }),
    );
  return js.literal(0);
}

/** Sets every number of a shadow to zero: `.fill(0)` for flat arrays, else the runtime helper. */
export function clearing(type: Type, shadow: Expr, runtime: string): string {
  if (isArray(type) && type.element === "number" && !type.elements)
    return `${js.member(shadow, "fill").text}(0)`;
  return `${runtime}.clearTangent(${shadow.text})`;
}
