/**
 * Where generated derivative functions leave the results after the first: a derivative
 * returns its tangent and stores the primal value in `out.v1`, which the caller reads right
 * after the call. One shared object keeps this monomorphic and allocation-free.
 *
 * @internal
 */
export const out = { v1: 0 };
