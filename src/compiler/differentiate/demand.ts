import type { DiagnosticNote } from "../diagnostics/diagnostic.js";
import type { DerivativeKind } from "../ir/names.js";
import type { FunctionKey, IRFunction, SourceLoc } from "../ir/types.js";

// The unit of work of the differentiator (differentiator.ts): one function, the parameters
// differentiated, the mode, and the call chain that asked for it.

/**
 * Forward mode needs a JVP; reverse mode a forward sweep and a backward sweep; `gradient`
 * also the fused gradient function, `pullback` the closure form (both when they pay); `lanes`
 * (`jacobian`) a JVP along k directions at once.
 */
export type Mode = "forward" | "reverse" | "gradient" | "pullback" | "lanes";

/** The derivative functions each mode makes. */
export const KINDS: Record<Mode, DerivativeKind[]> = {
  forward: ["jvp"],
  lanes: ["jvps"],
  reverse: ["fwd", "bwd"],
  gradient: ["fwd", "bwd", "grad"],
  pullback: ["fwd", "bwd", "vjp"],
};

export interface Demand {
  key: FunctionKey;
  wrt: number[];
  /** Reverse mode: array parameters unchanged until the backward sweep (see ReverseInfo). */
  frozen: number[];
  mode: Mode;
  /** Notes from the innermost call outwards. */
  chain: DiagnosticNote[];
  root: boolean;
  /** A checkpointed call's sweeps (see emit/js/checkpoint.ts), not the function's own. */
  checkpoint?: boolean;
  /**
   * Needed only if the program takes a particular path at run time (a candidate of a function
   * chosen at run time, a derivative attached for a plain run): if it cannot be built, its
   * errors become warnings with this note, and its derivatives throw when called.
   */
  optional?: string;
}

/** Where a demand's diagnostics point when nothing closer is known: the call that asked. */
export function demandLoc(demand: Demand): SourceLoc {
  return demand.chain[0]?.loc ?? { file: "", start: 0, end: 0 };
}

/**
 * A function without a body, emitted from what `extra` describes: a rule adapter, a
 * checkpointed call's sweep, a stub that throws, or a placeholder a later step fills.
 */
export function bodiless(
  key: FunctionKey,
  name: string,
  loc: SourceLoc,
  extra: Pick<IRFunction, "adapter" | "checkpoint" | "stub"> = {},
): IRFunction {
  return {
    key,
    name,
    params: [],
    captures: 0,
    resultTypes: [],
    body: { params: [], ops: [] },
    loc,
    ...extra,
  };
}
