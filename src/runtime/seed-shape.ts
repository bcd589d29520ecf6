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
  | { readonly fields: Readonly<Record<string, ResultShape>> };

/**
 * The shape of a pullback's result `value`, when the forward sweep made it.
 *
 * @internal
 */
export function resultShape(value: unknown): ResultShape {
  if (ArrayBuffer.isView(value)) return { length: (value as Float64Array).length };
  if (Array.isArray(value)) {
    const nested = value.some((e) => e !== null && typeof e === "object");
    return nested
      ? { length: value.length, elements: value.map(resultShape) }
      : { length: value.length };
  }
  if (value === null || typeof value !== "object" || value instanceof Map) return undefined;
  const fields: Record<string, ResultShape> = {};
  for (const [k, v] of Object.entries(value)) {
    const shape = resultShape(v);
    if (shape) fields[k] = shape;
  }
  return { fields };
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
