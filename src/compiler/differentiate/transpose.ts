import { BackwardSweep } from "./backward-sweep.js";
import { type IRFunction, type Region, type Value } from "../ir/types.js";
import { buildDerivative, type PrimalSignature } from "./derivative-function.js";
import { type ReverseInfo } from "./residuals.js";
import { emitForwardSweep } from "./unzip.js";
import { forEachOp } from "../ir/walk.js";
import { isShadow, returnsSeededNumber } from "./tangent-values.js";

// Transpose: the functions of reverse mode that hold a backward sweep (backward-sweep.ts
// emits the sweep itself): the backward sweep alone, `f$bwd`; the fused gradient, `f$grad`;
// and the pullback as a closure, `f$vjp`.

/**
 * The backward sweep as a function of its own, `f$bwd(seed, inputs…)`, taking residuals from
 * the tape. `inputs` are the JVP parameters (arguments, shadows) its caller passes after the
 * seed (see ReverseInfo.inputs): at least those the sweep reads.
 */
export function backwardSweep(
  jvp: IRFunction,
  info: ReverseInfo,
  primal: PrimalSignature,
  wrt: number[],
  inputs: readonly number[] = info.inputs(),
): IRFunction {
  return buildDerivative("bwd", primal, wrt, jvp.loc, (b) => {
    // A function returning an array or object gets its adjoint in that result's shadow.
    const seed = returnsSeededNumber(jvp) ? b.newValue("number", "seed") : undefined;
    const given = new Map(
      inputs.map((k) => {
        const p = jvp.params[k]!;
        return [p.id, b.newValue(p.type, p.hint)] as const;
      }),
    );
    return {
      params: [...(seed ? [seed] : []), ...given.values()],
      results: new BackwardSweep(b, jvp, info, undefined, given, undefined).run(seed),
    };
  });
}

/**
 * The gradient as one function, `f$grad(x…, seed)`: the forward sweep, then the backward
 * sweep reading the body's residuals from locals — only values saved inside loops and branches
 * go through the tape. Returns the adjoints (first returned, others in `out`) then the value.
 */
export function fusedGradient(
  jvp: IRFunction,
  info: ReverseInfo,
  primal: PrimalSignature,
  wrt: number[],
): IRFunction {
  return buildDerivative("grad", primal, wrt, jvp.loc, (b) => {
    const forward = emitForwardSweep(b, jvp, info, false);
    b.emit("peak", [], []);
    const seed = returnsSeededNumber(jvp) ? b.newValue("number", "seed") : undefined;
    const adjoints = new BackwardSweep(b, jvp, info, forward, undefined, undefined).run(seed);
    return {
      params: [...forward.params, ...(seed ? [seed] : [])],
      results: [...adjoints, ...forward.results],
    };
  });
}

/**
 * The pullback without the tape, `f$vjp(x…)`: the forward sweep keeps every residual in locals
 * (see emitForwardSweep's `lift`) and returns the pullback itself, a closure over them:
 * `back(seed)` makes fresh zero shadows for the differentiated arrays and objects, runs the
 * backward sweep, and returns the adjoints in ascending parameter order (the adjoint alone
 * for one parameter, else an array of them). The value comes back in `out.v1`. For an array
 * or object result, `seed` is its adjoint: when the function returns a literal of numbers
 * (`[a, b]`), the backward sweep reads the seed where the literal's shadow would have been,
 * without clearing it; otherwise `out.v2` holds the result's shadow, which the caller fills
 * first. A last argument `withValue` false skips building an array or object value only the
 * caller would read. For functions without loops or calls that do tangent work (see vjpPays
 * in sweeps.ts).
 */
