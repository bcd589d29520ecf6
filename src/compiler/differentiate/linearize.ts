import type { Activity } from "../analyze/activity.js";
import { Builder, ValueFactory } from "../ir/builder.js";
import type { FunctionKey, IRFunction, Op, Region, Value } from "../ir/types.js";
import { ARITHMETIC_RULES } from "../rules/arithmetic.js";
import type { RuleContext } from "../rules/context.js";
import { LinearBuilder, type Tangent } from "../rules/linear.js";
import { MATH_FUNCTIONS } from "../rules/math.js";
import { jvpKey, jvpName } from "./names.js";

// Linearize (forward mode, JVP): clones the primal function and, next to every active op,
// emits its tangent ops from the rules. The result takes the primal arguments plus one tangent
// per differentiated parameter and returns (tangent of result, result).
// Inactive values get no tangent code; zero tangents are symbolic (`undefined`) until a
// region boundary needs a real value.

/** A derivative another function must provide: callee JVP for the active arguments. */
export interface DerivativeDemand {
  key: FunctionKey;
  wrt: number[];
  /** The call that needs it, for the call-chain note of a later diagnostic. */
  op: Op;
}

export interface Linearized {
  fn: IRFunction;
  demands: DerivativeDemand[];
}

export function linearize(primal: IRFunction, wrt: number[], activity: Activity): Linearized {
  const values = new ValueFactory();
  const body: Region = { params: [], ops: [] };
  const b = new Builder(values, body, primal.loc);
  const lin = new LinearBuilder(b, (v) => b.constantOf(v));
  const map = new Map<number, Value>();
  const tangents = new Map<number, Tangent>();
  const demands: DerivativeDemand[] = [];
  const rules: RuleContext = { b, lin, constantOf: (v) => b.constantOf(v) };

  const mapped = (v: Value) => {
    const m = map.get(v.id);
    if (!m) throw new Error(`internal: linearize found no clone of %${v.id}`);
    return m;
  };
  const tangentOf = (v: Value): Tangent => tangents.get(v.id);
  /** A tangent as a real value, materializing a symbolic zero. */
  const concrete = (t: Tangent): Value => t ?? b.asTangent(true, () => b.constant(0));
  const cloneValue = (v: Value) => {
    const c = values.make(v.type, v.hint);
    map.set(v.id, c);
    return c;
  };
  const tangentParam = (v: Value) => {
    const t = values.make("number", `d${v.hint || "t"}`);
    t.tangent = true;
    tangents.set(v.id, t);
    return t;
  };

  body.params = primal.params.map(cloneValue);
  const wrtTangents = wrt.map((i) => tangentParam(primal.params[i]!));
  body.params.push(...wrtTangents);

  const cloneRegion = (region: Region, into: Region) =>
    b.inRegion(into, () => region.ops.forEach(cloneOp));

  function cloneOp(op: Op): void {
    b.loc = op.loc;
    switch (op.opcode) {
      case "if":
        return cloneIf(op);
      case "loop":
        return cloneLoop(op);
      case "return": {
        const [result] = op.operands;
        b.emit("return", [concrete(tangentOf(result!)), mapped(result!)], []);
        return;
      }
      case "call":
        return cloneCall(op);
      default: {
        const clone = b.emit(
          op.opcode,
          op.operands.map(mapped),
          op.results.map((r) => r.type),
          { ...op.attrs },
          [],
          op.results.map((r) => r.hint),
        );
        clone.results.forEach((r, i) => map.set(op.results[i]!.id, r));
        const [result] = op.results;
        if (!result || !activity.isActive(result)) return;
        const rule =
          op.opcode === "math"
            ? MATH_FUNCTIONS.get(op.attrs.callee!)?.jvp
            : ARITHMETIC_RULES.get(op.opcode);
        if (!rule) return;
        const argTangents = op.operands.map((v) =>
          activity.isActive(v) ? tangentOf(v) : undefined,
        );
        tangents.set(result.id, rule(rules, clone.operands, argTangents, clone.results[0]!));
      }
    }
  }

  function cloneCall(op: Op): void {
    const result = op.results[0]!;
    const active = op.operands
      .map((v, i) => (activity.isActive(v) && tangentOf(v) ? i : -1))
      .filter((i) => i >= 0);
    if (!activity.isActive(result) || active.length === 0) {
      const clone = b.emit(
        "call",
        op.operands.map(mapped),
        [result.type],
        { ...op.attrs },
        [],
        result.hint,
      );
      map.set(result.id, clone.results[0]!);
      return;
    }
    const callee = op.attrs.callee!;
    const args = [...op.operands.map(mapped), ...active.map((i) => tangentOf(op.operands[i]!)!)];
    const call = b.emit(
      "call",
      args,
      ["number", result.type],
      { callee: jvpKey(callee, active), primal: callee, wrt: active },
      [],
      [`d${result.hint || "t"}`, result.hint],
    );
    call.tangent = true;
    call.results[0]!.tangent = true;
    tangents.set(result.id, call.results[0]);
    map.set(result.id, call.results[1]!);
    demands.push({ key: callee, wrt: active, op });
  }

  /** Positions of region-crossing values (if results, loop-carried values) that are active. */
  const activePositions = (...lists: Value[][]) =>
    lists[0]!
      .map((_, i) => lists.some((list) => activity.isActive(list[i]!)))
      .flatMap((a, i) => (a ? [i] : []));

  /** Appends the tangents of `values` at `positions` to a terminator's operands. */
  const withTangents = (values: Value[], positions: number[]) => [
    ...values.map(mapped),
    ...positions.map((i) => concrete(tangentOf(values[i]!))),
  ];

  function cloneIf(op: Op): void {
    const positions = activePositions(op.results);
    const regions = op.regions.map((region) => {
      const into: Region = { params: [], ops: [] };
      b.inRegion(into, () => {
        region.ops.slice(0, -1).forEach(cloneOp);
        const y = region.ops[region.ops.length - 1]!;
        b.loc = y.loc;
        b.emit("yield", withTangents(y.operands, positions), []);
      });
      return into;
    });
    b.loc = op.loc;
    emitWithTangentResults(op, "if", [mapped(op.operands[0]!)], regions, positions);
  }

  /** Emits the clone of a region op: its results, then tangents of those at `positions`. */
  function emitWithTangentResults(
    op: Op,
    opcode: "if" | "loop",
    operands: Value[],
    regions: Region[],
    positions: number[],
  ) {
    const clone = b.emit(
      opcode,
      operands,
      [...op.results.map((r) => r.type), ...positions.map(() => "number" as const)],
      {},
      regions,
      [...op.results.map((r) => r.hint), ...positions.map((i) => `d${op.results[i]!.hint || "t"}`)],
    );
    op.results.forEach((r, i) => map.set(r.id, clone.results[i]!));
    positions.forEach((p, k) => {
      const t = clone.results[op.results.length + k]!;
      t.tangent = true;
      tangents.set(op.results[p]!.id, t);
    });
  }

  function cloneLoop(op: Op): void {
    const [before, after] = op.regions as [Region, Region];
    const positions = activePositions(before.params, after.params, op.results);
    const enter = (region: Region) => {
      const params = region.params.map(cloneValue);
      const dparams = positions.map((i) => tangentParam(region.params[i]!));
      return { params: [...params, ...dparams], ops: [] } as Region;
    };
    const inits = withTangents(op.operands, positions);

    const newBefore = enter(before);
    b.inRegion(newBefore, () => {
      before.ops.slice(0, -1).forEach(cloneOp);
      const cond = before.ops[before.ops.length - 1]!;
      b.loc = cond.loc;
      const [flag, ...forwarded] = cond.operands;
      b.emit("condition", [mapped(flag!), ...withTangents(forwarded, positions)], []);
    });
    const newAfter = enter(after);
    b.inRegion(newAfter, () => {
      after.ops.slice(0, -1).forEach(cloneOp);
      const y = after.ops[after.ops.length - 1]!;
      b.loc = y.loc;
      b.emit("yield", withTangents(y.operands, positions), []);
    });
    b.loc = op.loc;
    emitWithTangentResults(op, "loop", inits, [newBefore, newAfter], positions);
  }

  cloneRegion(primal.body, body);
  const fn: IRFunction = {
    key: jvpKey(primal.key, wrt),
    name: jvpName(primal.name, wrt, primal.params.length - primal.captures),
    params: body.params,
    captures: 0,
    resultTypes: ["number", primal.resultTypes[0]!],
    body,
    loc: primal.loc,
  };
  return { fn, demands };
}
