// The vector `hessianVectorProduct(f)(...args, v)` and `gradientAndHessianVectorProduct` take
// after f's arguments. Left out — most often by leaving out a defaulted argument of f, which
// then receives the vector — the product would fail deep in generated code; this says why.

/**
 * Throws a TypeError saying what the operator takes when `v` is undefined.
 *
 * @internal
 */
export function vectorGiven(v: unknown, operator: string, argumentCount: number): void {
  if (v !== undefined) return;
  const taken = argumentCount === 1 ? "argument" : `${argumentCount} arguments`;
  throw new TypeError(
    `nabla: ${operator} takes the function's ${taken} and then the vector, and was given no vector; give every argument before the vector (undefined for a defaulted one you leave out)`,
  );
}
