import type { IRFunction, FunctionKey, Op } from "../ir/types.js";
import type { DiagnosticNote } from "../diagnostics/diagnostic.js";
import { runPipeline, type PassObserver } from "./pipeline.js";
import { summarizeEffects, type Effects } from "../analysis/effects.js";
import { forEachOp, someOp } from "../ir/walk.js";
import { inlinable, inlineCalls, opCount } from "../ir/inline.js";
import { keyFile } from "../ir/function-key.js";
import {
  expandInnerGradients,
  innerGradients,
  type InnerGradient,
  type InnerGradientTable,
} from "./inner-gradients.js";

// The functions tagged `@backend wasm`, as the WebAssembly backend runs them. Nobody
// differentiates that form, so it is lowered on its own (codeContext "wasm"): there an inner
// `gradient` with respect to arrays or objects runs in reverse mode (inner-gradients.ts)
// instead of one forward pass per element. So are the helpers it calls that take such a
// gradient (`function partial(row) { return gradient(f)(row)[0]; }`): in its wasm module they
// are these forms, elsewhere the ones differentiation lowers. Lowered before the derivatives
// are built, so the sweeps they call are among the demands; expanded once they exist.

/**
 * A tagged function as the backend runs it, or why it cannot run as WebAssembly; `effects`:
 * what that form does to its arguments, when it is not the function differentiation lowers.
 */
export type WasmPrimalForm = {
  fn: IRFunction | undefined;
  reason?: string;
  effects?: Effects;
  /** The helpers it calls, directly or not, that take an inner gradient: their wasm forms. */
  helpers?: ReadonlyMap<FunctionKey, IRFunction>;
};

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
  /** Per tagged function, the wasm forms of the helpers it calls that take inner gradients. */
  private readonly ownHelpers = new Map<FunctionKey, Map<FunctionKey, IRFunction>>();
  private readonly expanded = new Map<FunctionKey, WasmPrimalForm>();

  constructor(private readonly host: WasmPrimalsHost) {}

  /**
   * Lowers `key` for WebAssembly, and the functions it calls, and requests the sweeps their
   * inner gradients call.
   */
  prepare(key: FunctionKey, chain: DiagnosticNote[]): void {
    const fn = this.host.lowerForWasm(key);
    if (!fn) return;
    const helpers = new Map<FunctionKey, IRFunction>();
    const seen = new Set<FunctionKey>([key]);
    const visit = (caller: IRFunction) => {
      const callees: FunctionKey[] = [];
      forEachOp(caller.body, (op) => {
        const callee = op.opcode === "call" ? op.attrs.callee : undefined;
        if (callee !== undefined && !seen.has(callee)) {
          seen.add(callee);
          callees.push(callee);
        }
      });
      for (const callee of callees) {
        const helper = this.host.lowerForWasm(callee);
        if (!helper) continue;
        if (innerGradients(helper).length > 0) helpers.set(callee, helper);
        visit(helper);
      }
    };
    visit(fn);
    const gradients = [fn, ...helpers.values()].flatMap(innerGradients);
    if (gradients.length === 0) return;
    this.own.set(key, fn);
    this.ownHelpers.set(key, helpers);
    for (const gradient of gradients) this.host.requestSweeps(gradient, chain);
  }

  /** `key` as the backend runs it (after the derivatives are built). */
  get(key: FunctionKey): WasmPrimalForm {
    const done = this.expanded.get(key);
    if (done) return done;
    const fn = this.own.get(key);
    let form: WasmPrimalForm = { fn: this.host.lowered(key) };
    if (fn) {
      const helpers = this.ownHelpers.get(key) ?? new Map<FunctionKey, IRFunction>();
      // Taken before the expansion: the gradient's call changes none of its arguments
      // (checked there) and returns fresh adjoints, which the sweeps' calls would obscure.
      // A helper's are its wasm form's: differentiation may not read its gradient at all.
      const helperEffects = new Map<FunctionKey, Effects | undefined>();
      const effectsOf = (callee: FunctionKey): Effects | undefined => {
        const helper = helpers.get(callee);
        if (!helper) return this.host.effects(callee);
        if (!helperEffects.has(callee)) {
          helperEffects.set(callee, undefined); // unknown while a recursive call asks
          helperEffects.set(callee, summarizeEffects(helper, effectsOf));
        }
        return helperEffects.get(callee);
      };
      const effects = summarizeEffects(fn, effectsOf);
      let reason: string | undefined;
      for (const f of [fn, ...helpers.values()]) {
        const expansion = expandInnerGradients(f, this.host, f !== fn);
        if (!expansion.ok) {
          reason = expansion.reason;
          break;
        }
      }
      if (reason === undefined) {
        const inlined = withHelpersInlined(fn, helpers);
        for (const f of [inlined, ...helpers.values()])
          runPipeline("wasmPrimal", f, this.host.observe);
        form = { fn: inlined, effects, helpers };
      } else form = { fn: undefined, reason };
    }
    this.expanded.set(key, form);
    return form;
  }
}

/** The most ops a helper may have to be inlined into the function run as WebAssembly. */
const INLINED_HELPER_OPS = 400;
/** The most ops the function may grow to by inlining its helpers (mutual recursion stops). */
const INLINED_CALLER_OPS = 4000;

/**
 * `fn` with the calls of its helpers replaced by their bodies, helpers' calls of helpers too:
 * what a helper returns (`return gradient(f, { wrt: [0, 1] })(x, w)`, an array and a number)
 * is then taken apart where the caller destructures it (the pipeline's scalarize), where as a
 * call's result it would be a tuple of different kinds, which wasm does not carry. A helper
 * with a return before its end, that calls itself, would make the function too large, or is
 * of another module stays a call: the function's JavaScript fallback is emitted from this
 * form, and the functions another module's helper calls may not be exported.
 */
function withHelpersInlined(
  fn: IRFunction,
  helpers: ReadonlyMap<FunctionKey, IRFunction>,
): IRFunction {
  let budget = 0;
  const helperOf = (call: Op): IRFunction | undefined => {
    const helper = call.attrs.callee === undefined ? undefined : helpers.get(call.attrs.callee);
    if (!helper || keyFile(helper.key) !== keyFile(fn.key)) return undefined;
    if (someOp(helper.body, (op) => op.attrs.callee === helper.key)) return undefined;
    const size = opCount(helper);
    if (size > budget || !inlinable(fn, call, helper, INLINED_HELPER_OPS)) return undefined;
    budget -= size;
    return helper;
  };
  let current = fn;
  // A helper's helpers come in with its body: one more round each, at most one per helper.
  for (let round = 0; round <= helpers.size; round++) {
    budget = INLINED_CALLER_OPS - opCount(current);
    const next = inlineCalls(current, helperOf);
    if (!next) break;
    current = next;
  }
  return current;
}
