import type { IRFunction, FunctionKey } from "../ir/types.js";
import type { DiagnosticNote } from "../diagnostics/diagnostic.js";
import { runPipeline, type PassObserver } from "./pipeline.js";
import { summarizeEffects, type Effects } from "../analysis/effects.js";
import {
  expandInnerGradients,
  innerGradients,
  type InnerGradient,
  type InnerGradientTable,
} from "./inner-gradients.js";

// The functions tagged `@backend wasm`, as the WebAssembly backend runs them. Nobody
// differentiates that form, so it is lowered on its own (codeContext "wasm"): there an inner
// `gradient` with respect to arrays or objects runs in reverse mode (inner-gradients.ts)
// instead of one forward pass per element. Lowered before the derivatives are built, so the
// sweeps it calls are among the demands; expanded once they exist.

/**
 * A tagged function as the backend runs it, or why it cannot run as WebAssembly; `effects`:
 * what that form does to its arguments, when it is not the function differentiation lowers.
 */
export type WasmPrimalForm = { fn: IRFunction | undefined; reason?: string; effects?: Effects };

export interface WasmPrimalsHost extends InnerGradientTable {
  /** `key` lowered for a function run as WebAssembly (undefined: it cannot be). */
  lowerForWasm(key: FunctionKey): IRFunction | undefined;
  /** The function differentiation lowers for `key`. */
  lowered(key: FunctionKey): IRFunction | undefined;
  /** Sees each function after each pass (`nabla emit --ir --print-after`). */
  readonly observe?: PassObserver;
  /** Requests the sweeps of an inner gradient; if they cannot be built, they are stubs. */
  requestSweeps(gradient: InnerGradient, chain: DiagnosticNote[]): void;
}

export class WasmPrimals {
  /** Lowered for WebAssembly, when that form computes inner gradients in reverse mode. */
  private readonly own = new Map<FunctionKey, IRFunction>();
  private readonly expanded = new Map<FunctionKey, WasmPrimalForm>();

  constructor(private readonly host: WasmPrimalsHost) {}

  /** Lowers `key` for WebAssembly and requests the sweeps its inner gradients call. */
  prepare(key: FunctionKey, chain: DiagnosticNote[]): void {
    const fn = this.host.lowerForWasm(key);
    const gradients = fn ? innerGradients(fn) : [];
    if (!fn || gradients.length === 0) return;
    this.own.set(key, fn);
    for (const gradient of gradients) this.host.requestSweeps(gradient, chain);
  }

  /** `key` as the backend runs it (after the derivatives are built). */
  get(key: FunctionKey): WasmPrimalForm {
    const done = this.expanded.get(key);
    if (done) return done;
    const fn = this.own.get(key);
    let form: WasmPrimalForm = { fn: this.host.lowered(key) };
    if (fn) {
      // Taken before the expansion: the gradient's call changes none of its arguments
      // (checked there) and returns fresh adjoints, which the sweeps' calls would obscure.
      const effects = summarizeEffects(fn, this.host.effects);
      const expansion = expandInnerGradients(fn, this.host);
      if (expansion.ok) runPipeline("wasmPrimal", fn, this.host.observe);
      form = expansion.ok ? { fn, effects } : { fn: undefined, reason: expansion.reason };
    }
    this.expanded.set(key, form);
    return form;
  }
}
