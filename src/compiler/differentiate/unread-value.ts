import { ValueFactory } from "../ir/builder.js";
import type { IRFunction, Op } from "../ir/types.js";
import { highestValueId } from "../ir/value-ids.js";

// The gradient of a Hessian-vector product's function (a JVP made a primal function in form
// `product`, see ir/names.ts) is all its caller wants: the value, ⟨∇f(x), v⟩, is never read.
// Its reverse-mode JVP returns 0 in the value's place before the pipeline runs, so dead-code
// elimination drops what computed only the value: in kmeans' cost, the distance's tangent at
// every centroid nearer than those before it.

export function returnNoValue(fn: IRFunction): void {
  const ret = fn.body.ops[fn.body.ops.length - 1]!;
  const values = new ValueFactory(highestValueId(fn) + 1);
  const zero: Op = {
    opcode: "const",
    operands: [],
    results: [values.make("number", "")],
    regions: [],
    attrs: { value: 0 },
    loc: ret.loc,
  };
  let replaced = false;
  ret.operands = ret.operands.map((v) => {
    if (v.tangent || v.type !== "number") return v;
    replaced = true;
    return zero.results[0]!;
  });
  if (replaced) fn.body.ops.splice(fn.body.ops.length - 1, 0, zero);
}
