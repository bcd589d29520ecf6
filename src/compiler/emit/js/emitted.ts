import type { FunctionKey, Op, SourceLoc, Value } from "../../ir/types.js";
import type { Expr } from "./expression.js";
import type { Builtins } from "./module-names.js";

// What function emission produces (lines with their source locations) and how it names what
// lies outside the function.

export interface EmittedLine {
  text: string;
  indent: number;
  loc: SourceLoc | undefined;
}

export interface EmitNames {
  /** How code in this module calls the function a `call` op names. */
  callee(op: Op): string;
  /**
   * Whether the call runs the user's own function with a rest parameter, whose last argument
   * (the array lowering packed) is then spread (`sum(w, ...xs)`); generated code takes it whole.
   */
  spreadsRest(op: Op): boolean;
  /** How code in this module reads the module-level constant a `global` op names. */
  global(name: string): string;
  /** How code in this module refers to the user function with this key, as a value. */
  functionValue(key: FunctionKey): string;
  /** The local name of the nabla runtime namespace import. */
  runtime: string;
  /** How code in this module reads the platform's global `name` (`Math`, `Array`…). */
  builtin: Builtins;
  /** The name of the function an arrow given to `withDerivative` is hoisted to. */
  hoisted(name: string): string;
}

/** The state of a function being emitted that its collaborators (lanes, control flow) share. */
export interface EmitterState {
  readonly lines: EmittedLine[];
  indent: number;
  /** The local names of values. */
  readonly names: Map<number, string>;
  /** Values inlined into their use, as expressions not emitted yet. */
  readonly inlined: Map<number, Expr>;
  /** Inlined memory reads not used yet (see FunctionEmitter.settleReads). */
  readonly pendingReads: Map<number, Value>;
  line(text: string, loc: SourceLoc | undefined): void;
  declare(v: Value, preferred?: string): string;
  ref(v: Value): Expr;
}
