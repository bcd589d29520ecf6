import { basename } from "node:path";
import type { DerivativeRule } from "../../parse/program.js";
import { isAggregate, isDifferentiable } from "../../ir/type-system.js";
import { tangentType } from "../../ir/tangent-types.js";
import type { IRFunction, RuleAdapter } from "../../ir/types.js";
import { zerosLike } from "./aggregates.js";
import * as js from "./expression.js";
import type { EmittedLine } from "./function.js";
import { laneShape } from "./lanes.js";
import type { Builtins } from "./module-names.js";

// The derivatives of a function with a registered rule, as small functions with the calling
// conventions of generated derivatives (see ir/names.ts), so callers cannot tell
// them apart:
// - jvp(args…, tangents of wrt…) calls `rule.forward` with a tangent for every
//   differentiable parameter (zero for those not in `wrt`);
// - jvps(args…, tangents of wrt…, k), along k directions at once (see lanes.ts), calls it once
//   per direction, with that direction's lane of each tangent;
// - fwd(args…, shadows of wrt arrays…) calls `rule.reverse` and keeps its pullback (and the
//   shadows it will fill) on the tape's object stack;
// - bwd(adjoint) runs the pullback, adds array adjoints into the shadows and returns the
//   number adjoints (the first, the others through `out`).

export function emitRuleAdapter(
  fn: IRFunction,
  adapter: RuleAdapter,
  rule: DerivativeRule,
  runtime: string,
  builtin: Builtins,
): EmittedLine[] {
  const lines: EmittedLine[] = [];
  let indent = 0;
  const line = (text: string) => lines.push({ text, indent, loc: fn.loc });
  const args = rule.params.map((_, i) => `a${i}`);
  const differentiable = rule.params.flatMap((p, i) => (isDifferentiable(p.type) ? [i] : []));
  const wrt = adapter.wrt;
  const aggregate = (i: number) => isAggregate(rule.params[i]!.type);
  const result = rule.result;
  const aggregateResult = isAggregate(result);
  const out = (k: number) => `${runtime}.out.v${k}`;
  const open = (params: string[]) => {
    line(`export function ${fn.name}(${params.join(", ")}) {`);
    indent++;
    if (adapter.kind !== "bwd") {
      // Its module has not run the registration yet (a module it imports uses f at load time).
      const where = JSON.stringify(basename(adapter.home));
      line(
        `if (${rule.constName} === undefined) ${runtime}.ruleNotYetRegistered(${JSON.stringify(rule.targetName)}, ${where});`,
      );
    }
  };
  const close = () => {
    indent--;
    line("}");
  };
  switch (adapter.kind) {
    case "jvp": {
      const tangents = wrt.map((i) => `t${i}`);
      const given = differentiable.map((i) =>
        wrt.includes(i)
          ? `t${i}`
          : zerosLike(tangentType(rule.params[i]!.type), js.name(`a${i}`), runtime, builtin).text,
      );
      open([...args, ...tangents]);
      line(`const r = ${rule.constName}.forward(${[...args, ...given].join(", ")});`);
      line(`${out(1)} = r.value;`);
      // Generated code may write into the tangent it gets (a rule may hand back `da` itself).
      line(aggregateResult ? `return ${runtime}.copyTangent(r.tangent);` : "return r.tangent;");
      close();
      break;
    }
    case "jvps": {
      const tangents = wrt.map((i) => `t${i}`);
      const shape = (type: Parameters<typeof tangentType>[0]) =>
        JSON.stringify(laneShape(tangentType(type)));
      const given = differentiable.map((i) =>
        !wrt.includes(i)
          ? zerosLike(tangentType(rule.params[i]!.type), js.name(`a${i}`), runtime, builtin).text
          : aggregate(i)
            ? `${runtime}.laneOf(t${i}, ${shape(rule.params[i]!.type)}, k, q)`
            : `t${i}[q]`,
      );
      open([...args, ...tangents, "k"]);
      line("let value, lanes;");
      line("for (let q = 0; q < k; q++) {");
      indent++;
      line(`const r = ${rule.constName}.forward(${[...args, ...given].join(", ")});`);
      line(
        `if (q === 0) { value = r.value; lanes = ${runtime}.laneZeros(r.tangent, ${shape(result)}, k); }`,
      );
      line(`${runtime}.setLane(lanes, ${shape(result)}, k, q, r.tangent);`);
      indent--;
      line("}");
      line(`${out(1)} = value;`);
      line("return lanes;");
      close();
      break;
    }
    case "fwd": {
      const shadows = wrt.filter(aggregate).map((i) => `s${i}`);
      open([...args, ...shadows]);
      // The pullback may close over the arguments and the value, which the program may change
      // before the backward sweep runs: it gets copies of arrays and objects.
      const given = args.map((a, i) => (aggregate(i) ? `${runtime}.copyValue(${a})` : a));
      line(`const r = ${rule.constName}.reverse(${given.join(", ")});`);
      const kept = ["r.pullback", ...shadows];
      if (aggregateResult) {
        line(
          `const dr = ${zerosLike(tangentType(result), js.name("r.value"), runtime, builtin).text};`,
        );
        kept.push("dr");
        line(`${out(1)} = dr;`);
      }
      line(`${runtime}.tape.objects.push(${kept.join(", ")});`);
      line(aggregateResult ? `return ${runtime}.copyValue(r.value);` : "return r.value;");
      close();
      break;
    }
    case "bwd": {
      const shadows = wrt.filter(aggregate).map((i) => `s${i}`);
      open(aggregateResult || !isDifferentiable(result) ? [] : ["seed"]);
      line(`const objects = ${runtime}.tape.objects;`);
      if (aggregateResult) line("const dr = objects.pop();");
      for (const s of [...shadows].reverse()) line(`const ${s} = objects.pop();`);
      line("const pullback = objects.pop();");
      line(`const g = pullback(${aggregateResult ? "dr" : "seed"});`);
      const adjointOf = (i: number) => {
        const k = differentiable.indexOf(i);
        return differentiable.length === 1 ? "g" : `g[${k}]`;
      };
      for (const i of wrt.filter(aggregate)) line(`${runtime}.addTangent(s${i}, ${adjointOf(i)});`);
      // The result's shadow is zero again for the next run of this backward sweep (a pullback
      // called twice replays the same tape).
      if (aggregateResult) line(`${runtime}.clearTangent(dr);`);
      const numbers = wrt.filter((i) => !aggregate(i));
      numbers.slice(1).forEach((i, k) => line(`${out(k + 1)} = ${adjointOf(i)};`));
      if (numbers.length > 0) line(`return ${adjointOf(numbers[0]!)};`);
      close();
      break;
    }
  }
  return lines;
}
