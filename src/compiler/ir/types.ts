// The IR: typed SSA values inside structured control flow (regions), in the spirit of
// MLIR's `scf` dialect. Every op lives in a region; `if` and `loop` own nested regions and
// pass values out through explicit results, so there are no phi nodes and no CFG.

/** Where an op came from in the user's source, for diagnostics and source maps. */
export interface SourceLoc {
  file: string;
  start: number;
  end: number;
}

export type Type = "number" | "boolean" | "string" | "void";

export interface Value {
  readonly id: number;
  readonly type: Type;
  /** The source variable this value holds, if any; used to name emitted locals. */
  hint: string;
  /** Set by linearize on values of the tangent (differential) part of a derivative. */
  tangent?: boolean;
}

export type BinaryOpcode = "add" | "sub" | "mul" | "div" | "rem" | "pow";
export type CompareOpcode = "lt" | "le" | "gt" | "ge" | "eq" | "ne";
export type UnaryOpcode = "neg" | "not" | "truthy";

export type Opcode =
  | "const" // attrs.value
  | BinaryOpcode
  | CompareOpcode
  | UnaryOpcode
  | "and" // boolean and of two already-evaluated booleans (no short circuit)
  | "or"
  | "select" // operands [cond, a, b]: a when cond else b; both already evaluated
  | "detach" // withoutDerivative(x): x, with a zero derivative
  | "nondiff" // attrs.callee = JS operator or global function (`|`, `String`); no derivative
  | "math" // attrs.callee = Math function name
  | "call" // attrs.callee = FunctionKey of a user function
  | "extern" // attrs.callee = dotted path of an outside function (console.log); inactive only
  | "global" // attrs.callee = module-level constant name, attrs.value its number
  | "if" // operands [cond], regions [then, else], results
  | "loop" // operands inits, regions [before, after], results
  | "yield" // terminator of if-branches and loop `after` regions
  | "condition" // terminator of loop `before` regions: operands [cond, ...forwarded]
  | "return" // terminator of a function body
  | "push" // reverse mode: operands [v], saves v on the tape
  | "pop" // reverse mode: results [v], takes the last value saved on the tape
  | "peak"; // reverse mode: the tape is at its highest here (end of a forward sweep), for statistics

export interface Op {
  opcode: Opcode;
  operands: Value[];
  results: Value[];
  regions: Region[];
  attrs: OpAttrs;
  loc: SourceLoc;
  /** Set by linearize on ops that compute tangents (the differential part of the program). */
  tangent?: boolean;
}

export interface OpAttrs {
  value?: number | boolean | string;
  callee?: string;
  /** A user callee as written at the call site (`g`, `ns.g`): how the emitted code names it. */
  calleeName?: string;
  /** On a call of a derivative: the primal function and the differentiated parameters. */
  primal?: FunctionKey;
  wrt?: number[];
}

export interface Region {
  params: Value[];
  ops: Op[];
}

/** Identifies a user function across the program: `<absolute file>#<name>`. */
export type FunctionKey = string;

export interface IRFunction {
  key: FunctionKey;
  name: string;
  params: Value[];
  /** How many trailing parameters hold captured variables (for a lambda); never differentiated. */
  captures: number;
  /** One type for a primal function; derivatives return several values (e.g. tangent, value). */
  resultTypes: Type[];
  body: Region;
  loc: SourceLoc;
}

export const TERMINATORS: ReadonlySet<Opcode> = new Set(["yield", "condition", "return"]);

/**
 * Ops with no side effects of their own: they may be removed when their results are unused.
 * User calls are kept, since a callee may log.
 */
export function isPure(op: Op): boolean {
  return !IMPURE.has(op.opcode) && !TERMINATORS.has(op.opcode);
}

const IMPURE: ReadonlySet<Opcode> = new Set(["extern", "call", "push", "pop", "peak"]);
