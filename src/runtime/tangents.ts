// Run-time helpers for tangent values of arrays and objects (plain objects, arrays and typed
// arrays of numbers, nested): generated code uses them where a shape is only known at run time.

type TangentValue = number | Float64Array | Float32Array | TangentValue[] | TangentObject;
interface TangentObject {
  [field: string]: TangentValue;
}

/** Sets every number in a tangent to zero, in place. */
export function clearTangent(t: unknown): void {
  if (t instanceof Float64Array || t instanceof Float32Array) {
    t.fill(0);
  } else if (Array.isArray(t)) {
    for (let i = 0; i < t.length; i++) {
      if (typeof t[i] === "number") t[i] = 0;
      else clearTangent(t[i]);
    }
  } else if (t !== null && typeof t === "object") {
    const o = t as TangentObject;
    for (const k of Object.keys(o)) {
      if (typeof o[k] === "number") o[k] = 0;
      else clearTangent(o[k]);
    }
  }
}

/** A deep copy of a tangent, so a caller keeps its own. */
export function copyTangent<T>(t: T): T {
  if (t instanceof Float64Array || t instanceof Float32Array) return t.slice() as T;
  if (Array.isArray(t)) return t.map(copyTangent) as T;
  if (t !== null && typeof t === "object") {
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(t)) copy[k] = copyTangent(v);
    return copy as T;
  }
  return t;
}

/**
 * Arguments that are the same array or object while the function writes one of them: nabla
 * gives each argument its own tangent, which would be wrong for memory both names change.
 */
export class AliasedArgumentsError extends Error {
  constructor(operator: string, first: number, second: number) {
    super(
      `${operator}: arguments ${first} and ${second} are the same array or object, and the function writes to it; ` +
        `nabla differentiates arguments as separate values, so pass a copy (e.g. 'x.slice()') to one of them`,
    );
    this.name = "AliasedArgumentsError";
  }
}
