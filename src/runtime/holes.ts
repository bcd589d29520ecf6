// Holes: elements of a plain array never written (`xs[5] = v` on an array of 3). JavaScript's
// forEach, map, reduce… skip them and a read gives undefined; nabla's derivative code reads
// every element. So where an array may carry holes into code that did not make them (an
// operator's arguments, an array a function hands on), generated code looks for one first.

/** Where plain arrays may be in a value (compiler/ir/hole-shapes.ts, whose JSON this reads). */
type HoleShape = 0 | 1 | { a: HoleShape } | { o: Record<string, HoleShape> } | { r: HoleShape };

const shapes = new Map<string, HoleShape>();

/**
 * Where the first hole in `value` is, as a path from `name` (`xs[1]`, `o.rows[2][0]`), or
 * undefined when there is none. Looks only where `shape` says plain arrays may be.
 */
export function firstHole(value: unknown, name: string, shape: HoleShape = 0): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  if (shape === 0) return anyHole(value, name);
  if (shape === 1 || "a" in shape) {
    if (!Array.isArray(value)) return undefined;
    // An array without undefined (a hole reads as undefined) has no hole: a native scan.
    if (value.includes(undefined)) {
      for (let i = 0; i < value.length; i++) if (!(i in value)) return `${name}[${i}]`;
    }
    if (shape === 1) return undefined;
    for (let i = 0; i < value.length; i++) {
      const found = firstHole(value[i], `${name}[${i}]`, shape.a);
      if (found) return found;
    }
    return undefined;
  }
  const record = value as Record<string, unknown>;
  if ("o" in shape) {
    for (const key in shape.o) {
      const found = firstHole(record[key], `${name}.${key}`, shape.o[key]);
      if (found) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(record)) {
    const found = firstHole(record[key], `${name}.${key}`, shape.r);
    if (found) return found;
  }
  return undefined;
}

/** The first hole anywhere in plain arrays and fields of objects reachable from `value`. */
function anyHole(value: object, name: string): string | undefined {
  const seen = new Set<object>();
  const visit = (v: unknown, path: string): string | undefined => {
    if (typeof v !== "object" || v === null || seen.has(v)) return undefined;
    seen.add(v);
    if (ArrayBuffer.isView(v) || v instanceof Map || v instanceof Set) return undefined;
    if (Array.isArray(v) && v.includes(undefined)) {
      for (let i = 0; i < v.length; i++) if (!(i in v)) return `${path}[${i}]`;
    }
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const inner = v[i] as unknown;
        if (typeof inner !== "object" || inner === null) continue;
        const found = visit(inner, `${path}[${i}]`);
        if (found) return found;
      }
      return undefined;
    }
    for (const key of Object.keys(v)) {
      const found = visit((v as Record<string, unknown>)[key], `${path}.${key}`);
      if (found) return found;
    }
    return undefined;
  };
  return visit(value, name);
}

/**
 * Generated code: throws a RangeError, `before` + the hole's path + `after`, when `value` has
 * a hole where `shape` (JSON, see firstHole) says a plain array may be.
 *
 * @internal
 */
export function refuseHoles(
  value: unknown,
  name: string,
  shape: string,
  before: string,
  after: string,
): void {
  let parsed = shapes.get(shape);
  if (parsed === undefined) {
    parsed = JSON.parse(shape) as HoleShape;
    shapes.set(shape, parsed);
  }
  const hole = firstHole(value, name, parsed);
  if (hole !== undefined) throw new RangeError(before + hole + after);
}

/**
 * Generated code, as an operator is called: throws a RangeError when the argument (or captured
 * value) `name` has a hole where `shape` says a plain array may be.
 *
 * @internal
 */
export function refuseArgumentHoles(value: unknown, name: string, shape: string): void {
  refuseHoles(
    value,
    name,
    shape,
    "nabla: the differentiated function was given an array with a hole at ",
    " (an element never written); JavaScript's array methods skip holes and reading one " +
      "gives undefined, nabla's derivative code does neither. Write every element, e.g. with " +
      "push or fill.",
  );
}
