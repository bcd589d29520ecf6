import { nestedDifferentiation } from "../diagnostics/messages/index.js";
import type { Activity } from "../analysis/activity.js";
import type { Effects } from "../analysis/effects.js";
import { Builder, ValueFactory } from "../ir/builder.js";
import type { FunctionKey, IRFunction, Op, Region, Type, Value } from "../ir/types.js";
import { fieldOf, isAggregate, isDifferentiable, isObject, typeText } from "../ir/type-system.js";
import { tangentFieldOf, tangentType } from "../ir/tangent-types.js";
import { ARITHMETIC_RULES } from "../rules/arithmetic.js";
import type { RuleContext } from "../rules/context.js";
import { LinearBuilder, type Tangent } from "../rules/linear.js";
import { MATH_FUNCTIONS } from "../rules/math.js";
import { jvpKey, jvpName } from "../ir/names.js";
import { CompileAbort } from "../diagnostics/diagnostic.js";
import { takesNoTangent, type ParamTypesOf } from "./tangentless-parameters.js";

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
  /** The call of the derivative in the linearized function. */
  call: Op;
}

export interface Linearized {
  fn: IRFunction;
  demands: DerivativeDemand[];
}

export function linearize(
  primal: IRFunction,
  wrt: number[],
  activity: Activity,
  paramTypesOf?: ParamTypesOf,
): Linearized {
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
  /**
   * The tangent of `v` as a real value: a symbolic zero becomes `0`, or for an array or
   * object a fresh zero shadow (a value nothing differentiated flows into, e.g. data).
   */
  const concreteOf = (v: Value): Value => {
    const t = tangents.get(v.id);
    if (t) return t;
    if (!isAggregate(v.type)) return b.asTangent(true, () => b.constant(0));
    const zeros = b.asTangent(true, () =>
      b.emit("zeros", [mapped(v)], [tangentType(v.type)], {}, [], `d${v.hint || "t"}`),
    ).results[0]!;
    tangents.set(v.id, zeros);
    return zeros;
  };
  const cloneValue = (v: Value) => {
    const c = values.make(v.type, v.hint);
    map.set(v.id, c);
    return c;
  };
  const tangentParam = (v: Value) => {
    const t = values.make(tangentType(v.type), `d${v.hint || "t"}`);
    t.tangent = true;
    tangents.set(v.id, t);
    return t;
  };

  body.params = primal.params.map(cloneValue);
  const wrtTangents = wrt.map((i) => tangentParam(primal.params[i]!));
  body.params.push(...wrtTangents);
  // Arrays and objects that are not differentiated but may receive varied values get a zero
  // shadow of their own.
  primal.params.forEach((p, i) => {
    if (!wrt.includes(i) && isAggregate(p.type) && activity.isActive(p)) concreteOf(p);
  });

  const cloneRegion = (region: Region, into: Region) =>
    b.inRegion(into, () => region.ops.forEach(cloneOp));

  /**
   * Clones `op` with its tangent code; an active array or object it defines that got no
   * tangent (a constant array, data a varied value will be written into) gets a zero shadow
   * right there, so every later use, in any region, sees the same shadow.
   */
  function cloneOp(op: Op): void {
    cloneWithTangent(op);
    for (const r of op.results) {
      if (!isAggregate(r.type) || tangents.has(r.id) || !activity.isActive(r)) continue;
      if (op.opcode === "const" && op.attrs.value === undefined) {
        // The placeholder of a variable not yet assigned (`let a: number[];`): so is its tangent.
        const t = b.asTangent(true, () =>
          b.emit("const", [], [tangentType(r.type)], {}, [], `d${r.hint || "t"}`),
        ).results[0]!;
        tangents.set(r.id, t);
      } else {
        concreteOf(r);
      }
    }
  }

  function cloneWithTangent(op: Op): void {
    b.loc = op.loc;
    switch (op.opcode) {
      case "if":
        return cloneIf(op);
      case "loop":
        return cloneLoop(op);
      case "return": {
        const [result] = op.operands;
        const returned = !result
          ? []
          : isDifferentiable(result.type)
            ? [activity.isActive(result) ? concreteOf(result) : zeroTangent(result), mapped(result)]
            : [mapped(result)];
        b.emit("return", returned, []);
        return;
      }
      case "call":
        return cloneCall(op);
      case "withDerivative": {
        clonePrimal(op);
        const dx = tangentOf(op.operands[0]!);
        if (!dx || !activity.isActive(op.results[0]!)) return;
        const { callee, written } = op.attrs;
        const adjusted = b.asTangent(true, () =>
          b.emit("adjust", [dx], ["number"], { callee, ...(written ? { written } : {}) }),
        );
        tangents.set(op.results[0]!.id, adjusted.results[0]);
        return;
      }
      case "field":
      case "index":
      case "setField":
      case "setIndex":
      case "literal":
      case "alloc":
      case "truncate":
        cloneMemoryOp(op);
        return;
      default: {
        const clone = clonePrimal(op);
        const [result] = op.results;
        if (!result || !activity.isActive(result)) return;
        const rule =
          op.opcode === "math"
            ? MATH_FUNCTIONS.get(op.attrs.callee!)?.jvp
            : ARITHMETIC_RULES.get(op.opcode);
        if (!rule) {
          if (result.type === "number" && op.operands.some((v) => tangentOf(v))) {
            // Never drop a derivative silently.
            throw op.opcode === "adjust"
              ? new CompileAbort({
                  severity: "error",
                  ...nestedDifferentiation.withDerivativeCannotBeDifferentiatedAgain(),
                  loc: op.loc,
                  notes: [],
                })
              : new Error(`no derivative rule for '${op.opcode}'`);
          }
          return;
        }
        const argTangents = op.operands.map((v) =>
          activity.isActive(v) ? tangentOf(v) : undefined,
        );
        tangents.set(result.id, rule(rules, clone.operands, argTangents, clone.results[0]!));
      }
    }
  }

  /** A zero tangent for a returned value that is not active. */
  function zeroTangent(v: Value): Value {
    if (!isAggregate(v.type)) return b.asTangent(true, () => b.constant(0));
    return b.asTangent(true, () =>
      b.emit("zeros", [mapped(v)], [tangentType(v.type)], {}, [], `d${v.hint || "t"}`),
    ).results[0]!;
  }

  /** The primal op itself, in the linearized function. */
  function clonePrimal(op: Op): Op {
    const clone = b.emit(
      op.opcode,
      op.operands.map(mapped),
      op.results.map((r) => r.type),
      { ...op.attrs },
      [],
      op.results.map((r) => r.hint),
    );
    clone.results.forEach((r, i) => map.set(op.results[i]!.id, r));
    return clone;
  }

  /** Reads, writes and construction of arrays and objects: their tangents use the shadows. */
  function cloneMemoryOp(op: Op): void {
    clonePrimal(op);
    const result = op.results[0];
    // A shadow starts at zeros, though its primal be made of holes (`new Array(n)`).
    const attrs = { ...op.attrs };
    delete attrs.holes;
    const tangentOp = (operands: Value[], type: Type, hint: string) =>
      b.asTangent(true, () => b.emit(op.opcode, operands, [type], { ...attrs }, [], hint))
        .results[0]!;
    switch (op.opcode) {
      case "field":
      case "index": {
        const [object, index] = op.operands as [Value, Value | undefined];
        if (!activity.isActive(object) || !activity.isActive(result!)) return;
        if (op.opcode === "field" && !tangentFieldOf(object.type, op.attrs.field!)) return;
        const shadow = concreteOf(object);
        const operands = index ? [shadow, mapped(index)] : [shadow];
        tangents.set(
          result!.id,
          tangentOp(operands, tangentType(result!.type), `d${result!.hint || "t"}`),
        );
        return;
      }
      case "setField":
      case "setIndex": {
        const object = op.operands[0]!;
        if (!activity.isActive(object)) return;
        const value = op.operands[op.operands.length - 1]!;
        if (op.opcode === "setField" && !tangentFieldOf(object.type, op.attrs.field!)) {
          // A field the object's type lacks would drop the stored value's derivative unseen.
          if (!isObject(object.type) || !fieldOf(object.type, op.attrs.field!))
            if (activity.isActive(value))
              throw new Error(
                `internal: store to field '${op.attrs.field}' missing from ${typeText(object.type)}`,
              );
          return;
        }
        const operands = [
          concreteOf(object),
          ...op.operands.slice(1, -1).map(mapped),
          activity.isActive(value) ? concreteOf(value) : zeroTangent(value),
        ];
        b.asTangent(true, () => b.emit(op.opcode, operands, [], { ...op.attrs }));
        return;
      }
      case "truncate": {
        // `xs.pop()`: the shadow drops the same elements, so forward mode's tangent keeps the
        // array's length (reverse mode keeps the shadow whole, see BackwardSweep).
        const [array, length] = op.operands as [Value, Value];
        if (!activity.isActive(array)) return;
        b.asTangent(true, () => b.emit("truncate", [concreteOf(array), mapped(length)], []));
        return;
      }
      case "literal": {
        if (!activity.isActive(result!)) return;
        const type = result!.type;
        const kept =
          isAggregate(type) && type.kind === "object"
            ? op.operands.filter((_, i) => {
                const f = type.fields[i];
                return f !== undefined && tangentFieldOf(type, f.name) !== undefined;
              })
            : op.operands;
        const operands = kept.map((v) => (activity.isActive(v) ? concreteOf(v) : zeroTangent(v)));
        // A tangent is a plain object (the contract's `Tangent<T>`), not an instance of the
        // class: a class's getter-only or frozen members would refuse its fields.
        const attrs = { ...op.attrs };
        delete attrs.instanceOf;
        delete attrs.arrowFields;
        tangents.set(
          result!.id,
          b.asTangent(true, () =>
            b.emit("literal", operands, [tangentType(type)], attrs, [], `d${result!.hint || "t"}`),
          ).results[0]!,
        );
        return;
      }
      case "alloc":
        if (!activity.isActive(result!)) return;
        tangents.set(
          result!.id,
          tangentOp(
            [mapped(op.operands[0]!)],
            tangentType(result!.type),
            `d${result!.hint || "t"}`,
          ),
        );
        return;
    }
  }

  function cloneCall(op: Op): void {
    const result = op.results[0];
    const effects = activity.effectsOf(op.attrs.callee!);
    const active = op.operands
      .map((v, i) =>
        activity.isActive(v) &&
        (isAggregate(v.type)
          ? !takesNoTangent(paramTypesOf?.(op.attrs.callee!), effects, i)
          : tangentOf(v))
          ? i
          : -1,
      )
      .filter((i) => i >= 0);
    // An active array or object argument the callee may write: its shadow must follow.
    const writesShadow = active.some(
      (i) => isAggregate(op.operands[i]!.type) && (!effects || effects.writes.has(i)),
    );
    const pure = isPureCall(op, effects) ? { pure: true } : {};
    if (active.length === 0 || (!writesShadow && (!result || !activity.isActive(result)))) {
      const clone = b.emit(
        "call",
        op.operands.map(mapped),
        result ? [result.type] : [],
        { ...op.attrs, ...pure },
        [],
        result?.hint ?? "",
      );
      if (result) map.set(result.id, clone.results[0]!);
      return;
    }
    const callee = op.attrs.callee!;
    const args = [...op.operands.map(mapped), ...active.map((i) => concreteOf(op.operands[i]!))];
    const differentiable = result !== undefined && isDifferentiable(result.type);
    const resultTypes: Type[] = !result
      ? []
      : differentiable
        ? [tangentType(result.type), result.type]
        : [result.type];
    const call = b.emit(
      "call",
      args,
      resultTypes,
      {
        callee: jvpKey(callee, active),
        primal: callee,
        wrt: active,
        ...(op.attrs.checkpoint ? { checkpoint: true } : {}),
        ...(pure.pure ? { pure: true, primalCall: { ...op.attrs, pure: true } } : {}),
      },
      [],
      result ? [...(differentiable ? [`d${result.hint || "t"}`] : []), result.hint] : [],
    );
    call.tangent = true;
    if (result) {
      if (differentiable) {
        call.results[0]!.tangent = true;
        tangents.set(result.id, call.results[0]);
      }
      map.set(result.id, call.results[call.results.length - 1]!);
    }
    demands.push({ key: callee, wrt: active, op, call });
  }

  /** Positions of region-crossing values (if results, loop-carried values) that are active. */
  const activePositions = (...lists: Value[][]) =>
    lists[0]!
      .map((_, i) => lists.some((list) => activity.isActive(list[i]!)))
      .flatMap((a, i) => (a ? [i] : []));

  /** Appends the tangents of `values` at `positions` to a terminator's operands. */
  const withTangents = (values: Value[], positions: number[]) => [
    ...values.map(mapped),
    ...positions.map((i) =>
      activity.isActive(values[i]!) ? concreteOf(values[i]!) : zeroTangent(values[i]!),
    ),
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
      [...op.results.map((r) => r.type), ...positions.map((i) => tangentType(op.results[i]!.type))],
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
  const result = primal.resultTypes[0];
  const fn: IRFunction = {
    key: jvpKey(primal.key, wrt),
    name: jvpName(primal.name, wrt, primal.params.length - primal.captures),
    params: body.params,
    captures: 0,
    resultTypes: !result ? [] : isDifferentiable(result) ? [tangentType(result), result] : [result],
    body,
    loc: primal.loc,
  };
  return { fn, demands };
}

/**
 * Whether a call may be made again with the same arguments for the same results and no other
 * change: its callee writes nothing (arguments, their structure or length, module data) and
 * calls nothing outside the program; a checkpointed call is left as it is.
 */
function isPureCall(op: Op, effects: Effects | undefined): boolean {
  return (
    effects !== undefined &&
    op.attrs.checkpoint !== true &&
    effects.writes.size === 0 &&
    effects.replaces.size === 0 &&
    effects.grows.size === 0 &&
    effects.moduleWrites.length === 0 &&
    !effects.callsOut
  );
}
