import type { EffectsOf } from "../analysis/effects.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import type { CodeContext } from "../diagnostics/messages/index.js";
import type { FunctionKey, IRFunction, Type } from "../ir/types.js";
import type { WasmPrimalForm } from "./wasm-primals.js";

/**
 * What emission reads once differentiation has run: the primal and generated functions by
 * key, and the facts about them a wrapper needs. The Differentiator is one; emission sees
 * only this, so a second backend reads the same table.
 */
export interface DerivativeTable {
  /** Lowered primal functions (undefined: could not be lowered, an error was reported). */
  readonly primals: ReadonlyMap<FunctionKey, IRFunction | undefined>;
  /** Generated functions (undefined: could not be generated, an error was reported). */
  readonly derivatives: ReadonlyMap<FunctionKey, IRFunction | undefined>;
  /** The parameters a backward sweep takes again from its caller (see inputsOf). */
  inputsOf(key: FunctionKey): readonly number[];
  /** The array parameters a root call keeps unchanged until its backward sweep. */
  rootFrozen(key: FunctionKey): number[];
  signatureOf(key: FunctionKey): { params: Type[]; result: Type | undefined } | undefined;
  /** Why a primal that is not in `primals` could not be lowered (see Differentiator). */
  loweringErrors(key: FunctionKey, codeContext: CodeContext): Diagnostic[];
  /** A function tagged `@backend wasm` as that backend runs it (see wasm-primals.ts). */
  wasmPrimal(key: FunctionKey): WasmPrimalForm;
  /** What a function does to its array and object arguments. */
  readonly effects: EffectsOf;
}
