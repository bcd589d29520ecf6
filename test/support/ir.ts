import { typeModuleConstants } from "../../src/compiler/types/constant-types.js";
import { analyzeActivity } from "../../src/compiler/analysis/activity.js";
import { linearize } from "../../src/compiler/differentiate/linearize.js";
import { ReverseInfo } from "../../src/compiler/differentiate/residuals.js";
import { reverseSweeps } from "../../src/compiler/differentiate/sweeps.js";
import { emitFunction } from "../../src/compiler/emit/js/function.js";
import { runPipeline, type PassObserver } from "../../src/compiler/differentiate/pipeline.js";
import type { IRFunction } from "../../src/compiler/ir/types.js";
import { lowerFunction } from "../../src/compiler/lower/function.js";
import { ProgramGraph } from "../../src/compiler/parse/program.js";

// Runs single passes on a function given as source, for golden tests of each pass's output.

const FILE = "/virtual/main.ts";

/** Lowers function `name` of `source`, then runs the pipeline production runs on it. */
export function lower(source: string, name: string, observe?: PassObserver): IRFunction {
  const program = new ProgramGraph(typeModuleConstants, new Map([[FILE, source]]));
  const mod = program.load(FILE);
  const node = mod.functions.get(name);
  if (!node) throw new Error(`no function ${name}`);
  const { fn } = lowerFunction(program, mod, `${FILE}#${name}`, name, node);
  runPipeline("lowered", fn, observe);
  return fn;
}

/** The JVP of function `name` with respect to `wrt`, as IR, after forward mode's pipeline. */
export function jvpOf(
  source: string,
  name: string,
  wrt: number[],
  pipeline: "forward" | "reverse" = "forward",
  observe?: PassObserver,
): IRFunction {
  const primal = lower(source, name);
  const { fn } = linearize(primal, wrt, analyzeActivity(primal, wrt));
  runPipeline(pipeline, fn, observe);
  return fn;
}

/**
 * The forward and backward sweeps of reverse mode for function `name` and `wrt`; `frozen`
 * lists the array parameters the caller keeps unchanged until the backward sweep.
 */
export function sweepsOf(
  source: string,
  name: string,
  wrt: number[],
  frozen: number[] = [],
  observe?: PassObserver,
): [IRFunction, IRFunction] {
  const fn = jvpOf(source, name, wrt, "reverse");
  const arity = fn.params.filter((p) => !p.tangent).length;
  const info = new ReverseInfo(fn, { frozen, arity, effectsOf: () => undefined, wrt });
  const signature = { key: `${FILE}#${name}`, name, arity, frozen };
  const sweeps = reverseSweeps(info, signature, wrt, ["fwd", "bwd"], info.inputs()) as [
    IRFunction,
    IRFunction,
  ];
  for (const sweep of sweeps) runPipeline("sweep", sweep, observe);
  return sweeps;
}

/** Emitted JavaScript of an IR function, calls named by their source names. */
export function emitted(fn: IRFunction): string {
  const names = {
    callee: (op: { attrs: { callee?: string } }) =>
      op.attrs.callee!.replace(/^.*#/, "").replace(/@(jvp|fwd|bwd)\(.*\)$/, "$$$1"),
    global: (n: string) => n,
    functionValue: (k: string) => k.replace(/^.*#/, ""),
    runtime: "$nabla",
    builtin: (n: string) => n,
    hoisted: (n: string) => n,
    spreadsRest: () => false,
  };
  return emitFunction(fn, names, false)
    .map((l) => "  ".repeat(l.indent) + l.text)
    .join("\n");
}
