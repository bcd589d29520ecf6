// Holes: elements of a plain array never written (`xs[5] = v` on an array of 3). JavaScript's
// forEach, map, reduce… skip them and a read gives undefined; nabla's derivative code reads
// every element. So where an array may carry holes into code that did not make them (an
// operator's arguments, an array a function hands on), generated code looks for one first.

/**
 * Where the first hole reachable from `value` is, as a path from `name` (`xs[1]`,
 * `o.rows[2][0]`), or undefined when there is none. Looks into plain arrays and the fields of
 * objects, each once; typed arrays, maps, sets and functions hold no holes of interest.
 */
export function firstHole(value: unknown, name: string): string | undefined {
  const seen = new Set<object>();
  const visit = (v: unknown, path: string): string | undefined => {
    if (typeof v !== "object" || v === null || seen.has(v)) return undefined;
    seen.add(v);
    if (Array.isArray(v)) {
      // Fast path: an array without undefined (a hole reads as undefined) has no hole.
      const mayHold = v.includes(undefined);
      for (let i = 0; i < v.length; i++) {
        if (mayHold && !(i in v)) return `${path}[${i}]`;
        const inner = v[i] as unknown;
        if (typeof inner === "object" && inner !== null) {
          const found = visit(inner, `${path}[${i}]`);
          if (found) return found;
        } else if (!mayHold) {
          // A number (or text) first: the rest are numbers too (arrays hold one type).
          break;
        }
      }
      return undefined;
    }
    if (ArrayBuffer.isView(v) || v instanceof Map || v instanceof Set) return undefined;
    for (const key of Object.keys(v)) {
      const found = visit((v as Record<string, unknown>)[key], `${path}.${key}`);
      if (found) return found;
    }
    return undefined;
  };
  return visit(value, name);
}

/**
 * Generated code: throws a RangeError, `before` + the hole's path + `after`, when `value` holds
 * a hole (see firstHole).
 *
 * @internal
 */
export function refuseHoles(value: unknown, name: string, before: string, after: string): void {
  const hole = firstHole(value, name);
  if (hole !== undefined) throw new RangeError(before + hole + after);
}
