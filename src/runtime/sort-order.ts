// The order JavaScript's own sort puts an array's elements in, for differentiated code
// (lower/array-sort.ts): the engine sorts the indices of the elements, calling the user's
// comparator on the elements they name, so it makes exactly the comparisons it makes sorting
// the array itself, and the permutation is the engine's for any comparator of its two
// arguments, consistent or not (`a.k > b.k ? 1 : -1`, a NaN result). A typed array's indices
// are a typed array: its sort is another algorithm than an Array's.

/**
 * Generated code: where `array.sort(compare)` puts each element, `order[k]` the index of the
 * element that goes to k. As Array.prototype.sort does, undefined elements go last, in order,
 * and are never compared.
 *
 * @internal
 */
export function sortOrder(
  array: ArrayLike<unknown>,
  compare: (a: unknown, b: unknown) => number,
): Int32Array {
  const byIndex = (i: number, j: number) => compare(array[i], array[j]);
  if (ArrayBuffer.isView(array)) {
    const indices = new Float64Array(array.length).map((_, i) => i);
    return Int32Array.from(indices.sort(byIndex));
  }
  const indices: number[] = [];
  const undefinedOnes: number[] = [];
  for (let i = 0; i < array.length; i++) (array[i] === undefined ? undefinedOnes : indices).push(i);
  return Int32Array.from([...indices.sort(byIndex), ...undefinedOnes]);
}
