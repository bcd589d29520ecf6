// A pullback's seed has the shape of the function's result. The result's shadow cannot say
// what that shape is: reverse mode keeps the shadow of an array that `pop` shortened whole
// (see seedTangent), so a seed as long as the shadow may be longer than the result. So the
// lengths of the result's arrays are taken when the forward sweep made it, and each seed is
// checked against them: a seed too short would be padded with zeros, one too long would
// seed elements the result does not have, either a wrong derivative given silently.

/** The lengths of the arrays in a result, nested as they are; undefined for a number. */
export type ResultShape =
  | undefined
  | { readonly length: number; readonly elements?: readonly ResultShape[] }
  | {
      readonly fields: Readonly<Record<string, ResultShape>>;
      /** Number fields a seed must give: an object type's required ones (fixed shapes only). */
      readonly numbers?: readonly string[];
      /** Number fields a seed may leave out, read as zero: an object type's optional ones. */
      readonly optionalNumbers?: readonly string[];
    };

/**
 * The shape of a pullback's result `value`, when the forward sweep made it: of its parts that
 * have a tangent (`Tangent<T>` leaves out integer typed arrays, text, flags and objects of
 * them; numbers a seed may leave out, as zero).
 *
 * @internal
 */
export function resultShape(value: unknown): ResultShape {
  if (value instanceof Float64Array || value instanceof Float32Array)
    return { length: value.length };
  if (Array.isArray(value)) {
    const elements = value.map(resultShape);
    const numbers = value.some((e) => typeof e === "number");
    if (!numbers && elements.every((e) => e === undefined)) return undefined;
    return elements.some((e) => e !== undefined)
      ? { length: value.length, elements }
      : { length: value.length };
  }
  if (value === null || typeof value !== "object" || value instanceof Map) return undefined;
  if (ArrayBuffer.isView(value)) return undefined;
  const fields: Record<string, ResultShape> = {};
  let numbers = false;
  for (const [k, v] of Object.entries(value)) {
    const shape = resultShape(v);
    if (shape) fields[k] = shape;
    else if (typeof v === "number") numbers = true;
  }
  return numbers || Object.keys(fields).length > 0 ? { fields } : undefined;
}

/**
 * Throws a TypeError naming the first place where `seed` does not have the shape `shape`.
 *
 * @internal
 */
export function refuseSeedOfOtherShape(seed: unknown, shape: ResultShape, path = ""): void {
  if (!shape) return;
  if ("fields" in shape) {
    if (seed === null || typeof seed !== "object")
      throw seedError(`seed${path} is ${described(seed)}, but the result${path} is an object`);
    const fields = seed as Record<string, unknown>;
    for (const [k, s] of Object.entries(shape.fields))
      refuseSeedOfOtherShape(fields[k], s, `${path}.${k}`);
    for (const k of shape.numbers ?? [])
      if (typeof fields[k] !== "number")
        throw seedError(
          `seed${path}.${k} is ${described(fields[k])}, but the result${path}.${k} is a number`,
        );
    return;
  }
  const given = isArrayLike(seed) ? seed.length : undefined;
  if (given !== shape.length) {
    const seedText = given === undefined ? `is ${described(seed)}` : `has length ${given}`;
    throw seedError(`seed${path} ${seedText}, but the result${path} has length ${shape.length}`);
  }
  shape.elements?.forEach((s, i) =>
    refuseSeedOfOtherShape((seed as ArrayLike<unknown>)[i], s, `${path}[${i}]`),
  );
}

/**
 * A pullback closure's seed for a result of fixed shape: `seed` once checked against `shape`,
 * or a copy with zeros for the optional number fields it leaves out (the closure reads each).
 *
 * @internal
 */
export function seedOfShape(seed: unknown, shape: ResultShape): unknown {
  refuseSeedOfOtherShape(seed, shape);
  if (!shape || !("fields" in shape) || !shape.optionalNumbers) return seed;
  const given = seed as Record<string, unknown>;
  const missing = shape.optionalNumbers.filter((k) => given[k] === undefined);
  if (missing.length === 0) return seed;
  return { ...given, ...Object.fromEntries(missing.map((k) => [k, 0])) };
}

function seedError(mismatch: string): TypeError {
  return new TypeError(
    `nabla: the pullback's ${mismatch}: a seed has the shape of the function's result`,
  );
}

function isArrayLike(v: unknown): v is ArrayLike<unknown> {
  return Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView));
}

function described(v: unknown): string {
  if (v === undefined || v === null) return String(v);
  return isArrayLike(v) ? "an array" : `a ${typeof v}`;
}
