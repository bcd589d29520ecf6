import { typeModuleConstants } from "../../src/compiler/analyze/constant-types.js";
import { analyzeActivity } from "../../src/compiler/analyze/activity.js";
import { linearize } from "../../src/compiler/differentiate/linearize.js";
import { ReverseInfo } from "../../src/compiler/differentiate/residuals.js";
import { reverseSweeps } from "../../src/compiler/differentiate/sweeps.js";
import { emitFunction } from "../../src/compiler/emit/function.js";
import { eliminateDeadCode } from "../../src/compiler/ir/dce.js";
import { printFunction } from "../../src/compiler/ir/printer.js";
import type { IRFunction } from "../../src/compiler/ir/types.js";
import { verifyFunction } from "../../src/compiler/ir/verify.js";
import { lowerFunction } from "../../src/compiler/lower/function.js";
import { ProgramGraph } from "../../src/compiler/parse/program.js";

// Runs single passes on a function given as source, for golden tests of each pass's output.

const FILE = "/virtual/main.ts";

/** Lowers function `name` of `source` (cleaned up by dead-code elimination and verified). */
export function lower(source: string, name: string): IRFunction {
  const program = new ProgramGraph(typeModuleConstants, new Map([[FILE, source]]));
  const mod = program.load(FILE);
  const node = mod.functions.get(name);
  if (!node) throw new Error(`no function ${name}`);
  const { fn } = lowerFunction(program, mod, `${FILE}#${name}`, name, node);
  eliminateDeadCode(fn);
  verifyFunction(fn);
  return fn;
}

export function printLowered(source: string, name: string): string {
  return printFunction(lower(source, name));
}

/** The JVP of function `name` with respect to `wrt`, as IR. */
export function jvpOf(source: string, name: string, wrt: number[]): IRFunction {
  const primal = lower(source, name);
  const { fn } = linearize(primal, wrt, analyzeActivity(primal, wrt));
  eliminateDeadCode(fn);
  verifyFunction(fn);
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
): [IRFunction, IRFunction] {
  const fn = jvpOf(source, name, wrt);
  const arity = fn.params.filter((p) => !p.tangent).length;
  const info = new ReverseInfo(fn, { frozen, arity, effectsOf: () => undefined, wrt });
  const signature = { key: `${FILE}#${name}`, name, arity, frozen };
  const sweeps = reverseSweeps(info, signature, wrt, ["fwd", "bwd"], info.inputs()) as [
    IRFunction,
    IRFunction,
  ];
  for (const sweep of sweeps) {
    eliminateDeadCode(sweep);
    verifyFunction(sweep);
  }
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
  };
  return emitFunction(fn, names, false)
    .map((l) => "  ".repeat(l.indent) + l.text)
    .join("\n");
}
