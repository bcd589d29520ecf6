import { eliminateCommonSubexpressions } from "../ir/cse.js";
import { eliminateDeadCode } from "../ir/dce.js";
import { hoistLoopInvariants } from "../ir/licm.js";
import { packClosureCaptures, scalarizeLiterals } from "../ir/scalarize.js";
import type { IRFunction } from "../ir/types.js";
import { verifyFunction } from "../ir/verify.js";
import { sinkLastCallWrites, sinkLastWrites } from "./last-write.js";
import { callPrimalsForUnusedTangents } from "./primal-calls.js";
import { readReplacedSlots } from "./restore.js";

// The pass pipelines, by name, in one place: every function the compiler builds goes through
// one of these, in production (differentiator.ts) and in the golden tests of each pass
// (test/support/ir.ts) alike. `nabla emit --ir --print-after=<pass>` shows a function after
// each run of a pass.

/** A pass of the compiler, as `nabla emit --print-after` names it. */
export type PassName =
  | "cse"
  | "dce"
  | "licm"
  | "scalarize"
  | "pack-captures"
  | "sink-last-writes"
  | "sink-last-calls"
  | "primal-calls"
  | "restore-slots"
  | "verify";

/** A named list of passes (see PIPELINES): what a function goes through once built. */
export type PipelineName =
  | "lowered"
  | "inlined"
  | "derivedPrimal"
  | "forward"
  | "lanes"
  | "reverse"
  | "sweep"
  | "wasmPrimal";

const PASSES: Record<PassName, (fn: IRFunction) => unknown> = {
  /** Common subexpressions (ir/cse.ts): rules recompute what the primal computed. */
  cse: eliminateCommonSubexpressions,
  dce: eliminateDeadCode,
  /** Loop-invariant code motion (ir/licm.ts). */
  licm: hoistLoopInvariants,
  /** Literals whose fields are only read become their values (ir/scalarize.ts). */
  scalarize: scalarizeLiterals,
  /** A pullback closure's captures packed into one object (ir/scalarize.ts). */
  "pack-captures": packClosureCaptures,
  /** Loops carry what their last replacing iteration read (last-write.ts). */
  "sink-last-writes": sinkLastWrites,
  /** The same in forward mode, for tangents a pure call computes (last-write.ts). */
  "sink-last-calls": sinkLastCallWrites,
  /** Derivative calls whose tangent nobody reads call the function (primal-calls.ts). */
  "primal-calls": callPrimalsForUnusedTangents,
  /** Stores of shadows into shadows are undone by the backward sweep (restore.ts). */
  "restore-slots": readReplacedSlots,
  verify: verifyFunction,
};

export const PASS_NAMES = Object.keys(PASSES) as PassName[];

export const PIPELINES: Record<PipelineName, readonly PassName[]> = {
  /** A user function just lowered. */
  lowered: ["cse", "dce", "verify"],
  /** A function with its small callees inlined, before it is linearized. */
  inlined: ["cse", "dce", "scalarize", "verify"],
  /** A JVP made a primal function, to differentiate again (nest.ts). */
  derivedPrimal: ["dce", "verify"],
  /** A JVP for forward mode. */
  forward: ["dce", "sink-last-calls", "dce", "primal-calls", "dce", "verify"],
  /** A JVP along several directions at once (`jacobian`, emit/js/lanes.ts). */
  lanes: ["cse", "dce", "verify"],
  /**
   * A linearization for reverse mode, before unzipping. Restoring slots comes after dead-code
   * elimination, which would drop the reads nothing uses yet.
   */
  reverse: ["cse", "licm", "sink-last-writes", "dce", "primal-calls", "restore-slots", "verify"],
  /** The forward and the backward sweep of reverse mode. */
  sweep: ["cse", "licm", "dce", "pack-captures", "verify"],
  /**
   * A function run as WebAssembly whose inner gradients were expanded (wasm-primals.ts): the
   * array of adjoints a gradient with respect to several parameters gives, destructured at
   * once, becomes its elements (the backend has no arrays of mixed elements).
   */
  wasmPrimal: ["dce", "scalarize", "verify"],
};

/** Called after each pass a pipeline runs, with the function as the pass left it. */
export type PassObserver = (pass: PassName, fn: IRFunction, pipeline: PipelineName) => void;

export function runPipeline(name: PipelineName, fn: IRFunction, observe?: PassObserver): void {
  for (const pass of PIPELINES[name]) {
    PASSES[pass](fn);
    observe?.(pass, fn, name);
  }
}
