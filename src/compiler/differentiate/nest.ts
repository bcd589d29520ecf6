import { forEachOp } from "../ir/walk.js";
import { Builder, ValueFactory } from "../ir/builder.js";
import type { FunctionKey, IRFunction, Op, OpAttrs, Region, Value } from "../ir/types.js";
import { derivedPrimalKey, pairType, type PrimalForm } from "../ir/names.js";

// Nested differentiation: a JVP nabla generated becomes a primal function that can be
// differentiated again (derivative of derivative, gradient of a function that takes a
// derivative inside, Hessian-vector products as reverse over forward). A JVP returns two
// values (tangent, value) and calls other JVPs that do too; primal functions return one value.
// So the copy returns the tangent alone (`tangent` form, what an operator hands the user), or
// both in a `{ d, v }` object (`pair` form, for JVPs other derived code calls). A callee that
// changes none of its arguments and returns a number is called twice instead, in tangent form
// for the tangent and as itself for the value (only those of the two the caller reads): no
// object per call, and differentiating the copy again treats each part on its own — a value
// read only by comparisons (`dist < nearest`) stays a plain call. Each
// differentiation level is its own transformation with its own tangent variables, so there is
// no perturbation confusion: d/dx [x · d/dy (x + y)] is 1.

/** A copy of `jvp` as a primal function in `form` (see above), with no tangent marks. */
export function jvpAsPrimal(
  jvp: IRFunction,
  form: PrimalForm,
  /** Whether a callee (a primal function) changes none of its arguments: see above. */
  writesNothing: (callee: FunctionKey) => boolean = () => false,
  /** How lowered code calls a primal that is a method: on its receiver (`method`…), if so. */
  callAs: (callee: FunctionKey) => OpAttrs | undefined = () => undefined,
): IRFunction {
  const values = new ValueFactory();
  const map = new Map<number, Value>();
  const clone = (v: Value) => {
    const c = values.make(v.type, v.hint);
    map.set(v.id, c);
    return c;
  };
  const mapped = (v: Value) => {
    const m = map.get(v.id);
    if (!m) throw new Error(`internal: nested differentiation found no copy of %${v.id}`);
    return m;
  };
  const body: Region = { params: jvp.body.params.map(clone), ops: [] };
  const b = new Builder(values, body, jvp.loc);

  const copyRegion = (from: Region, into: Region) =>
    b.inRegion(into, () => from.ops.forEach(copyOp));

  /** The values of the JVP some op reads. */
  const read = new Set<number>();
  forEachOp(jvp.body, (op) => {
    for (const v of op.operands) read.add(v.id);
  });

  function copyOp(op: Op): void {
    b.loc = op.loc;
    if (
      op.opcode === "call" &&
      op.attrs.primal !== undefined &&
      op.results.length === 2 &&
      op.results[1]!.type === "number" &&
      !op.attrs.checkpoint &&
      writesNothing(op.attrs.primal)
    ) {
      // Split (see above): the tangent form, then the function itself.
      const [tangent, value] = op.results as [Value, Value];
      if (read.has(tangent.id)) {
        const t = b.emit(
          "call",
          op.operands.map(mapped),
          [tangent.type],
          {
            callee: derivedPrimalKey(op.attrs.callee!, "tangent"),
            calleeName: op.attrs.calleeName,
          },
          [],
          tangent.hint,
        );
        map.set(tangent.id, t.results[0]!);
      }
      if (read.has(value.id)) {
        const arity = op.operands.length - op.attrs.wrt!.length;
        const v = b.emit(
          "call",
          op.operands.slice(0, arity).map(mapped),
          [value.type],
          { callee: op.attrs.primal, calleeName: op.attrs.calleeName, ...callAs(op.attrs.primal) },
          [],
          value.hint,
        );
        map.set(value.id, v.results[0]!);
      }
      return;
    }
    if (op.opcode === "call" && op.attrs.primal !== undefined && op.results.length === 2) {
      // A callee's JVP: called in pair form, its two results read back out of the pair.
      const [tangent, value] = op.results as [Value, Value];
      const pair = b.emit(
        "call",
        op.operands.map(mapped),
        [pairType(tangent.type, value.type)],
        { callee: derivedPrimalKey(op.attrs.callee!, "pair"), calleeName: op.attrs.calleeName },
        [],
        "pair",
      ).results[0]!;
      map.set(
        tangent.id,
        b.emit("field", [pair], [tangent.type], { field: "d" }, [], tangent.hint).results[0]!,
      );
      map.set(
        value.id,
        b.emit("field", [pair], [value.type], { field: "v" }, [], value.hint).results[0]!,
      );
      return;
    }
    if (op.opcode === "call" && op.attrs.primal !== undefined) {
      // A JVP with one result or none (the callee returns nothing differentiable): as it is.
      const call = b.emit(
        "call",
        op.operands.map(mapped),
        op.results.map((r) => r.type),
        { callee: derivedPrimalKey(op.attrs.callee!, "pair"), calleeName: op.attrs.calleeName },
        [],
        op.results.map((r) => r.hint),
      );
      op.results.forEach((r, i) => map.set(r.id, call.results[i]!));
      return;
    }
    if (op.opcode === "return" && op.operands.length === 2) {
      const [tangent, value] = op.operands.map(mapped) as [Value, Value];
      const result =
        form !== "pair"
          ? tangent
          : b.emit(
              "literal",
              [tangent, value],
              [pairType(tangent.type, value.type)],
              {},
              [],
              "pair",
            ).results[0]!;
      b.emit("return", [result], []);
      return;
    }
    const regions = op.regions.map((r) => ({ params: r.params.map(clone), ops: [] }) as Region);
    const copy = b.emit(
      op.opcode,
      op.operands.map(mapped),
      op.results.map((r) => r.type),
      { ...op.attrs },
      regions,
      op.results.map((r) => r.hint),
    );
    op.results.forEach((r, i) => map.set(r.id, copy.results[i]!));
    op.regions.forEach((r, i) => copyRegion(r, regions[i]!));
  }

  copyRegion(jvp.body, body);
  const [tangent, value] = jvp.resultTypes;
  const resultTypes =
    jvp.resultTypes.length !== 2
      ? jvp.resultTypes
      : form !== "pair"
        ? [tangent!]
        : [pairType(tangent!, value!)];
  return {
    key: derivedPrimalKey(jvp.key, form),
    name: `${jvp.name}$${{ tangent: "t", pair: "p", product: "h" }[form]}`,
    params: body.params,
    captures: 0,
    resultTypes,
    body,
    loc: jvp.loc,
  };
}
