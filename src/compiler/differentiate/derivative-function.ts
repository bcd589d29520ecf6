import { Builder, ValueFactory } from "../ir/builder.js";
import type { FunctionKey, IRFunction, SourceLoc, Value } from "../ir/types.js";
import { derivativeKey, derivativeName, type DerivativeKind } from "../ir/names.js";

/** What names a derivative: its primal function and how many parameters the primal has. */
export interface PrimalSignature {
  key: FunctionKey;
  name: string;
  arity: number;
  /** Array parameters the caller keeps unchanged until the backward sweep (see ReverseInfo). */
  frozen?: number[];
}

/**
 * Builds one generated derivative function: `build` emits its body with `b` and returns its
 * parameters and the values it returns (the first is returned, the others go through `out`).
 */
export function buildDerivative(
  kind: DerivativeKind,
  primal: PrimalSignature,
  wrt: number[],
  loc: SourceLoc,
  build: (b: Builder) => { params: Value[]; results: Value[] },
): IRFunction {
  const body = { params: [] as Value[], ops: [] };
  const b = new Builder(new ValueFactory(), body, loc);
  const { params, results } = build(b);
  body.params = params;
  b.loc = loc;
  b.emit("return", results, []);
  return {
    key: derivativeKey(kind, primal.key, wrt, primal.frozen),
    name: derivativeName(kind, primal.name, wrt, primal.arity, primal.frozen),
    params,
    captures: 0,
    resultTypes: results.map((r) => r.type),
    body,
    loc,
  };
}