export function vjpFunction(
  jvp: IRFunction,
  info: ReverseInfo,
  primal: PrimalSignature,
  wrt: number[],
): IRFunction {
  return buildDerivative("vjp", primal, wrt, jvp.loc, (b) => {
    const forward = emitForwardSweep(b, jvp, info, false, true);
    const tangents = jvp.params.filter((p) => p.tangent);
    const shadows = tangents.filter(isShadow);
    const params = forward.params.filter((p) => !shadows.some((s) => forward.map.get(s.id) === p));
    const ret = jvp.body.ops[jvp.body.ops.length - 1]!;
    const resultShadow = ret.operands.find(isShadow);
    const seedIsShadow = resultShadow !== undefined && readsOnlyAsResult(jvp, resultShadow);
    const seed = b.newValue(resultShadow && seedIsShadow ? resultShadow.type : "number", "seed");
    const keptShadow = resultShadow && !seedIsShadow ? forward.map.get(resultShadow.id) : undefined;
    const body: Region = { params: resultShadow && !seedIsShadow ? [] : [seed], ops: [] };
    b.inRegion(body, () => {
      // Fresh zero shadows for the differentiated arrays and objects, which the caller keeps.
      const fresh = new Map<number, Value>();
      tangents.forEach((t, k) => {
        if (!isShadow(t)) return;
        const like = forward.map.get(jvp.params[wrt[k]!]!.id)!;
        const made = b.emit("zeros", [like], [t.type], {}, [], t.hint).results[0]!;
        made.tangent = true;
        fresh.set(t.id, made);
        forward.map.set(t.id, made);
      });
      if (resultShadow && seedIsShadow) forward.map.set(resultShadow.id, seed);
      const numbers = new BackwardSweep(
        b,
        jvp,
        info,
        forward,
        undefined,
        seedIsShadow ? new Set([resultShadow!.id]) : undefined,
      ).run(resultShadow ? undefined : seed);
      let n = 0;
      const adjoints = tangents.map((t) => fresh.get(t.id) ?? numbers[n++]!);
      b.loc = jvp.loc;
      const result =
        adjoints.length === 1
          ? adjoints[0]!
          : b.emit(
              "literal",
              adjoints,
              [
                {
                  kind: "array",
                  storage: "Array",
                  element: adjoints[0]!.type,
                  elements: adjoints.map((a) => a.type),
                },
              ],
              {},
              [],
              "adjoints",
            ).results[0]!;
      b.emit("return", [result], []);
    });
    const back = b.emit("closure", [], ["opaque"], {}, [body], "back").results[0]!;
    // `pullback` does not need the value: an array or object built for it alone is built only
    // when the last argument says so (for `valueWithPullback`).
    const withValue = b.newValue("boolean", "withValue");
    let value = forward.results.find((v) => !v.tangent && v !== keptShadow)!;
    const built = b.region.ops.find((o) => o.results[0] === value);
    const used = (region: Region): boolean =>
      region.ops.some((o) => o.operands.includes(value) || o.regions.some(used));
    if (built?.opcode === "literal" && !used(b.region)) {
      b.region.ops.splice(b.region.ops.indexOf(built), 1);
      const skipped: Region = { params: [], ops: [] };
      b.inRegion(skipped, () => {
        const none = b.emit("const", [], [value.type], {}).results[0]!;
        b.emit("yield", [none], []);
      });
      const made: Region = { params: [], ops: [built] };
      b.inRegion(made, () => b.emit("yield", [value], []));
      value = b.emit("if", [withValue], [value.type], {}, [made, skipped], "value").results[0]!;
    }
    return {
      params: [...params, withValue],
      results: [back, value, ...(keptShadow ? [keptShadow] : [])],
    };
  });
}

/**
 * Whether the shadow `v` (of the returned value) is a literal of numbers that the function
 * uses for nothing else, so its adjoint can be read where the caller passed it.
 */
function readsOnlyAsResult(jvp: IRFunction, v: Value): boolean {
  const type = v.type;
  const numbers =
    typeof type === "object" &&
    (type.kind === "array"
      ? type.elements?.every((e) => e === "number")
      : type.kind === "object" && type.fields.every((f) => f.type === "number"));
  if (!numbers) return false;
  let defined = false;
  let uses = 0;
  forEachOp(jvp.body, (op, region) => {
    if (op.results.includes(v)) defined = op.opcode === "literal" && region === jvp.body;
    uses += op.operands.filter((o) => o === v).length;
  });
  return defined && uses === 1;
}
