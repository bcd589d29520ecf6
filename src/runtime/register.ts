/**
 * Where generated derivative functions leave the results after the first: a derivative
 * returns its tangent and stores the primal value in `out.v1`, which the caller reads right
 * after the call. One shared object keeps this monomorphic and allocation-free.
 *
 * @internal
 */
export const out = { v1: 0 };

const jacobianSites = new Map<string, { m: number }>();

/**
 * What a `jacobian` call site remembers between calls: the number of outputs m of its last
 * call (−1 before the first), which decides between forward and reverse mode before the
 * function runs.
 *
 * @internal
 */
export function jacobianSite(site: string): { m: number } {
  let hint = jacobianSites.get(site);
  if (!hint) jacobianSites.set(site, (hint = { m: -1 }));
  return hint;
}

/** The aux of the last `hasAux` forward sweep, until its operator's wrapper takes it. */
let aux: unknown;

/**
 * Where the forward sweep of a function differentiated with `hasAux: true` leaves its
 * auxiliary output (see compiler/lower/aux.ts).
 *
 * @internal
 */
export function setAux(value: unknown): void {
  aux = value;
}

/**
 * The aux the last `hasAux` forward sweep left, taken by the operator's wrapper right after
 * the sweep (and forgotten here, so it does not outlive the call).
 *
 * @internal
 */
export function takeAux(): unknown {
  const value = aux;
  aux = undefined;
  return value;
}
