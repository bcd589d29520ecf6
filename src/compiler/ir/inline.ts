import { ValueFactory } from "./builder.js";
import type { IRFunction, Op, Region, Value } from "./types.js";
import { substituteValues } from "./substitute.js";
import { highestValueId } from "./value-ids.js";
import { keyFile } from "./function-key.js";
import { someOp } from "./walk.js";

// Inlining, for the functions nabla differentiates: a call of a small function is replaced by
// a copy of its body, so the derivative has no call to make (no frame, no tape handed over, no
// shadow arrays passed and saved), and the arrays the callee builds and returns — `[x, y, z]`
// — become values the caller reads at known positions, which scalarize.ts then replaces by
// the numbers themselves. The primal code the user runs is not touched: only the copy that
// is differentiated is.

/** A copy of `fn` with fresh op, region and value objects (the same ids). */
export function cloneFunction(fn: IRFunction): IRFunction {
  const values = new Map<number, Value>();
  const value = (v: Value): Value => {
    let c = values.get(v.id);
    if (!c) {
      c = { id: v.id, type: v.type, hint: v.hint, ...(v.tangent ? { tangent: true } : {}) };
      values.set(v.id, c);
    }
    return c;
  };
  const region = (r: Region): Region => ({ params: r.params.map(value), ops: r.ops.map(op) });
  const op = (o: Op): Op => ({
    opcode: o.opcode,
    operands: o.operands.map(value),
    results: o.results.map(value),
    regions: o.regions.map(region),
    attrs: { ...o.attrs },
    loc: o.loc,
    ...(o.tangent ? { tangent: true } : {}),
  });
  return { ...fn, params: fn.params.map(value), body: region(fn.body) };
}

/** The number of ops in a function, nested ones included. */
export function opCount(fn: IRFunction): number {
  const count = (r: Region): number =>
    r.ops.reduce((n, o) => n + 1 + o.regions.reduce((m, x) => m + count(x), 0), 0);
  return count(fn.body);
}

/**
 * Whether `call` in `caller` may be replaced by `callee`'s body as inlineCalls does: a plain
 * call (not a method's, an accessor's, `super`'s, one with a rest parameter or checkpointed),
 * of a body with one return, at its end, and at most `maxOps` ops, whose module-level names are
 * the caller's module's (inlined elsewhere, they would not be).
 */
export function inlinable(
  caller: IRFunction,
  call: Op,
  callee: IRFunction,
  maxOps: number,
): boolean {
  const { attrs } = call;
  if (attrs.method || attrs.getter || attrs.setter || attrs.superOf) return false;
  if (attrs.restParameter || attrs.checkpoint) return false;
  if (
    keyFile(callee.key) !== keyFile(caller.key) &&
    someOp(callee.body, (op) => op.opcode === "global")
  )
    return false;
  const ops = callee.body.ops;
  return (
    ops[ops.length - 1]?.opcode === "return" &&
    !someOp({ params: [], ops: ops.slice(0, -1) }, (op) => op.opcode === "return") &&
    opCount(callee) <= maxOps
  );
}

/**
 * A copy of `fn` in which every call that `calleeOf` gives a body for is replaced by that
 * body, or undefined if there is no such call. The bodies given (see `inlinable`) take the
 * call's operands as their parameters and return what the call results in; calls inside them
 * are copied as calls, which a caller inlines bottom-up or in another round
 * (differentiate/wasm-primals.ts).
 */
export function inlineCalls(
  fn: IRFunction,
  calleeOf: (call: Op) => IRFunction | undefined,
): IRFunction | undefined {
  const copy = cloneFunction(fn);
  const values = new ValueFactory(highestValueId(copy) + 1);
  /** A call's results, by id, replaced by what the inlined body returns. */
  const replaced = new Map<number, Value>();
  let inlined = false;

  const expand = (region: Region) => {
    const ops: Op[] = [];
    for (const op of region.ops) {
      op.regions.forEach(expand);
      const callee = op.opcode === "call" ? calleeOf(op) : undefined;
      if (!callee) {
        ops.push(op);
        continue;
      }
      inlined = true;
      const map = new Map<number, Value>();
      callee.params.forEach((p, i) => map.set(p.id, op.operands[i]!));
      const mapped = (v: Value): Value => {
        const m = map.get(v.id);
        if (!m) throw new Error(`internal: inlining found no copy of %${v.id}`);
        return m;
      };
      const fresh = (v: Value): Value => {
        const c = values.make(v.type, v.hint);
        map.set(v.id, c);
        return c;
      };
      const cloneRegion = (r: Region): Region => {
        const params = r.params.map(fresh);
        return { params, ops: r.ops.map(cloneOp) };
      };
      const cloneOp = (o: Op): Op => {
        const operands = o.operands.map(mapped);
        // Regions first: their values are not visible after the op, only its results are.
        const regions = o.regions.map(cloneRegion);
        return {
          opcode: o.opcode,
          operands,
          results: o.results.map(fresh),
          regions,
          attrs: { ...o.attrs },
          loc: o.loc,
        };
      };
      const body = callee.body.ops;
      for (const o of body.slice(0, -1)) ops.push(cloneOp(o));
      const ret = body[body.length - 1]!;
      op.results.forEach((r, i) => replaced.set(r.id, mapped(ret.operands[i]!)));
    }
    region.ops = ops;
  };
  expand(copy.body);
  if (!inlined) return undefined;
  // A body may return what it was given: another call's result, replaced in turn.
  substituteValues(copy.body, replaced);
  return copy;
}
